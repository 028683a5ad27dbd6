"""Signed ingestion: a provider with a registered signer must sign what it pushes (EIP-712).

The signed struct (attestations.eip712.ProviderSummary) binds the provider slug, the agent
(`"*"` for a batch of many agents), the keccak256 of the RFC 8785 canonical JSON body, a nonce and a
deadline. The signature travels in headers so the body stays the plain HCS-25 signal:

    X-Signature: 0x<65 bytes>    X-Signature-Nonce: <uint>    X-Signature-Deadline: <unix seconds>

A nonce may be used once per provider; sending the very same signed body again is a retry (the
idempotency rules answer it), while reusing a nonce for another body is refused.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings

from attestations.eip712 import Domain, ProviderSummary, SubmissionRejected, check_provider_summary
from common.errors import ApplicationError, FieldError

from ..models import Provider, SubmissionNonce

BATCH_AGENT = "*"

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


def _uint(name: str, raw: str | None) -> int:
    try:
        value = int(raw or "")
    except ValueError:
        value = -1
    if value < 0:
        raise ApplicationError(
            f"The {name} header must be a non-negative integer.",
            status=400,
            problem="validation",
            errors=[FieldError("", f"header {name}: expected an unsigned integer")],
        )
    return value


def submission_verify(
    *, provider: Provider, agent_id: str, body: Any, headers: SignatureHeaders
) -> str | None:
    """Check the signature of a push; returns the signer, or None when the provider signs nothing.

    Must run inside the transaction that stores the body, so the nonce and the data commit together.
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
    digest = "0x" + struct.body_digest.hex()
    used, created = SubmissionNonce.objects.get_or_create(
        provider=provider, nonce=Decimal(nonce), defaults={"body_digest": digest, "signer_address": signer}
    )
    if not created and used.body_digest != digest:
        raise ApplicationError(
            f"Nonce {nonce} was already used by {provider.slug!r} for another body.",
            status=409,
            problem="nonce-replayed",
        )
    return signer


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
