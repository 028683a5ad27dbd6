"""The one place the chain tests are set up: a local EVM node, the ERC-8004 registries on it, accounts,
transactions, and every test isolated by evm_snapshot / evm_revert.

Registered as a pytest plugin in tests/conftest.py, so tests/chain, tests/attestations and any other
suite ask for these fixtures by name. One anvil node runs per session (started by the first test that
asks for it, stopped by its pid); the registries are deployed on it once; every test that touches the
node (`w3`, and all that build on it) sees it as it was right after the deployment. Suites with
nothing on chain never start anvil and never import web3: the imports are inside the fixtures.

Helpers for tests that need more than the fixtures (a second node, a raw snapshot, an indexer run)
are plain functions here: `fund`, `evm_snapshot`, `local_chain_settings`, `index_with_tasks`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from eth_account.signers.local import LocalAccount
    from web3 import Web3
    from web3.types import TxParams, TxReceipt

    from signing.chain.anvil import AnvilNode
    from signing.chain.deploy import DeployedRegistries
    from signing.chain.identity import IdentityClient
    from signing.chain.reputation import ReputationClient
    from signing.chain.settings import ChainSettings
    from signing.chain.validation import ValidationClient

ANVIL_CHAIN_ID = 8453
# A fixed key so the service's address is known; funded once per session on the node.
SERVICE_KEY = "0x" + "5a" * 32


# --- helpers -----------------------------------------------------------------------------------------


def web3_for(rpc_url: str) -> Web3:
    """A Web3 client of a local node (30 s timeout: anvil answers at once, but the machine is shared)."""
    from web3 import Web3

    return Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))


def fund(w3: Web3, address: str, ether: int = 100) -> None:
    """Give `address` this many ether on the local node (anvil_setBalance)."""
    from web3 import Web3

    w3.provider.make_request("anvil_setBalance", [address, hex(Web3.to_wei(ether, "ether"))])  # type: ignore[arg-type]


def funded_account(w3: Web3, ether: int = 100) -> LocalAccount:
    """A fresh account with `ether` on the local node."""
    from eth_account import Account

    account: LocalAccount = Account.create()
    fund(w3, account.address, ether)
    return account


@contextlib.contextmanager
def evm_snapshot(w3: Any) -> Iterator[None]:
    """Undo everything a test did on the node: evm_snapshot before, evm_revert after."""
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    try:
        yield
    finally:
        reverted = w3.provider.make_request("evm_revert", [snapshot])
        assert reverted.get("result") is True, f"evm_revert failed: {reverted}"


def local_chain_settings(w3: Any, rpc_url: str, deployed: Any) -> ChainSettings:
    """ChainSettings for registries `deployed` on a local node: enabled, final at once, scanned from
    the block after the deployment."""
    from signing.chain.settings import ChainSettings

    return ChainSettings.for_network(
        "local",
        enabled=True,
        chain_id=int(w3.eth.chain_id),
        rpc_url=rpc_url,
        identity_registry=deployed.identity,
        reputation_registry=deployed.reputation,
        validation_registry=deployed.validation,
        confirmations=0,
        start_block=deployed.block_number + 1,
        max_block_range=1000,
    )


def index_with_tasks(chain: Any, w3: Any, capture: Any, **kwargs: Any) -> Any:
    """One indexer run (attestations.services.indexer.chain_index_run) with the tasks it queues on
    commit (score recomputes, registration fetches) run too: Celery is eager in the tests, and `capture`
    is pytest-django's django_capture_on_commit_callbacks."""
    from attestations.services.indexer import chain_index_run

    with capture(execute=True):
        return chain_index_run(chain=chain, w3=w3, **kwargs)


def set_agent_wallet(
    w3: Web3,
    identity: IdentityClient,
    transact: Callable[..., Any],
    owner: LocalAccount,
    agent_id: int,
    wallet: LocalAccount,
) -> None:
    """The owner names `wallet` as the agent's own (setAgentWallet with the wallet's EIP-712 signature,
    valid for two minutes of chain time)."""
    from signing.chain.identity import sign_agent_wallet

    deadline = int(w3.eth.get_block("latest")["timestamp"]) + 120
    signature = sign_agent_wallet(
        wallet.key,
        chain_id=w3.eth.chain_id,
        registry=identity.address,
        agent_id=agent_id,
        owner=owner.address,
        deadline=deadline,
    )
    transact(owner, identity.build_set_agent_wallet, agent_id, wallet.address, deadline, signature)


def prepare_with(w3: Web3) -> Callable[..., TxParams]:
    """Build with a client's ``build_*`` method, the sender's nonce and current fees filled in (the
    node estimates the gas, so a call the contract refuses raises here)."""
    from signing.chain.tx import next_nonce, suggest_fees

    def build_for(
        account: LocalAccount, build: Callable[..., TxParams], *args: Any, **kwargs: Any
    ) -> TxParams:
        return build(
            *args,
            sender=account.address,
            nonce=next_nonce(w3, account.address),
            fees=suggest_fees(w3),
            **kwargs,
        )

    return build_for


def transact_with(w3: Web3) -> Callable[..., TxReceipt]:
    """Prepare (above), sign, send, wait for success."""
    from signing.chain.tx import send_transaction, wait_for_receipt

    prepare = prepare_with(w3)

    def run(account: LocalAccount, build: Callable[..., TxParams], *args: Any, **kwargs: Any) -> TxReceipt:
        return wait_for_receipt(w3, send_transaction(w3, account, prepare(account, build, *args, **kwargs)))

    return run


# --- the session's node and registries -------------------------------------------------------------


@pytest.fixture(scope="session")
def anvil() -> Iterator[AnvilNode]:
    """One local EVM node for the whole session (chain id 8453, a free port), stopped by its pid."""
    from signing.chain.anvil import AnvilNotFound, start_anvil

    try:
        node = start_anvil(chain_id=ANVIL_CHAIN_ID)
    except AnvilNotFound as error:
        pytest.fail(
            f"{error} (the chain tests need the npm package @foundry-rs/anvil: run npm ci)", pytrace=False
        )
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def w3(anvil: AnvilNode) -> Web3:
    return web3_for(anvil.rpc_url)


@pytest.fixture(scope="session")
def deployer(w3: Web3) -> LocalAccount:
    """The funded account that deployed the session's registries."""
    return funded_account(w3)


@pytest.fixture(scope="session")
def registries(w3: Web3, deployer: LocalAccount) -> DeployedRegistries:
    """The ERC-8004 identity, reputation and validation registries, deployed once per session; the
    service key (SERVICE_KEY) is funded with them, so the registry's own transactions can be sent."""
    from eth_account import Account

    from signing.chain.deploy import deploy_registries

    fund(w3, Account.from_key(SERVICE_KEY).address)
    return deploy_registries(w3, deployer)


@pytest.fixture(autouse=True)
def _chain_isolation(request: pytest.FixtureRequest) -> Iterator[None]:
    """Revert the node to its post-deployment state after every test that touches it (asks for `w3`,
    directly or through another fixture)."""
    if "w3" not in request.fixturenames:
        yield
        return
    request.getfixturevalue("registries")
    with evm_snapshot(request.getfixturevalue("w3")):
        yield


# --- per test ------------------------------------------------------------------------------------


@pytest.fixture
def chain(w3: Web3, anvil: AnvilNode, registries: DeployedRegistries) -> ChainSettings:
    """ChainSettings that index the session's registries from the block after their deployment."""
    return local_chain_settings(w3, anvil.rpc_url, registries)


@pytest.fixture
def identity(w3: Web3, registries: DeployedRegistries) -> IdentityClient:
    from signing.chain.identity import IdentityClient

    return IdentityClient(w3, registries.identity)


@pytest.fixture
def reputation(w3: Web3, registries: DeployedRegistries) -> ReputationClient:
    from signing.chain.reputation import ReputationClient

    return ReputationClient(w3, registries.reputation)


@pytest.fixture
def validation(w3: Web3, registries: DeployedRegistries) -> ValidationClient:
    from signing.chain.validation import ValidationClient

    return ValidationClient(w3, registries.validation)


@pytest.fixture
def new_account(w3: Web3) -> Callable[[], LocalAccount]:
    """Make a fresh account with 100 ether (undone with the rest of the test's chain state)."""
    return lambda: funded_account(w3)


@pytest.fixture
def prepare(w3: Web3) -> Callable[..., TxParams]:
    """Build a transaction for `account` without sending it (nonce and fees filled in)."""
    return prepare_with(w3)


@pytest.fixture
def transact(w3: Web3) -> Callable[..., TxReceipt]:
    """Build with a client's ``build_*`` method (nonce and fees filled in), sign, send, wait for success."""
    return transact_with(w3)


@pytest.fixture
def register_agent(
    identity: IdentityClient, transact: Callable[..., TxReceipt]
) -> Callable[[LocalAccount], int]:
    """Register an on-chain agent owned by `owner`; returns its agent id."""

    def register(owner: LocalAccount) -> int:
        receipt = transact(owner, identity.build_register, "data:application/json;base64,e30=")
        return identity.registered_agent_id(receipt)

    return register


@pytest.fixture
def chain_agent(
    new_account: Callable[[], LocalAccount], register_agent: Callable[[LocalAccount], int]
) -> tuple[int, LocalAccount]:
    """An on-chain agent and its owner (a fresh funded account)."""
    owner = new_account()
    return register_agent(owner), owner


@pytest.fixture
def service_account(monkeypatch: pytest.MonkeyPatch) -> Iterator[LocalAccount]:
    """The service key (signs attestations, sends transactions, is the validator)."""
    from eth_account import Account

    from attestations.services.keys import service_key_reset

    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", SERVICE_KEY)
    service_key_reset()
    yield Account.from_key(SERVICE_KEY)
    service_key_reset()
