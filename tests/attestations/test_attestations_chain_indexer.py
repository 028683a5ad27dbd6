"""The ERC-8004 indexer against a real anvil node: agents, feedback, scores, idempotency, resume, reorgs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.types import TxReceipt

from attestations.models import ChainCursor, ChainEvent
from attestations.services import indexer
from attestations.services.chain import agent_subject_id
from attestations.services.indexer import chain_cursor_get
from registry.models import Agent, FeedbackEntry
from registry.services.scoring import trust_score_compute
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from tests.chain_fixtures import index_with_tasks as _index

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.chain, pytest.mark.usefixtures("weighted_mean_config")]


def _feedback_score(agent: Agent) -> dict[str, Any]:
    agent.refresh_from_db()
    assert agent.latest_score is not None
    scores: dict[str, Any] = agent.latest_score.record["trustScores"]
    return scores


def _trust_score(agent: Agent) -> Decimal:
    agent.refresh_from_db()
    assert agent.latest_score is not None
    return agent.latest_score.trust_score


def test_it_indexes_registrations_and_feedback_into_agents_feedback_and_a_changed_score(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client = new_account(), new_account()
    agent_id = register_agent(owner)
    _index(chain, w3, django_capture_on_commit_callbacks)
    agent = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=agent_id)
    assert agent.subject_id == agent_subject_id(
        chain_id=chain.chain_id, identity_registry=str(chain.identity_registry), agent_id=agent_id
    )
    assert agent.registry == Agent.Registry.ERC8004
    assert agent.owner_address == owner.address
    trust_score_compute(agent=agent)
    before = _trust_score(agent)

    transact(client, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred", tag2="quality")
    _index(chain, w3, django_capture_on_commit_callbacks)
    entry = FeedbackEntry.objects.get(agent=agent)
    assert (entry.client_address, entry.feedback_index, int(entry.value), entry.value_decimals) == (
        client.address,
        1,
        90,
        0,
    )
    assert (entry.tag1, entry.tag2, entry.revoked) == ("starred", "quality", False)
    with_feedback = _feedback_score(agent)
    assert with_feedback["erc8004-feedback.rating"] == 90
    assert _trust_score(agent) > before

    transact(client, reputation.build_revoke_feedback, agent_id, 1)
    _index(chain, w3, django_capture_on_commit_callbacks)
    entry.refresh_from_db()
    assert entry.revoked is True
    assert _trust_score(agent) == before
    assert "erc8004-feedback.rating" not in _feedback_score(agent)


def test_it_changes_nothing_when_the_same_blocks_are_read_again(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client = new_account(), new_account()
    agent_id = register_agent(owner)
    transact(client, reputation.build_give_feedback, agent_id, 70, 0, tag1="starred")
    first = _index(chain, w3, django_capture_on_commit_callbacks)
    assert first.new_events == ChainEvent.objects.count()
    assert {"Registered", "NewFeedback"} <= set(ChainEvent.objects.values_list("name", flat=True))
    counts = (ChainEvent.objects.count(), Agent.objects.count(), FeedbackEntry.objects.count())

    again = _index(chain, w3, django_capture_on_commit_callbacks)
    assert again.new_events == 0
    # Rewind the cursor by hand (as after a crash that lost the cursor write) and read everything again.
    ChainCursor.objects.update(next_block=chain.start_block)
    replay = _index(chain, w3, django_capture_on_commit_callbacks)
    assert replay.new_events == 0
    assert replay.next_block == first.next_block
    assert (ChainEvent.objects.count(), Agent.objects.count(), FeedbackEntry.objects.count()) == counts


def test_it_resumes_from_the_cursor_after_a_crash_mid_run(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    agent_ids = [register_agent(new_account()) for _ in range(3)]  # one block each on anvil
    small = replace(chain, max_block_range=1)
    real_apply = indexer._event_apply
    blocks: list[int] = []

    def crash_on_second(**kwargs: Any) -> None:
        # Dies in the second block range it reads.
        blocks.append(kwargs["event"].block_number)
        if len(set(blocks)) == 2:
            # Not an error of the event (that one would be recorded and skipped): the node is gone.
            raise ConnectionError("worker died")
        real_apply(**kwargs)

    monkeypatch.setattr(indexer, "_event_apply", crash_on_second)
    with pytest.raises(ConnectionError, match="worker died"):
        _index(small, w3, django_capture_on_commit_callbacks)
    cursor = chain_cursor_get(chain=small)
    first_block = blocks[0]
    assert set(ChainEvent.objects.values_list("block_number", flat=True)) == {first_block}
    # The failed range rolled back with its cursor write: the cursor sits right after the stored range.
    assert cursor.next_block == first_block + 1
    assert Agent.objects.count() == 1

    monkeypatch.setattr(indexer, "_event_apply", real_apply)
    run = _index(small, w3, django_capture_on_commit_callbacks)
    assert run.from_block == first_block + 1
    onchain_ids = Agent.objects.exclude(erc8004_agent_id=None).values_list("erc8004_agent_id", flat=True)
    assert sorted(int(a or 0) for a in onchain_ids) == agent_ids
    assert ChainEvent.objects.filter(name="Registered").count() == 3
    assert run.next_block == w3.eth.block_number + 1


def test_it_rewinds_and_rereads_after_a_reorg(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client = new_account(), new_account()
    agent_id = register_agent(owner)
    _index(chain, w3, django_capture_on_commit_callbacks)
    fork = w3.provider.make_request("evm_snapshot", [])["result"]  # type: ignore[arg-type]

    orphaned = transact(client, reputation.build_give_feedback, agent_id, 95, 0, tag1="starred")
    w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
    _index(chain, w3, django_capture_on_commit_callbacks)
    agent = Agent.objects.get(erc8004_agent_id=agent_id)
    assert int(FeedbackEntry.objects.get(agent=agent).value) == 95
    assert _feedback_score(agent)["erc8004-feedback.rating"] == 95

    # Another branch from the fork point: the same client gives different feedback, in a longer chain.
    assert w3.provider.make_request("evm_revert", [fork])["result"] is True  # type: ignore[arg-type]
    w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
    canonical = transact(client, reputation.build_give_feedback, agent_id, 20, 0, tag1="starred")
    for _ in range(2):
        w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]

    run = _index(chain, w3, django_capture_on_commit_callbacks)
    assert run.reorg_from is not None and run.reorg_from <= orphaned["blockNumber"]
    entry = FeedbackEntry.objects.get(agent=agent)
    assert (int(entry.value), entry.block_number) == (20, canonical["blockNumber"])
    assert not ChainEvent.objects.filter(tx_hash=orphaned["transactionHash"].to_0x_hex()).exists()
    assert ChainEvent.objects.filter(tx_hash=canonical["transactionHash"].to_0x_hex()).count() == 1
    assert ChainCursor.objects.get().reorgs == 1
    assert _feedback_score(agent)["erc8004-feedback.rating"] == 20


def test_it_follows_an_identity_transfer_to_the_new_owner(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    transact: Callable[..., TxReceipt],
    django_capture_on_commit_callbacks: Any,
) -> None:
    from signing.chain.identity import IdentityClient

    owner, buyer = new_account(), new_account()
    agent_id = register_agent(owner)
    _index(chain, w3, django_capture_on_commit_callbacks)
    agent = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=agent_id)
    assert agent.owner_address == owner.address

    identity = IdentityClient(w3, str(chain.identity_registry))

    def build_transfer(agent: int, *, sender: str, nonce: int, fees: Any) -> Any:
        call = identity.contract.functions.transferFrom(owner.address, buyer.address, agent)
        return identity.build_call(call, sender=sender, nonce=nonce, fees=fees)

    transact(owner, build_transfer, agent_id)
    _index(chain, w3, django_capture_on_commit_callbacks)
    agent.refresh_from_db()
    # The new owner now counts as the agent's owner, e.g. for self-reported summaries.
    assert agent.owner_address == buyer.address
