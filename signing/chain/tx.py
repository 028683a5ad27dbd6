"""EIP-1559 transactions with an explicit nonce: build, sign locally, send, wait for the receipt.

The builders never pick a nonce themselves: the caller (a Celery task holding a claim) owns nonce management.

>>> Fees(max_fee_per_gas=3, max_priority_fee_per_gas=1).as_params()
{'maxFeePerGas': 3, 'maxPriorityFeePerGas': 1}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from eth_typing import ChecksumAddress
from hexbytes import HexBytes
from web3 import Web3
from web3.contract.contract import ContractFunction
from web3.types import Nonce, TxParams, TxReceipt, Wei

__all__ = [
    "Fees",
    "TransactionFailed",
    "TransactionSigner",
    "build_transaction",
    "next_nonce",
    "send_transaction",
    "suggest_fees",
    "wait_for_receipt",
]


class TransactionFailed(RuntimeError):
    """A mined transaction whose receipt has status 0."""

    def __init__(self, tx_hash: str, receipt: TxReceipt) -> None:
        super().__init__(f"transaction {tx_hash} reverted in block {receipt['blockNumber']}")
        self.tx_hash = tx_hash
        self.receipt = receipt


class TransactionSigner(Protocol):
    """Anything that signs a transaction dict into raw bytes: an eth-account LocalAccount or a ServiceKey."""

    @property
    def address(self) -> ChecksumAddress: ...

    def sign_transaction(self, transaction_dict: Any) -> Any: ...


@dataclass(frozen=True)
class Fees:
    """EIP-1559 fee caps in wei."""

    max_fee_per_gas: int
    max_priority_fee_per_gas: int

    def __post_init__(self) -> None:
        if self.max_priority_fee_per_gas < 0 or self.max_fee_per_gas < self.max_priority_fee_per_gas:
            raise ValueError(
                f"need 0 <= max_priority_fee_per_gas ({self.max_priority_fee_per_gas}) "
                f"<= max_fee_per_gas ({self.max_fee_per_gas})"
            )

    def as_params(self) -> dict[str, int]:
        """The two fee fields of a type-2 transaction.

        >>> Fees(10, 2).as_params()["maxFeePerGas"]
        10
        """
        return {"maxFeePerGas": self.max_fee_per_gas, "maxPriorityFeePerGas": self.max_priority_fee_per_gas}


def suggest_fees(w3: Web3, *, priority_fee: int | None = None, base_fee_multiplier: int = 2) -> Fees:
    """Fee caps that survive a few blocks of rising base fee: ``multiplier * baseFee + tip``.

    >>> suggest_fees(w3).max_fee_per_gas > 0  # doctest: +SKIP
    True
    """
    if base_fee_multiplier < 1:
        raise ValueError(f"base_fee_multiplier must be >= 1, not {base_fee_multiplier}")
    block = w3.eth.get_block("latest")
    base_fee = int(block.get("baseFeePerGas", 0) or 0)
    tip = w3.eth.max_priority_fee if priority_fee is None else priority_fee
    return Fees(max_fee_per_gas=base_fee * base_fee_multiplier + tip, max_priority_fee_per_gas=tip)


def next_nonce(w3: Web3, address: str) -> int:
    """The account's next nonce counting pending transactions; a starting point for a nonce allocator.

    >>> next_nonce(w3, "0x0000000000000000000000000000000000000001")  # doctest: +SKIP
    0
    """
    return w3.eth.get_transaction_count(Web3.to_checksum_address(address), "pending")


def build_transaction(
    w3: Web3,
    call: ContractFunction,
    *,
    sender: str,
    nonce: int,
    fees: Fees,
    gas: int | None = None,
    gas_margin_percent: int = 25,
) -> TxParams:
    """A type-2 transaction for ``call`` from ``sender`` with the given nonce and fees.

    Without ``gas`` the node estimates it (plus ``gas_margin_percent``), which also surfaces a revert (as
    ContractLogicError) before anything is signed.

    >>> tx = build_transaction(w3, registry.functions.register(), sender=me, nonce=0,
    ...     fees=fees)  # doctest: +SKIP
    >>> tx["type"]  # doctest: +SKIP
    2
    """
    if nonce < 0:
        raise ValueError(f"nonce must be >= 0, not {nonce}")
    params: TxParams = {
        "from": Web3.to_checksum_address(sender),
        "nonce": Nonce(nonce),
        "chainId": w3.eth.chain_id,
        "type": 2,
        "maxFeePerGas": Wei(fees.max_fee_per_gas),
        "maxPriorityFeePerGas": Wei(fees.max_priority_fee_per_gas),
    }
    if gas is None:
        # An estimate is exact for the state it ran on; the mined block differs (timestamp, other writes),
        # so a transaction sent at exactly the estimate can run out of gas.
        estimate = call.estimate_gas(params)
        gas = estimate * (100 + gas_margin_percent) // 100
    params["gas"] = gas
    return call.build_transaction(params)


def send_transaction(w3: Web3, signer: TransactionSigner, transaction: TxParams) -> str:
    """Sign ``transaction`` locally and send it; returns the 0x-prefixed transaction hash.

    >>> send_transaction(w3, account, tx)  # doctest: +SKIP
    '0x…'
    """
    declared = transaction.get("from")
    if declared is not None:
        sender = Web3.to_checksum_address(declared)
        if sender != signer.address:
            raise ValueError(f"transaction is from {sender} but the signer is {signer.address}")
    unsigned = {key: value for key, value in dict(transaction).items() if key != "from"}
    signed = signer.sign_transaction(unsigned)
    tx_hash = w3.eth.send_raw_transaction(signed.raw_transaction)
    return HexBytes(tx_hash).to_0x_hex()


def wait_for_receipt(
    w3: Web3, tx_hash: str, *, timeout: float = 120.0, poll_latency: float = 0.1
) -> TxReceipt:
    """Wait for the receipt of ``tx_hash``; raise TransactionFailed when it reverted.

    >>> wait_for_receipt(w3, tx_hash)["status"]  # doctest: +SKIP
    1
    """
    receipt = w3.eth.wait_for_transaction_receipt(
        HexBytes(tx_hash), timeout=timeout, poll_latency=poll_latency
    )
    if receipt["status"] != 1:
        raise TransactionFailed(tx_hash, receipt)
    return receipt
