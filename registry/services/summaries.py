"""Ingestion of verification summaries: validated, durable before the answer, idempotent.

A summary is identified by (provider, agent, window) where the window is `windowDays` ending at
`updatedAt` (or at the time received when the body has no `updatedAt`). Sending the same body
for the same window again is a replay (200, nothing stored); a different body for a stored window
is a conflict (409). Independently, an `Idempotency-Key` header makes any request safe to retry:
the stored answer is replayed for the same body and a different body under the same key is a 409.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import rfc8785
from django.utils import timezone

from common.errors import ApplicationError, FieldError, json_pointer, validation_error

from ..models import Agent, Provider, VerificationSummary
from .agents import agents_resolve
from .idempotency import idempotent_run
from .scoring import score_recompute_schedule_many
from .signatures import BATCH_AGENT, SignatureHeaders, submission_verify
from .validation import NormalisedSummary, summary_validate


def canonical_digest(value: Any) -> str:
    """ "sha256:" + hex digest of the RFC 8785 canonical JSON of `value`."""
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


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
    summary: VerificationSummary
    created: bool

    def to_dict(self) -> dict[str, Any]:
        s = self.summary
        return {
            "id": s.pk,
            "status": "created" if self.created else "replayed",
            "agent": s.agent.subject_id,
            "provider": s.provider.slug,
            "windowDays": s.window_days,
            "windowEnd": s.window_end.isoformat().replace("+00:00", "Z"),
            "receivedAt": s.received_at.isoformat().replace("+00:00", "Z"),
            "bodyDigest": s.body_digest,
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
    """Store summaries; returns (HTTP status, answer). `batch_key` names the array in a batch body.

    `signature` carries a push's signature headers; providers with a signer must have signed the
    request body (`{batch_key: bodies}` for a batch). Internal callers (collector) pass None.
    """
    _ensure_active(provider)
    prefix: list[str | int] | None = [batch_key] if batch_key else None
    normalised = _validate_all(bodies, prefix)
    if unhashable := canonical_json_errors(bodies if batch_key else bodies[0], prefix or []):
        raise validation_error(unhashable, what="summary")
    # Only a request with an Idempotency-Key needs the digest of the whole request.
    fingerprint = (
        canonical_digest({"kind": "summaries", "batch": bool(batch_key), "bodies": bodies})
        if idempotency_key
        else ""
    )

    def store() -> tuple[int, dict[str, Any]]:
        if signature is not None:
            signed_body: Any = {batch_key: bodies} if batch_key else bodies[0]
            agent_id = BATCH_AGENT if batch_key else bodies[0]["agent"]
            submission_verify(provider=provider, agent_id=agent_id, body=signed_body, headers=signature)
        results = _store(provider, bodies, normalised, prefix, source)
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
        score_recompute_schedule_many(agent_ids={r.summary.agent_id for r in results if r.created})
        return (201 if created else 200), answer

    return idempotent_run(provider=provider, key=idempotency_key, fingerprint=fingerprint, store=store)


def _store(
    provider: Provider,
    bodies: list[dict[str, Any]],
    items: list[NormalisedSummary],
    prefix: list[str | int] | None,
    source: str,
) -> list[Ingested]:
    agents = agents_resolve(
        subject_ids=[
            (item.agent, item.agent_registry, item.agent_protocol, _pointer(prefix, i, "agent"))
            for i, item in enumerate(items)
        ]
    )
    now = timezone.now()
    digests = [canonical_digest(body) for body in bodies]
    keys: list[tuple[int, int, datetime]] = [
        (agents[item.agent].pk, item.window_days, item.updated_at or now) for item in items
    ]
    existing: dict[tuple[int, int, datetime], VerificationSummary] = {}
    for summary in VerificationSummary.objects.filter(
        provider=provider,
        source=source,
        agent_id__in={k[0] for k in keys},
        window_end__in={k[2] for k in keys},
    ).select_related("agent", "provider"):
        existing[(summary.agent_id, summary.window_days, summary.window_end)] = summary

    results: list[Ingested | None] = [None] * len(items)
    conflicts: list[FieldError] = []
    pending: dict[tuple[int, int, datetime], int] = {}
    to_create: list[VerificationSummary] = []
    for i, (item, key, digest) in enumerate(zip(items, keys, digests, strict=True)):
        earlier = existing.get(key)
        if earlier is not None:
            if earlier.body_digest == digest:
                results[i] = Ingested(earlier, created=False)
            else:
                conflicts.append(FieldError(_pointer(prefix, i, "updatedAt"), _conflict_message(earlier)))
            continue
        if key in pending:
            first = pending[key]
            if digests[first] != digest:
                conflicts.append(
                    FieldError(
                        _pointer(prefix, i, "updatedAt"), "Another summary in this batch has the same window."
                    )
                )
            continue
        pending[key] = i
        to_create.append(_new_summary(provider, agents[item.agent], item, bodies[i], digest, key, source))
    if conflicts:
        raise ApplicationError(
            f"{len(conflicts)} summary window(s) already hold a different summary.",
            status=409,
            problem="conflict",
            errors=conflicts,
        )
    created = VerificationSummary.objects.bulk_create(to_create)
    by_key = {(s.agent_id, s.window_days, s.window_end): s for s in created}
    for i, key in enumerate(keys):
        if results[i] is None:
            summary = by_key[key]
            results[i] = Ingested(summary, created=pending.get(key) == i)
    return [r for r in results if r is not None]


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
    key: tuple[int, int, datetime],
    source: str,
) -> VerificationSummary:
    summary = VerificationSummary(
        provider=provider,
        agent=agent,
        source=source,
        window_days=item.window_days,
        window_end=key[2],
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
