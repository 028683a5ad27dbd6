"""Chain settings per network: which chain, which RPC node, which registries, how to scan.

The chain is switched off unless ``CHAIN_ENABLED`` says otherwise, so the service runs without any node.

>>> settings = ChainSettings.from_mapping({"CHAIN_ENABLED": "1", "CHAIN_RPC_URL": "https://rpc.example"})
>>> settings.chain_id, settings.network, settings.identity_registry
(8453, 'base', '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432')
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final

from eth_utils import is_address, is_checksum_address, to_checksum_address

__all__ = [
    "DEPLOYMENT_KEYS",
    "ENV_KEYS",
    "NETWORKS",
    "ChainSettings",
    "NetworkPreset",
    "deployments_from_json",
]


@dataclass(frozen=True)
class NetworkPreset:
    """Defaults for one network; the registry addresses are the ones shared/erc8004/INTERFACE.md lists."""

    name: str
    chain_id: int
    identity_registry: str | None
    reputation_registry: str | None
    # The ValidationRegistry has no canonical deployment yet; its planned address is kept for reference only.
    planned_validation_registry: str | None
    confirmations: int
    rpc_url: str


# The registries have the same addresses on every mainnet, and on every testnet (INTERFACE.md): identity,
# reputation, and the ValidationRegistry's planned address (no canonical deployment yet; kept for reference).
_MAINNET: Final = (
    "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
    "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
    "0x8004Cc8439f36fd5F9F049D9fF86523Df6dAAB58",
)
_TESTNET: Final = (
    "0x8004A818BFB912233c491871b3d84c89A494BD9e",
    "0x8004B663056A597Dffe9eCcC1965A193B7388713",
    "0x8004Cb1BF31DAf7788923b405b754f57acEB4272",
)


def _canonical(name: str, chain_id: int, addresses: tuple[str, str, str]) -> NetworkPreset:
    identity, reputation, validation = addresses
    return NetworkPreset(name, chain_id, identity, reputation, validation, confirmations=12, rpc_url="")


NETWORKS: Final[dict[str, NetworkPreset]] = {
    "base": _canonical("base", 8453, _MAINNET),
    "base-sepolia": _canonical("base-sepolia", 84532, _TESTNET),
    "ethereum": _canonical("ethereum", 1, _MAINNET),
    "sepolia": _canonical("sepolia", 11155111, _TESTNET),
    # A local node (anvil) has no canonical registries: deploy them and configure their addresses.
    "local": NetworkPreset(
        name="local",
        chain_id=31337,
        identity_registry=None,
        reputation_registry=None,
        planned_validation_registry=None,
        confirmations=0,
        rpc_url="http://127.0.0.1:8545",
    ),
}

_NETWORK_BY_ID: Final[dict[int, str]] = {preset.chain_id: name for name, preset in NETWORKS.items()}

ENV_KEYS: Final[tuple[str, ...]] = (
    "CHAIN_CONFIRMATIONS",
    "CHAIN_ENABLED",
    "CHAIN_ID",
    "CHAIN_IDENTITY_REGISTRY",
    "CHAIN_IPFS_GATEWAY",
    "CHAIN_MAX_BLOCK_RANGE",
    "CHAIN_NETWORK",
    "CHAIN_REPUTATION_REGISTRY",
    "CHAIN_RPC_URL",
    "CHAIN_START_BLOCK",
    "CHAIN_VALIDATION_REGISTRY",
)

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class ChainSettings:
    """Everything the chain clients and the log scanner need to know about one network."""

    enabled: bool = False
    network: str = "base"
    chain_id: int = 8453
    rpc_url: str = ""
    identity_registry: str | None = NETWORKS["base"].identity_registry
    reputation_registry: str | None = NETWORKS["base"].reputation_registry
    validation_registry: str | None = None
    confirmations: int = 12
    start_block: int = 0
    max_block_range: int = 2000
    ipfs_gateway: str = "https://ipfs.io/ipfs/"

    def __post_init__(self) -> None:
        if self.chain_id <= 0:
            raise ValueError(f"chain_id must be positive, not {self.chain_id}")
        if self.confirmations < 0:
            raise ValueError(f"confirmations must be >= 0, not {self.confirmations}")
        if self.start_block < 0:
            raise ValueError(f"start_block must be >= 0, not {self.start_block}")
        if self.max_block_range < 1:
            raise ValueError(f"max_block_range must be >= 1, not {self.max_block_range}")
        if self.enabled and not self.rpc_url:
            raise ValueError("the chain is enabled but no RPC URL is set (CHAIN_RPC_URL)")

    @classmethod
    def for_network(cls, network: str, **overrides: object) -> ChainSettings:
        """Settings from a network preset ("base", "base-sepolia", "local") with keyword overrides.

        >>> ChainSettings.for_network("base-sepolia").chain_id
        84532
        """
        preset = _preset(network, key="network")
        base = cls(
            network=preset.name,
            chain_id=preset.chain_id,
            rpc_url=preset.rpc_url,
            identity_registry=preset.identity_registry,
            reputation_registry=preset.reputation_registry,
            validation_registry=None,
            confirmations=preset.confirmations,
        )
        return replace(base, **overrides)  # type: ignore[arg-type]

    @classmethod
    def from_mapping(cls, environ: Mapping[str, str]) -> ChainSettings:
        """Read ``CHAIN_*`` keys from an environment-like mapping; other keys are ignored.

        Raises ValueError naming the key when a ``CHAIN_*`` key is unknown or its value is bad.

        >>> ChainSettings.from_mapping({}).enabled
        False
        >>> ChainSettings.from_mapping({"CHAIN_CONFIRMATIONS": "-1"})
        Traceback (most recent call last):
        ...
        ValueError: CHAIN_CONFIRMATIONS: must be an integer >= 0, not '-1'
        """
        unknown = sorted(key for key in environ if key.startswith("CHAIN_") and key not in ENV_KEYS)
        if unknown:
            raise ValueError(f"{unknown[0]}: unknown chain setting (known: {', '.join(ENV_KEYS)})")
        preset = _preset(environ.get("CHAIN_NETWORK", "base"), key="CHAIN_NETWORK")
        overrides: dict[str, object] = {"enabled": _boolean(environ, "CHAIN_ENABLED")}
        for key, name in (("CHAIN_ID", "chain_id"), ("CHAIN_MAX_BLOCK_RANGE", "max_block_range")):
            if key in environ:
                overrides[name] = _integer(environ, key, minimum=1)
        for key, name in (("CHAIN_CONFIRMATIONS", "confirmations"), ("CHAIN_START_BLOCK", "start_block")):
            if key in environ:
                overrides[name] = _integer(environ, key, minimum=0)
        for key, name in (
            ("CHAIN_IDENTITY_REGISTRY", "identity_registry"),
            ("CHAIN_REPUTATION_REGISTRY", "reputation_registry"),
            ("CHAIN_VALIDATION_REGISTRY", "validation_registry"),
        ):
            if key in environ:
                overrides[name] = _address(environ, key)
        if "CHAIN_RPC_URL" in environ:
            overrides["rpc_url"] = _url(environ, "CHAIN_RPC_URL", schemes=("http://", "https://"))
        if "CHAIN_IPFS_GATEWAY" in environ:
            gateway = _url(environ, "CHAIN_IPFS_GATEWAY", schemes=("http://", "https://"))
            overrides["ipfs_gateway"] = gateway if gateway.endswith("/") else gateway + "/"
        try:
            return cls.for_network(preset.name, **overrides)
        except ValueError as error:
            key = "CHAIN_RPC_URL" if "RPC URL" in str(error) else "CHAIN_*"
            raise ValueError(f"{key}: {error}") from None


#: The keys of one entry of CHAIN_DEPLOYMENTS, and the CHAIN_* setting each stands for.
DEPLOYMENT_KEYS: Final[dict[str, str]] = {
    "network": "CHAIN_NETWORK",
    "chainId": "CHAIN_ID",
    "rpcUrl": "CHAIN_RPC_URL",
    "identityRegistry": "CHAIN_IDENTITY_REGISTRY",
    "reputationRegistry": "CHAIN_REPUTATION_REGISTRY",
    "validationRegistry": "CHAIN_VALIDATION_REGISTRY",
    "startBlock": "CHAIN_START_BLOCK",
    "confirmations": "CHAIN_CONFIRMATIONS",
    "maxBlockRange": "CHAIN_MAX_BLOCK_RANGE",
}
MAX_DEPLOYMENTS: Final = 32


def deployments_from_json(text: str, *, ipfs_gateway: str | None = None) -> list[ChainSettings]:
    """The extra ERC-8004 deployments of CHAIN_DEPLOYMENTS: a JSON list of objects, one per chain.

    Each object takes the keys of DEPLOYMENT_KEYS with the meaning (and checks) of the CHAIN_* setting
    each stands for; `rpcUrl` is required and the network preset (by `network` name or `chainId`)
    supplies the rest. Every deployment listed is enabled. Errors name the entry and the key.

    >>> [d.chain_id for d in deployments_from_json('[{"network": "ethereum", "rpcUrl": "https://eth.example"}]')]
    [1]
    >>> deployments_from_json('[{"network": "sepolia"}]')
    Traceback (most recent call last):
    ...
    ValueError: CHAIN_DEPLOYMENTS[0].rpcUrl: required
    >>> deployments_from_json('[{"network": "base", "rpcUrl": "https://a.example", "colour": 1}]')
    Traceback (most recent call last):
    ...
    ValueError: CHAIN_DEPLOYMENTS[0].colour: unknown key (known: chainId, confirmations, ...)
    """
    if not text.strip():
        return []
    try:
        entries = json.loads(text)
    except ValueError as error:
        raise ValueError(f"CHAIN_DEPLOYMENTS: not JSON ({error})") from None
    if not isinstance(entries, list):
        raise ValueError("CHAIN_DEPLOYMENTS: expected a JSON list of deployments")
    if len(entries) > MAX_DEPLOYMENTS:
        raise ValueError(f"CHAIN_DEPLOYMENTS: at most {MAX_DEPLOYMENTS} deployments, not {len(entries)}")
    deployments: list[ChainSettings] = []
    for index, entry in enumerate(entries):
        where = f"CHAIN_DEPLOYMENTS[{index}]"
        if not isinstance(entry, dict):
            raise ValueError(f"{where}: expected an object")
        for key in entry:
            if key not in DEPLOYMENT_KEYS:
                raise ValueError(f"{where}.{key}: unknown key (known: {', '.join(sorted(DEPLOYMENT_KEYS))})")
        if not str(entry.get("rpcUrl") or "").strip():
            raise ValueError(f"{where}.rpcUrl: required")
        network = entry.get("network")
        if network is None and "chainId" in entry:
            # A chain id names its preset when there is one; otherwise Base's addresses stay as defaults.
            network = str(entry["chainId"]) if _int_or_none(entry["chainId"]) in _NETWORK_BY_ID else "base"
        mapping = {"CHAIN_ENABLED": "1", "CHAIN_NETWORK": str(network or "base")}
        mapping.update({DEPLOYMENT_KEYS[k]: str(v) for k, v in entry.items() if k != "network"})
        if ipfs_gateway:
            mapping["CHAIN_IPFS_GATEWAY"] = ipfs_gateway
        try:
            deployment = ChainSettings.from_mapping(mapping)
        except ValueError as error:
            message = str(error)
            for key, setting in DEPLOYMENT_KEYS.items():
                message = message.replace(setting, f"{where}.{key}")
            raise ValueError(message) from None
        deployments.append(deployment)
    return deployments


def _int_or_none(value: object) -> int | None:
    """`value` as an int when it is one (or a string of digits), else None.

    >>> _int_or_none("8453"), _int_or_none(1.5), _int_or_none(True)
    (8453, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _preset(value: str, *, key: str) -> NetworkPreset:
    name = value.strip().lower()
    if name.isdigit() and int(name) in _NETWORK_BY_ID:
        name = _NETWORK_BY_ID[int(name)]
    if name not in NETWORKS:
        choices = ", ".join(f"{preset.name} ({preset.chain_id})" for preset in NETWORKS.values())
        raise ValueError(f"{key}: unknown network {value!r}; choose one of {choices}")
    return NETWORKS[name]


def _boolean(environ: Mapping[str, str], key: str) -> bool:
    value = environ.get(key, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"{key}: expected a boolean (1/0, true/false, yes/no, on/off), not {environ[key]!r}")


def _integer(environ: Mapping[str, str], key: str, *, minimum: int) -> int:
    text = environ[key].strip()
    try:
        value = int(text, 10)
    except ValueError:
        value = minimum - 1
    if value < minimum:
        raise ValueError(f"{key}: must be an integer >= {minimum}, not {environ[key]!r}")
    return value


def _address(environ: Mapping[str, str], key: str) -> str | None:
    text = environ[key].strip()
    if not text:
        return None
    if not is_address(text):
        raise ValueError(f"{key}: not an Ethereum address: {text!r}")
    digits = text[2:]
    # Mixed case means an EIP-55 checksum was intended: a wrong one is most likely a typo.
    if digits != digits.lower() and digits != digits.upper() and not is_checksum_address(text):
        raise ValueError(f"{key}: {text!r} has a wrong EIP-55 checksum")
    return to_checksum_address(text)


def _url(environ: Mapping[str, str], key: str, *, schemes: tuple[str, ...]) -> str:
    text = environ[key].strip()
    # The value stays out of the message: RPC URLs often carry an API key.
    if text and not text.lower().startswith(schemes):
        raise ValueError(f"{key}: expected a URL starting with {' or '.join(schemes)}")
    return text
