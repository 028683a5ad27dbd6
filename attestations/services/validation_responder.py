"""Answer ValidationRequests addressed to the service's validator with the agent's current trust score.

response = the score rounded half up to an integer 0-100; responseURI = the signed attestation's URL;
responseHash = its keccak256; tag = CHAIN_VALIDATION_TAG ("hcs-25"). The indexer creates one
ValidationAnswer per request hash; services.outbox sends it exactly once.

An agent that is not rated yet (no input counts towards its score) is not answered with a 0, which would
read as a verdict: the answer is deferred (status `deferred`, nothing signed or sent) and the responder's
sweep (`validation_answers_resume`) hands it back to the outbox once the agent is rated.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.conf import settings
from django.db.models import F
from web3 import Web3
from web3.types import TxParams

from common.errors import ApplicationError
from registry.models import Agent
from registry.services.scoring import trust_score_compute
from signing.chain.settings import ChainSettings
from signing.chain.tx import Fees, TransactionSigner
from signing.chain.validation import ValidationClient

from ..models import OutgoingStatus, ValidationAnswer
from .outbox import outgoing_due, outgoing_send
from .publishing import attestation_url
from .scores import score_attestation_issue, score_is_rated

# How many deferred answers one sweep hands back to the outbox (the rest wait for the next sweep).
RESUME_BATCH = 500


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
    """Send (or finish sending) our response to one validation request; defer it while the agent is
    not rated (nothing is signed or sent, and no attempt is counted)."""
    answer = ValidationAnswer.objects.get(pk=answer_id)
    unprepared = (
        answer.status == OutgoingStatus.PENDING and not answer.tx_hash and answer.attestation_id is None
    )
    if unprepared and not _agent_rated(answer):
        return _defer(answer_id)
    try:
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
    except ApplicationError as error:
        if error.problem != "not-rated":
            raise
        # Rated when checked, unrated by the time it was prepared: the outbox counted an attempt.
        ValidationAnswer.objects.filter(pk=answer_id).update(attempts=F("attempts") - 1)
        return _defer(answer_id)


def _agent_rated(answer: ValidationAnswer) -> bool:
    """Whether the agent has a score worth answering with (computed now if it has none yet)."""
    if answer.agent_id is None:
        return False
    agent = Agent.objects.select_related("latest_score").get(pk=answer.agent_id)
    score = agent.latest_score or trust_score_compute(agent=agent)[0]
    return score_is_rated(score=score)


def _defer(answer_id: int) -> ValidationAnswer:
    ValidationAnswer.objects.filter(
        pk=answer_id, status=OutgoingStatus.PENDING, claim_token="", tx_hash="", attestation__isnull=True
    ).update(status=OutgoingStatus.DEFERRED, last_error="deferred: the agent is not rated yet")
    return ValidationAnswer.objects.get(pk=answer_id)


def validation_answers_resume(*, chain: ChainSettings, limit: int = RESUME_BATCH) -> int:
    """Hand deferred answers whose agent is now rated back to the outbox (oldest first, at most `limit`)."""
    ids = list(
        ValidationAnswer.objects.filter(
            chain_id=chain.chain_id,
            status=OutgoingStatus.DEFERRED,
            agent__latest_score__trust_confidence__gt=0,
        )
        .order_by("created_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    return ValidationAnswer.objects.filter(pk__in=ids, status=OutgoingStatus.DEFERRED).update(
        status=OutgoingStatus.PENDING, last_error=""
    )


def validation_answers_due(*, chain: ChainSettings) -> list[int]:
    return outgoing_due(model=ValidationAnswer, chain_id=chain.chain_id)
