"""Validation of provider input beyond what JSON Schema can say.

Every error names the offending field as a JSON pointer into the request body, so a provider
sending a batch learns exactly which value of which summary was refused.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings

from common.errors import FieldError, json_pointer
from common.validation import BatchEnvelope, BodySchema

from ..schemas import OUTCOME_SCHEMA, STAKE_LEVELS, SUMMARY_SCHEMA, VERDICT_ALIASES, outcomes_schema

RATE_SUM_TOLERANCE = 1e-6
# Counts above this are refused: larger integers lose precision as floats in the scoring maths, and
# a 64-bit database column overflows (a 500 on PostgreSQL) not far above it.
MAX_COUNT = 2**53 - 1


def max_clock_skew() -> timedelta:
    """How far ahead of our clock a provider's timestamp may be (MAX_CLOCK_SKEW_SECONDS)."""
    return timedelta(seconds=settings.MAX_CLOCK_SKEW_SECONDS)


# Checked through the compiled gate first: most bodies are valid, and then jsonschema is skipped.
SUMMARY_BODY = BodySchema(SUMMARY_SCHEMA, gate=True)
OUTCOME_BODY = BodySchema(OUTCOME_SCHEMA, gate=True)
# Batches: the envelope (1 to the configured number of items) is checked here, each item then by
# summary_validate / outcome_validate with its index in the pointers.
SUMMARY_BATCH = BatchEnvelope(
    key="summaries",
    item=SUMMARY_SCHEMA,
    bound="SUMMARY_BATCH_MAX",
    empty=lambda _: "Expected a non-empty list of summaries.",
    too_many=lambda limit, got: f"At most {limit} summaries per batch; got {got}.",
)
OUTCOME_BATCH = BatchEnvelope(
    key="outcomes",
    item=OUTCOME_SCHEMA,
    bound="OUTCOME_BATCH_MAX",
    empty=lambda _: "Expected a non-empty list of outcomes.",
    too_many=lambda limit, _: f"At most {limit} outcomes per request.",
    document=outcomes_schema,
)


@dataclass(frozen=True)
class NormalisedSummary:
    """A validated summary in the registry's own field names."""

    agent: str
    agent_registry: str | None
    agent_protocol: str | None
    allow_rate: float
    block_rate: float
    uncertain_rate: float | None
    avg_confidence: float
    total_checks: int
    stake_distribution: dict[str, dict[str, Any]] | None
    window_days: int
    updated_at: datetime | None


@dataclass(frozen=True)
class NormalisedOutcome:
    outcome_id: str
    verdict: str
    reported_verdict: str
    confidence: float
    stake: str
    checked_at: datetime


def _non_finite(value: Any, path: list[str | int]) -> list[FieldError]:
    """NaN and Infinity: JSON has no such numbers, but lenient encoders emit them."""
    if isinstance(value, float) and not math.isfinite(value):
        return [FieldError(json_pointer(path), "Must be a finite number.")]
    if isinstance(value, Mapping):
        return [e for k, v in value.items() for e in _non_finite(v, [*path, k])]
    if isinstance(value, list):
        return [e for i, v in enumerate(value) for e in _non_finite(v, [*path, i])]
    return []


def parse_timestamp(raw: str, path: list[str | int]) -> tuple[datetime | None, list[FieldError]]:
    """Parse an RFC 3339 timestamp; naive times are refused rather than guessed.

    A time whose UTC equivalent falls outside years 1..9999 (`0001-01-01T00:00:00+14:00`) is
    refused as out of range: converting it raises OverflowError, which used to answer 500.
    """
    try:
        value = datetime.fromisoformat(raw)
    except ValueError:
        return None, [FieldError(json_pointer(path), "Not an RFC 3339 date-time.")]
    if value.tzinfo is None:
        return None, [FieldError(json_pointer(path), "The date-time needs a time zone (e.g. a trailing Z).")]
    try:
        return value.astimezone(UTC), []
    except OverflowError:
        return None, [
            FieldError(json_pointer(path), "The date-time is out of range (years 1 to 9999 in UTC).")
        ]


def _not_in_future(value: datetime | None, path: list[str | int]) -> list[FieldError]:
    """A timestamp ahead of our clock by more than the allowed skew would never age out of a window."""
    skew = max_clock_skew()
    if value is not None and value > datetime.now(UTC) + skew:
        name = path[-1] if path else "date-time"
        return [
            FieldError(
                json_pointer(path),
                f"{name} is in the future (more than {int(skew.total_seconds())} s ahead).",
            )
        ]
    return []


def _count_errors(counts: Iterable[tuple[Any, list[str | int]]]) -> list[FieldError]:
    return [
        FieldError(json_pointer(path), f"Must be at most {MAX_COUNT}.")
        for value, path in counts
        if isinstance(value, int | float) and value > MAX_COUNT
    ]


def summary_validate(
    body: Any, *, prefix: list[str | int] | None = None
) -> tuple[NormalisedSummary | None, list[FieldError]]:
    """Check one summary body; returns the normalised summary or the list of field errors.

    Every bad field of the item is named: the schema's errors, non-finite numbers, counts out of range
    and the cross-field rules, each rule checked when the fields it reads are individually valid.
    """
    prefix = prefix or []
    errors = _non_finite(body, prefix)
    schema_errors = SUMMARY_BODY.errors(body, prefix=prefix)
    if schema_errors:
        errors = list(dict.fromkeys([*errors, *schema_errors]))
    if not isinstance(body, Mapping):
        return None, errors or [FieldError(json_pointer(prefix), "Expected a summary object.")]

    def valid(*names: str) -> bool:
        """Whether these fields are present and no error so far concerns them (or their parts)."""
        for name in names:
            pointer = json_pointer([*prefix, name])
            if name not in body or any(
                e.pointer == pointer or e.pointer.startswith(pointer + "/") for e in errors
            ):
                return False
        return True

    stake = body.get("stakeDistribution") if valid("stakeDistribution") else None
    providers = body.get("providers") if valid("providers") else None
    errors.extend(
        _count_errors(
            [
                *([(body["totalChecks"], [*prefix, "totalChecks"])] if valid("totalChecks") else []),
                *(
                    (entry["checks"], [*prefix, "stakeDistribution", level, "checks"])
                    for level, entry in (stake or {}).items()
                ),
                *(
                    (item.get("checksContributed"), [*prefix, "providers", index, "checksContributed"])
                    for index, item in enumerate(providers or [])
                ),
            ]
        )
    )
    if valid("allowRate", "blockRate") and (valid("uncertainRate") or "uncertainRate" not in body):
        uncertain = body.get("uncertainRate")
        rate_sum = float(body["allowRate"]) + float(body["blockRate"])
        rate_sum += float(uncertain) if uncertain is not None else 0.0
        if rate_sum > 1 + RATE_SUM_TOLERANCE:
            errors.append(
                FieldError(
                    json_pointer([*prefix, "blockRate"]),
                    f"allowRate + blockRate + uncertainRate is {rate_sum:.6g}, above 1.",
                )
            )
    if stake is not None and valid("totalChecks"):
        total = int(body["totalChecks"])
        level_sum = sum(int(entry["checks"]) for entry in stake.values())
        if level_sum > total:
            errors.append(
                FieldError(
                    json_pointer([*prefix, "stakeDistribution"]),
                    f"The levels hold {level_sum} checks, more than totalChecks ({total}).",
                )
            )
    updated_at = None
    if valid("updatedAt"):
        updated_at, more = parse_timestamp(body["updatedAt"], [*prefix, "updatedAt"])
        errors.extend(more)
        # A window ending in the future would never turn stale: allow only clock skew.
        errors.extend(_not_in_future(updated_at, [*prefix, "updatedAt"]))
    if errors:
        return None, errors
    allow, block = float(body["allowRate"]), float(body["blockRate"])
    uncertain = body.get("uncertainRate")
    total = int(body["totalChecks"])
    stake_norm = {level: dict(entry) for level, entry in stake.items()} if stake is not None else None
    return (
        NormalisedSummary(
            agent=body["agent"],
            agent_registry=body.get("agentRegistry"),
            agent_protocol=body.get("agentProtocol"),
            allow_rate=allow,
            block_rate=block,
            uncertain_rate=float(uncertain) if uncertain is not None else None,
            avg_confidence=float(body["avgConfidence"]),
            total_checks=total,
            stake_distribution=stake_norm,
            window_days=int(body.get("windowDays", 7)),
            updated_at=updated_at,
        ),
        [],
    )


def outcome_validate(
    body: Any, *, prefix: list[str | int]
) -> tuple[NormalisedOutcome | None, list[FieldError]]:
    """Check one raw outcome and map its verdict onto ALLOW / BLOCK / UNCERTAIN."""
    errors = _non_finite(body, prefix)
    schema_errors = OUTCOME_BODY.errors(body, prefix=prefix)
    if schema_errors:
        errors = list(dict.fromkeys([*errors, *schema_errors]))
    if not isinstance(body, Mapping):
        return None, errors or [FieldError(json_pointer(prefix), "Expected an outcome object.")]
    checked_pointer = json_pointer([*prefix, "checkedAt"])
    checked_at = None
    if "checkedAt" in body and not any(e.pointer == checked_pointer for e in errors):
        checked_at, more = parse_timestamp(body["checkedAt"], [*prefix, "checkedAt"])
        errors.extend(more)
        # An outcome dated in the future would be counted in every window until then.
        errors.extend(_not_in_future(checked_at, [*prefix, "checkedAt"]))
    if errors or checked_at is None:
        return None, errors
    stake = body.get("stake", "")
    return (
        NormalisedOutcome(
            outcome_id=body["id"],
            verdict=VERDICT_ALIASES[body["verdict"]],
            reported_verdict=body["verdict"],
            confidence=float(body["confidence"]),
            stake=stake,
            checked_at=checked_at,
        ),
        [],
    )


__all__ = [
    "STAKE_LEVELS",
    "NormalisedOutcome",
    "NormalisedSummary",
    "outcome_validate",
    "parse_timestamp",
    "summary_validate",
]
