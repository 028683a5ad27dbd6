"""Fixtures for the chain tests: one anvil node per session, the registries deployed once, and every test
isolated by evm_snapshot / evm_revert."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.types import TxParams, TxReceipt

from signing.chain.anvil import AnvilNode
from signing.chain.deploy import DeployedRegistries, deploy_registries
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.tx import Fees, next_nonce, send_transaction, suggest_fees, wait_for_receipt
from signing.chain.validation import ValidationClient
from tests.evm_support import evm_snapshot

# The session's anvil node (`anvil`) comes from tests/conftest.py, shared with tests/attestations.
_CHAIN_FIXTURES = {"w3", "registries", "identity", "reputation", "validation", "new_account", "transact"}


@pytest.fixture(scope="session")
def w3(anvil: AnvilNode) -> Web3:
    return Web3(Web3.HTTPProvider(anvil.rpc_url, request_kwargs={"timeout": 30}))


def _fund(w3: Web3, address: str, ether: int = 100) -> None:
    w3.provider.make_request("anvil_setBalance", [address, hex(Web3.to_wei(ether, "ether"))])  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def deployer(w3: Web3) -> LocalAccount:
    account: LocalAccount = Account.create()
    _fund(w3, account.address)
    return account


@pytest.fixture(scope="session")
def registries(w3: Web3, deployer: LocalAccount) -> DeployedRegistries:
    return deploy_registries(w3, deployer)


@pytest.fixture(autouse=True)
def _chain_isolation(request: pytest.FixtureRequest) -> Iterator[None]:
    """Revert the chain to its post-deployment state after every test that touches it."""
    if not _CHAIN_FIXTURES.intersection(request.fixturenames):
        yield
        return
    request.getfixturevalue("registries")
    with evm_snapshot(request.getfixturevalue("w3")):
        yield


@pytest.fixture
def new_account(w3: Web3) -> Callable[[], LocalAccount]:
    """Make a fresh account with 100 ether (undone with the rest of the test's chain state)."""

    def make() -> LocalAccount:
        account: LocalAccount = Account.create()
        _fund(w3, account.address)
        return account

    return make


@pytest.fixture
def transact(w3: Web3) -> Callable[..., TxReceipt]:
    """Build with a client's ``build_*`` method (nonce and fees filled in), sign, send, wait for success."""

    def run(account: LocalAccount, build: Callable[..., TxParams], *args: Any, **kwargs: Any) -> TxReceipt:
        fees: Fees = suggest_fees(w3)
        transaction = build(
            *args, sender=account.address, nonce=next_nonce(w3, account.address), fees=fees, **kwargs
        )
        return wait_for_receipt(w3, send_transaction(w3, account, transaction))

    return run


@pytest.fixture(scope="session")
def identity(w3: Web3, registries: DeployedRegistries) -> IdentityClient:
    return IdentityClient(w3, registries.identity)


@pytest.fixture(scope="session")
def reputation(w3: Web3, registries: DeployedRegistries) -> ReputationClient:
    return ReputationClient(w3, registries.reputation)


@pytest.fixture(scope="session")
def validation(w3: Web3, registries: DeployedRegistries) -> ValidationClient:
    return ValidationClient(w3, registries.validation)
