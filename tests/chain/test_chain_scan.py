"""scan_logs and find_reorg against anvil: bounded ranges, confirmations, resumption and a real reorg."""

from __future__ import annotations

from itertools import pairwise

import pytest
from eth_utils import keccak
from web3.exceptions import Web3RPCError

from signing.chain.events import (
    FeedbackRevoked,
    NewFeedback,
    Registered,
    ValidationRequest,
    ValidationResponse,
)
from signing.chain.scan import find_reorg, plan_range, scan_logs


@pytest.fixture
def activity(w3, registries, identity, reputation, validation, new_account, transact):
    """Eight transactions, one block each (anvil automines): registrations, feedback and validation."""
    owner, client, validator = new_account(), new_account(), new_account()
    start = w3.eth.block_number + 1
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register, "https://a.example"))
    transact(owner, identity.build_register, "https://b.example")
    transact(client, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    transact(client, reputation.build_give_feedback, agent_id, 70, 0, tag1="starred")
    transact(client, reputation.build_revoke_feedback, agent_id, 1)
    transact(owner, validation.build_validation_request, validator.address, agent_id, "u", keccak(b"r"))
    transact(validator, validation.build_validation_response, keccak(b"r"), 100, tag="hcs-25")
    transact(owner, identity.build_set_agent_uri, agent_id, "https://c.example")
    addresses = [registries.identity, registries.reputation, registries.validation]
    return start, w3.eth.block_number, addresses


def _kinds(events):
    return [type(event).__name__ for event in events]


def test_it_decodes_every_registry_event_in_chain_order(w3, activity) -> None:
    start, head, addresses = activity
    result = scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=0, max_range=1000)
    assert (result.from_block, result.to_block, result.next_block) == (start, head, head + 1)
    # Registration mints the identity NFT (ERC-721 Transfer from the zero address) and emits
    # MetadataSet for the initial agent wallet.
    assert _kinds(result.events) == [
        "Transfer",
        "MetadataSet",
        "Registered",
        "Transfer",
        "MetadataSet",
        "Registered",
        "NewFeedback",
        "NewFeedback",
        "FeedbackRevoked",
        "ValidationRequest",
        "ValidationResponse",
        "URIUpdated",
    ]
    assert [(e.block_number, e.log_index) for e in result.events] == sorted(
        (e.block_number, e.log_index) for e in result.events
    )
    for event in result.events:
        assert event.block_hash == w3.eth.get_block(event.block_number)["hash"].to_0x_hex()
        assert result.block_hashes[event.block_number] == event.block_hash
    assert result.block_hashes[head] == w3.eth.get_block(head)["hash"].to_0x_hex()
    registered = [e for e in result.events if isinstance(e, Registered)]
    assert [e.agent_uri for e in registered] == ["https://a.example", "https://b.example"]
    assert [e.value for e in result.events if isinstance(e, NewFeedback)] == [90, 70]
    assert [e.feedback_index for e in result.events if isinstance(e, FeedbackRevoked)] == [1]
    [request] = [e for e in result.events if isinstance(e, ValidationRequest)]
    [response] = [e for e in result.events if isinstance(e, ValidationResponse)]
    assert request.request_hash == response.request_hash == "0x" + keccak(b"r").hex()


def test_it_resumes_in_bounded_ranges_without_gaps_or_duplicates(w3, activity) -> None:
    start, head, addresses = activity
    whole = scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=0, max_range=1000)
    cursor, pieces, ranges = start, [], []
    while True:
        result = scan_logs(
            w3, addresses=addresses, from_block=cursor, head=head, confirmations=0, max_range=3
        )
        if result.to_block < result.from_block:
            break
        ranges.append((result.from_block, result.to_block))
        pieces.extend(result.events)
        cursor = result.next_block
    assert all(end - begin + 1 <= 3 for begin, end in ranges)
    assert [begin for begin, _ in ranges] == [start] + [end + 1 for _, end in ranges[:-1]]
    assert ranges[-1][1] == head
    assert [event.key for event in pieces] == [event.key for event in whole.events]


def test_it_leaves_unconfirmed_blocks_for_later(w3, activity) -> None:
    start, head, addresses = activity
    result = scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=3, max_range=1000)
    assert result.to_block == head - 3
    assert all(event.block_number <= head - 3 for event in result.events)
    # Blocks start..start+4 hold the two registrations, the two feedbacks and the revocation.
    assert _kinds(result.events)[-1] == "FeedbackRevoked"
    assert "ValidationRequest" not in _kinds(result.events)
    idle = scan_logs(w3, addresses=addresses, from_block=head - 1, head=head, confirmations=3, max_range=1000)
    assert (idle.events, idle.next_block) == ([], head - 1)


def test_it_finds_the_first_block_a_reorg_replaced(w3, identity, new_account, transact, registries) -> None:
    owner = new_account()
    addresses = [registries.identity]
    base = w3.eth.block_number
    snapshot = w3.provider.make_request("evm_snapshot", [])["result"]
    transact(owner, identity.build_register, "https://lost.example")
    transact(owner, identity.build_register, "https://lost-too.example")
    seen = scan_logs(
        w3, addresses=addresses, from_block=base + 1, head=w3.eth.block_number, confirmations=0, max_range=100
    )
    assert find_reorg(w3, seen.block_hashes) is None
    assert w3.provider.make_request("evm_revert", [snapshot])["result"] is True
    # The replacement chain: an empty block, then another registration, so both stored blocks change.
    w3.provider.make_request("evm_mine", [])
    transact(owner, identity.build_register, "https://kept.example")
    assert find_reorg(w3, seen.block_hashes) == base + 1
    again = scan_logs(
        w3, addresses=addresses, from_block=base + 1, head=w3.eth.block_number, confirmations=0, max_range=100
    )
    assert [e.agent_uri for e in again.events if isinstance(e, Registered)] == ["https://kept.example"]


def test_it_plans_ranges_from_the_cursor_head_and_depth() -> None:
    assert plan_range(from_block=10, head=100, confirmations=5, max_range=50) == (10, 59)
    assert plan_range(from_block=90, head=100, confirmations=5, max_range=50) == (90, 95)
    assert plan_range(from_block=96, head=100, confirmations=5, max_range=50) is None
    with pytest.raises(ValueError, match="max_range"):
        plan_range(from_block=0, head=1, confirmations=0, max_range=0)


def test_it_reads_a_range_in_halves_when_the_node_refuses_it_as_too_large(w3, activity, monkeypatch) -> None:
    start, head, addresses = activity
    whole = scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=0, max_range=1000)
    real_get_logs = w3.eth.get_logs
    answered: list[tuple[int, int]] = []

    def limited(params):
        if params["toBlock"] - params["fromBlock"] >= 2:
            raise Web3RPCError("query returned more than 10000 results")
        answered.append((params["fromBlock"], params["toBlock"]))
        return real_get_logs(params)

    monkeypatch.setattr(w3.eth, "get_logs", limited)
    split = scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=0, max_range=1000)
    assert [event.key for event in split.events] == [event.key for event in whole.events]
    assert split.to_block == head
    assert answered[0][0] == start and answered[-1][1] == head
    assert all(later[0] == earlier[1] + 1 for earlier, later in pairwise(answered))

    def broken(params):
        raise Web3RPCError("internal error")

    monkeypatch.setattr(w3.eth, "get_logs", broken)
    with pytest.raises(Web3RPCError, match="internal error"):
        scan_logs(w3, addresses=addresses, from_block=start, head=head, confirmations=0, max_range=1000)
