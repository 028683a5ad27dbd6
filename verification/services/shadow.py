"""Shadow mode: the engine verifies as usual, enforces nothing, and counts what it would have done.

A request is in shadow mode when the setting `ENGINE_SHADOW_MODE` is on (every request of the
deployment) or when it sends `x-vsr-shadow: true`. What "would have" means per endpoint:

* the proxy: what the request's action would have done to the answer: `block` (a 422 instead of the
  answer), `annotate` (the `body` warning), `revise` (a re-ask of the model) or `pass`;
* `POST /api/v1/verify/run`: the gate's action, `block`, `revise` or `pass` (for `emit`);
* `POST /api/v1/verify/tool-call`: the verdict, `block`, `flag` or `pass` (for `accept`).

`block` counts as *would block*; `annotate`, `revise` and `flag` as *would warn*.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Sum
from django.utils import timezone

from common.errors import FieldError, validation_error

from ..models import Operator, OperatorApiKey, ShadowCount

SHADOW_HEADER = "x-vsr-shadow"
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
WOULD_BLOCK = frozenset({"block"})
WOULD_WARN = frozenset({"annotate", "revise", "flag"})
# How many days GET /api/v1/operators/me sums (each day is one row per endpoint: a bounded read).
SHADOW_SUMMARY_DAYS = 7


def shadow_requested(*, header: str | None) -> bool:
    """Whether a request runs in shadow mode: the deployment's setting, or the request's header.

    The header only turns shadow mode on: with ENGINE_SHADOW_MODE set, nothing a client sends makes
    the engine enforce. A value that is not a boolean is a 400 naming the header.
    """
    if header is None or header.strip() == "":
        return bool(settings.ENGINE_SHADOW_MODE)
    value = header.strip().lower()
    if value not in _TRUE | _FALSE:
        raise validation_error(
            [FieldError.for_header(SHADOW_HEADER, f"Must be true or false, not {header[:20]!r}.")],
            what="request",
        )
    return bool(settings.ENGINE_SHADOW_MODE) or value in _TRUE


def shadow_count(
    *, operator: OperatorApiKey | None, endpoint: str, would: list[str], now: datetime | None = None
) -> None:
    """Count shadow verifications (one per entry of `would`) on today's row of the operator."""
    if operator is None or not would:
        return
    day = timezone.localdate(now or timezone.now(), timezone=UTC)
    blocks = sum(1 for item in would if item in WOULD_BLOCK)
    warns = sum(1 for item in would if item in WOULD_WARN)
    increments = {
        "checks": F("checks") + len(would),
        "would_block": F("would_block") + blocks,
        "would_warn": F("would_warn") + warns,
    }
    key = {"operator_id": operator.owner_id, "day": day, "endpoint": endpoint}
    if ShadowCount.objects.filter(**key).update(**increments):
        return
    try:
        with transaction.atomic():
            ShadowCount.objects.create(**key, checks=len(would), would_block=blocks, would_warn=warns)
    except IntegrityError:  # another request created today's row first
        ShadowCount.objects.filter(**key).update(**increments)


def shadow_counters(*, operator: Operator, days: int = SHADOW_SUMMARY_DAYS) -> dict[str, Any]:
    """The operator's shadow counters over the last `days` UTC days (today included), per endpoint."""
    since: date = timezone.localdate(timezone.now(), timezone=UTC) - timedelta(days=days - 1)
    rows = (
        ShadowCount.objects.filter(operator=operator, day__gte=since)
        .values("endpoint")
        .annotate(checks=Sum("checks"), would_block=Sum("would_block"), would_warn=Sum("would_warn"))
    )
    endpoints = {
        row["endpoint"]: {
            "checks": row["checks"],
            "wouldBlock": row["would_block"],
            "wouldWarn": row["would_warn"],
        }
        for row in rows
    }
    return {
        "enabledForDeployment": bool(settings.ENGINE_SHADOW_MODE),
        "days": days,
        "since": since.isoformat(),
        "endpoints": {
            name: endpoints.get(name, {"checks": 0, "wouldBlock": 0, "wouldWarn": 0})
            for name in ShadowCount.Endpoint.values
        },
    }
