"""Agents' ERC-8004 registration files: keep each on-chain agent's agentURI, fetch and check its file.

The indexer calls `agent_uri_set` for every Registered and URIUpdated event; the file is fetched later by
the `fetch_agent_registration` task (never in a request), through untrusted.fetch: https, ipfs (through
CHAIN_IPFS_GATEWAY) or data: URIs only, at most 256 KiB and 10 s, no private or metadata addresses
(OUTBOUND_ALLOW_HTTP / OUTBOUND_ALLOW_PRIVATE relax that for development and tests). A host that cannot
be reached is retried with backoff; a refused URI or a file that is not a registration file is recorded
as invalid.

A file behind an https (or allowed http) URI can change while the on-chain URI stays the same, so
`agent_registrations_refresh` (beat) re-reads those at most every REGISTRATION_REFRESH_SECONDS, oldest
first and at most REGISTRATION_REFRESH_BATCH per run. ipfs:// and data: URIs name their content and
are never re-read.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from celery.exceptions import Retry
from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from common.enqueue import task_named
from registry.models import Agent
from signing.chain import events as ev
from signing.chain.registration import (
    DEFAULT_MAX_BYTES,
    RegistrationFetchError,
    RegistrationInvalid,
    RegistrationUnreachable,
    fetch_registration_file,
    registration_read,
)
from signing.chain.settings import ChainSettings

from ..models import AgentRegistration, AgentRegistrationStatus, ChainEvent
from .links import agent_links_refresh

logger = logging.getLogger(__name__)

# A data: URI holding a file of DEFAULT_MAX_BYTES in base64 (4/3 as long) plus its header fits; a longer
# URI could only hold a file that is refused anyway, so it is not even decoded.
MAX_URI_CHARS = DEFAULT_MAX_BYTES * 4 // 3 + 1024
FETCH_TIMEOUT_SECONDS = 10.0
_URI_EVENTS = {"Registered": "agent_uri", "URIUpdated": "new_uri"}
_CLEARED: dict[str, Any] = {
    "name": "",
    "description": "",
    "image": "",
    "endpoints": [],
    "active": None,
    "lists_agent": False,
    "error": "",
    "attempts": 0,
    "fetched_at": None,
    "checked_at": None,
}


def agent_uri_set(*, agent: Agent, chain: ChainSettings, uri: str, block: int) -> AgentRegistration:
    """Record the agent's agentURI from an event in `block` and queue the fetch of its file.

    What was read from the previous URI is cleared: it described another file. `uri` is the decoded
    on-chain string (surrogate-escaped where it was not UTF-8); such a URI, an empty one or one too
    long to hold a registration file is recorded as invalid without fetching anything.
    """
    shown = ev.display_text(uri)
    problem = ""
    if not uri:
        problem = "the agent has no agent URI"
    elif shown != uri:
        problem = "the agent URI is not valid UTF-8 text (or holds NUL)"
    elif len(uri) > MAX_URI_CHARS:
        problem = f"the agent URI is longer than {MAX_URI_CHARS} characters"
    row, _ = AgentRegistration.objects.update_or_create(
        agent=agent,
        defaults={
            **_CLEARED,
            "agent_registry": f"eip155:{chain.chain_id}:{chain.identity_registry}",
            "agent_uri": shown,
            "uri_block": block,
            "status": AgentRegistrationStatus.INVALID if problem else AgentRegistrationStatus.PENDING,
            "error": problem,
        },
    )
    if not problem:
        transaction.on_commit(partial(_enqueue, row.pk, shown))
    return row


def agent_uri_restore(*, agent: Agent, chain: ChainSettings) -> None:
    """After a rewind: the URI from the agent's newest remaining URI event, or no registration at all."""
    if agent.erc8004_agent_id is None:
        return
    latest = (
        ChainEvent.objects.filter(
            chain_id=chain.chain_id, name__in=list(_URI_EVENTS), args__agent_id=int(agent.erc8004_agent_id)
        )
        .order_by("-block_number", "-log_index")
        .first()
    )
    if latest is None:
        AgentRegistration.objects.filter(agent=agent).delete()
        return
    uri = latest.raw_text(_URI_EVENTS[latest.name]).decode("utf-8", "surrogateescape")
    agent_uri_set(agent=agent, chain=chain, uri=uri, block=latest.block_number)


def _enqueue(registration_id: int, uri: str) -> None:
    try:
        task_named("attestations.tasks.fetch_agent_registration").delay(registration_id, uri)
    except Retry:
        # Eager Celery (development, tests) reports a retry instead of scheduling it: the row says
        # "unreachable" and the next URI event, or the task run by hand, tries again.
        logger.info("registration %s: host unreachable, a retry was asked for", registration_id)
    except Exception:
        # Runs after the indexer's range committed (and, with eager Celery, runs the fetch itself): an
        # agent's unreachable host must not fail the index run. The row stays pending or unreachable.
        logger.exception("fetching the registration file of registration %s failed", registration_id)


def _store(registration_id: int, uri: str, **values: Any) -> bool:
    """Write the outcome of fetching `uri`, unless the agent's URI changed meanwhile (that one wins)."""
    changed = AgentRegistration.objects.filter(pk=registration_id, agent_uri=uri).update(
        checked_at=timezone.now(), **values
    )
    return changed == 1


def agent_registration_fetch(*, registration_id: int, uri: str) -> AgentRegistration | None:
    """Fetch the file at `uri` for one registration and store what it says (or why it was refused).

    Returns None when the registration is gone. Raises RegistrationUnreachable (after recording it) when
    the host could not be reached, so the task retries; every other failure is final for this URI.
    """
    row = AgentRegistration.objects.select_related("agent").filter(pk=registration_id).first()
    if row is None:
        return None
    if row.agent_uri != uri:
        return row  # a newer URI has its own task
    agent_id = row.agent.erc8004_agent_id
    try:
        document = fetch_registration_file(
            uri,
            ipfs_gateway=settings.CHAIN_IPFS_GATEWAY,
            timeout=FETCH_TIMEOUT_SECONDS,
            allow_http=settings.OUTBOUND_ALLOW_HTTP,
            allow_private=settings.OUTBOUND_ALLOW_PRIVATE,
        )
        read = registration_read(
            document, agent_registry=row.agent_registry, agent_id=-1 if agent_id is None else int(agent_id)
        )
    except RegistrationUnreachable as error:
        _store(
            row.pk,
            uri,
            status=AgentRegistrationStatus.UNREACHABLE,
            error=str(error)[:2000],
            attempts=F("attempts") + 1,
        )
        raise
    except (RegistrationFetchError, RegistrationInvalid) as error:
        _store(
            row.pk,
            uri,
            status=AgentRegistrationStatus.INVALID,
            error=str(error)[:2000],
            attempts=F("attempts") + 1,
        )
    else:
        _store(
            row.pk,
            uri,
            status=AgentRegistrationStatus.FETCHED,
            name=read.name,
            description=read.description,
            image=read.image,
            endpoints=read.endpoints,
            active=read.active,
            lists_agent=read.lists_agent,
            other_identities=read.others,
            error="",
            attempts=F("attempts") + 1,
            fetched_at=timezone.now(),
        )
        # The file may name the agent's identities on other chains.
        agent_links_refresh(agent=row.agent)
    row.refresh_from_db()
    return row


# Schemes whose content can change under the same URI (ipfs:// and data: name their content).
_MUTABLE = Q(agent_uri__istartswith="https://") | Q(agent_uri__istartswith="http://")


def agent_registrations_refresh(*, now: datetime | None = None, limit: int | None = None) -> list[int]:
    """Queue a fresh fetch of the registration files not read for REGISTRATION_REFRESH_SECONDS.

    Only https/http URIs (the content of ipfs:// and data: URIs cannot change); fetched, invalid and
    unreachable ones alike (a pending one has its fetch queued already); oldest first, at most `limit`
    (REGISTRATION_REFRESH_BATCH). Each is stamped as checked when queued, so the next run takes the next
    ones. Returns the registrations queued.
    """
    now = now or timezone.now()
    limit = settings.REGISTRATION_REFRESH_BATCH if limit is None else limit
    cutoff = now - timedelta(seconds=settings.REGISTRATION_REFRESH_SECONDS)
    stale = (
        AgentRegistration.objects.filter(_MUTABLE)
        .exclude(status=AgentRegistrationStatus.PENDING)
        .filter(Q(checked_at__lt=cutoff) | Q(checked_at__isnull=True))
        .order_by(F("checked_at").asc(nulls_first=True), "id")
        .values_list("pk", "agent_uri")[:limit]
    )
    queued: list[int] = []
    with transaction.atomic():
        for registration_id, uri in stale:
            # Conditional on the URI: a URI set meanwhile has its own fetch queued.
            if AgentRegistration.objects.filter(pk=registration_id, agent_uri=uri).update(checked_at=now):
                transaction.on_commit(partial(_enqueue, registration_id, uri))
                queued.append(registration_id)
    return queued
