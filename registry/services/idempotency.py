"""Idempotent request handling shared by every ingestion endpoint.

A request carrying an `Idempotency-Key` stores its answer in the same transaction as its data,
so a retry gets exactly the first answer (200) and a different body under the same key a 409.
Unique constraints settle races: the loser's transaction fails and its retry replays the winner.

A signed request is idempotent by its nonce as well, with or without a key: its nonce is bound to
the signed body (services.signatures.submission_bind) and its answer kept under the reserved key
`NONCE_KEY_PREFIX + nonce`, so the same signed request again replays the first answer and never
stores a second row (a push without `updatedAt` would otherwise open a new window every time, and an
old body replayed after a correction would become the latest again).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import IntegrityError, transaction

from common.errors import ApplicationError, FieldError

from ..models import IdempotencyRecord, Provider
from .signatures import SignedSubmission, submission_bind

Answer = tuple[int, Any]

#: Answers to signed requests are kept under this prefix; client keys may not start with it.
NONCE_KEY_PREFIX = "eip712-nonce:"


def _nonce_key(nonce: int) -> str:
    return f"{NONCE_KEY_PREFIX}{nonce}"


def idempotent_replay(
    *, provider: Provider, key: str | None, fingerprint: str
) -> tuple[int, dict[str, Any]] | None:
    """The stored answer for a retried Idempotency-Key, or None when the key is new."""
    if not key:
        return None
    if key.startswith(NONCE_KEY_PREFIX):
        raise ApplicationError(
            f"Idempotency-Key may not start with {NONCE_KEY_PREFIX!r} (reserved for signed requests).",
            status=400,
            problem="validation",
            errors=[FieldError.for_header("Idempotency-Key", f"May not start with {NONCE_KEY_PREFIX!r}.")],
            extra={"header": "Idempotency-Key"},
        )
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
    return 200, answer_as_replay(record.response_body)


def answer_as_replay(body: dict[str, Any]) -> dict[str, Any]:
    """The stored first answer, told as a replay: nothing was stored this time.

    `"status": "created"` reads `"replayed"`, a count of created items moves to `replayed` (a batch,
    outcomes), and each result of a batch is told the same way; everything else is the first answer.
    """
    out = dict(body)
    if out.get("status") == "created":
        out["status"] = "replayed"
    created, replayed = out.get("created"), out.get("replayed")
    if type(created) is int and type(replayed) is int:
        out["created"], out["replayed"] = 0, created + replayed
    if isinstance(out.get("results"), list):
        out["results"] = [answer_as_replay(r) if isinstance(r, dict) else r for r in out["results"]]
    return out


def idempotent_store(
    *, provider: Provider, key: str | None, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    if key:
        IdempotencyRecord.objects.create(
            provider=provider, key=key, fingerprint=fingerprint, status_code=status, response_body=body
        )


def signed_replay(*, provider: Provider, submission: SignedSubmission) -> tuple[int, dict[str, Any]] | None:
    """Bind the nonce; the first answer when this very signed body was already stored, else None."""
    if submission_bind(provider=provider, submission=submission):
        return None
    record = IdempotencyRecord.objects.filter(provider=provider, key=_nonce_key(submission.nonce)).first()
    if record is None or record.fingerprint != submission.body_digest:
        # Nonces used before answers were kept: the first answer is gone, and storing again could
        # create a second row, so the replay is refused like any other reuse.
        raise ApplicationError(
            f"Nonce {submission.nonce} was already used by {provider.slug!r}; sign the request again "
            "with a new nonce.",
            status=409,
            problem="nonce-replayed",
        )
    return 200, answer_as_replay(record.response_body)


def idempotent_run(
    *,
    provider: Provider,
    key: str | None,
    fingerprint: str,
    store: Callable[[], Answer],
    verify: Callable[[], SignedSubmission | None] | None = None,
) -> Answer:
    """Run `store` in a transaction unless the key (or signed nonce) was seen; retry once after a race.

    `verify` checks the request's signature (inside the transaction, after a known key was replayed)
    and returns what was signed; its nonce then answers a replay and keeps the first answer.
    """
    for attempt in range(2):
        try:
            with transaction.atomic():
                replay = idempotent_replay(provider=provider, key=key, fingerprint=fingerprint)
                if replay is not None:
                    return replay
                submission = verify() if verify is not None else None
                if submission is not None:
                    replay = signed_replay(provider=provider, submission=submission)
                    if replay is not None:
                        return replay
                status, answer = store()
                idempotent_store(
                    provider=provider, key=key, fingerprint=fingerprint, status=status, body=answer
                )
                if submission is not None:
                    IdempotencyRecord.objects.create(
                        provider=provider,
                        key=_nonce_key(submission.nonce),
                        fingerprint=submission.body_digest,
                        status_code=status,
                        response_body=answer,
                    )
                return status, answer
        except IntegrityError:
            # A concurrent request stored the same window, outcome, key or nonce first; replay it.
            if attempt == 1:
                raise
    raise AssertionError("unreachable")
