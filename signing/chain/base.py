"""The shared part of the registry clients: a contract bound to an address and a transaction builder.

>>> RegistryClient.artifact_name
''
"""

from __future__ import annotations

from typing import Any

from eth_typing import ChecksumAddress
from web3 import Web3
from web3.contract import Contract
from web3.contract.contract import ContractFunction
from web3.types import TxParams, TxReceipt

from signing.chain.artifacts import load_artifact
from signing.chain.events import ChainEvent, LogDecoder
from signing.chain.tx import Fees, build_transaction

__all__ = ["RegistryClient"]


class RegistryClient:
    """Base class: subclasses name their artifact; reads are methods, writes return unsigned transactions."""

    artifact_name = ""

    def __init__(self, w3: Web3, address: str) -> None:
        if not Web3.is_address(address):
            raise ValueError(f"{type(self).__name__}: not an Ethereum address: {address!r}")
        self.w3 = w3
        self.address: ChecksumAddress = Web3.to_checksum_address(address)
        self.contract: Contract = w3.eth.contract(
            address=self.address, abi=load_artifact(self.artifact_name).abi
        )
        self._decoder = LogDecoder()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(address={self.address})"

    def version(self) -> str:
        """The registry's ``getVersion()``; "2.0.0" for the deployed v2 registries.

        >>> client.version()  # doctest: +SKIP
        '2.0.0'
        """
        return str(self.contract.functions.getVersion().call())

    def events_in(self, receipt: TxReceipt) -> list[ChainEvent]:
        """The registry events this contract emitted in a transaction receipt, in log order.

        >>> [type(e).__name__ for e in identity.events_in(receipt)]  # doctest: +SKIP
        ['MetadataSet', 'Registered']
        """
        events = []
        for log in receipt["logs"]:
            if Web3.to_checksum_address(log["address"]) != self.address:
                continue
            event = self._decoder.decode(log)
            if event is not None:
                events.append(event)
        return events

    def build_call(
        self, call: ContractFunction, *, sender: str, nonce: int, fees: Fees, gas: int | None = None
    ) -> TxParams:
        """A transaction for any function of this contract, e.g. the ERC-721 ``transferFrom``.

        >>> client.build_call(client.contract.functions.setApprovalForAll(op, True), sender=me, nonce=0,
        ...     fees=fees)  # doctest: +SKIP
        """
        return build_transaction(self.w3, call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def _call(self, name: str, *args: Any) -> Any:
        return self.contract.functions[name](*args).call()
