"""The on-chain check of the registry's signed scores: deploy and call ``TrustScoreVerifier``.

``contracts/src/TrustScoreVerifier.sol`` recomputes the EIP-712 digest of a ``TrustScoreAttestation`` (the
typed data of :mod:`signing.eip712`), recovers the signer and reverts with a custom error unless the
signer is trusted, the attestation is current and young enough, and the score reaches a minimum.
``TrustGatedEscrow.sol`` is an example consumer. This module turns the API's attestation document into
the contract's arguments and a revert into the error's name and arguments.

>>> document = {"typedData": {"message": {"agentId": "a", "score": 8725,
...     "trustScoresDigest": "0x" + "01" * 32, "configVersion": 3, "inputsDigest": "0x" + "02" * 32,
...     "issuedAt": 10, "expiresAt": 20}},
...     "signature": "0x" + "00" * 65}
>>> attestation_arguments(document)[0][:2]
('a', 8725)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from eth_abi import decode as abi_decode
from eth_utils import keccak
from web3 import Web3
from web3.exceptions import ContractCustomError
from web3.types import BlockIdentifier

from signing.chain.artifacts import load_artifact
from signing.chain.base import RegistryClient
from signing.chain.deploy import deploy_contract
from signing.chain.tx import TransactionSigner
from signing.eip712 import TrustScoreAttestation

__all__ = [
    "AttestationRefused",
    "TrustScoreVerifierClient",
    "attestation_arguments",
    "decode_custom_error",
    "deploy_verifier",
]

# The struct's members in the contract's (and the typed data's) order.
_MEMBERS = tuple(field["name"] for field in TrustScoreAttestation.EIP712_FIELDS)
_BYTES32 = {field["name"] for field in TrustScoreAttestation.EIP712_FIELDS if field["type"] == "bytes32"}
_UINT = {field["name"] for field in TrustScoreAttestation.EIP712_FIELDS if field["type"] == "uint256"}
_ERROR_SOURCES = ("TrustScoreVerifier", "TrustGatedEscrow")


class AttestationRefused(Exception):
    """A revert of the verifier or its consumer, decoded: the custom error's name and its arguments.

    >>> AttestationRefused("ScoreTooLow", (7000, 7500)) == AttestationRefused("ScoreTooLow", (7000, 7500))
    True
    """

    def __init__(self, name: str, arguments: tuple[Any, ...]) -> None:
        super().__init__(f"{name}{arguments!r}")
        self.name = name
        self.arguments = arguments

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AttestationRefused):
            return NotImplemented
        return (self.name, self.arguments) == (other.name, other.arguments)

    def __hash__(self) -> int:
        return hash((self.name, self.arguments))

    def __repr__(self) -> str:
        return f"AttestationRefused({self.name!r}, {self.arguments!r})"


def attestation_arguments(document: Mapping[str, Any]) -> tuple[tuple[Any, ...], bytes]:
    """``(attestation struct, signature)`` for ``requireMinScore`` from the API's attestation document.

    The document is what ``GET /api/v1/agents/{subjectId}/trust-score/attestation`` answers:
    ``{"typedData": {...}, "signature": "0x..."}``. Raises ValueError naming a missing or malformed member.

    >>> attestation_arguments({"typedData": {"message": {}}, "signature": "0x"})
    Traceback (most recent call last):
    ...
    ValueError: typedData.message.agentId is missing
    """
    message = document["typedData"]["message"]
    values: list[Any] = []
    for name in _MEMBERS:
        if name not in message:
            raise ValueError(f"typedData.message.{name} is missing")
        value = message[name]
        if name in _BYTES32:
            raw = bytes.fromhex(str(value).removeprefix("0x"))
            if len(raw) != 32:
                raise ValueError(f"typedData.message.{name} must be 32 bytes")
            values.append(raw)
        elif name in _UINT:
            values.append(int(value))
        else:
            values.append(str(value))
    signature = bytes.fromhex(str(document["signature"]).removeprefix("0x"))
    return tuple(values), signature


@cache
def _error_abis() -> dict[bytes, tuple[str, list[str]]]:
    found: dict[bytes, tuple[str, list[str]]] = {}
    for artifact_name in _ERROR_SOURCES:
        for item in load_artifact(artifact_name).abi:
            if item["type"] != "error":
                continue
            types = [argument["type"] for argument in item["inputs"]]
            selector = keccak(text=f"{item['name']}({','.join(types)})")[:4]
            found[selector] = (item["name"], types)
    return found


def decode_custom_error(data: str | bytes) -> AttestationRefused:
    """The verifier's or escrow's custom error in revert ``data`` (selector and ABI-encoded arguments).

    >>> decode_custom_error(keccak(text="InvalidSignature()")[:4])
    AttestationRefused('InvalidSignature', ())
    """
    raw = bytes.fromhex(data.removeprefix("0x")) if isinstance(data, str) else bytes(data)
    known = _error_abis().get(raw[:4])
    if known is None:
        raise ValueError(f"revert data 0x{raw[:4].hex()} is not an error of {', '.join(_ERROR_SOURCES)}")
    name, types = known
    values = abi_decode(types, raw[4:]) if types else ()
    return AttestationRefused(
        name,
        tuple(
            Web3.to_checksum_address(value) if kind == "address" else value
            for kind, value in zip(types, values, strict=True)
        ),
    )


def _revert_data(error: ContractCustomError) -> str:
    data = error.data if isinstance(error.data, str) else error.args[0]
    return str(data)


class TrustScoreVerifierClient(RegistryClient):
    """Calls a deployed ``TrustScoreVerifier``; a refusal raises :class:`AttestationRefused`."""

    artifact_name = "TrustScoreVerifier"

    def require_min_score(
        self, document: Mapping[str, Any], *, min_score: int, max_age: int, block: BlockIdentifier = "latest"
    ) -> str:
        """The trusted signer, if the document passes ``requireMinScore(…, min_score, max_age)``.

        ``min_score`` is in hundredths (7500 is 75.00), ``max_age`` in seconds.

        >>> verifier.require_min_score(document, min_score=7500, max_age=3600)  # doctest: +SKIP
        '0x…'
        """
        attestation, signature = attestation_arguments(document)
        call = self.contract.functions.requireMinScore(attestation, signature, min_score, max_age)
        try:
            return str(call.call(block_identifier=block))
        except ContractCustomError as error:
            raise decode_custom_error(_revert_data(error)) from None

    def estimate_gas(self, document: Mapping[str, Any], *, min_score: int, max_age: int) -> int:
        """Gas of a transaction that calls ``requireMinScore`` directly (21,000 intrinsic gas included).

        >>> verifier.estimate_gas(document, min_score=0, max_age=3600)  # doctest: +SKIP
        """
        attestation, signature = attestation_arguments(document)
        call = self.contract.functions.requireMinScore(attestation, signature, min_score, max_age)
        try:
            return int(call.estimate_gas())
        except ContractCustomError as error:
            raise decode_custom_error(_revert_data(error)) from None

    def digest(self, document: Mapping[str, Any]) -> bytes:
        """The contract's EIP-712 digest of the document's attestation (``hashAttestation``)."""
        attestation, _ = attestation_arguments(document)
        return bytes(self.contract.functions.hashAttestation(attestation).call())

    def is_trusted(self, signer: str) -> bool:
        return bool(self._call("isTrustedSigner", Web3.to_checksum_address(signer)))


def deploy_verifier(
    w3: Web3,
    deployer: TransactionSigner,
    *,
    signers: Iterable[str],
    chain_id: int,
    owner: str | None = None,
    name: str = "TrustRegistry",
    version: str = "1",
) -> str:
    """Deploy a ``TrustScoreVerifier`` for the registry's domain and signer(s); returns its address.

    ``chain_id`` is the registry's ``ATTESTATION_CHAIN_ID`` (its domain's, shown by ``GET
    /api/v1/attestations/signer``), not necessarily the chain deployed on. ``owner`` manages the signers;
    None makes it the deployer, the zero address fixes the set.

    >>> deploy_verifier(w3, deployer, signers=[registry_signer], chain_id=8453)  # doctest: +SKIP
    '0x…'
    """
    trusted = [Web3.to_checksum_address(signer) for signer in signers]
    manager = Web3.to_checksum_address(owner if owner is not None else deployer.address)
    return deploy_contract(w3, deployer, "TrustScoreVerifier", name, version, chain_id, trusted, manager)
