"""ChainSettings presets and parsing of CHAIN_* environment keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from signing.chain.settings import ENV_KEYS, NETWORKS, ChainSettings

INTERFACE = Path(__file__).resolve().parents[2].parent / "shared" / "erc8004" / "INTERFACE.md"


def test_it_is_switched_off_by_default() -> None:
    settings = ChainSettings.from_mapping({"PATH": "/usr/bin", "OTHER": "x"})
    assert settings.enabled is False
    assert (settings.chain_id, settings.network) == (8453, "base")


@pytest.mark.parametrize("network", ["base", "base-sepolia"])
def test_it_defaults_to_the_addresses_interface_md_lists(network: str) -> None:
    text = INTERFACE.read_text(encoding="utf-8")
    settings = ChainSettings.from_mapping({"CHAIN_NETWORK": network})
    row = next(
        line for line in text.splitlines() if line.startswith("|") and f"| {settings.chain_id} |" in line
    )
    assert settings.identity_registry is not None and settings.identity_registry in row
    assert settings.reputation_registry is not None and settings.reputation_registry in row
    assert settings.validation_registry is None
    planned = NETWORKS[network].planned_validation_registry
    assert planned is not None and planned in text


@pytest.mark.parametrize(
    ("value", "chain_id"), [("base", 8453), ("84532", 84532), ("local", 31337), ("Base-Sepolia", 84532)]
)
def test_it_selects_networks_by_name_or_chain_id(value: str, chain_id: int) -> None:
    assert ChainSettings.from_mapping({"CHAIN_NETWORK": value}).chain_id == chain_id


def test_it_reads_every_key() -> None:
    settings = ChainSettings.from_mapping(
        {
            "CHAIN_ENABLED": "yes",
            "CHAIN_NETWORK": "local",
            "CHAIN_ID": "8453",
            "CHAIN_RPC_URL": "http://127.0.0.1:9545",
            "CHAIN_IDENTITY_REGISTRY": "0x" + "ab" * 20,
            "CHAIN_REPUTATION_REGISTRY": "0x" + "cd" * 20,
            "CHAIN_VALIDATION_REGISTRY": "0x" + "ef" * 20,
            "CHAIN_CONFIRMATIONS": "3",
            "CHAIN_START_BLOCK": "12345",
            "CHAIN_MAX_BLOCK_RANGE": "500",
            "CHAIN_IPFS_GATEWAY": "https://gw.example/ipfs",
        }
    )
    assert settings.enabled and settings.network == "local" and settings.chain_id == 8453
    assert settings.rpc_url == "http://127.0.0.1:9545"
    assert settings.identity_registry is not None and settings.identity_registry.lower() == "0x" + "ab" * 20
    assert (
        settings.validation_registry is not None and settings.validation_registry.lower() == "0x" + "ef" * 20
    )
    assert (settings.confirmations, settings.start_block, settings.max_block_range) == (3, 12345, 500)
    assert settings.ipfs_gateway == "https://gw.example/ipfs/"
    assert len(ENV_KEYS) == 11


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("CHAIN_ENABLED", "maybe"),
        ("CHAIN_NETWORK", "mainnet-ish"),
        ("CHAIN_ID", "0"),
        ("CHAIN_CONFIRMATIONS", "-2"),
        ("CHAIN_START_BLOCK", "ten"),
        ("CHAIN_MAX_BLOCK_RANGE", "0"),
        ("CHAIN_IDENTITY_REGISTRY", "0x1234"),
        ("CHAIN_REPUTATION_REGISTRY", "0x" + "AB" * 19 + "aB"),
        ("CHAIN_RPC_URL", "ftp://node"),
        ("CHAIN_RPC_URL", "wss://node"),
        ("CHAIN_IPFS_GATEWAY", "ipfs://gw"),
        ("CHAIN_CONFIRMATION", "3"),
    ],
)
def test_it_names_the_bad_key(key: str, value: str) -> None:
    with pytest.raises(ValueError, match=f"^{key}: "):
        ChainSettings.from_mapping({key: value})


def test_it_needs_an_rpc_url_when_enabled() -> None:
    with pytest.raises(ValueError, match=r"^CHAIN_RPC_URL: "):
        ChainSettings.from_mapping({"CHAIN_ENABLED": "1"})
    assert ChainSettings.from_mapping({"CHAIN_ENABLED": "1", "CHAIN_NETWORK": "local"}).rpc_url.startswith(
        "http://"
    )


def test_it_keeps_rpc_urls_out_of_error_messages() -> None:
    with pytest.raises(ValueError) as caught:
        ChainSettings.from_mapping({"CHAIN_RPC_URL": "ftp://node/secret-api-key"})
    assert "secret-api-key" not in str(caught.value)
