"""Client for the ERC-8004 IdentityRegistry: owners, agent URIs, metadata and agent wallets.

>>> wallet_set_typed_data(chain_id=8453, registry="0x" + "11" * 20, agent_id=0,
...     new_wallet="0x" + "22" * 20, owner="0x" + "33" * 20, deadline=1)["primaryType"]
'AgentWalletSet'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.messages import encode_typed_data
from web3.types import TxParams, TxReceipt

from signing.chain.base import RegistryClient
from signing.chain.events import Registered
from signing.chain.tx import Fees

__all__ = [
    "AGENT_WALLET_KEY",
    "MAX_WALLET_DEADLINE_SECONDS",
    "ZERO_ADDRESS",
    "IdentityClient",
    "MetadataEntry",
    "sign_agent_wallet",
    "wallet_set_typed_data",
]

AGENT_WALLET_KEY = "agentWallet"
MAX_WALLET_DEADLINE_SECONDS = 300
ZERO_ADDRESS = "0x0000000000000000000000000000000000000000"


@dataclass(frozen=True)
class MetadataEntry:
    """One on-chain metadata entry given at registration."""

    key: str
    value: bytes


def wallet_set_typed_data(
    *, chain_id: int, registry: str, agent_id: int, new_wallet: str, owner: str, deadline: int
) -> dict[str, Any]:
    """The EIP-712 message the new wallet signs to prove it agrees to become the agent's wallet.

    >>> wallet_set_typed_data(chain_id=1, registry="0x" + "11" * 20, agent_id=7,
    ...     new_wallet="0x" + "22" * 20, owner="0x" + "33" * 20, deadline=9)["domain"]["name"]
    'ERC8004IdentityRegistry'
    """
    return {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "AgentWalletSet": [
                {"name": "agentId", "type": "uint256"},
                {"name": "newWallet", "type": "address"},
                {"name": "owner", "type": "address"},
                {"name": "deadline", "type": "uint256"},
            ],
        },
        "primaryType": "AgentWalletSet",
        "domain": {
            "name": "ERC8004IdentityRegistry",
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": registry,
        },
        "message": {"agentId": agent_id, "newWallet": new_wallet, "owner": owner, "deadline": deadline},
    }


def sign_agent_wallet(
    private_key: Any,
    *,
    chain_id: int,
    registry: str,
    agent_id: int,
    owner: str,
    deadline: int,
    wallet: str | None = None,
) -> bytes:
    """The new wallet's 65-byte signature for ``setAgentWallet``.

    The wallet is the key's own address, or ``wallet`` for a contract wallet (ERC-1271) that accepts this
    key's signatures.

    >>> len(sign_agent_wallet(Account.create().key, chain_id=1, registry="0x" + "11" * 20,
    ...     agent_id=0, owner="0x" + "33" * 20, deadline=1))
    65
    """
    signer = Account.from_key(private_key)
    typed = wallet_set_typed_data(
        chain_id=chain_id,
        registry=registry,
        agent_id=agent_id,
        new_wallet=wallet or signer.address,
        owner=owner,
        deadline=deadline,
    )
    return bytes(signer.sign_message(encode_typed_data(full_message=typed)).signature)


class IdentityClient(RegistryClient):
    """Reads and transaction builders for the IdentityRegistry (an ERC-721 whose token ids are agent ids)."""

    artifact_name = "IdentityRegistry"

    # ---- reads ----

    def owner_of(self, agent_id: int) -> str:
        """The agent's owner; reverts (ContractLogicError) for an unknown agent.

        >>> identity.owner_of(0)  # doctest: +SKIP
        '0x…'
        """
        return str(self._call("ownerOf", agent_id))

    def agent_uri(self, agent_id: int) -> str:
        """The agent URI (``tokenURI``) pointing at its registration file.

        >>> identity.agent_uri(0)  # doctest: +SKIP
        'data:application/json;base64,…'
        """
        return str(self._call("tokenURI", agent_id))

    def agent_wallet(self, agent_id: int) -> str | None:
        """The agent's verified wallet, or None when it has none (for example after a transfer).

        >>> identity.agent_wallet(0)  # doctest: +SKIP
        '0x…'
        """
        wallet = str(self._call("getAgentWallet", agent_id))
        return None if int(wallet, 16) == 0 else wallet

    def metadata(self, agent_id: int, key: str) -> bytes:
        """One on-chain metadata value; empty bytes when unset.

        >>> identity.metadata(0, "agentName")  # doctest: +SKIP
        b'…'
        """
        return bytes(self._call("getMetadata", agent_id, key))

    # ---- transaction builders ----

    def build_register(
        self,
        agent_uri: str | None = None,
        metadata: Iterable[MetadataEntry] = (),
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``register()``, ``register(agentURI)`` or ``register(agentURI, metadata)``, by the arguments given.

        >>> identity.build_register("ipfs://cid", sender=me, nonce=0, fees=fees)  # doctest: +SKIP
        """
        entries = [(entry.key, entry.value) for entry in metadata]
        register = self.contract.get_function_by_signature
        if entries:
            call = register("register(string,(string,bytes)[])")(agent_uri or "", entries)
        elif agent_uri is not None:
            call = register("register(string)")(agent_uri)
        else:
            call = register("register()")()
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_set_agent_uri(
        self, agent_id: int, new_uri: str, *, sender: str, nonce: int, fees: Fees, gas: int | None = None
    ) -> TxParams:
        """``setAgentURI``; only the owner or an approved operator may send it.

        >>> identity.build_set_agent_uri(0, "ipfs://cid", sender=me, nonce=1, fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.setAgentURI(agent_id, new_uri)
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_set_metadata(
        self,
        agent_id: int,
        key: str,
        value: bytes,
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``setMetadata``; the key "agentWallet" is reserved and reverts.

        >>> identity.build_set_metadata(0, "agentName", b"x", sender=me, nonce=2, fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.setMetadata(agent_id, key, value)
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_set_agent_wallet(
        self,
        agent_id: int,
        new_wallet: str,
        deadline: int,
        signature: bytes,
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``setAgentWallet`` with the new wallet's signature (see :func:`sign_agent_wallet`).

        >>> identity.build_set_agent_wallet(0, wallet, deadline, sig, sender=me, nonce=3,
        ...     fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.setAgentWallet(agent_id, new_wallet, deadline, signature)
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def registered_agent_id(self, receipt: TxReceipt) -> int:
        """The agent id a registration transaction created.

        >>> identity.registered_agent_id(receipt)  # doctest: +SKIP
        0
        """
        for event in self.events_in(receipt):
            if isinstance(event, Registered):
                return event.agent_id
        raise ValueError("the receipt holds no Registered event of this registry")
