"""The ValidationRegistry through ValidationClient against anvil."""

from __future__ import annotations

import pytest
from eth_utils import keccak
from web3.exceptions import ContractLogicError

from signing.chain.events import ValidationRequest, ValidationResponse
from signing.chain.tx import suggest_fees


def test_it_records_a_request_and_the_named_validators_responses(
    validation, chain_agent, new_account, transact
) -> None:
    agent_id, owner = chain_agent
    validator = new_account()
    request_hash = keccak(b"request body")
    receipt = transact(
        owner, validation.build_validation_request, validator.address, agent_id, "https://req", request_hash
    )
    [request] = [e for e in validation.events_in(receipt) if isinstance(e, ValidationRequest)]
    assert (request.validator_address, request.agent_id, request.request_uri, request.request_hash) == (
        validator.address,
        agent_id,
        "https://req",
        "0x" + request_hash.hex(),
    )
    first = transact(validator, validation.build_validation_response, request_hash, 40, tag="soft")
    second = transact(
        validator,
        validation.build_validation_response,
        request_hash,
        100,
        response_uri="https://resp",
        response_hash=keccak(b"evidence"),
        tag="hard",
    )
    responses = [
        e for r in (first, second) for e in validation.events_in(r) if isinstance(e, ValidationResponse)
    ]
    assert [(e.response, e.tag) for e in responses] == [(40, "soft"), (100, "hard")]
    assert responses[1].response_uri == "https://resp"
    status = validation.get_validation_status(request_hash)
    assert (status.validator_address, status.agent_id, status.response, status.tag) == (
        validator.address,
        agent_id,
        100,
        "hard",
    )
    assert status.response_hash == "0x" + keccak(b"evidence").hex()
    assert validation.get_agent_validations(agent_id) == ["0x" + request_hash.hex()]


def test_it_lets_only_the_owner_request_and_only_once(
    w3, validation, chain_agent, new_account, transact, prepare
) -> None:
    agent_id, owner = chain_agent
    stranger, validator = new_account(), new_account()
    request_hash = keccak(b"once")
    with pytest.raises(ContractLogicError, match="not authorized"):
        prepare(stranger, validation.build_validation_request, validator.address, agent_id, "u", request_hash)
    transact(owner, validation.build_validation_request, validator.address, agent_id, "u", request_hash)
    with pytest.raises(ContractLogicError, match="request exists"):
        prepare(owner, validation.build_validation_request, validator.address, agent_id, "u", request_hash)


def test_it_lets_only_the_named_validator_answer_within_0_to_100(
    w3, validation, chain_agent, new_account, transact, prepare
) -> None:
    agent_id, owner = chain_agent
    validator, other = new_account(), new_account()
    request_hash = keccak(b"who answers")
    transact(owner, validation.build_validation_request, validator.address, agent_id, "u", request_hash)
    with pytest.raises(ContractLogicError, match="not the validator"):
        prepare(other, validation.build_validation_response, request_hash, 100)
    with pytest.raises(ContractLogicError, match="response > 100"):
        validation.contract.functions.validationResponse(request_hash, 101, "", b"\x00" * 32, "").call(
            {"from": validator.address}
        )
    with pytest.raises(ValueError, match="between 0 and 100"):
        validation.build_validation_response(
            request_hash, 101, sender=validator.address, nonce=0, fees=suggest_fees(w3)
        )


def test_it_summarises_answered_requests_by_validator_and_tag(
    validation, chain_agent, new_account, transact
) -> None:
    agent_id, owner = chain_agent
    v1, v2 = new_account(), new_account()
    plan = [(v1, b"a", 100, "hcs-25"), (v1, b"b", 50, "other"), (v2, b"c", 0, "hcs-25"), (v2, b"d", None, "")]
    for validator, body, response, tag in plan:
        transact(owner, validation.build_validation_request, validator.address, agent_id, "u", keccak(body))
        if response is not None:
            transact(validator, validation.build_validation_response, keccak(body), response, tag=tag)
    everything = validation.get_summary(agent_id)
    assert (everything.count, everything.average_response) == (3, 50)
    assert (
        validation.get_summary(agent_id, tag="hcs-25").count,
        validation.get_summary(agent_id, tag="hcs-25").average_response,
    ) == (2, 50)
    only_v1 = validation.get_summary(agent_id, [v1.address])
    assert (only_v1.count, only_v1.average_response) == (2, 75)
    with pytest.raises(ContractLogicError, match="unknown request"):
        validation.get_validation_status(keccak(b"never"))
