"""Publish trust scores to the ERC-8004 ReputationRegistry as giveFeedback.

value = score x 100 with 2 decimals; tag1/tag2 name HCS-25 and the adapter; endpoint is the score's
URL; feedbackURI is the URL of the publication's ERC-8004 feedback file (which carries the signed
attestation) and feedbackHash the keccak256 of the bytes served there. Sending goes through
services.outbox, which guarantees one transaction per publication.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from eth_utils import keccak
from hexbytes import HexBytes
from web3 import Web3
from web3.types import TxParams

from common.enqueue import task_enqueue_on_commit
from common.errors import ApplicationError
from registry.models import Agent, TrustScore
from signing.chain.publish import feedback_file
from signing.chain.reputation import ReputationClient, score_to_feedback_value
from signing.chain.settings import ChainSettings
from signing.chain.tx import Fees, TransactionSigner

from ..models import ScorePublication
from .outbox import outgoing_due, outgoing_send
from .scores import score_attestation_issue, score_is_rated


def score_url(*, agent: Agent) -> str:
    return f"{settings.SITE_URL}/api/v1/agents/{agent.subject_id}/trust-score"


def attestation_url(*, attestation_id: int) -> str:
    return f"{settings.SITE_URL}/api/v1/attestations/{attestation_id}"


def feedback_url(*, publication_id: int) -> str:
    return f"{settings.SITE_URL}/api/v1/feedback/{publication_id}"


def score_publication_request(*, score: TrustScore, chain: ChainSettings) -> ScorePublication:
    """Ask for `score` to be published on `chain` (once: asking again returns the same publication)."""
    agent = score.agent
    if agent.erc8004_agent_id is None or agent.chain_id != chain.chain_id:
        raise ApplicationError(
            f"Agent {agent.subject_id!r} has no ERC-8004 identity on chain {chain.chain_id}.",
            status=409,
            problem="conflict",
        )
    if not score_is_rated(score=score):
        raise ApplicationError(
            f"Agent {agent.subject_id!r} is not rated yet: an unrated score is never published.",
            status=409,
            problem="not-rated",
        )
    try:
        with transaction.atomic():
            publication, created = ScorePublication.objects.get_or_create(
                score=score, chain_id=chain.chain_id, defaults={"agent": agent}
            )
    except IntegrityError:
        return ScorePublication.objects.get(score=score, chain_id=chain.chain_id)
    if created:
        task_enqueue_on_commit("attestations.tasks.publish_score", publication.pk)
    return publication


def _prepare(publication: ScorePublication, *, chain: ChainSettings, client_address: str) -> None:
    """Fix what will be published (attestation, feedback file, value, tags, URIs) before signing.

    Done once: a retry or a re-signing sends the same feedbackURI and feedbackHash, so the file served
    there always hashes to what the chain holds.
    """
    if publication.attestation_id is not None:
        return
    score = TrustScore.objects.select_related("agent", "config").get(pk=publication.score_id)
    assert score.agent.erc8004_agent_id is not None and chain.identity_registry is not None
    attestation = score_attestation_issue(score=score)
    value, decimals = score_to_feedback_value(score.trust_score)
    tag1, tag2 = settings.CHAIN_FEEDBACK_TAG1, settings.CHAIN_FEEDBACK_TAG2
    endpoint = score_url(agent=score.agent)
    document = feedback_file(
        chain_id=chain.chain_id,
        identity_registry=chain.identity_registry,
        agent_id=int(score.agent.erc8004_agent_id),
        client_address=client_address,
        created_at=timezone.now(),
        value=value,
        value_decimals=decimals,
        tag1=tag1,
        tag2=tag2,
        endpoint=endpoint,
        attestation=json.loads(attestation.document),
    )
    ScorePublication.objects.filter(pk=publication.pk).update(
        attestation=attestation,
        value=value,
        value_decimals=decimals,
        tag1=tag1,
        tag2=tag2,
        endpoint=endpoint,
        feedback_uri=feedback_url(publication_id=publication.pk),
        feedback_document=document.decode(),
        feedback_hash="0x" + keccak(document).hex(),
    )
    publication.refresh_from_db()


def _builder(chain: ChainSettings, w3: Web3) -> Any:
    assert chain.reputation_registry is not None
    client = ReputationClient(w3, chain.reputation_registry)

    def build(publication: ScorePublication, sender: str, nonce: int, fees: Fees) -> TxParams:
        assert publication.value is not None and publication.agent.erc8004_agent_id is not None
        return client.build_give_feedback(
            int(publication.agent.erc8004_agent_id),
            publication.value,
            publication.value_decimals,
            tag1=publication.tag1,
            tag2=publication.tag2,
            endpoint=publication.endpoint,
            feedback_uri=publication.feedback_uri,
            feedback_hash=bytes(HexBytes(publication.feedback_hash)),
            sender=sender,
            nonce=nonce,
            fees=fees,
        )

    return build


def score_publication_send(
    *,
    publication_id: int,
    chain: ChainSettings,
    w3: Web3,
    signer: TransactionSigner,
    receipt_timeout: float | None = None,
) -> ScorePublication:
    """Send (or finish sending) one publication; see services.outbox for the exactly-once rules."""
    return outgoing_send(
        model=ScorePublication,
        pk=publication_id,
        chain=chain,
        w3=w3,
        signer=signer,
        build=_builder(chain, w3),
        prepare=partial(_prepare, chain=chain, client_address=signer.address),
        receipt_timeout=receipt_timeout,
    )


def score_publications_due(*, chain: ChainSettings) -> list[int]:
    return outgoing_due(model=ScorePublication, chain_id=chain.chain_id)


def score_publication_feedback(*, publication_id: int) -> ScorePublication:
    """The publication whose feedback file is served at its feedbackURI (404 until it is prepared)."""
    publication = (
        ScorePublication.objects.filter(pk=publication_id)
        .exclude(feedback_document="")
        .only("pk", "feedback_document", "feedback_hash")
    ).first()
    if publication is None:
        raise ApplicationError("No such feedback file.", status=404, problem="not-found")
    return publication


def score_publications_list(*, agent: Agent) -> list[ScorePublication]:
    return list(ScorePublication.objects.filter(agent=agent).select_related("score").order_by("-created_at"))


def score_publications_auto_request(*, chain: ChainSettings, now: datetime | None = None) -> int:
    """Queue the publication of each on-chain agent's newest score, when auto-publishing is on.

    Publishing costs gas and every feedback stays on chain, so a new score is published only when
    CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS have passed since the agent's last publication and the
    score moved by at least CHAIN_AUTO_PUBLISH_MIN_CHANGE points.
    """
    if not settings.CHAIN_AUTO_PUBLISH:
        return 0
    now = now or timezone.now()
    gap = timedelta(seconds=settings.CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS)
    min_change = Decimal(str(settings.CHAIN_AUTO_PUBLISH_MIN_CHANGE))
    requested = 0
    agents = Agent.objects.filter(
        chain_id=chain.chain_id,
        erc8004_agent_id__isnull=False,
        latest_score__isnull=False,
        latest_score__trust_confidence__gt=0,
    ).select_related("latest_score")
    for agent in agents.iterator():
        score = agent.latest_score
        assert score is not None
        last = (
            ScorePublication.objects.filter(agent=agent, chain_id=chain.chain_id)
            .select_related("score")
            .order_by("-created_at", "-id")
            .first()
        )
        if last is not None and (
            last.score_id == score.pk
            or now - last.created_at < gap
            or abs(last.score.trust_score - score.trust_score) < min_change
        ):
            continue
        score_publication_request(score=score, chain=chain)
        requested += 1
    return requested
