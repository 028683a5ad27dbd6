"""EIP-712 attestations of trust scores: issue (cached until near expiry) and verify."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import rfc8785
from django.conf import settings
from django.utils import timezone
from eth_utils import keccak

from common.errors import ApplicationError, FieldError, validation_error
from registry.models import TrustScore
from signing.eip712 import Domain, TrustScoreAttestation, recover_signer, typed_data

from ..models import ScoreAttestation
from .keys import service_key


def attestation_domain() -> Domain:
    return Domain(chain_id=settings.ATTESTATION_CHAIN_ID)


def _digest_bytes(digest: str) -> bytes:
    """'sha256:<64 hex>' -> 32 bytes."""
    return bytes.fromhex(digest.split(":", 1)[1])


def score_is_rated(*, score: TrustScore) -> bool:
    """Whether any input counted: with zero confidence the score 0 is "no data", not a verdict."""
    return score.trust_confidence > 0


def score_attestation_issue(*, score: TrustScore, now: datetime | None = None) -> ScoreAttestation:
    """The current attestation of `score`, signing a new one when none has a quarter of its life left.

    An unrated score is refused: the signed message carries no confidence, so a signed 0 would read
    as "this agent is untrustworthy" to anyone checking the signature.
    """
    if not score_is_rated(score=score):
        raise ApplicationError(
            f"Agent {score.agent.subject_id!r} is not rated yet: no input counts towards its score.",
            status=409,
            problem="not-rated",
        )
    now = now or timezone.now()
    ttl = settings.ATTESTATION_TTL_SECONDS
    fresh_until = now + timedelta(seconds=ttl / 4)
    current = (
        ScoreAttestation.objects.filter(score=score, expires_at__gt=fresh_until)
        .order_by("-expires_at")
        .first()
    )
    if current is not None:
        return current
    key = service_key()
    assert key is not None
    issued = int(now.timestamp())
    message = TrustScoreAttestation.for_score(
        score.agent.subject_id,
        score.trust_score,
        score.record["trustScores"],
        config_version=score.config.version,
        inputs_digest=_digest_bytes(score.inputs_digest),
        issued_at=issued,
        ttl_seconds=ttl,
    )
    domain = attestation_domain()
    document_obj: dict[str, Any] = {
        "typedData": typed_data(message, domain),
        "signature": "0x" + key.sign_typed_data(typed_data(message, domain)).hex(),
        "signer": key.address,
        "scoreUrl": f"{settings.SITE_URL}/api/v1/agents/{score.agent.subject_id}/trust-score",
    }
    document = rfc8785.dumps(document_obj).decode()
    return ScoreAttestation.objects.create(
        score=score,
        signer_address=key.address,
        chain_id=domain.chain_id,
        document=document,
        document_hash="0x" + keccak(document.encode()).hex(),
        issued_at=datetime.fromtimestamp(issued, UTC),
        expires_at=datetime.fromtimestamp(message.expires_at, UTC),
    )


def attestation_verify(*, typed: Any, signature: Any, now: datetime | None = None) -> dict[str, Any]:
    """Check an attestation document: who signed it, whether that is us, whether it is current."""
    errors = []
    if not isinstance(typed, dict) or typed.get("primaryType") != TrustScoreAttestation.PRIMARY_TYPE:
        errors.append(
            FieldError("/typedData", "Expected EIP-712 typed data with primaryType TrustScoreAttestation.")
        )
    if not isinstance(signature, str):
        errors.append(FieldError("/signature", "Expected a 0x-prefixed hex signature."))
    if errors:
        raise validation_error(errors, what="attestation")
    try:
        message = typed["message"]
        attestation = TrustScoreAttestation(
            agent_id=message["agentId"],
            score=int(message["score"]),
            trust_scores_digest=bytes.fromhex(str(message["trustScoresDigest"]).removeprefix("0x")),
            config_version=int(message["configVersion"]),
            inputs_digest=bytes.fromhex(str(message["inputsDigest"]).removeprefix("0x")),
            issued_at=int(message["issuedAt"]),
            expires_at=int(message["expiresAt"]),
        )
        domain_data = typed["domain"]
        domain = Domain(
            chain_id=int(domain_data["chainId"]),
            verifying_contract=domain_data.get("verifyingContract"),
            name=domain_data.get("name", ""),
            version=domain_data.get("version", ""),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise validation_error([FieldError("/typedData/message", f"Malformed attestation: {exc}")]) from None
    try:
        signer = recover_signer(attestation, domain, signature)
    except ValueError as exc:
        raise validation_error([FieldError("/signature", str(exc))], what="attestation") from None
    key = service_key(required=False)
    expected = key.address if key is not None else None
    moment = int((now or timezone.now()).timestamp())
    return {
        "signer": signer,
        "expectedSigner": expected,
        "signedByThisRegistry": expected is not None and signer.lower() == expected.lower(),
        "current": attestation.is_current(moment),
        "valid": expected is not None
        and signer.lower() == expected.lower()
        and attestation.is_current(moment),
        "agentId": attestation.agent_id,
        "score": attestation.score / 100,
        "configVersion": attestation.config_version,
    }


def attestation_document(*, attestation_id: int) -> ScoreAttestation:
    found = ScoreAttestation.objects.filter(pk=attestation_id).first()
    if found is None:
        raise ApplicationError("No such attestation.", status=404, problem="not-found")
    return found
