"""Rating the raters against Sybil rings on a real anvil chain (SPEC 2.4, issue 21 item 2).

ERC-8004 feedback is given on chain, indexed by the registry's indexer and scored under the default
configuration, which is the sybil-resistance floor. A reviewer's age is how old its wallet was on chain
when it rated the agent (block timestamps, moved on with evm_increaseTime): a ring of fresh wallets
rating an agent 100 does not lift its score, the agent's own wallet (getAgentWallet) never counts,
and an honest spread of established reviewers does lift it.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from itertools import combinations
from typing import Any

import pytest
from eth_account.signers.local import LocalAccount
from rest_framework.test import APIClient
from web3 import Web3
from web3.types import TxReceipt

from registry.models import Agent, FeedbackEntry, ReviewerFirstTx
from registry.services.scoring import scoring_config_current, trust_score_compute
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from tests.chain_fixtures import index_with_tasks, set_agent_wallet

pytestmark = pytest.mark.chain

DAY = 86_400


def _score(agent: Agent) -> tuple[Decimal, dict[str, Any]]:
    agent.refresh_from_db()
    score, _ = trust_score_compute(agent=agent)
    return score.trust_score, score.record


def _travel(w3: Web3, days: int) -> None:
    w3.provider.make_request("evm_increaseTime", [days * DAY])  # type: ignore[arg-type]
    w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]


def test_it_keeps_a_ring_of_fresh_wallets_and_the_agents_own_wallet_from_lifting_a_score(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    identity: IdentityClient,
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    def index() -> None:
        index_with_tasks(chain, w3, django_capture_on_commit_callbacks)

    def rate(client: LocalAccount, agent_id: int, value: int) -> None:
        transact(client, reputation.build_give_feedback, agent_id, value, 0, tag1="starred", tag2="")

    # Nothing configured: the default is the floor.
    assert scoring_config_current().params["graph"]["id"] == "sybil-floor-1"
    owner = new_account()
    target_id = register_agent(owner)
    others = [register_agent(new_account()) for _ in range(5)]
    # Established reviewers: each rated its own pair of other agents, near the consensus there. The
    # agent's wallet-to-be is just as established (it rated elsewhere too, at the same time).
    honest = [new_account() for _ in range(6)]
    wallet = new_account()
    for i, (client, pair) in enumerate(zip([*honest, wallet], combinations(others, 2), strict=False)):
        for agent_id in pair:
            rate(client, agent_id, 70 + i % 3)
    # The owner names the wallet as the agent's own (setAgentWallet, signed by the wallet).
    set_agent_wallet(w3, identity, transact, owner, target_id, wallet)
    index()
    target = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=target_id)
    assert target.wallet_address == wallet.address == identity.agent_wallet(target_id)
    baseline, _ = _score(target)

    # Sixty days pass on chain; then a ring of wallets made today rates the agent 100, and so does its
    # own (aged) wallet.
    _travel(w3, 60)
    ring = [new_account() for _ in range(25)]
    for client in [*ring, wallet]:
        rate(client, target_id, 100)
    index()
    given = FeedbackEntry.objects.filter(agent=target).values_list("block_time", flat=True)
    assert all(at is not None for at in given)
    attacked, record = _score(target)
    assert attacked == baseline
    reviewers = record["provenance"]["reviewers"]
    assert reviewers["clientAddresses"] == []
    standing = {s["reviewer"]: s for s in reviewers["standings"]}
    assert set(standing) == {a.address.lower() for a in [*ring, wallet]}
    assert all(standing[a.address.lower()]["age"] == 0 for a in ring)
    assert all(s["standing"] == 0 for s in standing.values())
    own = standing[wallet.address.lower()]
    assert (own["independent"], own["age"]) == (False, 1)

    for client in honest:
        rate(client, target_id, 85)
    index()
    lifted, record = _score(target)
    assert lifted > attacked
    reviewers = record["provenance"]["reviewers"]
    assert reviewers["clientAddresses"] == sorted(a.address.lower() for a in honest)
    # The floor governs: thin evidence (no verification provider) caps the score below the feedback.
    trace = {n["name"]: n for n in record["explanation"]["nodes"]}
    assert trace["governed"]["constraintApplied"] is True
    assert float(lifted) == trace["governed"]["value"] < trace["evidence"]["value"]
    # The curated set is what getSummary should be asked about: the chain agrees on its average.
    on_chain = reputation.get_summary(target_id, [a.address for a in honest], "starred", "")
    assert (on_chain.count, on_chain.number) == (len(honest), Decimal(85))
    body = APIClient().get(f"/api/v1/agents/{target.subject_id}/trust-score/explanation").json()
    assert body["compositionGraphId"] == "sybil-floor-1"


def test_it_forgets_the_agents_wallet_when_the_agent_changes_hands(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    identity: IdentityClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, buyer = new_account(), new_account()
    agent_id = register_agent(owner)
    index_with_tasks(chain, w3, django_capture_on_commit_callbacks)
    agent = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=agent_id)
    # Registering makes the owner the agent's wallet.
    assert agent.wallet_address == owner.address
    transfer = identity.contract.functions.transferFrom(owner.address, buyer.address, agent_id)
    transact(owner, lambda **kw: identity.build_call(transfer, **kw))
    index_with_tasks(chain, w3, django_capture_on_commit_callbacks)
    agent.refresh_from_db()
    assert (agent.owner_address, agent.wallet_address) == (buyer.address, "")


def test_it_ages_a_reviewer_from_its_first_transaction_on_chain_not_its_first_feedback(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    target_id = register_agent(new_account())
    # A wallet in use on chain for 45 days (its first transaction registers an agent of its own)...
    veteran = new_account()
    register_agent(veteran)
    first_block = w3.eth.block_number
    _travel(w3, 45)
    # ...and one made today both give their first feedback, to this agent.
    fresh = new_account()
    for client in (veteran, fresh):
        transact(client, reputation.build_give_feedback, target_id, 80, 0, tag1="starred", tag2="")
    index_with_tasks(chain, w3, django_capture_on_commit_callbacks)

    found = {row.address: row for row in ReviewerFirstTx.objects.filter(chain_id=chain.chain_id)}
    assert (found[veteran.address].block_number, found[veteran.address].probed) == (first_block, True)
    assert (
        found[fresh.address].block_number
        == FeedbackEntry.objects.get(client_address=fresh.address).block_number
    )
    target = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=target_id)
    _, record = _score(target)
    standing = {s["reviewer"]: s for s in record["provenance"]["reviewers"]["standings"]}
    # 45 days old when it rated: past the 30 days that make a wallet established.
    assert standing[veteran.address.lower()]["age"] == 1
    assert standing[fresh.address.lower()]["age"] == 0
