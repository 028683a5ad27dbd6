"""Publishing a score as feedback and answering validation requests, end to end on anvil."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from eth_utils import keccak

from signing.chain.connect import ChainDisabled, connect
from signing.chain.events import NewFeedback
from signing.chain.publish import HCS25_TAG, feedback_file, open_validation_requests
from signing.chain.reputation import score_to_feedback_value
from signing.chain.scan import scan_logs
from signing.chain.settings import ChainSettings


@pytest.fixture
def chain(anvil, registries):
    settings = ChainSettings.from_mapping(
        {"CHAIN_ENABLED": "1", "CHAIN_NETWORK": "local", "CHAIN_ID": "8453", "CHAIN_RPC_URL": anvil.rpc_url}
        | registries.as_settings()
    )
    return connect(settings)


def test_it_publishes_a_score_as_hundredths_with_the_feedback_file_hash(chain, new_account, transact) -> None:
    owner, service = new_account(), new_account()
    assert chain.identity is not None and chain.reputation is not None
    agent_id = chain.identity.registered_agent_id(transact(owner, chain.identity.build_register))
    value, decimals = score_to_feedback_value("87.25")
    document = feedback_file(
        chain_id=8453,
        identity_registry=chain.identity.address,
        agent_id=agent_id,
        client_address=service.address,
        created_at=datetime(2026, 1, 2, tzinfo=UTC),
        value=value,
        value_decimals=decimals,
        tag1=HCS25_TAG,
        tag2="composite",
        endpoint=f"https://r.example/v1/agents/{agent_id}/score",
        attestation={"typedData": {"message": {"score": 8725}}, "signature": "0x01"},
    )
    receipt = transact(
        service,
        chain.reputation.build_give_feedback,
        agent_id,
        value,
        decimals,
        tag1=HCS25_TAG,
        tag2="composite",
        endpoint=f"https://r.example/v1/agents/{agent_id}/score",
        feedback_uri=f"https://r.example/v1/feedback/{agent_id}",
        feedback_hash=bytes(keccak(document)),
    )
    [event] = [e for e in chain.reputation.events_in(receipt) if isinstance(e, NewFeedback)]
    assert (event.value, event.value_decimals, event.tag1, event.tag2) == (8725, 2, HCS25_TAG, "composite")
    assert event.feedback_hash == "0x" + keccak(document).hex()
    assert json.loads(document)["value"] == event.value
    assert event.feedback_uri.endswith(f"/feedback/{agent_id}") and event.endpoint.endswith("/score")
    summary = chain.reputation.get_summary(agent_id, [service.address], HCS25_TAG)
    assert (summary.count, summary.value, summary.value_decimals) == (1, 8725, 2)


def test_it_answers_only_open_requests_addressed_to_its_validator(chain, w3, new_account, transact) -> None:
    owner, service, other = new_account(), new_account(), new_account()
    assert chain.identity is not None and chain.validation is not None
    agent_id = chain.identity.registered_agent_id(transact(owner, chain.identity.build_register))
    start = w3.eth.block_number
    for body, validator in ((b"a", service), (b"b", other), (b"c", service)):
        transact(
            owner, chain.validation.build_validation_request, validator.address, agent_id, "u", keccak(body)
        )
    transact(service, chain.validation.build_validation_response, keccak(b"a"), 100, tag=HCS25_TAG)
    result = scan_logs(
        w3,
        addresses=chain.addresses(),
        from_block=start,
        head=w3.eth.block_number,
        confirmations=0,
        max_range=100,
    )
    open_requests = open_validation_requests(result.events, service.address)
    assert [request.request_hash for request in open_requests] == ["0x" + keccak(b"c").hex()]
    [request] = open_requests
    transact(service, chain.validation.build_validation_response, request.request_hash, 90, tag=HCS25_TAG)
    assert chain.validation.get_validation_status(request.request_hash).response == 90


def test_it_refuses_a_node_on_another_chain_and_a_switched_off_chain(anvil, registries) -> None:
    wrong = ChainSettings.for_network("base-sepolia", enabled=True, rpc_url=anvil.rpc_url)
    with pytest.raises(ValueError, match="on chain 8453"):
        connect(wrong)
    with pytest.raises(ChainDisabled):
        connect(ChainSettings())
    partial = connect(
        ChainSettings.for_network(
            "local", enabled=True, chain_id=8453, rpc_url=anvil.rpc_url, identity_registry=registries.identity
        )
    )
    assert (partial.reputation, partial.validation) == (None, None)
    assert partial.addresses() == [registries.identity]


def test_it_refuses_scores_outside_0_to_100() -> None:
    for score in (100.01, -0.01, float("nan")):
        with pytest.raises(ValueError, match="between 0 and 100"):
            score_to_feedback_value(score)
