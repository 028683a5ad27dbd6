"""Celery tasks for ERC-8004: thin wrappers that build the chain context and call a service.

Every task is a no-op while CHAIN_ENABLED is off. Transient node/network errors retry with backoff;
a publication or answer that outlives its retries is picked up again by the periodic sweeps.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import OperationalError, transaction

from signing.chain.registration import RegistrationUnreachable

from .models import ScorePublication, ValidationAnswer
from .services.chain import chain_context, chain_contexts, chain_signer, validator_address
from .services.indexer import chain_index_run
from .services.outbox import TRANSIENT_ERRORS, TransientChainError
from .services.publishing import (
    score_publication_send,
    score_publications_auto_request,
    score_publications_due,
)
from .services.registrations import agent_registration_fetch
from .services.registrations import agent_registrations_refresh as _refresh
from .services.validation_responder import (
    validation_answer_send,
    validation_answers_due,
    validation_answers_resume,
)
from .services.wallets import provider_wallets_check as wallets_check_run

_RETRY = {
    "autoretry_for": (TransientChainError, OperationalError, *TRANSIENT_ERRORS),
    "retry_backoff": 5,
    "retry_backoff_max": 600,
    "max_retries": 8,
}


@shared_task(**_RETRY)
def chain_index(chain_id: int | None = None) -> dict[str, Any] | None:
    """Index one deployment. Without a chain id (beat): the first one here, and one task per other one,
    so a slow or unreachable node never holds up the others."""
    if chain_id is None:
        contexts = chain_contexts()
        for other in contexts[1:]:
            chain_index.delay(other.chain.chain_id)
        context = contexts[0] if contexts else None
    else:
        context = chain_context(chain_id=chain_id)
    if context is None:
        return None
    run = chain_index_run(chain=context.chain, w3=context.w3, validator=validator_address())
    return {"from": run.from_block, "next": run.next_block, "new": run.new_events, "reorg": run.reorg_from}


@shared_task(**_RETRY)
def publish_score(publication_id: int) -> str | None:
    chain_id = ScorePublication.objects.filter(pk=publication_id).values_list("chain_id", flat=True).first()
    context = None if chain_id is None else chain_context(chain_id=chain_id)
    if context is None:
        return None
    publication = score_publication_send(
        publication_id=publication_id, chain=context.chain, w3=context.w3, signer=chain_signer()
    )
    return publication.status


@shared_task(**_RETRY)
def answer_validation_request(answer_id: int) -> str | None:
    chain_id = ValidationAnswer.objects.filter(pk=answer_id).values_list("chain_id", flat=True).first()
    context = None if chain_id is None else chain_context(chain_id=chain_id)
    if context is None:
        return None
    answer = validation_answer_send(
        answer_id=answer_id, chain=context.chain, w3=context.w3, signer=chain_signer()
    )
    return answer.status


@shared_task
def score_publications_sweep() -> int:
    """Beat: publish new scores (when auto-publishing is on), and re-drive publications left
    pending, unconfirmed or claimed by a dead worker."""
    queued = 0
    for context in chain_contexts():
        with transaction.atomic():
            score_publications_auto_request(chain=context.chain)
        due = score_publications_due(chain=context.chain)
        for publication_id in due:
            publish_score.delay(publication_id)
        queued += len(due)
    return queued


@shared_task
def validation_answers_sweep() -> int:
    """Beat: the validation responder; answers requests the indexer found and retries unfinished ones,
    and hands back the deferred answers of agents rated since (on every configured chain)."""
    queued = 0
    for context in chain_contexts():
        validation_answers_resume(chain=context.chain)
        due = validation_answers_due(chain=context.chain)
        for answer_id in due:
            answer_validation_request.delay(answer_id)
        queued += len(due)
    return queued


@shared_task(**_RETRY)
def provider_wallets_check() -> int:
    return sum(len(wallets_check_run(chain=c.chain, w3=c.w3)) for c in chain_contexts())


# An agent's host that is down now may be up in a minute: a few tries over about an hour, then the
# registration stays "unreachable" until the agent's URI changes.
@shared_task(
    autoretry_for=(RegistrationUnreachable,),
    retry_backoff=30,
    retry_backoff_max=1800,
    max_retries=5,
)
def fetch_agent_registration(registration_id: int, uri: str) -> str | None:
    """Fetch and check one agent's registration file (queued by the indexer when its URI is set)."""
    row = agent_registration_fetch(registration_id=registration_id, uri=uri)
    return None if row is None else row.status


@shared_task
def agent_registrations_refresh() -> int:
    """Beat: re-read agents' https registration files not read for REGISTRATION_REFRESH_SECONDS
    (bounded by REGISTRATION_REFRESH_BATCH per run); each is fetched by its own task."""
    return len(_refresh())
