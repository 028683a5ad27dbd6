"""Raw per-check outcomes, rolled up into the provider's windowed summary of an agent.

:func:`outcomes_record` is the typed domain service (validated :class:`NormalisedOutcome` values of
one agent in; stored, and the (provider, agent) pair marked for a roll-up). The engine provider and
the chain indexer call it directly. :func:`outcomes_ingest` is the HTTP shell around it: JSON
validation, canonical digests, signatures, idempotency keys, and the answer's status and body.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.errors import ApplicationError, FieldError, json_pointer, validation_error
from signing.canonical import canonical_digest

from ..models import Agent, CheckOutcome, Provider, VerificationSummary
from ..schemas import STAKE_LEVELS
from .agents import agents_resolve
from .idempotency import idempotent_run
from .signatures import SignatureHeaders, SignedSubmission, submission_verify
from .summaries import _ensure_active, canonical_json_errors
from .transactions import transaction_run_retrying
from .validation import OUTCOME_BATCH, NormalisedOutcome, outcome_validate


def outcomes_ingest(
    *,
    provider: Provider,
    body: Any,
    idempotency_key: str | None = None,
    signature: SignatureHeaders | None = None,
) -> tuple[int, dict[str, Any]]:
    """The HTTP shell: validate raw JSON, then :func:`outcomes_record`; returns (HTTP status, answer).

    A replayed outcome id with the same content is a no-op.
    """
    _ensure_active(provider)
    if not isinstance(body, dict):
        raise validation_error(
            [FieldError("", "Expected an object with agent and outcomes.")], what="outcomes"
        )
    errors: list[FieldError] = []
    if not isinstance(body.get("agent"), str) or not body.get("agent"):
        errors.append(FieldError("/agent", "This field is required."))
    envelope_errors = OUTCOME_BATCH.envelope_errors(body)
    errors.extend(envelope_errors)
    raw: list[Any] = [] if envelope_errors else body["outcomes"]
    items: list[NormalisedOutcome] = []
    for index, entry in enumerate(raw):
        item, item_errors = outcome_validate(entry, prefix=["outcomes", index])
        errors.extend(item_errors)
        if item is not None:
            items.append(item)
    errors.extend(canonical_json_errors(body, []))
    if errors:
        raise validation_error(errors, what="outcomes")
    fingerprint = canonical_digest({"kind": "outcomes", "body": body}) if idempotency_key else ""

    def verify() -> SignedSubmission | None:
        if signature is None:
            return None
        return submission_verify(provider=provider, agent_id=body["agent"], body=body, headers=signature)

    def store() -> tuple[int, dict[str, Any]]:
        agent = agents_resolve(subject_ids=[(body["agent"], body.get("agentRegistry"), None, "/agent")])[
            body["agent"]
        ]
        recorded = outcomes_record(
            provider=provider,
            agent=agent,
            outcomes=items,
            digests=[canonical_digest(entry) for entry in raw],
            locate=lambda index, name: json_pointer(["outcomes", index, name]),
        )
        return (201 if recorded.created else 200), recorded.to_dict()

    # A deadlock or serialization victim is rolled back whole and run again (bounded).
    return transaction_run_retrying(
        work=lambda: idempotent_run(
            provider=provider, key=idempotency_key, fingerprint=fingerprint, store=store, verify=verify
        )
    )


@dataclass(frozen=True)
class OutcomesRecorded:
    """What :func:`outcomes_record` did: outcomes stored, and outcomes already stored as they are."""

    agent_subject_id: str
    created: int
    replayed: int

    def to_dict(self) -> dict[str, Any]:
        return {"agent": self.agent_subject_id, "created": self.created, "replayed": self.replayed}


def outcome_body(item: NormalisedOutcome) -> dict[str, Any]:
    """The outcome as a provider sends it (SPEC field names): what an in-process caller digests."""
    return {
        "id": item.outcome_id,
        "verdict": item.reported_verdict,
        "confidence": item.confidence,
        "stake": item.stake,
        "checkedAt": item.checked_at.isoformat().replace("+00:00", "Z"),
    }


def _default_locate(index: int, name: str) -> str:
    return json_pointer([index, name])


def outcomes_record(
    *,
    provider: Provider,
    agent: Agent,
    outcomes: list[NormalisedOutcome],
    digests: list[str] | None = None,
    locate: Callable[[int, str], str] = _default_locate,
) -> OutcomesRecorded:
    """Store `provider`'s outcomes about `agent` and mark the pair for a roll-up.

    An outcome id already stored (or repeated in `outcomes`) with the same digest is a replay; with
    another digest or agent it refuses the whole call (409, each id named via `locate`). `digests`
    default to the canonical digest of :func:`outcome_body`. The roll-up mark is durable and
    coalesced (rollups.py): one pending row per pair however many writers mark it. Runs in the
    caller's transaction, or in its own, retried on a deadlock, when there is none.
    """
    _ensure_active(provider)
    if digests is None:
        digests = [canonical_digest(outcome_body(item)) for item in outcomes]
    if len(digests) != len(outcomes):
        raise ValueError("outcomes and digests must be as long as each other")
    given = digests

    def work() -> OutcomesRecorded:
        recorded = _store(provider, agent, outcomes, given, locate)
        if recorded.created:
            from .rollups import rollup_mark

            # Durable and coalesced: the roll-up happens even if the broker is down right now.
            rollup_mark(pairs=[(provider.pk, agent.pk)])
        return recorded

    return transaction_run_retrying(work=work)


def _store(
    provider: Provider,
    agent: Agent,
    items: list[NormalisedOutcome],
    digests: list[str],
    locate: Callable[[int, str], str],
) -> OutcomesRecorded:
    existing = {
        o.outcome_id: o
        for o in CheckOutcome.objects.filter(provider=provider, outcome_id__in=[i.outcome_id for i in items])
    }
    conflicts: list[FieldError] = []
    seen: dict[str, str] = {}
    new: list[CheckOutcome] = []
    replayed = 0
    for index, (item, digest) in enumerate(zip(items, digests, strict=True)):
        earlier = existing.get(item.outcome_id)
        if earlier is not None or item.outcome_id in seen:
            same = (earlier.body_digest if earlier is not None else seen[item.outcome_id]) == digest
            same = same and (earlier is None or earlier.agent_id == agent.pk)
            if same:
                replayed += 1
            else:
                conflicts.append(
                    FieldError(locate(index, "id"), "This outcome id was sent with other content.")
                )
            continue
        seen[item.outcome_id] = digest
        new.append(
            CheckOutcome(
                provider=provider,
                agent=agent,
                outcome_id=item.outcome_id,
                verdict=item.verdict,
                reported_verdict=item.reported_verdict,
                confidence=item.confidence,
                stake=item.stake,
                checked_at=item.checked_at,
                body_digest=digest,
            )
        )
    if conflicts:
        raise ApplicationError(
            f"{len(conflicts)} outcome id(s) were already used for different outcomes.",
            status=409,
            problem="conflict",
            errors=conflicts,
        )
    # Outcome ids in ascending order: two batches repeating the same ids in different orders wait
    # on each other's unique index entries in one order, never in a cycle.
    new.sort(key=lambda outcome: outcome.outcome_id)
    CheckOutcome.objects.bulk_create(new)
    return OutcomesRecorded(agent_subject_id=agent.subject_id, created=len(new), replayed=replayed)


def outcomes_summarise(outcomes: list[tuple[str, float, str]]) -> dict[str, Any]:
    """Turn (verdict, confidence, stake) triples into an output-verification signal body.

    >>> outcomes_summarise([("ALLOW", 0.9, "low"), ("BLOCK", 0.7, "high")])["blockRate"]
    0.5
    """
    n = len(outcomes)
    counts: dict[str, int] = defaultdict(int)
    levels: dict[str, list[tuple[str, float]]] = defaultdict(list)
    for verdict, confidence, stake in outcomes:
        counts[verdict] += 1
        if stake:
            levels[stake].append((verdict, confidence))
    body: dict[str, Any] = {
        "allowRate": counts["ALLOW"] / n,
        "blockRate": counts["BLOCK"] / n,
        "uncertainRate": counts["UNCERTAIN"] / n,
        "avgConfidence": sum(c for _, c, _ in outcomes) / n,
        "totalChecks": n,
    }
    if levels:
        body["stakeDistribution"] = {
            level: {
                "checks": len(entries),
                "allowRate": sum(1 for v, _ in entries if v == "ALLOW") / len(entries),
                "avgConfidence": sum(c for _, c in entries) / len(entries),
            }
            for level, entries in sorted(levels.items(), key=lambda kv: (kv[0] not in STAKE_LEVELS, kv[0]))
        }
    return body


def outcomes_rollup(*, provider: Provider, agent: Agent) -> VerificationSummary | None:
    """Append the provider's summary of the agent over the trailing outcome window."""
    from .recompute import recompute_mark

    now = timezone.now()
    days = settings.OUTCOME_WINDOW_DAYS
    rows = list(
        CheckOutcome.objects.filter(
            provider=provider, agent=agent, checked_at__gt=now - timedelta(days=days)
        ).values_list("verdict", "confidence", "stake")
    )
    if not rows:
        return None
    body = outcomes_summarise(rows)
    body.update({"windowDays": days, "updatedAt": now.isoformat().replace("+00:00", "Z")})
    stake = body.get("stakeDistribution")
    with transaction.atomic():
        summary = VerificationSummary.objects.create(
            provider=provider,
            agent=agent,
            source=VerificationSummary.Source.OUTCOMES,
            window_days=days,
            window_end=now,
            body_digest=canonical_digest(body),
            raw_body=body,
            allow_rate=body["allowRate"],
            block_rate=body["blockRate"],
            uncertain_rate=body["uncertainRate"],
            avg_confidence=body["avgConfidence"],
            total_checks=body["totalChecks"],
            stake_distribution=stake,
        )
        recompute_mark(agent_ids=[agent.pk])
    return summary
