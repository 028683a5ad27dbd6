"""Fixtures for the Django-side ERC-8004 tests: one anvil node per session with the project's registries,
a funded service key, and every chain test isolated by evm_snapshot / evm_revert.

The node itself is shared with tests/chain (tests/conftest.py); only tests that ask for `chain` (or
`anvil_w3`) start it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from eth_account import Account
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.types import TxParams, TxReceipt

from attestations.services.keys import service_key_reset
from signing.chain.anvil import AnvilNode
from signing.chain.deploy import DeployedRegistries, deploy_registries
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from signing.chain.tx import next_nonce, send_transaction, suggest_fees, wait_for_receipt
from signing.chain.validation import ValidationClient
from tests.evm_support import evm_snapshot, local_chain_settings

# A fixed key so the service's address is known; funded once per session on the node.
SERVICE_KEY = "0x" + "5a" * 32
_CHAIN_FIXTURES = {"chain", "anvil_w3"}


@pytest.fixture(scope="session")
def anvil_node(anvil: AnvilNode) -> AnvilNode:
    """The session's one anvil node (tests/conftest.py); these tests deploy their own registries on it."""
    return anvil


@pytest.fixture(scope="session")
def anvil_w3(anvil_node: AnvilNode) -> Web3:
    return Web3(Web3.HTTPProvider(anvil_node.rpc_url, request_kwargs={"timeout": 30}))


def fund(w3: Web3, address: str, ether: int = 100) -> None:
    w3.provider.make_request("anvil_setBalance", [address, hex(Web3.to_wei(ether, "ether"))])  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def deployed(anvil_w3: Web3) -> DeployedRegistries:
    deployer: LocalAccount = Account.create()
    fund(anvil_w3, deployer.address)
    fund(anvil_w3, Account.from_key(SERVICE_KEY).address)
    return deploy_registries(anvil_w3, deployer)


@pytest.fixture(autouse=True)
def _chain_snapshot(request: pytest.FixtureRequest) -> Iterator[None]:
    """Revert the node to its post-deployment state after every test that touches it."""
    if not _CHAIN_FIXTURES.intersection(request.fixturenames):
        yield
        return
    request.getfixturevalue("deployed")
    with evm_snapshot(request.getfixturevalue("anvil_w3")):
        yield


@pytest.fixture
def service_account(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalAccount]:
    """The service key (signs attestations, sends transactions, is the validator)."""
    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", SERVICE_KEY)
    service_key_reset()
    yield Account.from_key(SERVICE_KEY)
    service_key_reset()


@pytest.fixture
def chain(anvil_w3: Web3, anvil_node: AnvilNode, deployed: DeployedRegistries) -> ChainSettings:
    settings: ChainSettings = local_chain_settings(anvil_w3, anvil_node.rpc_url, deployed)
    return settings


@pytest.fixture
def identity(anvil_w3: Web3, deployed: DeployedRegistries) -> IdentityClient:
    return IdentityClient(anvil_w3, deployed.identity)


@pytest.fixture
def reputation(anvil_w3: Web3, deployed: DeployedRegistries) -> ReputationClient:
    return ReputationClient(anvil_w3, deployed.reputation)


@pytest.fixture
def validation(anvil_w3: Web3, deployed: DeployedRegistries) -> ValidationClient:
    return ValidationClient(anvil_w3, deployed.validation)


@pytest.fixture
def new_account(anvil_w3: Web3) -> Callable[[], LocalAccount]:
    def make() -> LocalAccount:
        account: LocalAccount = Account.create()
        fund(anvil_w3, account.address)
        return account

    return make


@pytest.fixture
def transact(anvil_w3: Web3) -> Callable[..., TxReceipt]:
    """Build with a client's ``build_*`` method (nonce and fees filled in), sign, send, wait for success."""

    def run(account: LocalAccount, build: Callable[..., TxParams], *args: Any, **kwargs: Any) -> TxReceipt:
        transaction = build(
            *args,
            sender=account.address,
            nonce=next_nonce(anvil_w3, account.address),
            fees=suggest_fees(anvil_w3),
            **kwargs,
        )
        return wait_for_receipt(anvil_w3, send_transaction(anvil_w3, account, transaction))

    return run


@pytest.fixture
def register_agent(
    identity: IdentityClient, transact: Callable[..., TxReceipt]
) -> Callable[[LocalAccount], int]:
    """Register an on-chain agent owned by `owner`; returns its agent id."""

    def register(owner: LocalAccount) -> int:
        receipt = transact(owner, identity.build_register, "data:application/json;base64,e30=")
        return identity.registered_agent_id(receipt)

    return register
