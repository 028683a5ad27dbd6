"""Ingestion of verification summaries: validated, durable before the answer, idempotent.

A summary is identified by (provider, agent, window) where the window is `windowDays` ending at
`updatedAt` (or at the time received when the body has no `updatedAt`). Sending the same body
for the same window again is a replay (200, nothing stored); a different body for a stored window
is a conflict (409). Independently, an `Idempotency-Key` header makes any request safe to retry:
the stored answer is replayed for the same body and a different body under the same key is a 409.

Two layers. :func:`summaries_record` is the typed domain service: it takes validated
:class:`NormalisedSummary` values and stores them, marking their agents for a recompute in the same
statement, whoever calls it (no HTTP status, no JSON to fabricate). :func:`summaries_ingest` is the
thin shell the API views and the collector call with raw JSON: validation, canonical digests,
signatures, idempotency keys, and the answer's status and body around one call of the service.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from django.db import connection
from django.utils import timezone

from common.errors import ApplicationError, FieldError, json_pointer, validation_error
from signing.canonical import canonical_digest

from ..models import Agent, Provider, VerificationSummary
from .agents import agents_resolve
from .idempotency import idempotent_run
from .recompute import recompute_drain_ensure, recompute_mark
from .signatures import BATCH_AGENT, SignatureHeaders, SignedSubmission, submission_verify
from .transactions import transaction_run_retrying
from .validation import NormalisedSummary, summary_validate

_SAFE_INT = 2**53 - 1


def canonical_json_errors(value: Any, path: list[str | int]) -> list[FieldError]:
    """The values RFC 8785 cannot canonicalise (so no digest could be taken), each by JSON pointer:
    integers beyond +/-(2**53 - 1), NaN/Infinity, strings with lone surrogates."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, int):
        ok = -_SAFE_INT <= value <= _SAFE_INT
        return [] if ok else [FieldError(json_pointer(path), "Integers must be within +/-(2**53 - 1).")]
    if isinstance(value, float):
        ok = math.isfinite(value)
        return [] if ok else [FieldError(json_pointer(path), "Numbers must be finite.")]
    if isinstance(value, str):
        try:
            value.encode("utf-16be")
        except UnicodeEncodeError:
            return [FieldError(json_pointer(path), "Strings must be valid Unicode (no lone surrogates).")]
        return []
    if isinstance(value, list):
        return [e for i, item in enumerate(value) for e in canonical_json_errors(item, [*path, i])]
    if isinstance(value, dict):
        errors = [e for k in value for e in canonical_json_errors(k, [*path, k])]
        return errors + [e for k, item in value.items() for e in canonical_json_errors(item, [*path, k])]
    return []


@dataclass(frozen=True)
class Ingested:
    """What the answer says about one stored (or replayed) summary."""

    summary_id: int
    agent_id: int
    subject_id: str
    provider_slug: str
    window_days: int
    window_end: datetime
    received_at: datetime
    body_digest: str
    created: bool

    @classmethod
    def of(
        cls, summary: VerificationSummary, *, subject_id: str, provider: Provider, created: bool
    ) -> Ingested:
        # The request's provider is passed in: every summary of a request is its own, so no join is needed.
        return cls(
            summary_id=summary.pk,
            agent_id=summary.agent_id,
            subject_id=subject_id,
            provider_slug=provider.slug,
            window_days=summary.window_days,
            window_end=summary.window_end,
            received_at=summary.received_at,
            body_digest=summary.body_digest,
            created=created,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.summary_id,
            "status": "created" if self.created else "replayed",
            "agent": self.subject_id,
            "provider": self.provider_slug,
            "windowDays": self.window_days,
            "windowEnd": self.window_end.isoformat().replace("+00:00", "Z"),
            "receivedAt": self.received_at.isoformat().replace("+00:00", "Z"),
            "bodyDigest": self.body_digest,
        }


def _ensure_active(provider: Provider) -> None:
    if not provider.is_active:
        raise ApplicationError(
            f"Provider {provider.slug!r} is suspended; its reports are not accepted.",
            status=403,
            problem="provider-suspended",
        )


def _validate_all(bodies: list[Any], prefix: list[str | int] | None) -> list[NormalisedSummary]:
    normalised: list[NormalisedSummary] = []
    errors: list[FieldError] = []
    for index, body in enumerate(bodies):
        where: list[str | int] = [*prefix, index] if prefix is not None else []
        item, item_errors = summary_validate(body, prefix=where)
        errors.extend(item_errors)
        if item is not None:
            normalised.append(item)
    if errors:
        raise validation_error(errors, what="summary")
    return normalised


def _pointer(prefix: list[str | int] | None, index: int, *rest: str) -> str:
    return json_pointer([*prefix, index, *rest] if prefix is not None else list(rest))


def summaries_ingest(
    *,
    provider: Provider,
    bodies: list[dict[str, Any]],
    idempotency_key: str | None = None,
    batch_key: str | None = None,
    source: str = VerificationSummary.Source.PUSH,
    signature: SignatureHeaders | None = None,
) -> tuple[int, dict[str, Any] | list[dict[str, Any]]]:
    """The HTTP shell: validate raw JSON, then :func:`summaries_record`; returns (HTTP status, answer).

    `batch_key` names the array in a batch body (and so the errors' pointers).

    `signature` carries a push's signature headers; providers with a signer must have signed the
    request body (`{batch_key: bodies}` for a batch). Internal callers (collector) pass None.
    """
    _ensure_active(provider)
    prefix: list[str | int] | None = [batch_key] if batch_key else None
    normalised = _validate_all(bodies, prefix)
    digests = _body_digests(bodies, prefix)
    # Only a request with an Idempotency-Key needs the digest of the whole request.
    fingerprint = (
        canonical_digest({"kind": "summaries", "batch": bool(batch_key), "bodies": bodies})
        if idempotency_key
        else ""
    )

    def verify() -> SignedSubmission | None:
        if signature is None:
            return None
        signed_body: Any = {batch_key: bodies} if batch_key else bodies[0]
        agent_id = BATCH_AGENT if batch_key else bodies[0]["agent"]
        return submission_verify(provider=provider, agent_id=agent_id, body=signed_body, headers=signature)

    def store() -> tuple[int, dict[str, Any]]:
        results = summaries_record(
            provider=provider,
            summaries=normalised,
            bodies=bodies,
            digests=digests,
            source=source,
            locate=lambda index, name: _pointer(prefix, index, name),
        )
        created = sum(1 for r in results if r.created)
        answer: dict[str, Any]
        if batch_key:
            answer = {
                "created": created,
                "replayed": len(results) - created,
                "results": [r.to_dict() for r in results],
            }
        else:
            answer = results[0].to_dict()
        return (201 if created else 200), answer

    # Deadlock and serialization victims are rolled back whole and run again (bounded), so a
    # client sees a conflict between concurrent batches only as a slower answer.
    return transaction_run_retrying(
        work=lambda: idempotent_run(
            provider=provider, key=idempotency_key, fingerprint=fingerprint, store=store, verify=verify
        )
    )


# A window is named by (subject id, windowDays, window end) before the agent's row is known.
WindowKey = tuple[str, int, datetime]
# Where the service's errors point: (index of the summary, field name) -> JSON pointer. The shell
# names the request's fields; an in-process caller can keep the default.
FieldLocator = Callable[[int, str], str]


def _default_locate(index: int, name: str) -> str:
    return json_pointer([index, name])


def summary_body(item: NormalisedSummary) -> dict[str, Any]:
    """The summary as a provider would have sent it (SPEC field names): what an in-process caller
    that never had a JSON body stores as `raw_body` and digests."""
    body: dict[str, Any] = {"agent": item.agent}
    if item.agent_registry is not None:
        body["agentRegistry"] = item.agent_registry
    if item.agent_protocol is not None:
        body["agentProtocol"] = item.agent_protocol
    body.update({"allowRate": item.allow_rate, "blockRate": item.block_rate})
    if item.uncertain_rate is not None:
        body["uncertainRate"] = item.uncertain_rate
    body.update(
        {
            "avgConfidence": item.avg_confidence,
            "totalChecks": item.total_checks,
            "windowDays": item.window_days,
        }
    )
    if item.stake_distribution is not None:
        body["stakeDistribution"] = item.stake_distribution
    if item.updated_at is not None:
        body["updatedAt"] = item.updated_at.isoformat().replace("+00:00", "Z")
    return body


def summaries_record(
    *,
    provider: Provider,
    summaries: list[NormalisedSummary],
    source: str = VerificationSummary.Source.PUSH,
    bodies: list[dict[str, Any]] | None = None,
    digests: list[str] | None = None,
    locate: FieldLocator = _default_locate,
) -> list[Ingested]:
    """Store validated summaries of `provider`; one result per summary, in order.

    A window already stored with the same digest is replayed (``created=False``); one stored with a
    different digest refuses the whole call (409 naming each field via `locate`). New windows mark
    their agents for a recompute in the same transaction, so a concurrent drain waits for them.
    `bodies` (the JSON as received) and `digests` (their canonical digests) default to
    :func:`summary_body` of each summary and its digest. Runs in the caller's transaction, or in its
    own, retried on a deadlock, when there is none.
    """
    _ensure_active(provider)
    if bodies is None:
        bodies = [summary_body(item) for item in summaries]
    if digests is None:
        digests = [canonical_digest(body) for body in bodies]
    if not len(bodies) == len(digests) == len(summaries):
        raise ValueError("summaries, bodies and digests must be as long as each other")
    given_bodies, given_digests = bodies, digests
    return transaction_run_retrying(
        work=lambda: _store(provider, given_bodies, summaries, given_digests, locate, source)
    )


def _body_digests(bodies: list[dict[str, Any]], prefix: list[str | int] | None) -> list[str]:
    """The canonical digest of every body, or a 400 naming each value RFC 8785 cannot canonicalise."""
    digests: list[str] = []
    errors: list[FieldError] = []
    for index, body in enumerate(bodies):
        try:
            digests.append(canonical_digest(body))
        except (ValueError, UnicodeError):  # rfc8785's errors are ValueErrors
            # The walk is only for the answer: it finds the same values rfc8785 refused, by pointer.
            where: list[str | int] = [*prefix, index] if prefix is not None else []
            found = canonical_json_errors(body, where)
            errors.extend(found or [FieldError(json_pointer(where), "Cannot be canonicalised (RFC 8785).")])
    if errors:
        raise validation_error(errors, what="summary")
    return digests


@dataclass(frozen=True)
class _Request:
    """One ingest request's summaries, side by side: body, normalised form, window and digest."""

    provider: Provider
    bodies: list[dict[str, Any]]
    items: list[NormalisedSummary]
    keys: list[WindowKey]
    digests: list[str]
    locate: FieldLocator
    source: str
    now: datetime


def _store(
    provider: Provider,
    bodies: list[dict[str, Any]],
    items: list[NormalisedSummary],
    digests: list[str],
    locate: FieldLocator,
    source: str,
) -> list[Ingested]:
    """Store the new windows, replay the known ones, refuse the whole request on any conflict."""
    now = timezone.now()
    keys: list[WindowKey] = [(item.agent, item.window_days, item.updated_at or now) for item in items]
    request = _Request(provider, bodies, items, keys, digests, locate, source, now)
    # One row per window: a later item for the same window replays the first or conflicts with it.
    first_of: dict[WindowKey, int] = {}
    conflicts: list[FieldError] = []
    for i, key in enumerate(keys):
        first = first_of.setdefault(key, i)
        if first != i and digests[first] != digests[i]:
            conflicts.append(
                FieldError(locate(i, "updatedAt"), "Another summary in this batch has the same window.")
            )
    firsts = list(first_of.values())
    stored: dict[WindowKey, Ingested] = {}
    if connection.vendor == "postgresql" and not conflicts:
        stored = _insert_new_windows(request, firsts)
    rest = [i for i in firsts if keys[i] not in stored]
    if rest:
        stored.update(_store_orm(request, rest, conflicts))
    if conflicts:
        raise ApplicationError(
            f"{len(conflicts)} summary window(s) already hold a different summary.",
            status=409,
            problem="conflict",
            errors=conflicts,
        )
    results = []
    for i, key in enumerate(keys):
        ingested = stored[key]
        if ingested.created and first_of[key] != i:
            ingested = dataclasses.replace(ingested, created=False)
        results.append(ingested)
    return results


_INSERT_NEW_WINDOWS = """
WITH incoming AS (
    SELECT * FROM unnest(
        %(subject)b::text[], %(window_days)b::integer[], %(window_end)b::timestamptz[], %(digest)b::text[],
        %(raw)b::text[], %(allow)b::float8[], %(block)b::float8[], %(uncertain)b::float8[],
        %(confidence)b::float8[], %(checks)b::bigint[], %(stake)b::text[]
    ) AS t(
        subject_id, window_days, window_end, digest, raw, allow, block, uncertain, confidence, checks, stake
    )
), inserted AS (
    INSERT INTO registry_verificationsummary (
        provider_id, agent_id, source, window_days, window_end, received_at, idempotency_key, body_digest,
        raw_body, allow_rate, block_rate, uncertain_rate, avg_confidence, total_checks, stake_distribution
    )
    SELECT %(provider)s, a.id, %(source)s, i.window_days, i.window_end, %(now)s, '', i.digest,
           i.raw::jsonb, i.allow, i.block, i.uncertain, i.confidence, i.checks, i.stake::jsonb
    FROM incoming i JOIN registry_agent a ON a.subject_id = i.subject_id
    -- One lock order for every request: a window another batch is inserting is waited for in
    -- ascending (agent, window) order, the order the marks below take too, so two batches naming
    -- the same windows in different orders queue behind each other instead of deadlocking.
    ORDER BY a.id, i.window_days, i.window_end
    ON CONFLICT ON CONSTRAINT unique_summary_window DO NOTHING
    RETURNING id, agent_id, window_days, window_end
), scheduled AS (
    -- The recompute mark (see registry/services/recompute.py): bumping the generation locks the row
    -- until this commits, so a drain cannot settle it without seeing these summaries. Ascending
    -- agent ids: concurrent batches lock overlapping agents in one order and cannot deadlock.
    INSERT INTO registry_pendingrecompute (agent_id, requested_at, generation)
    SELECT agent_id, %(now)s, 1 FROM (SELECT DISTINCT agent_id FROM inserted) AS marked ORDER BY agent_id
    ON CONFLICT (agent_id) DO UPDATE SET generation = registry_pendingrecompute.generation + 1, priority = 0
)
SELECT n.id, n.agent_id, a.subject_id, n.window_days, n.window_end
FROM inserted n JOIN registry_agent a ON a.id = n.agent_id
"""


def _insert_new_windows(request: _Request, indices: list[int]) -> dict[WindowKey, Ingested]:
    """PostgreSQL: insert every window of a known agent that is not stored yet, in one statement.

    The same statement marks the agents for a recompute. Ingestion is the hot write path, and one
    round trip instead of five (agent lookup, window lookup, insert, pending insert, and the ORM's
    bookkeeping) is most of its cost. What it leaves out (unknown agents, windows already stored)
    goes through `_store_orm`, which registers agents and tells replays from conflicts.
    """
    provider, keys, digests, now = request.provider, request.keys, request.digests, request.now
    chosen = [request.items[i] for i in indices]
    params = {
        "provider": provider.pk,
        "source": request.source,
        "now": now,
        "subject": [keys[i][0] for i in indices],
        "window_days": [keys[i][1] for i in indices],
        "window_end": [keys[i][2] for i in indices],
        "digest": [digests[i] for i in indices],
        "raw": [json.dumps(request.bodies[i]) for i in indices],
        "allow": [item.allow_rate for item in chosen],
        "block": [item.block_rate for item in chosen],
        "uncertain": [item.uncertain_rate for item in chosen],
        "confidence": [item.avg_confidence for item in chosen],
        "checks": [item.total_checks for item in chosen],
        "stake": [
            None if item.stake_distribution is None else json.dumps(item.stake_distribution)
            for item in chosen
        ],
    }
    # Django's cursors bind parameters client-side, which quotes every array element in Python; a
    # plain psycopg cursor on the same connection (and transaction) sends the arrays as binary
    # parameters (the %(name)b placeholders), several times cheaper for a batch of 1,000.
    connection.ensure_connection()
    with psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(_INSERT_NEW_WINDOWS, params)
        rows = cursor.fetchall()
    digest_of = {keys[i]: digests[i] for i in indices}
    stored = {}
    for summary_id, agent_id, subject_id, window_days, window_end in rows:
        key = (subject_id, window_days, window_end)
        stored[key] = Ingested(
            summary_id=summary_id,
            agent_id=agent_id,
            subject_id=subject_id,
            provider_slug=provider.slug,
            window_days=window_days,
            window_end=window_end,
            received_at=now,
            body_digest=digest_of[key],
            created=True,
        )
    if stored:
        recompute_drain_ensure()
    return stored


def _store_orm(
    request: _Request, indices: list[int], conflicts: list[FieldError]
) -> dict[WindowKey, Ingested]:
    """The general path (any database): resolve or register agents, replay or refuse stored windows."""
    provider, items, keys, digests, locate = (
        request.provider,
        request.items,
        request.keys,
        request.digests,
        request.locate,
    )
    agents = agents_resolve(
        subject_ids=[
            (items[i].agent, items[i].agent_registry, items[i].agent_protocol, locate(i, "agent"))
            for i in indices
        ]
    )
    existing: dict[tuple[int, int, datetime], VerificationSummary] = {}
    for summary in VerificationSummary.objects.filter(
        provider=provider,
        source=request.source,
        agent_id__in={agents[keys[i][0]].pk for i in indices},
        window_end__in={keys[i][2] for i in indices},
    ):
        existing[(summary.agent_id, summary.window_days, summary.window_end)] = summary
    stored: dict[WindowKey, Ingested] = {}
    to_create: list[VerificationSummary] = []
    for i in indices:
        subject_id, window_days, window_end = keys[i]
        earlier = existing.get((agents[subject_id].pk, window_days, window_end))
        if earlier is None:
            to_create.append(
                _new_summary(
                    provider,
                    agents[subject_id],
                    items[i],
                    request.bodies[i],
                    digests[i],
                    window_end,
                    request.source,
                )
            )
        elif earlier.body_digest == digests[i]:
            stored[keys[i]] = Ingested.of(earlier, subject_id=subject_id, provider=provider, created=False)
        else:
            conflicts.append(FieldError(locate(i, "updatedAt"), _conflict_message(earlier)))
    if conflicts:
        return stored
    # Ascending (agent, window), the order of the PostgreSQL statement: see _INSERT_NEW_WINDOWS.
    to_create.sort(key=lambda summary: (summary.agent.pk, summary.window_days, summary.window_end))
    for summary in VerificationSummary.objects.bulk_create(to_create):
        subject_id = summary.agent.subject_id
        stored[(subject_id, summary.window_days, summary.window_end)] = Ingested.of(
            summary, subject_id=subject_id, provider=provider, created=True
        )
    recompute_mark(agent_ids={summary.agent_id for summary in to_create})
    return stored


def _conflict_message(earlier: VerificationSummary) -> str:
    return (
        f"The window ending {earlier.window_end.isoformat()} already holds summary {earlier.pk} "
        "with a different body; send a new updatedAt for new data."
    )


def _new_summary(
    provider: Provider,
    agent: Agent,
    item: NormalisedSummary,
    body: dict[str, Any],
    digest: str,
    window_end: datetime,
    source: str,
) -> VerificationSummary:
    summary = VerificationSummary(
        provider=provider,
        agent=agent,
        source=source,
        window_days=item.window_days,
        window_end=window_end,
        body_digest=digest,
        raw_body=body,
        allow_rate=item.allow_rate,
        block_rate=item.block_rate,
        uncertain_rate=item.uncertain_rate,
        avg_confidence=item.avg_confidence,
        total_checks=item.total_checks,
        stake_distribution=item.stake_distribution,
    )
    summary.received_at = timezone.now()
    return summary
