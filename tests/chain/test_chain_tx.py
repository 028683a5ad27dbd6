"""Transactions, deployment and artifacts against anvil."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from hexbytes import HexBytes

from signing.chain.artifacts import ARTIFACT_NAMES, load_artifact
from signing.chain.settings import ChainSettings
from signing.chain.tx import (
    Fees,
    TransactionFailed,
    build_transaction,
    next_nonce,
    send_transaction,
    suggest_fees,
    wait_for_receipt,
)

ROOT = Path(__file__).resolve().parents[2]


def test_it_builds_eip1559_transactions_with_the_given_nonce_and_fees(w3, identity, new_account) -> None:
    owner = new_account()
    fees = Fees(max_fee_per_gas=5 * 10**9, max_priority_fee_per_gas=10**9)
    transaction = build_transaction(
        w3, identity.contract.functions.register(), sender=owner.address, nonce=0, fees=fees
    )
    assert (transaction["type"], transaction["nonce"], transaction["chainId"]) == (2, 0, 8453)
    assert (transaction["maxFeePerGas"], transaction["maxPriorityFeePerGas"]) == (5 * 10**9, 10**9)
    estimate = identity.contract.functions.register().estimate_gas({"from": owner.address})
    assert transaction["gas"] > estimate
    assert "gasPrice" not in transaction
    fixed = build_transaction(
        w3, identity.contract.functions.register(), sender=owner.address, nonce=4, fees=fees, gas=90_000
    )
    assert (fixed["gas"], fixed["nonce"]) == (90_000, 4)


def test_it_suggests_fees_above_the_base_fee(w3) -> None:
    base_fee = w3.eth.get_block("latest")["baseFeePerGas"]
    fees = suggest_fees(w3, priority_fee=7)
    assert fees.max_priority_fee_per_gas == 7
    assert fees.max_fee_per_gas == 2 * base_fee + 7
    with pytest.raises(ValueError):
        Fees(max_fee_per_gas=1, max_priority_fee_per_gas=2)


def test_it_reports_a_mined_revert_as_transaction_failed(
    w3, identity, reputation, new_account, transact
) -> None:
    owner = new_account()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    # A fixed gas limit skips estimation, so the self-feedback revert only shows in the receipt.
    transaction = reputation.build_give_feedback(
        agent_id,
        1,
        0,
        sender=owner.address,
        nonce=next_nonce(w3, owner.address),
        fees=suggest_fees(w3),
        gas=300_000,
    )
    tx_hash = send_transaction(w3, owner, transaction)
    with pytest.raises(TransactionFailed) as caught:
        wait_for_receipt(w3, tx_hash)
    assert caught.value.receipt["status"] == 0
    assert next_nonce(w3, owner.address) == transaction["nonce"] + 1


def test_it_refuses_to_sign_for_another_sender(w3, identity, new_account) -> None:
    owner, other = new_account(), new_account()
    transaction = identity.build_register(sender=owner.address, nonce=0, fees=suggest_fees(w3))
    with pytest.raises(ValueError, match="signer"):
        send_transaction(w3, other, transaction)


def test_it_deploys_the_committed_bytecode(w3, registries) -> None:
    code = HexBytes(w3.eth.get_code(registries.identity)).to_0x_hex()
    artifact_path = ROOT / "contracts" / "build" / "IdentityRegistry.json"
    assert code == json.loads(artifact_path.read_text())["deployedBytecode"]
    for name, address in (
        ("ReputationRegistry", registries.reputation),
        ("ValidationRegistry", registries.validation),
    ):
        contract = w3.eth.contract(address=address, abi=load_artifact(name).abi)
        assert contract.functions.getIdentityRegistry().call() == registries.identity
        assert contract.functions.getVersion().call() == "2.0.0"
    settings = ChainSettings.from_mapping({"CHAIN_NETWORK": "local", **registries.as_settings()})
    assert (settings.identity_registry, settings.start_block) == (
        registries.identity,
        registries.block_number,
    )


def test_it_loads_every_artifact_with_abi_and_bytecode() -> None:
    for name in ARTIFACT_NAMES:
        artifact = load_artifact(name)
        assert artifact.name == name and artifact.bytecode.startswith("0x6") and artifact.abi
        assert artifact.compiler_version.startswith("0.8.")
    with pytest.raises(FileNotFoundError, match=r"build\.mjs"):
        load_artifact("IdentityRegistry", ROOT / "no-such-dir")


def test_it_has_artifacts_built_from_the_current_sources() -> None:
    """The artifacts record a digest of the sources they were built from; a stale build fails here."""
    digest = hashlib.sha256()
    for path in sorted((ROOT / "contracts" / "src").glob("*.sol"), key=lambda p: p.name):
        digest.update(f"src/{path.name}\0".encode() + path.read_bytes() + b"\0")
    built = sorted((ROOT / "contracts" / "build").glob("*.json"))
    assert {path.stem for path in built} >= {*ARTIFACT_NAMES, "ERC1271WalletMock"}
    for path in built:
        recorded = json.loads(path.read_text())["sourcesSha256"]
        assert recorded == digest.hexdigest(), (
            f"contracts/build/{path.name} is stale: run node contracts/build.mjs"
        )
