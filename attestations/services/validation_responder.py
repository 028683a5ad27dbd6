"""Answer ValidationRequests addressed to the service's validator with the agent's current trust score.

response = the score rounded half up to an integer 0-100; responseURI = the signed attestation's URL;
responseHash = its keccak256; tag = CHAIN_VALIDATION_TAG ("hcs-25"). The indexer creates one
ValidationAnswer per request hash; services.outbox sends it exactly once.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.conf import settings
from web3 import Web3
from web3.types import TxParams

from registry.models import Agent
from registry.services.scoring import trust_score_compute

from ..chain.settings import ChainSettings
from ..chain.tx import Fees, TransactionSigner
from ..chain.validation import ValidationClient
from ..models import ValidationAnswer
from .outbox import outgoing_due, outgoing_send
from .publishing import attestation_url
from .scores import score_attestation_issue


def validation_response_value(score: Decimal) -> int:
    """A 0-100 trust score as a validationResponse (uint8 0-100), rounded half up.

    >>> validation_response_value(Decimal("72.50")), validation_response_value(Decimal("72.49"))
    (73, 72)
    """
    return int(score.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _prepare(answer: ValidationAnswer) -> None:
    if answer.attestation_id is not None:
        return
    assert answer.agent_id is not None
    agent = Agent.objects.select_related("latest_score__config").get(pk=answer.agent_id)
    score = agent.latest_score or trust_score_compute(agent=agent)[0]
    attestation = score_attestation_issue(score=score)
    ValidationAnswer.objects.filter(pk=answer.pk).update(
        attestation=attestation,
        response=validation_response_value(score.trust_score),
        response_uri=attestation_url(attestation_id=attestation.pk),
        response_hash=attestation.document_hash,
        tag=settings.CHAIN_VALIDATION_TAG,
    )
    answer.refresh_from_db()


def _builder(chain: ChainSettings, w3: Web3) -> Any:
    assert chain.validation_registry is not None
    client = ValidationClient(w3, chain.validation_registry)

    def build(answer: ValidationAnswer, sender: str, nonce: int, fees: Fees) -> TxParams:
        assert answer.response is not None
        return client.build_validation_response(
            answer.request_hash,
            answer.response,
            response_uri=answer.response_uri,
            response_hash=answer.response_hash,
            tag=answer.tag,
            sender=sender,
            nonce=nonce,
            fees=fees,
        )

    return build


def validation_answer_send(
    *,
    answer_id: int,
    chain: ChainSettings,
    w3: Web3,
    signer: TransactionSigner,
    receipt_timeout: float | None = None,
) -> ValidationAnswer:
    """Send (or finish sending) our response to one validation request."""
    return outgoing_send(
        model=ValidationAnswer,
        pk=answer_id,
        chain=chain,
        w3=w3,
        signer=signer,
        build=_builder(chain, w3),
        prepare=_prepare,
        receipt_timeout=receipt_timeout,
    )


def validation_answers_due(*, chain: ChainSettings) -> list[int]:
    return outgoing_due(model=ValidationAnswer, chain_id=chain.chain_id)
