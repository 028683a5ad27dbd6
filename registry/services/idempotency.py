"""Idempotent request handling shared by every ingestion endpoint.

A request carrying an `Idempotency-Key` stores its answer in the same transaction as its data,
so a retry gets exactly the first answer (200) and a different body under the same key a 409.
Unique constraints settle races: the loser's transaction fails and its retry replays the winner.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from common.errors import ApplicationError

from ..models import IdempotencyRecord, Provider

Answer = tuple[int, Any]


def idempotent_replay(
    *, provider: Provider, key: str | None, fingerprint: str
) -> tuple[int, dict[str, Any]] | None:
    """The stored answer for a retried Idempotency-Key, or None when the key is new."""
    if not key:
        return None
    record = IdempotencyRecord.objects.filter(provider=provider, key=key).first()
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise ApplicationError(
            f"Idempotency-Key {key!r} was used for a different request.",
            status=409,
            problem="conflict",
            extra={"idempotencyKey": key},
        )
    return 200, record.response_body


def idempotent_store(
    *, provider: Provider, key: str | None, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    if key:
        IdempotencyRecord.objects.create(
            provider=provider, key=key, fingerprint=fingerprint, status_code=status, response_body=body
        )


def idempotent_run(
    *, provider: Provider, key: str | None, fingerprint: str, store: Callable[[], Answer]
) -> Answer:
    """Run `store` in a transaction unless the key was seen; retry once after losing a race."""
    for attempt in range(2):
        try:
            with transaction.atomic():
                replay = idempotent_replay(provider=provider, key=key, fingerprint=fingerprint)
                if replay is not None:
                    return replay
                status, answer = store()
                idempotent_store(
                    provider=provider, key=key, fingerprint=fingerprint, status=status, body=answer
                )
                return status, answer
        except IntegrityError:
            # A concurrent request stored the same window, outcome or key first; replay it.
            if attempt == 1:
                raise
    raise AssertionError("unreachable")
