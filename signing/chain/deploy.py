"""Deploy the project's ERC-8004-compatible registries (for anvil and test networks, never for Base).

>>> deployed = deploy_registries(w3, deployer)  # doctest: +SKIP
>>> deployed.as_settings()["CHAIN_IDENTITY_REGISTRY"] == deployed.identity  # doctest: +SKIP
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from web3 import Web3

from signing.chain.artifacts import load_artifact
from signing.chain.tx import (
    TransactionSigner,
    next_nonce,
    send_transaction,
    suggest_fees,
    wait_for_receipt,
)

__all__ = ["DeployedRegistries", "deploy_contract", "deploy_registries"]


@dataclass(frozen=True)
class DeployedRegistries:
    """Addresses of a fresh Identity/Reputation/Validation deployment and the block it finished in."""

    identity: str
    reputation: str
    validation: str
    block_number: int

    def as_settings(self) -> dict[str, str]:
        """The ``CHAIN_*`` keys that point ChainSettings at this deployment.

        >>> DeployedRegistries("0x1", "0x2", "0x3", 7).as_settings()["CHAIN_START_BLOCK"]
        '7'
        """
        return {
            "CHAIN_IDENTITY_REGISTRY": self.identity,
            "CHAIN_REPUTATION_REGISTRY": self.reputation,
            "CHAIN_VALIDATION_REGISTRY": self.validation,
            "CHAIN_START_BLOCK": str(self.block_number),
        }


def deploy_contract(
    w3: Web3, deployer: TransactionSigner, name: str, *args: Any, nonce: int | None = None
) -> str:
    """Deploy one artifact with constructor ``args`` and return its address.

    >>> deploy_contract(w3, deployer, "IdentityRegistry")  # doctest: +SKIP
    '0x…'
    """
    artifact = load_artifact(name)
    factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
    fees = suggest_fees(w3)
    constructor = factory.constructor(*args)
    gas = constructor.estimate_gas({"from": deployer.address}) * 125 // 100
    transaction = constructor.build_transaction(
        {
            "gas": gas,
            "from": deployer.address,
            "nonce": next_nonce(w3, deployer.address) if nonce is None else nonce,
            "chainId": w3.eth.chain_id,
            "type": 2,
            **fees.as_params(),  # type: ignore[typeddict-item]
        }
    )
    receipt = wait_for_receipt(w3, send_transaction(w3, deployer, transaction))
    address = receipt["contractAddress"]
    if address is None:
        raise RuntimeError(f"deploying {name} produced no contract address")
    return Web3.to_checksum_address(address)


def deploy_registries(w3: Web3, deployer: TransactionSigner) -> DeployedRegistries:
    """Deploy the IdentityRegistry, then the Reputation and Validation registries pointing at it.

    >>> deploy_registries(w3, deployer).identity  # doctest: +SKIP
    '0x…'
    """
    identity = deploy_contract(w3, deployer, "IdentityRegistry")
    reputation = deploy_contract(w3, deployer, "ReputationRegistry", identity)
    validation = deploy_contract(w3, deployer, "ValidationRegistry", identity)
    return DeployedRegistries(identity, reputation, validation, w3.eth.block_number)
