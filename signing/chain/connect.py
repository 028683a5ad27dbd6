"""Connect to the configured node and bind the registry clients in one call.

>>> connect(ChainSettings())
Traceback (most recent call last):
...
signing.chain.connect.ChainDisabled: the chain is switched off (CHAIN_ENABLED)
"""

from __future__ import annotations

from dataclasses import dataclass

from web3 import Web3

from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from signing.chain.validation import ValidationClient

__all__ = ["ChainDisabled", "Registries", "connect"]


class ChainDisabled(RuntimeError):
    """The chain is switched off in the settings; callers skip chain work."""


@dataclass(frozen=True)
class Registries:
    """A connected node and a client for each configured registry (None where no address is set)."""

    w3: Web3
    settings: ChainSettings
    identity: IdentityClient | None
    reputation: ReputationClient | None
    validation: ValidationClient | None

    def addresses(self) -> list[str]:
        """The addresses of the configured registries, for :func:`signing.chain.scan.scan_logs`.

        >>> registries.addresses()  # doctest: +SKIP
        ['0x8004A169FB4a3325136EB29fA0ceB6D2e539a432', '0x8004BAa17C55a88189AE136b182e5fdA19dE9b63']
        """
        clients = (self.identity, self.reputation, self.validation)
        return [client.address for client in clients if client is not None]


def connect(settings: ChainSettings, *, timeout: float = 30.0, check_chain_id: bool = True) -> Registries:
    """A Web3 connection to ``settings.rpc_url`` with the registry clients bound to their addresses.

    With ``check_chain_id`` the node must answer the configured chain id, so that a Base Sepolia URL is
    never used with Base settings.

    >>> connect(ChainSettings.for_network("local", enabled=True)).identity  # doctest: +SKIP
    """
    if not settings.enabled:
        raise ChainDisabled("the chain is switched off (CHAIN_ENABLED)")
    w3 = Web3(Web3.HTTPProvider(settings.rpc_url, request_kwargs={"timeout": timeout}))
    if check_chain_id:
        answered = w3.eth.chain_id
        if answered != settings.chain_id:
            raise ValueError(
                f"the node at CHAIN_RPC_URL is on chain {answered}, the settings say {settings.chain_id}"
            )
    return Registries(
        w3=w3,
        settings=settings,
        identity=IdentityClient(w3, settings.identity_registry) if settings.identity_registry else None,
        reputation=ReputationClient(w3, settings.reputation_registry)
        if settings.reputation_registry
        else None,
        validation=ValidationClient(w3, settings.validation_registry)
        if settings.validation_registry
        else None,
    )
