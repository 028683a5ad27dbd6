"""Many ERC-8004 deployments: indexing each configured chain, and linking one agent's identities across
chains (same owner, or a registration file that names the other identity), against two real anvil nodes."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import pytest
from django.test import Client
from eth_account import Account
from eth_account.signers.local import LocalAccount
from rest_framework.test import APIClient
from web3 import Web3
from web3.types import TxReceipt

from attestations.models import ChainCursor
from attestations.services.chain import agent_subject_id, chain_settings_all
from attestations.tasks import chain_index
from common.errors import ApplicationError
from registry.models import Agent, AgentLink
from signing.chain.anvil import AnvilNode, start_anvil
from signing.chain.deploy import DeployedRegistries, deploy_registries
from signing.chain.identity import IdentityClient
from signing.chain.registration import REGISTRATION_TYPE
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from tests.chain_fixtures import (
    evm_snapshot,
    fund,
    funded_account,
    index_with_tasks,
    local_chain_settings,
    transact_with,
    web3_for,
)

pytestmark = pytest.mark.chain

SECOND_CHAIN_ID = 84532


@dataclass
class Node:
    """One chain as a test sees it: its web3, its registries and the settings that index it."""

    w3: Web3
    deployed: DeployedRegistries
    settings: ChainSettings

    def fund(self, address: str) -> None:
        fund(self.w3, address, 10)

    def register(self, owner: LocalAccount, uri: str = "data:application/json;base64,e30=") -> int:
        self.fund(owner.address)
        identity = IdentityClient(self.w3, self.deployed.identity)
        receipt = self._send(owner, identity.build_register, uri)
        return identity.registered_agent_id(receipt)

    def rate(self, agent_id: int, value: int) -> None:
        """A fresh wallet gives the agent one starred rating of `value` (0-100)."""
        client: LocalAccount = Account.create()
        self.fund(client.address)
        reputation = ReputationClient(self.w3, self.deployed.reputation)
        self._send(client, partial(reputation.build_give_feedback, tag1="starred"), agent_id, value, 0)

    def transfer(self, owner: LocalAccount, to: str, agent_id: int) -> None:
        identity = IdentityClient(self.w3, self.deployed.identity)

        def build(agent: int, *, sender: str, nonce: int, fees: Any) -> Any:
            call = identity.contract.functions.transferFrom(owner.address, to, agent)
            return identity.build_call(call, sender=sender, nonce=nonce, fees=fees)

        self._send(owner, build, agent_id)

    def subject(self, agent_id: int) -> str:
        return agent_subject_id(
            chain_id=self.settings.chain_id, identity_registry=self.deployed.identity, agent_id=agent_id
        )

    def _send(self, account: LocalAccount, build: Callable[..., Any], *args: Any) -> TxReceipt:
        return transact_with(self.w3)(account, build, *args)


def _node(w3: Web3, rpc_url: str, deployed: DeployedRegistries) -> Node:
    return Node(w3=w3, deployed=deployed, settings=local_chain_settings(w3, rpc_url, deployed))


@pytest.fixture(scope="session")
def second_anvil() -> Iterator[AnvilNode]:
    node = start_anvil(chain_id=SECOND_CHAIN_ID)
    try:
        yield node
    finally:
        node.stop()


@pytest.fixture(scope="session")
def second_deployed(second_anvil: AnvilNode) -> DeployedRegistries:
    w3 = web3_for(second_anvil.rpc_url)
    return deploy_registries(w3, funded_account(w3))


@pytest.fixture
def chains(
    w3: Web3,
    anvil: AnvilNode,
    registries: DeployedRegistries,
    second_anvil: AnvilNode,
    second_deployed: DeployedRegistries,
) -> Iterator[tuple[Node, Node]]:
    second_w3 = web3_for(second_anvil.rpc_url)
    with evm_snapshot(second_w3):
        yield (
            _node(w3, anvil.rpc_url, registries),
            _node(second_w3, second_anvil.rpc_url, second_deployed),
        )


def _index(node: Node, capture: Any) -> None:
    # Registration files are fetched by a task queued on commit (Celery is eager in the tests).
    index_with_tasks(node.settings, node.w3, capture)


def _file_naming(*subjects: str) -> str:
    registrations = []
    for subject in subjects:
        _, chain_id, registry, agent_id = subject.split(":")
        registrations.append({"agentId": int(agent_id), "agentRegistry": f"eip155:{chain_id}:{registry}"})
    document = {"type": REGISTRATION_TYPE, "name": "Scout", "registrations": registrations}
    return "data:application/json;base64," + base64.b64encode(json.dumps(document).encode()).decode()


def test_it_links_one_owners_only_agents_on_two_chains(
    db: None, chains: tuple[Node, Node], django_capture_on_commit_callbacks: Any
) -> None:
    base, second = chains
    owner = Account.create()
    first_id, second_id = base.register(owner), second.register(owner)
    _index(base, django_capture_on_commit_callbacks)
    _index(second, django_capture_on_commit_callbacks)
    primary = Agent.objects.get(subject_id=base.subject(first_id))
    other = Agent.objects.get(subject_id=second.subject(second_id))
    link = AgentLink.objects.get(agent=other)
    assert (link.primary, link.reason) == (primary, AgentLink.Reason.SAME_OWNER)
    assert not AgentLink.objects.filter(agent=primary).exists()
    # Both identities name each other, primary first, in the API and on the page.
    for subject in (primary.subject_id, other.subject_id):
        body = APIClient().get(f"/api/v1/agents/{subject}").json()
        assert [i["subjectId"] for i in body["identities"]] == [primary.subject_id, other.subject_id]
        assert [i["chainId"] for i in body["identities"]] == [base.settings.chain_id, SECOND_CHAIN_ID]
    page = Client().get(f"/agents/{primary.subject_id}").content.decode()
    assert "The same agent on other chains" in page and other.subject_id[:30] in page


def test_it_links_by_registration_file_when_the_owner_has_several_agents(
    db: None, chains: tuple[Node, Node], django_capture_on_commit_callbacks: Any
) -> None:
    base, second = chains
    owner, stranger = Account.create(), Account.create()
    first_id = base.register(owner)
    _index(base, django_capture_on_commit_callbacks)
    named = second.register(owner, _file_naming(base.subject(first_id)))
    unnamed = second.register(owner)
    # A stranger's file may name the owner's agent: that claims nothing.
    claimer = second.register(stranger, _file_naming(base.subject(first_id)))
    _index(second, django_capture_on_commit_callbacks)
    primary = Agent.objects.get(subject_id=base.subject(first_id))
    link = AgentLink.objects.get(agent__subject_id=second.subject(named))
    assert (link.primary, link.reason) == (primary, AgentLink.Reason.REGISTRATION_FILE)
    # Two agents of one owner on a chain: the owner alone says nothing about which is which.
    assert not AgentLink.objects.filter(agent__subject_id=second.subject(unnamed)).exists()
    assert not AgentLink.objects.filter(agent__subject_id=second.subject(claimer)).exists()


def test_it_unlinks_an_identity_that_changes_hands(
    db: None, chains: tuple[Node, Node], django_capture_on_commit_callbacks: Any
) -> None:
    base, second = chains
    owner, buyer = Account.create(), Account.create()
    base.register(owner)
    second_id = second.register(owner)
    _index(base, django_capture_on_commit_callbacks)
    _index(second, django_capture_on_commit_callbacks)
    assert AgentLink.objects.filter(agent__subject_id=second.subject(second_id)).exists()
    second.transfer(owner, buyer.address, second_id)
    _index(second, django_capture_on_commit_callbacks)
    assert Agent.objects.get(subject_id=second.subject(second_id)).owner_address == buyer.address
    assert not AgentLink.objects.exists()


def _record(subject: str) -> dict[str, Any]:
    response = APIClient().get(f"/api/v1/agents/{subject}/trust-score")
    assert response.status_code == 200, response.content
    record: dict[str, Any] = response.json()
    return record


@pytest.mark.usefixtures("weighted_mean_config")
def test_it_merges_linked_identities_feedback_with_per_chain_provenance_until_a_transfer(
    db: None, chains: tuple[Node, Node], django_capture_on_commit_callbacks: Any
) -> None:
    # The raw merged mean: under the default sybil floor these fresh wallets would carry no weight
    # (the floor's own merged-feedback test is in tests/registry/test_registry_sybil.py).
    base, second = chains
    owner, buyer = Account.create(), Account.create()
    first_id, second_id = base.register(owner), second.register(owner)
    for value in (80, 90, 70):
        base.rate(first_id, value)
    for value in (40, 50):
        second.rate(second_id, value)
    _index(base, django_capture_on_commit_callbacks)
    _index(second, django_capture_on_commit_callbacks)
    primary = Agent.objects.get(subject_id=base.subject(first_id))
    other = Agent.objects.get(subject_id=second.subject(second_id))
    assert AgentLink.objects.get(agent=other).primary == primary
    per_chain = [
        {
            "subjectId": primary.subject_id,
            "chainId": base.settings.chain_id,
            "agentId": str(first_id),
            "count": 3,
            "mean": 80.0,
        },
        {
            "subjectId": other.subject_id,
            "chainId": SECOND_CHAIN_ID,
            "agentId": str(second_id),
            "count": 2,
            "mean": 45.0,
        },
    ]
    # Either identity is scored on all five ratings (mean 66), and says where each came from.
    for subject in (primary.subject_id, other.subject_id):
        record = _record(subject)
        assert record["trustScores"]["erc8004-feedback.rating"] == 66.0
        assert record["provenance"]["feedbackIdentities"] == per_chain
    merged_volume = _record(primary.subject_id)["trustScores"]["erc8004-feedback.volume"]

    # A rating on one chain rescores the identity on the other.
    second.rate(second_id, 100)
    _index(second, django_capture_on_commit_callbacks)
    assert _record(primary.subject_id)["trustScores"]["erc8004-feedback.rating"] == 71.67
    assert _record(primary.subject_id)["provenance"]["feedbackIdentities"][1]["count"] == 3

    # A transfer unlinks: each identity is rescored on its own feedback, without the merge.
    second.transfer(owner, buyer.address, second_id)
    _index(second, django_capture_on_commit_callbacks)
    assert not AgentLink.objects.exists()
    alone = _record(primary.subject_id)
    assert alone["trustScores"]["erc8004-feedback.rating"] == 80.0
    assert alone["trustScores"]["erc8004-feedback.volume"] < merged_volume
    assert "feedbackIdentities" not in alone["provenance"]
    sold = _record(other.subject_id)
    assert sold["trustScores"]["erc8004-feedback.rating"] == 63.33
    assert "feedbackIdentities" not in sold["provenance"]


def _configure(settings: Any, base: Node, second: Node) -> None:
    settings.CHAIN_ENABLED = True
    settings.CHAIN_NETWORK = "local"
    settings.CHAIN_ID = base.settings.chain_id
    settings.CHAIN_RPC_URL = base.settings.rpc_url
    settings.CHAIN_IDENTITY_REGISTRY = base.deployed.identity
    settings.CHAIN_REPUTATION_REGISTRY = base.deployed.reputation
    settings.CHAIN_VALIDATION_REGISTRY = base.deployed.validation
    settings.CHAIN_CONFIRMATIONS = 0
    settings.CHAIN_START_BLOCK = base.settings.start_block
    settings.CHAIN_DEPLOYMENTS = json.dumps(
        [
            {
                "network": "local",
                "chainId": second.settings.chain_id,
                "rpcUrl": second.settings.rpc_url,
                "identityRegistry": second.deployed.identity,
                "reputationRegistry": second.deployed.reputation,
                "confirmations": 0,
                "startBlock": second.settings.start_block,
            }
        ]
    )


def test_it_indexes_every_configured_deployment_from_one_beat_task(
    db: None, chains: tuple[Node, Node], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    base, second = chains
    _configure(settings, base, second)
    owner = Account.create()
    first_id, second_id = base.register(owner), second.register(owner)
    with django_capture_on_commit_callbacks(execute=True):
        chain_index.apply()
    assert set(ChainCursor.objects.values_list("chain_id", flat=True)) == {
        base.settings.chain_id,
        SECOND_CHAIN_ID,
    }
    assert (
        Agent.objects.filter(subject_id__in=[base.subject(first_id), second.subject(second_id)]).count() == 2
    )
    assert [c.chain_id for c in chain_settings_all()] == [base.settings.chain_id, SECOND_CHAIN_ID]


def test_it_refuses_a_chain_configured_twice_and_names_a_bad_deployment_key(
    db: None, chains: tuple[Node, Node], settings: Any
) -> None:
    base, second = chains
    _configure(settings, base, second)
    settings.CHAIN_DEPLOYMENTS = json.dumps(
        [{"chainId": base.settings.chain_id, "rpcUrl": "http://127.0.0.1:1"}]
    )
    with pytest.raises(ApplicationError, match="configured twice"):
        chain_settings_all()
    settings.CHAIN_DEPLOYMENTS = json.dumps([{"rpcUrl": "http://127.0.0.1:1", "confirmations": -2}])
    with pytest.raises(ApplicationError, match=r"CHAIN_DEPLOYMENTS\[0\]\.confirmations"):
        chain_settings_all()
