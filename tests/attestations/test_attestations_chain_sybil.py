"""Rating the raters against Sybil rings on a real anvil chain (SPEC 2.4, issue 21 item 2).

ERC-8004 feedback is given on chain, indexed by the registry's indexer and scored. Under the SPEC 2.3
defaults a ring of fresh wallets rating an agent 100 lifts its score; under the sybil-resistance floor
configuration (`manage.py scoring_config_sybil_floor`) it does not, while an honest spread of
established reviewers does.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from itertools import combinations
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone
from eth_account.signers.local import LocalAccount
from rest_framework.test import APIClient
from web3 import Web3
from web3.types import TxReceipt

from registry.models import Agent, FeedbackEntry
from registry.services.scoring import scoring_config_current, trust_score_compute
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from tests.evm_support import index_with_tasks

pytestmark = pytest.mark.chain


def _score(agent: Agent) -> tuple[Decimal, dict[str, Any]]:
    agent.refresh_from_db()
    score, _ = trust_score_compute(agent=agent)
    return score.trust_score, score.record


def test_it_keeps_a_ring_of_fresh_wallets_from_lifting_a_score_and_lets_an_honest_spread_lift_it(
    db: None,
    chain: ChainSettings,
    anvil_w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    def index() -> None:
        index_with_tasks(chain, anvil_w3, django_capture_on_commit_callbacks)

    def rate(client: LocalAccount, agent_id: int, value: int) -> None:
        transact(client, reputation.build_give_feedback, agent_id, value, 0, tag1="starred", tag2="")

    owner = new_account()
    target_id = register_agent(owner)
    others = [register_agent(new_account()) for _ in range(4)]
    # Established reviewers: each rated its own pair of other agents, near the consensus there.
    honest = [new_account() for _ in range(6)]
    for i, (client, pair) in enumerate(zip(honest, combinations(others, 2), strict=False)):
        for agent_id in pair:
            rate(client, agent_id, 70 + i % 3)
    index()
    # The registry has known these reviewers for a year (index time is when a wallet was first seen).
    FeedbackEntry.objects.filter(client_address__in=[a.address for a in honest]).update(
        created_at=timezone.now() - timedelta(days=365)
    )
    target = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=target_id)
    baseline, _ = _score(target)

    ring = [new_account() for _ in range(25)]
    for client in ring:
        rate(client, target_id, 100)
    index()
    attacked, _ = _score(target)
    # Without rating the raters the ring works: this is the attack.
    assert scoring_config_current().version == 1
    assert attacked > baseline

    call_command("scoring_config_sybil_floor")
    assert scoring_config_current().params["graph"]["id"] == "sybil-floor-1"
    governed, record = _score(target)
    assert governed == baseline
    reviewers = record["provenance"]["reviewers"]
    assert reviewers["clientAddresses"] == []
    assert {s["reviewer"] for s in reviewers["standings"]} == {a.address.lower() for a in ring}
    assert all(s["standing"] == 0 for s in reviewers["standings"])

    for client in honest:
        rate(client, target_id, 85)
    index()
    lifted, record = _score(target)
    assert lifted > governed
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
