"""No on-chain data stops the ERC-8004 indexer (issue 13, item 6), against the real registries on anvil.

Each poison case is a transaction the deployed v2 registries accept: a tag longer than any column, NUL in
every string argument, invalid UTF-8 in a string argument (sent as raw calldata: web3 encodes only str),
and a registry-topic log that does not decode. Each test asserts that the cursor moves past the poisoned
block, that the event is kept losslessly (the raw bytes equal what was sent) or recorded as skipped, and
that a normal event in a later block is still indexed. The chain-facts tests pre-register squatters.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest
from eth_abi import encode as abi_encode
from eth_account.signers.local import LocalAccount
from eth_utils import function_signature_to_4byte_selector, keccak
from hexbytes import HexBytes
from web3 import Web3
from web3.types import TxParams, TxReceipt

from attestations.models import ChainEvent, ChainEventStatus, ValidationAnswer
from attestations.services import indexer
from attestations.services.chain import agent_subject_id
from attestations.services.indexer import chain_cursor_get
from registry.models import Agent, FeedbackEntry
from signing.chain.deploy import DeployedRegistries
from signing.chain.events import topic0_of
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from signing.chain.tx import next_nonce, send_transaction, suggest_fees, wait_for_receipt
from signing.chain.validation import ValidationClient
from tests.chain_fixtures import index_with_tasks as _index

pytestmark = pytest.mark.chain

Transact = Callable[..., TxReceipt]


def _tx_hash(receipt: TxReceipt) -> str:
    return HexBytes(receipt["transactionHash"]).to_0x_hex()


def _row(receipt: TxReceipt, name: str) -> ChainEvent:
    return ChainEvent.objects.get(tx_hash=_tx_hash(receipt), name=name)


def _raw_call(
    w3: Web3, account: LocalAccount, to: str, signature: str, types: list[str], values: list[Any]
) -> TxReceipt:
    """Send a call whose `string` arguments are raw bytes (same ABI encoding), e.g. invalid UTF-8."""
    byte_types = ["bytes" if kind == "string" else kind for kind in types]
    data = function_signature_to_4byte_selector(signature) + abi_encode(byte_types, values)
    params: TxParams = {
        "from": account.address,
        "to": Web3.to_checksum_address(to),
        "data": HexBytes(data),
        "nonce": next_nonce(w3, account.address),
        "chainId": w3.eth.chain_id,
        "type": 2,
        **suggest_fees(w3).as_params(),  # type: ignore[typeddict-item]
    }
    params["gas"] = w3.eth.estimate_gas(params) * 2
    return wait_for_receipt(w3, send_transaction(w3, account, params))


# --- long tags -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [256, 5000])
def test_it_keeps_indexing_after_a_feedback_tag_longer_than_any_column(
    length: int,
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, other = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    tag = "t" * length
    poisoned = transact(client, reputation.build_give_feedback, agent_id, 10, 0, tag1=tag, tag2=tag)
    _index(chain, w3, django_capture_on_commit_callbacks)

    row = _row(poisoned, "NewFeedback")
    assert row.status == ChainEventStatus.APPLIED
    assert row.args["tag1"] == tag and row.raw_text("tag1") == tag.encode()
    entry = FeedbackEntry.objects.get(client_address=client.address)
    # The feedback column is bounded; the clipped tag is marked and the full one is in the event row.
    assert len(entry.tag1) == 255 and entry.tag1.endswith("…") and entry.tag1.startswith("t" * 254)
    later = transact(other, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    _index(chain, w3, django_capture_on_commit_callbacks)
    assert chain_cursor_get(chain=chain).next_block > later["blockNumber"] > poisoned["blockNumber"]
    assert FeedbackEntry.objects.get(client_address=other.address).tag1 == "starred"


# --- NUL in every string argument ------------------------------------------------------------------------

NUL_TEXT = "before\x00after"


def _feedback_field(field: str) -> Callable[..., tuple[TxReceipt, str]]:
    def send(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
        kwargs = {"tag1": "", "tag2": "", "endpoint": "", "feedback_uri": "", field: NUL_TEXT}
        receipt = ctx["transact"](
            ctx["client"], ctx["reputation"].build_give_feedback, ctx["agent_id"], 42, 0, **kwargs
        )
        return receipt, "NewFeedback"

    return send


def _register(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
    return ctx["transact"](ctx["new_account"](), ctx["identity"].build_register, NUL_TEXT), "Registered"


def _set_uri(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
    receipt = ctx["transact"](ctx["owner"], ctx["identity"].build_set_agent_uri, ctx["agent_id"], NUL_TEXT)
    return receipt, "URIUpdated"


def _set_metadata(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
    receipt = ctx["transact"](
        ctx["owner"], ctx["identity"].build_set_metadata, ctx["agent_id"], NUL_TEXT, b"v"
    )
    return receipt, "MetadataSet"


def _validation_request(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
    receipt = ctx["transact"](
        ctx["owner"],
        ctx["validation"].build_validation_request,
        ctx["validator"].address,
        ctx["agent_id"],
        NUL_TEXT,
        ctx["request_hash"],
    )
    return receipt, "ValidationRequest"


def _validation_response(field: str) -> Callable[..., tuple[TxReceipt, str]]:
    def send(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
        _validation_request_plain(ctx)
        receipt = ctx["transact"](
            ctx["validator"],
            ctx["validation"].build_validation_response,
            ctx["request_hash"],
            80,
            **{field: NUL_TEXT},
        )
        return receipt, "ValidationResponse"

    return send


def _validation_request_plain(ctx: dict[str, Any]) -> None:
    ctx["transact"](
        ctx["owner"],
        ctx["validation"].build_validation_request,
        ctx["validator"].address,
        ctx["agent_id"],
        "ipfs://request",
        ctx["request_hash"],
    )


def _append_response(ctx: dict[str, Any]) -> tuple[TxReceipt, str]:
    ctx["transact"](
        ctx["client"], ctx["reputation"].build_give_feedback, ctx["agent_id"], 50, 0, tag1="starred"
    )
    receipt = ctx["transact"](
        ctx["owner"],
        ctx["reputation"].build_append_response,
        ctx["agent_id"],
        ctx["client"].address,
        1,
        NUL_TEXT,
    )
    return receipt, "ResponseAppended"


# (sender, the event's field that carries the string)
NUL_CASES: dict[str, tuple[Callable[[dict[str, Any]], tuple[TxReceipt, str]], str]] = {
    "feedback tag1": (_feedback_field("tag1"), "tag1"),
    "feedback tag2": (_feedback_field("tag2"), "tag2"),
    "feedback endpoint": (_feedback_field("endpoint"), "endpoint"),
    "feedback feedbackURI": (_feedback_field("feedback_uri"), "feedback_uri"),
    "register agentURI": (_register, "agent_uri"),
    "setAgentURI newURI": (_set_uri, "new_uri"),
    "setMetadata metadataKey": (_set_metadata, "metadata_key"),
    "validationRequest requestURI": (_validation_request, "request_uri"),
    "validationResponse responseURI": (_validation_response("response_uri"), "response_uri"),
    "validationResponse tag": (_validation_response("tag"), "tag"),
    "appendResponse responseURI": (_append_response, "response_uri"),
}


@pytest.mark.parametrize("case", sorted(NUL_CASES))
def test_it_keeps_a_nul_in_every_string_argument_losslessly_and_moves_on(
    case: str,
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    identity: IdentityClient,
    reputation: ReputationClient,
    validation: ValidationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, other = new_account(), new_account(), new_account()
    ctx: dict[str, Any] = {
        "owner": owner,
        "client": client,
        "agent_id": register_agent(owner),
        "identity": identity,
        "reputation": reputation,
        "validation": validation,
        "transact": transact,
        "new_account": new_account,
        # The service is the validator, so a ValidationRequest is also written to ValidationAnswer.
        "validator": service_account,
        "request_hash": "0x" + keccak(os.urandom(32)).hex(),
    }
    send, field = NUL_CASES[case]
    poisoned, name = send(ctx)
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)

    row = _row(poisoned, name)
    assert row.status == ChainEventStatus.APPLIED, row.error
    assert row.raw_text(field) == NUL_TEXT.encode()
    assert row.args[field] == "before\\x00after"
    if name == "ValidationRequest":
        assert (
            ValidationAnswer.objects.get(request_hash=ctx["request_hash"]).request_uri == "before\\x00after"
        )
    if name == "NewFeedback":
        assert FeedbackEntry.objects.filter(client_address=client.address, value=Decimal(42)).exists()
    later = transact(other, reputation.build_give_feedback, ctx["agent_id"], 90, 0, tag1="starred")
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)
    assert later["blockNumber"] > poisoned["blockNumber"]
    assert chain_cursor_get(chain=chain).next_block > later["blockNumber"]
    assert FeedbackEntry.objects.filter(client_address=other.address, tag1="starred").exists()


# --- invalid UTF-8 ---------------------------------------------------------------------------------------

INVALID_UTF8 = b"bad \xff\xfe \xc3( \xed\xa0\x80 \x00 end"


def test_it_keeps_invalid_utf8_in_a_feedback_tag_byte_for_byte_and_moves_on(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    registries: DeployedRegistries,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, other = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    poisoned = _raw_call(
        w3,
        client,
        registries.reputation,
        "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)",
        ["uint256", "int128", "uint8", "string", "string", "string", "string", "bytes32"],
        [agent_id, 33, 0, INVALID_UTF8, b"ok", INVALID_UTF8, b"\xc0\x80", b"\x00" * 32],
    )
    _index(chain, w3, django_capture_on_commit_callbacks)

    row = _row(poisoned, "NewFeedback")
    assert row.status == ChainEventStatus.APPLIED, row.error
    assert row.raw_text("tag1") == INVALID_UTF8
    assert row.raw_text("endpoint") == INVALID_UTF8
    assert row.raw_text("feedback_uri") == b"\xc0\x80"
    assert row.raw_text("tag2") == b"ok" and "tag2" not in row.raw_args
    assert row.args["tag1"] == "bad \\xff\\xfe \\xc3( \\xed\\xa0\\x80 \\x00 end"
    # The raw log itself is kept too.
    assert bytes(row.data) == bytes(
        HexBytes(w3.eth.get_transaction_receipt(poisoned["transactionHash"])["logs"][0]["data"])
    )
    entry = FeedbackEntry.objects.get(client_address=client.address)
    assert (int(entry.value), entry.tag1, entry.tag2) == (33, row.args["tag1"], "ok")

    later = transact(other, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    _index(chain, w3, django_capture_on_commit_callbacks)
    assert chain_cursor_get(chain=chain).next_block > later["blockNumber"] > poisoned["blockNumber"]
    assert FeedbackEntry.objects.filter(client_address=other.address, tag1="starred").exists()


def test_it_indexes_an_agent_registered_with_an_invalid_utf8_uri(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    registries: DeployedRegistries,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    transact: Transact,
    identity: IdentityClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = new_account()
    poisoned = _raw_call(w3, owner, registries.identity, "register(string)", ["string"], [INVALID_UTF8])
    agent_id = identity.registered_agent_id(poisoned)
    _index(chain, w3, django_capture_on_commit_callbacks)

    row = _row(poisoned, "Registered")
    assert row.status == ChainEventStatus.APPLIED, row.error
    assert row.raw_text("agent_uri") == INVALID_UTF8
    agent = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=agent_id)
    assert agent.owner_address == owner.address
    later_owner = new_account()
    later_id = register_agent(later_owner)
    _index(chain, w3, django_capture_on_commit_callbacks)
    assert Agent.objects.get(erc8004_agent_id=later_id).owner_address == later_owner.address


def test_it_applies_the_revocation_of_feedback_from_before_the_start_block_whose_tag_is_not_utf8(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    registries: DeployedRegistries,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, other = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    _raw_call(
        w3,
        client,
        registries.reputation,
        "giveFeedback(uint256,int128,uint8,string,string,string,string,bytes32)",
        ["uint256", "int128", "uint8", "string", "string", "string", "string", "bytes32"],
        [agent_id, 33, 0, INVALID_UTF8, b"", b"", b"", b"\x00" * 32],
    )
    revoked = transact(client, reputation.build_revoke_feedback, agent_id, 1)
    later = transact(other, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    # The indexer starts at the revocation: reading the revoked feedback back (strict UTF-8) fails.
    _index(replace(chain, start_block=revoked["blockNumber"]), w3, django_capture_on_commit_callbacks)

    assert _row(revoked, "FeedbackRevoked").status == ChainEventStatus.APPLIED
    # Like any feedback from before the start block, it has no row; revoked, it would not count anyway.
    assert not FeedbackEntry.objects.filter(client_address=client.address).exists()
    assert chain_cursor_get(chain=chain).next_block > later["blockNumber"]
    assert FeedbackEntry.objects.filter(client_address=other.address, tag1="starred").exists()


# --- logs that do not decode -------------------------------------------------------------------------------

# Runtime code that emits LOG3 with the first three 32-byte words of the calldata as topics and the rest as
# data: installed for one transaction at a registry's address to make the registry emit a malformed log.
# PUSH1 0x60 CALLDATASIZE SUB DUP1 PUSH1 0x60 PUSH1 0 CALLDATACOPY (data to memory 0), then the three topic
# words under it (CALLDATALOAD, SWAP1), PUSH1 0, LOG3, STOP.
_LOG3_EMITTER = bytes.fromhex("606036038060606000376040359060203590600035906000a300")


def _emit_raw_log(w3: Web3, sender: LocalAccount, at: str, topics: list[bytes], data: bytes) -> TxReceipt:
    code = w3.eth.get_code(Web3.to_checksum_address(at))
    w3.provider.make_request("anvil_setCode", [at, HexBytes(_LOG3_EMITTER).to_0x_hex()])  # type: ignore[arg-type]
    try:
        params: TxParams = {
            "from": sender.address,
            "to": Web3.to_checksum_address(at),
            "data": HexBytes(b"".join(topics) + data),
            "nonce": next_nonce(w3, sender.address),
            "chainId": w3.eth.chain_id,
            "type": 2,
            "gas": 200_000,
            **suggest_fees(w3).as_params(),  # type: ignore[typeddict-item]
        }
        return wait_for_receipt(w3, send_transaction(w3, sender, params))
    finally:
        w3.provider.make_request("anvil_setCode", [at, HexBytes(code).to_0x_hex()])  # type: ignore[arg-type]


def _word(value: int) -> bytes:
    return value.to_bytes(32, "big")


@pytest.mark.parametrize(
    ("event", "data"),
    [
        # Registered(agentId, owner) has the right topics, but its data is not an ABI string.
        ("Registered", b"\x01\x02\x03"),
        ("Registered", _word(32) + _word(2**200) + b"x"),
        # NewFeedback needs four topics; this log has three.
        ("NewFeedback", b""),
    ],
)
def test_it_records_a_registry_log_that_does_not_decode_and_moves_on(
    event: str,
    data: bytes,
    db: None,
    chain: ChainSettings,
    w3: Web3,
    registries: DeployedRegistries,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    django_capture_on_commit_callbacks: Any,
) -> None:
    sender = new_account()
    at = registries.identity if event == "Registered" else registries.reputation
    topics = [bytes(HexBytes(topic0_of(event))), _word(77), bytes(12) + bytes.fromhex(sender.address[2:])]
    poisoned = _emit_raw_log(w3, sender, at, topics, data)
    assert len(poisoned["logs"]) == 1
    # The registry works again afterwards.
    later_owner = new_account()
    later_id = register_agent(later_owner)
    _index(chain, w3, django_capture_on_commit_callbacks)

    row = ChainEvent.objects.get(tx_hash=_tx_hash(poisoned))
    assert (row.status, row.name, row.args) == (ChainEventStatus.UNDECODABLE, event, {})
    assert row.error
    assert row.topics == [HexBytes(t).to_0x_hex() for t in topics]
    assert bytes(row.data) == data
    assert row.block_number == poisoned["blockNumber"]
    assert chain_cursor_get(chain=chain).next_block > poisoned["blockNumber"]
    assert not Agent.objects.filter(erc8004_agent_id=77).exists()
    assert Agent.objects.get(erc8004_agent_id=later_id).owner_address == later_owner.address


# --- one event failing to apply --------------------------------------------------------------------------


def test_it_rolls_back_and_records_one_event_that_fails_to_apply_and_indexes_the_rest_of_the_range(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, bad, good = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    failing = transact(bad, reputation.build_give_feedback, agent_id, 5, 0, tag1="starred")
    later = transact(good, reputation.build_give_feedback, agent_id, 95, 0, tag1="starred")
    real_add = indexer._feedback_add

    def add_then_fail(**kwargs: Any) -> None:
        # Fault injection: the event's first effect is written, then applying it fails.
        real_add(**kwargs)
        if kwargs["event"].client_address == bad.address:
            raise ArithmeticError("injected failure")

    monkeypatch.setattr(indexer, "_feedback_add", add_then_fail)
    run = _index(chain, w3, django_capture_on_commit_callbacks)

    row = _row(failing, "NewFeedback")
    assert row.status == ChainEventStatus.FAILED
    assert "injected failure" in row.error
    # Its partial effect was rolled back with its savepoint; the rest of the range was applied.
    assert not FeedbackEntry.objects.filter(client_address=bad.address).exists()
    assert FeedbackEntry.objects.filter(client_address=good.address).exists()
    assert _row(later, "NewFeedback").status == ChainEventStatus.APPLIED
    assert run.next_block > later["blockNumber"]


def test_it_stops_the_range_when_the_node_goes_away_and_reads_it_again(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    agent_id = register_agent(new_account())
    real_apply = indexer._event_apply

    def node_gone(**kwargs: Any) -> None:
        raise ConnectionError("node went away")

    monkeypatch.setattr(indexer, "_event_apply", node_gone)
    with pytest.raises(ConnectionError):
        _index(chain, w3, django_capture_on_commit_callbacks)
    # Not recorded as failed: the range rolled back and is read again.
    assert not ChainEvent.objects.exists()
    assert chain_cursor_get(chain=chain).next_block == chain.start_block
    monkeypatch.setattr(indexer, "_event_apply", real_apply)
    _index(chain, w3, django_capture_on_commit_callbacks)
    assert Agent.objects.filter(erc8004_agent_id=agent_id).exists()


# --- chain facts win -------------------------------------------------------------------------------------


def test_it_gives_the_chains_owner_and_agent_id_to_the_real_agent_and_detaches_a_squatter(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, fake = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    subject_id = agent_subject_id(
        chain_id=chain.chain_id, identity_registry=str(chain.identity_registry), agent_id=agent_id
    )
    # Before the indexer sees the Registered event: a provider-made record claims the on-chain identity,
    # and the real subject was pre-registered with a fake owner.
    squatter = Agent.objects.create(
        subject_id="squatter",
        registry=Agent.Registry.ERC8004,
        chain_id=chain.chain_id,
        erc8004_agent_id=agent_id,
        owner_address=fake.address,
    )
    Agent.objects.create(subject_id=subject_id, registry=Agent.Registry.OTHER, owner_address=fake.address)
    transact(client, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    _index(chain, w3, django_capture_on_commit_callbacks)

    real = Agent.objects.get(chain_id=chain.chain_id, erc8004_agent_id=agent_id)
    assert real.subject_id == subject_id
    assert (real.registry, real.owner_address) == (Agent.Registry.ERC8004, owner.address)
    squatter.refresh_from_db()
    assert (squatter.chain_id, squatter.erc8004_agent_id, squatter.owner_address) == (None, None, "")
    assert squatter.registry == Agent.Registry.OTHER
    assert FeedbackEntry.objects.get(client_address=client.address).agent == real
    assert not FeedbackEntry.objects.filter(agent=squatter).exists()


@pytest.mark.parametrize("with_chain_fields", [False, True])
def test_it_reads_the_owner_from_the_chain_for_a_pre_registered_subject_first_seen_in_feedback(
    with_chain_fields: bool,
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Transact,
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, client, fake = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    subject_id = agent_subject_id(
        chain_id=chain.chain_id, identity_registry=str(chain.identity_registry), agent_id=agent_id
    )
    # Written before the chain was read, e.g. by a provider (older API versions let it set the chain fields).
    chain_fields: dict[str, Any] = (
        {"registry": Agent.Registry.ERC8004, "chain_id": chain.chain_id, "erc8004_agent_id": agent_id}
        if with_chain_fields
        else {}
    )
    Agent.objects.create(subject_id=subject_id, owner_address=fake.address, **chain_fields)
    feedback = transact(client, reputation.build_give_feedback, agent_id, 90, 0, tag1="starred")
    # Start after the Registered event: the agent is first seen in its feedback, which names no owner.
    late = replace(chain, start_block=feedback["blockNumber"])
    _index(late, w3, django_capture_on_commit_callbacks)

    real = Agent.objects.get(subject_id=subject_id)
    assert real.erc8004_agent_id is not None
    assert (real.chain_id, int(real.erc8004_agent_id)) == (chain.chain_id, agent_id)
    assert real.owner_address == owner.address
