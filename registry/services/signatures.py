"""Signed ingestion: a provider with a registered signer must sign what it pushes (EIP-712).

The signed struct (signing.eip712.ProviderSummary) binds the provider slug, the agent
(`"*"` for a batch of many agents), the keccak256 of the RFC 8785 canonical JSON body, a nonce and a
deadline. The signature travels in headers so the body stays the plain HCS-25 signal:

    X-Signature: 0x<65 bytes>    X-Signature-Nonce: <uint>    X-Signature-Deadline: <unix seconds>

A nonce may be used once per provider, and is then bound to what it created: the very same signed
request again (same body, same nonce) is answered with the first answer (200) and stores nothing,
whatever the body holds (with or without `updatedAt`); the nonce with another body is refused
(409 nonce-replayed). The first answer is kept as an IdempotencyRecord under a key no
Idempotency-Key header can take (services.idempotency), in the same transaction as the data.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings

from common.errors import ApplicationError, FieldError
from signing.eip712 import Domain, ProviderSummary, SubmissionRejected, check_provider_summary

from ..models import Provider, SubmissionNonce

BATCH_AGENT = "*"
#: Both headers are EIP-712 uint256 values, written in decimal (78 digits hold 2**256 - 1, which the
#: nonce column's max_digits=78 stores).
UINT256_MAX = 2**256 - 1
_DECIMAL = re.compile(r"[0-9]{1,78}")

_STATUS = {
    "unsigned": (401, "signature-required"),
    "bad-signature": (401, "invalid-signature"),
    "wrong-signer": (401, "invalid-signature"),
    "expired": (401, "signature-expired"),
    "deadline-too-far": (400, "validation"),
}


@dataclass(frozen=True)
class SignatureHeaders:
    signature: str | None
    nonce: str | None
    deadline: str | None

    @classmethod
    def from_headers(cls, headers: Mapping[str, str]) -> SignatureHeaders:
        return cls(
            headers.get("X-Signature"), headers.get("X-Signature-Nonce"), headers.get("X-Signature-Deadline")
        )


def signing_domain() -> Domain:
    return Domain(chain_id=settings.ATTESTATION_CHAIN_ID)


@dataclass(frozen=True)
class SignedSubmission:
    """A push whose signature checked out: its nonce, the digest of the signed body, the signer."""

    nonce: int
    body_digest: str
    signer: str


def _uint(name: str, raw: str | None) -> int:
    """A uint256 header in plain ASCII decimal, or a 400 naming the header.

    int() alone would take "+5", " 5", "1_000" and other scripts' digits, and 2**256 would pass here
    and fail in the EIP-712 encoder as a 500.

    >>> _uint("X-Signature-Nonce", "0042")
    42
    """
    if raw is None or _DECIMAL.fullmatch(raw) is None or int(raw) > UINT256_MAX:
        raise ApplicationError(
            f"The {name} header must be an unsigned integer below 2**256, in decimal digits.",
            status=400,
            problem="validation",
            errors=[FieldError.for_header(name, "Expected a decimal integer from 0 to 2**256 - 1.")],
            extra={"header": name},
        )
    return int(raw)


def submission_verify(
    *, provider: Provider, agent_id: str, body: Any, headers: SignatureHeaders
) -> SignedSubmission | None:
    """Check the signature of a push; returns what was signed, or None when the provider signs nothing.

    Stores nothing: the nonce is bound by `submission_bind`, in the transaction that stores the data.
    """
    if not provider.signer_address:
        return None
    if not headers.signature:
        error = SubmissionRejected("unsigned", "the submission carries no X-Signature header")
        raise _problem(error, provider)
    nonce = _uint("X-Signature-Nonce", headers.nonce)
    deadline = _uint("X-Signature-Deadline", headers.deadline)
    struct = ProviderSummary.for_body(provider.slug, agent_id, body, nonce=nonce, deadline=deadline)
    try:
        signer = check_provider_summary(
            struct,
            signing_domain(),
            headers.signature,
            allowed_signers=[provider.signer_address],
            now=int(time.time()),
            max_deadline_ahead=settings.SIGNATURE_MAX_DEADLINE_SECONDS,
        )
    except SubmissionRejected as error:
        raise _problem(error, provider) from None
    return SignedSubmission(nonce=nonce, body_digest="0x" + struct.body_digest.hex(), signer=signer)


def submission_bind(*, provider: Provider, submission: SignedSubmission) -> bool:
    """Take the nonce for this body; False when this very body already took it (a replay).

    Refuses (409 nonce-replayed) a nonce already taken by another body. Must run inside the
    transaction that stores the data: a concurrent request with the same nonce waits on the unique
    constraint until this one commits, then finds the nonce taken.
    """
    used, created = SubmissionNonce.objects.get_or_create(
        provider=provider,
        nonce=Decimal(submission.nonce),
        defaults={"body_digest": submission.body_digest, "signer_address": submission.signer},
    )
    if not created and used.body_digest != submission.body_digest:
        raise ApplicationError(
            f"Nonce {submission.nonce} was already used by {provider.slug!r} for another body.",
            status=409,
            problem="nonce-replayed",
        )
    return created


def _problem(error: SubmissionRejected, provider: Provider) -> ApplicationError:
    status, problem = _STATUS.get(error.reason, (401, "invalid-signature"))
    detail = str(error).split(": ", 1)[-1]
    return ApplicationError(
        f"Signature refused ({error.reason}): {detail}. Providers with a registered signer "
        f"({provider.signer_address}) sign every push with EIP-712.",
        status=status,
        problem=problem,
        extra={"reason": error.reason},
        headers={"WWW-Authenticate": 'EIP712 realm="api"'} if status == 401 else {},
    )
