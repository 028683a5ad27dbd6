"""The ReputationRegistry through ReputationClient against anvil."""

from __future__ import annotations

from decimal import Decimal

import pytest
from eth_utils import keccak
from web3.exceptions import ContractLogicError

from signing.chain.events import FeedbackRevoked, NewFeedback, ResponseAppended
from signing.chain.reputation import score_to_feedback_value


def _give(transact, reputation, client, agent_id, value, decimals, tag1="", tag2="", **extra):
    return transact(
        client, reputation.build_give_feedback, agent_id, value, decimals, tag1=tag1, tag2=tag2, **extra
    )


def test_it_numbers_feedback_from_one_per_client(reputation, chain_agent, new_account, transact) -> None:
    agent_id, _ = chain_agent
    alice, bob = new_account(), new_account()
    indexes = []
    for client in (alice, alice, bob, alice):
        receipt = _give(transact, reputation, client, agent_id, 80, 0, "starred")
        [event] = [e for e in reputation.events_in(receipt) if isinstance(e, NewFeedback)]
        indexes.append((client.address, event.feedback_index))
    assert indexes == [(alice.address, 1), (alice.address, 2), (bob.address, 1), (alice.address, 3)]
    assert reputation.get_last_index(agent_id, alice.address) == 3
    assert reputation.get_last_index(agent_id, bob.address) == 1
    assert reputation.get_clients(agent_id) == [alice.address, bob.address]
    with pytest.raises(ContractLogicError):
        reputation.read_feedback(agent_id, alice.address, 0)


def test_it_logs_endpoint_uri_and_hash_only_in_the_event(
    reputation, chain_agent, new_account, transact
) -> None:
    agent_id, _ = chain_agent
    client = new_account()
    value, decimals = score_to_feedback_value("87.25")
    document = b'{"score": 87.25}'
    receipt = _give(
        transact,
        reputation,
        client,
        agent_id,
        value,
        decimals,
        "hcs-25",
        "output-verification",
        endpoint="https://registry.example/v1/agents/7/score",
        feedback_uri="https://registry.example/att/1",
        feedback_hash=keccak(document),
    )
    [event] = [e for e in reputation.events_in(receipt) if isinstance(e, NewFeedback)]
    assert (event.agent_id, event.client_address, event.value, event.value_decimals) == (
        agent_id,
        client.address,
        8725,
        2,
    )
    assert (event.tag1, event.tag2) == ("hcs-25", "output-verification")
    assert event.endpoint == "https://registry.example/v1/agents/7/score"
    assert event.feedback_uri == "https://registry.example/att/1"
    assert event.feedback_hash == "0x" + keccak(document).hex()
    stored = reputation.read_feedback(agent_id, client.address, 1)
    assert (stored.value, stored.value_decimals, stored.tag1, stored.tag2, stored.is_revoked) == (
        8725,
        2,
        "hcs-25",
        "output-verification",
        False,
    )
    assert stored.number == Decimal("87.25")


@pytest.mark.parametrize("who", ["owner", "operator", "approved"])
def test_it_refuses_self_feedback(
    w3, identity, reputation, chain_agent, new_account, transact, prepare, who
) -> None:
    agent_id, owner = chain_agent
    sender = owner
    if who != "owner":
        sender = new_account()
        call = (
            identity.contract.functions.setApprovalForAll(sender.address, True)
            if who == "operator"
            else identity.contract.functions.approve(sender.address, agent_id)
        )
        transact(owner, lambda **kw: identity.build_call(call, **kw))
    with pytest.raises(ContractLogicError, match="Self-feedback not allowed"):
        prepare(sender, reputation.build_give_feedback, agent_id, 100, 0)


def test_it_refuses_feedback_for_unknown_agents_and_out_of_range_values(
    reputation, chain_agent, new_account
) -> None:
    agent_id, _ = chain_agent
    client = new_account()
    for target, value, decimals in ((agent_id + 1, 1, 0), (agent_id, 10**38 + 1, 0), (agent_id, 1, 19)):
        with pytest.raises((ContractLogicError, ValueError)):
            reputation.contract.functions.giveFeedback(
                target, value, decimals, "", "", "", "", b"\x00" * 32
            ).call({"from": client.address})
    reputation.contract.functions.giveFeedback(agent_id, -(10**38), 18, "", "", "", "", b"\x00" * 32).call(
        {"from": client.address}
    )


def test_it_requires_clients_for_the_summary(reputation, chain_agent) -> None:
    agent_id, _ = chain_agent
    with pytest.raises(ContractLogicError, match="clientAddresses required"):
        reputation.contract.functions.getSummary(agent_id, [], "", "").call()
    with pytest.raises(ValueError, match="at least one client"):
        reputation.get_summary(agent_id, [])


def test_it_averages_at_the_most_frequent_decimals(reputation, chain_agent, new_account, transact) -> None:
    agent_id, _ = chain_agent
    alice, bob = new_account(), new_account()
    given = [(alice, 8700, 2), (alice, 9000, 2), (bob, 95, 0)]
    for client, value, decimals in given:
        _give(transact, reputation, client, agent_id, value, decimals, "starred")
    summary = reputation.get_summary(agent_id, [alice.address, bob.address])
    mean = sum(Decimal(value).scaleb(-decimals) for _, value, decimals in given) / len(given)
    assert (summary.count, summary.value_decimals) == (3, 2)
    # The contract divides integers, which truncates toward zero.
    assert summary.value == int(mean * 100)
    only_bob = reputation.get_summary(agent_id, [bob.address])
    assert (only_bob.count, only_bob.value, only_bob.value_decimals) == (1, 95, 0)


def test_it_treats_empty_tags_as_no_filter(reputation, chain_agent, new_account, transact) -> None:
    agent_id, _ = chain_agent
    client = new_account()
    _give(transact, reputation, client, agent_id, 10, 0, "starred", "fast")
    _give(transact, reputation, client, agent_id, 20, 0, "starred", "slow")
    _give(transact, reputation, client, agent_id, 30, 0, "uptime", "fast")
    counts = {
        (tag1, tag2): reputation.get_summary(agent_id, [client.address], tag1, tag2).count
        for tag1, tag2 in (("", ""), ("starred", ""), ("", "fast"), ("starred", "fast"), ("nothing", ""))
    }
    assert counts == {
        ("", ""): 3,
        ("starred", ""): 2,
        ("", "fast"): 2,
        ("starred", "fast"): 1,
        ("nothing", ""): 0,
    }
    assert [entry.value for entry in reputation.read_all_feedback(agent_id, tag2="fast")] == [10, 30]


def test_it_leaves_revoked_feedback_out_of_summaries(reputation, chain_agent, new_account, transact) -> None:
    agent_id, _ = chain_agent
    client = new_account()
    _give(transact, reputation, client, agent_id, 40, 0)
    _give(transact, reputation, client, agent_id, 80, 0)
    receipt = transact(client, reputation.build_revoke_feedback, agent_id, 1)
    [revoked] = [e for e in reputation.events_in(receipt) if isinstance(e, FeedbackRevoked)]
    assert (revoked.agent_id, revoked.client_address, revoked.feedback_index) == (agent_id, client.address, 1)
    summary = reputation.get_summary(agent_id, [client.address])
    assert (summary.count, summary.value) == (1, 80)
    assert [entry.feedback_index for entry in reputation.read_all_feedback(agent_id)] == [2]
    everything = reputation.read_all_feedback(agent_id, include_revoked=True)
    assert [(entry.feedback_index, entry.is_revoked) for entry in everything] == [(1, True), (2, False)]
    assert reputation.read_feedback(agent_id, client.address, 1).is_revoked


def test_it_reads_all_feedback_of_every_client_when_none_is_named(
    reputation, chain_agent, new_account, transact
) -> None:
    agent_id, _ = chain_agent
    alice, bob, carol = new_account(), new_account(), new_account()
    for client, value in ((alice, 1), (bob, 2), (alice, 3), (carol, 4)):
        _give(transact, reputation, client, agent_id, value, 0)
    everything = reputation.read_all_feedback(agent_id)
    assert [(e.client_address, e.feedback_index, e.value) for e in everything] == [
        (alice.address, 1, 1),
        (alice.address, 2, 3),
        (bob.address, 1, 2),
        (carol.address, 1, 4),
    ]
    assert [e.value for e in reputation.read_all_feedback(agent_id, [carol.address, bob.address])] == [4, 2]


def test_it_appends_responses_to_existing_feedback(
    w3, reputation, chain_agent, new_account, transact, prepare
) -> None:
    agent_id, owner = chain_agent
    client = new_account()
    _give(transact, reputation, client, agent_id, 5, 0)
    receipt = transact(
        owner, reputation.build_append_response, agent_id, client.address, 1, "https://refund.example"
    )
    [response] = [e for e in reputation.events_in(receipt) if isinstance(e, ResponseAppended)]
    assert (response.responder, response.response_uri, response.feedback_index) == (
        owner.address,
        "https://refund.example",
        1,
    )
    with pytest.raises(ContractLogicError, match="index out of bounds"):
        prepare(owner, reputation.build_append_response, agent_id, client.address, 2, "https://x")
