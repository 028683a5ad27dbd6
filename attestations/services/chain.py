"""The chain as the Django side sees it: settings, a Web3 connection, the sending key, the validator.

Services take a ChainSettings and a Web3 as keyword arguments (tests pass an anvil node); the Celery
tasks get theirs from `chain_context()`, which reads django.conf.settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from web3 import Web3

from common.errors import ApplicationError
from signing.chain.settings import ChainSettings, deployments_from_json
from signing.keys import ServiceKey

from .keys import service_key


def chain_settings_from_django() -> ChainSettings:
    """The ChainSettings described by the `# --- ERC-8004 chain ---` block of config/settings.py."""
    mapping: dict[str, str] = {
        "CHAIN_ENABLED": "1" if settings.CHAIN_ENABLED else "0",
        "CHAIN_NETWORK": settings.CHAIN_NETWORK,
    }
    optional = {
        "CHAIN_RPC_URL": settings.CHAIN_RPC_URL,
        "CHAIN_ID": settings.CHAIN_ID,
        "CHAIN_IDENTITY_REGISTRY": settings.CHAIN_IDENTITY_REGISTRY,
        "CHAIN_REPUTATION_REGISTRY": settings.CHAIN_REPUTATION_REGISTRY,
        "CHAIN_VALIDATION_REGISTRY": settings.CHAIN_VALIDATION_REGISTRY,
        "CHAIN_START_BLOCK": settings.CHAIN_START_BLOCK,
        "CHAIN_CONFIRMATIONS": settings.CHAIN_CONFIRMATIONS,
        "CHAIN_MAX_BLOCK_RANGE": settings.CHAIN_MAX_BLOCK_RANGE,
        "CHAIN_IPFS_GATEWAY": settings.CHAIN_IPFS_GATEWAY,
    }
    # Unset values stay out so the network preset supplies them.
    mapping.update({key: str(value) for key, value in optional.items() if value not in (None, "")})
    try:
        return ChainSettings.from_mapping(mapping)
    except ValueError as exc:
        raise ApplicationError(f"Chain misconfigured: {exc}", status=503, problem="server-error") from None


def chain_settings_all() -> list[ChainSettings]:
    """Every enabled deployment: the CHAIN_* one (when CHAIN_ENABLED) first, then CHAIN_DEPLOYMENTS.

    Two deployments on one chain id are a configuration error: cursors, nonces and publications are
    kept per chain id.
    """
    primary = chain_settings_from_django()
    try:
        extra = deployments_from_json(settings.CHAIN_DEPLOYMENTS, ipfs_gateway=settings.CHAIN_IPFS_GATEWAY)
    except ValueError as exc:
        raise ApplicationError(f"Chain misconfigured: {exc}", status=503, problem="server-error") from None
    chains = ([primary] if primary.enabled else []) + extra
    seen: set[int] = set()
    for chain in chains:
        if chain.chain_id in seen:
            raise ApplicationError(
                f"Chain misconfigured: chain id {chain.chain_id} is configured twice (CHAIN_* and "
                "CHAIN_DEPLOYMENTS each name a chain once).",
                status=503,
                problem="server-error",
            )
        seen.add(chain.chain_id)
    return chains


def chain_web3(*, chain: ChainSettings, timeout: float = 30.0) -> Web3:
    return Web3(Web3.HTTPProvider(chain.rpc_url, request_kwargs={"timeout": timeout}))


@dataclass(frozen=True)
class ChainContext:
    """Everything a chain task needs; built once per task run."""

    chain: ChainSettings
    w3: Web3


def chain_context(*, chain_id: int | None = None) -> ChainContext | None:
    """The deployment on `chain_id` (by default the first one configured), or None when there is none
    (tasks then do nothing)."""
    for chain in chain_settings_all():
        if chain_id is None or chain.chain_id == chain_id:
            return ChainContext(chain=chain, w3=chain_web3(chain=chain))
    return None


def chain_contexts() -> list[ChainContext]:
    """One context per configured deployment, in configuration order."""
    return [ChainContext(chain=chain, w3=chain_web3(chain=chain)) for chain in chain_settings_all()]


def chain_signer() -> ServiceKey:
    """The key that sends transactions (the service key: the same identity that signs attestations)."""
    key = service_key()
    assert key is not None  # service_key(required=True) raises instead of returning None
    return key


def validator_address() -> str | None:
    """The address ValidationRequests must name for us to answer: VALIDATOR_ADDRESS or the service key's."""
    if settings.VALIDATOR_ADDRESS:
        return Web3.to_checksum_address(settings.VALIDATOR_ADDRESS)
    key = service_key(required=False)
    return key.address if key is not None else None


def agent_subject_id(*, chain_id: int, identity_registry: str, agent_id: int) -> str:
    """The subject id of an on-chain agent (CAIP-10-like, as the registration file's agentRegistry + id).

    >>> agent_subject_id(chain_id=8453, identity_registry="0x" + "ab" * 20, agent_id=7)
    'eip155:8453:0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB:7'
    """
    return f"eip155:{chain_id}:{Web3.to_checksum_address(identity_registry)}:{agent_id}"
