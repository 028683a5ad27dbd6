"""Client for the ERC-8004 ValidationRegistry: requests, responses and their status.

>>> ValidationStatus("0x0", 0, 100, "0x" + "00" * 32, "hcs-25", 1).response
100
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hexbytes import HexBytes
from web3 import Web3
from web3.types import TxParams

from signing.chain.base import RegistryClient
from signing.chain.tx import Fees

__all__ = ["ValidationClient", "ValidationStatus", "ValidationSummary"]


@dataclass(frozen=True)
class ValidationStatus:
    """``getValidationStatus``: the validator, the agent, the latest response and when it changed."""

    validator_address: str
    agent_id: int
    response: int
    response_hash: str
    tag: str
    last_update: int


@dataclass(frozen=True)
class ValidationSummary:
    """``getSummary``: how many answered requests matched and their average response (0-100)."""

    count: int
    average_response: int


def _bytes32(value: bytes | str, what: str) -> bytes:
    raw = bytes(HexBytes(value))
    if len(raw) != 32:
        raise ValueError(f"{what} must be 32 bytes, not {len(raw)}")
    return raw


class ValidationClient(RegistryClient):
    """Reads and transaction builders for the ValidationRegistry."""

    artifact_name = "ValidationRegistry"

    def get_validation_status(self, request_hash: bytes | str) -> ValidationStatus:
        """The stored status of a request; reverts for an unknown request hash.

        >>> validation.get_validation_status(request_hash).response  # doctest: +SKIP
        100
        """
        validator, agent_id, response, response_hash, tag, last_update = self._call(
            "getValidationStatus", _bytes32(request_hash, "request_hash")
        )
        return ValidationStatus(
            validator, agent_id, response, HexBytes(response_hash).to_0x_hex(), tag, last_update
        )

    def get_summary(self, agent_id: int, validators: Sequence[str] = (), tag: str = "") -> ValidationSummary:
        """Count and average response of an agent's answered requests; empty filters do not filter.

        >>> validation.get_summary(0).count  # doctest: +SKIP
        1
        """
        addresses = [Web3.to_checksum_address(validator) for validator in validators]
        count, average = self._call("getSummary", agent_id, addresses, tag)
        return ValidationSummary(count, average)

    def get_agent_validations(self, agent_id: int) -> list[str]:
        """The request hashes made for an agent, oldest first.

        >>> validation.get_agent_validations(0)  # doctest: +SKIP
        ['0x…']
        """
        return [HexBytes(value).to_0x_hex() for value in self._call("getAgentValidations", agent_id)]

    def build_validation_request(
        self,
        validator_address: str,
        agent_id: int,
        request_uri: str,
        request_hash: bytes | str,
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``validationRequest``; only the agent's owner or operator may send it, each hash once.

        >>> validation.build_validation_request(me, 0, "https://req", h, sender=owner, nonce=0,
        ...     fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.validationRequest(
            Web3.to_checksum_address(validator_address),
            agent_id,
            request_uri,
            _bytes32(request_hash, "request_hash"),
        )
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_validation_response(
        self,
        request_hash: bytes | str,
        response: int,
        *,
        response_uri: str = "",
        response_hash: bytes | str = b"\x00" * 32,
        tag: str = "",
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``validationResponse`` (0-100) from the validator the request named; may be sent again.

        >>> validation.build_validation_response(h, 100, tag="hcs-25", sender=me, nonce=0,
        ...     fees=fees)  # doctest: +SKIP
        """
        if not 0 <= response <= 100:
            raise ValueError(f"response must be between 0 and 100, not {response}")
        call = self.contract.functions.validationResponse(
            _bytes32(request_hash, "request_hash"),
            response,
            response_uri,
            _bytes32(response_hash, "response_hash"),
            tag,
        )
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)
