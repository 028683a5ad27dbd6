"""EIP-712 typed data of the trust registry: providers' signed summaries and the service's signed scores.

Anyone can check a signature with eth-account alone: rebuild the typed data with :func:`typed_data` (or
copy it from the API answer) and call ``Account.recover_message(encode_typed_data(full_message=...),
signature=...)``.

>>> from eth_account import Account
>>> account = Account.from_key(b"\\x01" * 32)
>>> domain = Domain(chain_id=8453)
>>> summary = ProviderSummary.for_body("thoughtproof", "agent-7", {"allowRate": 0.9}, nonce=1, deadline=2000)
>>> signature = sign(summary, domain, account)
>>> recover_signer(summary, domain, signature) == account.address
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, ClassVar, Protocol

from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import to_checksum_address

from signing.canonical import canonical_keccak
from signing.keys import ServiceKey

__all__ = [
    "DOMAIN_NAME",
    "DOMAIN_VERSION",
    "Domain",
    "InvalidSignature",
    "ProviderSummary",
    "SubmissionRejected",
    "TrustScoreAttestation",
    "check_provider_summary",
    "parse_typed_data",
    "recover_signer",
    "score_to_units",
    "sign",
    "typed_data",
    "verify",
]

DOMAIN_NAME = "TrustRegistry"
DOMAIN_VERSION = "1"
_UINT256_MAX = 2**256 - 1
# Half the secp256k1 group order: a signature with a larger s is the malleable twin of a valid one.
_SECP256K1_HALF_N = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0


class InvalidSignature(ValueError):
    """The signature is malformed (not 65 bytes, bad v, high s) or recovers no address."""


class SubmissionRejected(ValueError):
    """A provider's signed submission is refused; ``reason`` is a short machine-readable code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass(frozen=True)
class Domain:
    """The EIP-712 domain: name "TrustRegistry", version "1", a chain id and an optional verifying contract.

    >>> [field["name"] for field in Domain(chain_id=1).eip712_fields()]
    ['name', 'version', 'chainId']
    """

    chain_id: int
    verifying_contract: str | None = None
    name: str = DOMAIN_NAME
    version: str = DOMAIN_VERSION

    def __post_init__(self) -> None:
        if not 0 < self.chain_id <= _UINT256_MAX:
            raise ValueError(f"chain_id must be a positive uint256, not {self.chain_id}")
        if self.verifying_contract is not None:
            object.__setattr__(self, "verifying_contract", to_checksum_address(self.verifying_contract))

    def eip712_fields(self) -> list[dict[str, str]]:
        """The ``EIP712Domain`` type, with ``verifyingContract`` only when one is set.

        >>> len(Domain(chain_id=1, verifying_contract="0x" + "11" * 20).eip712_fields())
        4
        """
        names = [
            {"name": "name", "type": "string"},
            {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"},
        ]
        if self.verifying_contract is not None:
            names.append({"name": "verifyingContract", "type": "address"})
        return names

    def as_dict(self) -> dict[str, Any]:
        """The domain values, keyed as EIP-712 names them.

        >>> Domain(chain_id=8453).as_dict()
        {'name': 'TrustRegistry', 'version': '1', 'chainId': 8453}
        """
        values: dict[str, Any] = {"name": self.name, "version": self.version, "chainId": self.chain_id}
        if self.verifying_contract is not None:
            values["verifyingContract"] = self.verifying_contract
        return values


def score_to_units(score: float | int | str | Decimal) -> int:
    """A 0-100 score in hundredths (2 decimals), rounded half up, as the attestation carries it.

    >>> score_to_units("87.125")
    8713
    """
    try:
        exact = Decimal(str(score))
    except InvalidOperation:
        raise ValueError(f"score must be a number, not {score!r}") from None
    if not exact.is_finite() or not 0 <= exact <= 100:
        raise ValueError(f"score must be between 0 and 100, not {score}")
    return int((exact * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def _require_uint(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _UINT256_MAX:
        raise ValueError(f"{name} must be an integer in uint256 range, not {value!r}")


def _require_bytes32(name: str, value: bytes) -> None:
    if not isinstance(value, bytes) or len(value) != 32:
        raise ValueError(f"{name} must be 32 bytes")


@dataclass(frozen=True)
class ProviderSummary:
    """What a provider signs when it pushes a summary: who, for which agent, which body, nonce and deadline.

    >>> ProviderSummary("p", "a", b"\\x00" * 32, nonce=0, deadline=1).message()["bodyDigest"]
    '0x0000000000000000000000000000000000000000000000000000000000000000'
    """

    PRIMARY_TYPE: ClassVar[str] = "ProviderSummary"
    EIP712_FIELDS: ClassVar[list[dict[str, str]]] = [
        {"name": "provider", "type": "string"},
        {"name": "agentId", "type": "string"},
        {"name": "bodyDigest", "type": "bytes32"},
        {"name": "nonce", "type": "uint256"},
        {"name": "deadline", "type": "uint256"},
    ]

    provider: str
    agent_id: str
    body_digest: bytes
    nonce: int
    deadline: int

    def __post_init__(self) -> None:
        if not self.provider or not self.agent_id:
            raise ValueError("provider and agent_id must be non-empty")
        _require_bytes32("body_digest", self.body_digest)
        _require_uint("nonce", self.nonce)
        _require_uint("deadline", self.deadline)

    @classmethod
    def for_body(
        cls, provider: str, agent_id: str, body: Any, *, nonce: int, deadline: int
    ) -> ProviderSummary:
        """The struct for a JSON body, whose digest is :func:`canonical_keccak` of it.

        >>> summary = ProviderSummary.for_body("p", "a", {"x": 1}, nonce=1, deadline=2)
        >>> summary.body_digest == canonical_keccak({"x": 1})
        True
        """
        return cls(provider, agent_id, canonical_keccak(body), nonce=nonce, deadline=deadline)

    def message(self) -> dict[str, Any]:
        """The struct's values keyed by their EIP-712 names (digests as 0x hex).

        >>> sorted(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2).message())
        ['agentId', 'bodyDigest', 'deadline', 'nonce', 'provider']
        """
        return {
            "provider": self.provider,
            "agentId": self.agent_id,
            "bodyDigest": "0x" + self.body_digest.hex(),
            "nonce": self.nonce,
            "deadline": self.deadline,
        }


@dataclass(frozen=True)
class TrustScoreAttestation:
    """The service's signed statement of an agent's trust score (score in hundredths: 87.25 is 8725).

    >>> TrustScoreAttestation("a", 8725, b"\\x01" * 32, 3, b"\\x02" * 32, 10, 20).message()["score"]
    8725
    """

    PRIMARY_TYPE: ClassVar[str] = "TrustScoreAttestation"
    EIP712_FIELDS: ClassVar[list[dict[str, str]]] = [
        {"name": "agentId", "type": "string"},
        {"name": "score", "type": "uint256"},
        {"name": "trustScoresDigest", "type": "bytes32"},
        {"name": "configVersion", "type": "uint256"},
        {"name": "inputsDigest", "type": "bytes32"},
        {"name": "issuedAt", "type": "uint256"},
        {"name": "expiresAt", "type": "uint256"},
    ]

    agent_id: str
    score: int
    trust_scores_digest: bytes
    config_version: int
    inputs_digest: bytes
    issued_at: int
    expires_at: int

    def __post_init__(self) -> None:
        if not self.agent_id:
            raise ValueError("agent_id must be non-empty")
        _require_uint("score", self.score)
        if self.score > 10_000:
            raise ValueError(f"score is in hundredths and at most 10000 (100.00), not {self.score}")
        _require_bytes32("trust_scores_digest", self.trust_scores_digest)
        _require_uint("config_version", self.config_version)
        _require_bytes32("inputs_digest", self.inputs_digest)
        _require_uint("issued_at", self.issued_at)
        _require_uint("expires_at", self.expires_at)
        if self.expires_at <= self.issued_at:
            raise ValueError(f"expires_at ({self.expires_at}) must be after issued_at ({self.issued_at})")

    @classmethod
    def for_score(
        cls,
        agent_id: str,
        score: float | int | str | Decimal,
        trust_scores: Mapping[str, Any],
        *,
        config_version: int,
        inputs_digest: bytes,
        issued_at: int,
        ttl_seconds: int,
    ) -> TrustScoreAttestation:
        """An attestation for a computed score and its ``trustScores`` map (digested canonically).

        >>> TrustScoreAttestation.for_score("a", 87.125, {"total": 87.13}, config_version=1,
        ...     inputs_digest=b"\\x00" * 32, issued_at=100, ttl_seconds=60).score
        8713
        """
        return cls(
            agent_id=agent_id,
            score=score_to_units(score),
            trust_scores_digest=canonical_keccak(dict(trust_scores)),
            config_version=config_version,
            inputs_digest=inputs_digest,
            issued_at=issued_at,
            expires_at=issued_at + ttl_seconds,
        )

    def is_current(self, now: int) -> bool:
        """Whether ``now`` (unix seconds) lies in [issuedAt, expiresAt).

        >>> TrustScoreAttestation("a", 1, b"\\x01" * 32, 1, b"\\x02" * 32, 10, 20).is_current(20)
        False
        """
        return self.issued_at <= now < self.expires_at

    def message(self) -> dict[str, Any]:
        """The struct's values keyed by their EIP-712 names (digests as 0x hex).

        >>> attestation = TrustScoreAttestation("a", 1, b"\\x01" * 32, 1, b"\\x02" * 32, 10, 20)
        >>> attestation.message()["inputsDigest"][:6]
        '0x0202'
        """
        return {
            "agentId": self.agent_id,
            "score": self.score,
            "trustScoresDigest": "0x" + self.trust_scores_digest.hex(),
            "configVersion": self.config_version,
            "inputsDigest": "0x" + self.inputs_digest.hex(),
            "issuedAt": self.issued_at,
            "expiresAt": self.expires_at,
        }


Message = ProviderSummary | TrustScoreAttestation


class _MessageSigner(Protocol):
    def sign_message(self, signable_message: Any) -> Any: ...


def typed_data(message: Message, domain: Domain) -> dict[str, Any]:
    """The full EIP-712 document (types, primaryType, domain, message) that is signed and published.

    >>> typed_data(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2), Domain(1))["primaryType"]
    'ProviderSummary'
    """
    return {
        "types": {"EIP712Domain": domain.eip712_fields(), message.PRIMARY_TYPE: list(message.EIP712_FIELDS)},
        "primaryType": message.PRIMARY_TYPE,
        "domain": domain.as_dict(),
        "message": message.message(),
    }


def parse_typed_data(document: Mapping[str, Any]) -> tuple[Message, Domain]:
    """The message and domain of a published typed-data document (the inverse of :func:`typed_data`).

    Raises ValueError naming what is wrong; the types in the document must be exactly this module's, so a
    document that renames or reorders a field cannot pass as one of ours.

    >>> summary = ProviderSummary("p", "a", b"\\x00" * 32, 1, 2)
    >>> parse_typed_data(typed_data(summary, Domain(8453))) == (summary, Domain(8453))
    True
    """
    try:
        primary = document["primaryType"]
        kind = {cls.PRIMARY_TYPE: cls for cls in (ProviderSummary, TrustScoreAttestation)}.get(primary)
        if kind is None:
            raise ValueError(f"unknown primaryType {primary!r}")
        values = document["message"]
        raw_domain = document["domain"]
        domain = Domain(
            chain_id=int(raw_domain["chainId"]),
            verifying_contract=raw_domain.get("verifyingContract"),
            name=str(raw_domain["name"]),
            version=str(raw_domain["version"]),
        )
        if document["types"] != {"EIP712Domain": domain.eip712_fields(), primary: kind.EIP712_FIELDS}:
            raise ValueError(f"the types of {primary} differ from this registry's")
        arguments: dict[str, Any] = {}
        for field_type, python_name in zip(kind.EIP712_FIELDS, _PYTHON_NAMES[primary], strict=True):
            value = values[field_type["name"]]
            if field_type["type"] == "bytes32":
                arguments[python_name] = bytes.fromhex(str(value).removeprefix("0x"))
            elif field_type["type"] == "uint256":
                arguments[python_name] = int(value)
            else:
                arguments[python_name] = str(value)
        return kind(**arguments), domain
    except (KeyError, TypeError) as error:
        raise ValueError(f"malformed typed data: missing or wrong {error}") from None


# The dataclass field for each EIP-712 member, in the members' order.
_PYTHON_NAMES = {
    "ProviderSummary": ("provider", "agent_id", "body_digest", "nonce", "deadline"),
    "TrustScoreAttestation": (
        "agent_id",
        "score",
        "trust_scores_digest",
        "config_version",
        "inputs_digest",
        "issued_at",
        "expires_at",
    ),
}


def sign(message: Message, domain: Domain, signer: ServiceKey | _MessageSigner | bytes | str) -> bytes:
    """Sign ``message`` in ``domain``; the signer is a ServiceKey, an eth-account account or a raw key.

    >>> len(sign(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2), Domain(1), b"\\x07" * 32))
    65
    """
    document = typed_data(message, domain)
    if isinstance(signer, ServiceKey):
        return signer.sign_typed_data(document)
    signable = encode_typed_data(full_message=document)
    if isinstance(signer, bytes | str):
        return bytes(Account.sign_message(signable, signer).signature)
    return bytes(signer.sign_message(signable).signature)


def recover_signer(message: Message, domain: Domain, signature: bytes | str) -> str:
    """The checksummed address that signed ``message`` in ``domain``; InvalidSignature if malformed.

    >>> recover_signer(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2), Domain(1), b"\\x00" * 64)
    Traceback (most recent call last):
    ...
    signing.eip712.InvalidSignature: a signature is 65 bytes (r, s, v), not 64
    """
    raw = bytes.fromhex(signature.removeprefix("0x")) if isinstance(signature, str) else bytes(signature)
    if len(raw) != 65:
        raise InvalidSignature(f"a signature is 65 bytes (r, s, v), not {len(raw)}")
    if int.from_bytes(raw[32:64], "big") > _SECP256K1_HALF_N:
        raise InvalidSignature("signature s is in the upper half of the curve order (malleable)")
    if raw[64] not in (27, 28):
        raise InvalidSignature(f"signature v must be 27 or 28, not {raw[64]}")
    try:
        signable = encode_typed_data(full_message=typed_data(message, domain))
        return str(Account.recover_message(signable, signature=raw))
    except Exception as error:
        raise InvalidSignature(f"no address recovers from this signature: {type(error).__name__}") from None


def verify(message: Message, domain: Domain, signature: bytes | str, signer: str) -> bool:
    """Whether ``signature`` is ``signer``'s signature over ``message`` in ``domain``.

    >>> verify(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2), Domain(1), b"", "0x" + "00" * 20)
    False
    """
    try:
        return recover_signer(message, domain, signature).lower() == signer.lower()
    except (InvalidSignature, ValueError):
        return False


def check_provider_summary(
    summary: ProviderSummary,
    domain: Domain,
    signature: bytes | str | None,
    *,
    allowed_signers: Iterable[str],
    now: int,
    max_deadline_ahead: int | None = 3600,
) -> str:
    """Accept a provider's signed submission and return its signer, or raise SubmissionRejected.

    Reasons: "unsigned", "bad-signature", "wrong-signer", "expired", "deadline-too-far". Replay is the
    caller's check: a (provider, nonce) pair may be used once, whatever the signature bytes.

    >>> check_provider_summary(ProviderSummary("p", "a", b"\\x00" * 32, 1, 2), Domain(1), None,
    ...     allowed_signers=[], now=0)
    Traceback (most recent call last):
    ...
    signing.eip712.SubmissionRejected: unsigned: the submission carries no signature
    """
    if not signature:
        raise SubmissionRejected("unsigned", "the submission carries no signature")
    if summary.deadline < now:
        raise SubmissionRejected("expired", f"deadline {summary.deadline} is before now ({now})")
    if max_deadline_ahead is not None and summary.deadline > now + max_deadline_ahead:
        raise SubmissionRejected("deadline-too-far", f"deadline is more than {max_deadline_ahead} s ahead")
    try:
        signer = recover_signer(summary, domain, signature)
    except (InvalidSignature, ValueError) as error:
        raise SubmissionRejected("bad-signature", str(error)) from None
    if signer.lower() not in {address.lower() for address in allowed_signers}:
        raise SubmissionRejected(
            "wrong-signer", f"{signer} is not a registered signer of {summary.provider!r}"
        )
    return signer
