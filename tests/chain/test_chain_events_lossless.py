"""The log decoder keeps every byte of on-chain strings and never raises on a registry log (no node)."""

from __future__ import annotations

from typing import Any

from eth_abi import encode as abi_encode
from eth_utils import keccak
from hexbytes import HexBytes
from hypothesis import given
from hypothesis import strategies as st
from web3 import Web3

from signing.chain.events import (
    LogDecoder,
    NewFeedback,
    Registered,
    UndecodableLog,
    display_text,
    raw_text,
    topic0_of,
)

DECODER = LogDecoder()
CLIENT = "0x" + "ab" * 20


def _word(value: int) -> bytes:
    return value.to_bytes(32, "big")


def _log(topics: list[bytes], data: bytes) -> Any:
    return {
        "blockNumber": 7,
        "blockHash": HexBytes(b"\x01" * 32),
        "transactionHash": HexBytes(b"\x02" * 32),
        "logIndex": 3,
        "address": "0x" + "cd" * 20,
        "topics": [HexBytes(t) for t in topics],
        "data": HexBytes(data),
    }


def _feedback_log(tag1: bytes, tag2: bytes, endpoint: bytes, uri: bytes) -> Any:
    topics = [
        bytes(HexBytes(topic0_of("NewFeedback"))),
        _word(5),
        bytes(12) + bytes.fromhex(CLIENT[2:]),
        keccak(tag1),
    ]
    data = abi_encode(
        ["uint64", "int128", "uint8", "bytes", "bytes", "bytes", "bytes", "bytes32"],
        [1, -7, 2, tag1, tag2, endpoint, uri, b"\x09" * 32],
    )
    return _log(topics, data)


@given(st.binary(max_size=300), st.binary(max_size=40), st.binary(max_size=40), st.binary(max_size=40))
def test_it_decodes_any_bytes_in_feedback_strings_losslessly(
    tag1: bytes, tag2: bytes, endpoint: bytes, uri: bytes
) -> None:
    event = DECODER.decode(_feedback_log(tag1, tag2, endpoint, uri))
    assert isinstance(event, NewFeedback)
    assert [raw_text(v) for v in (event.tag1, event.tag2, event.endpoint, event.feedback_uri)] == [
        tag1,
        tag2,
        endpoint,
        uri,
    ]
    assert (event.agent_id, event.feedback_index, event.value, event.value_decimals) == (5, 1, -7, 2)
    assert event.client_address == Web3.to_checksum_address(CLIENT)
    for text in (event.tag1, event.tag2, event.endpoint, event.feedback_uri):
        shown = display_text(text)
        # What every store accepts: valid UTF-8 (no lone surrogates) without NUL ...
        shown.encode("utf-8")
        assert "\x00" not in shown
        # ... and unchanged whenever the bytes were such text already.
        try:
            clean = raw_text(text).decode("utf-8")
        except UnicodeDecodeError:
            continue
        if "\x00" not in clean:
            assert shown == clean


@given(st.binary(max_size=200), st.integers(min_value=0, max_value=3))
def test_it_turns_any_malformed_registry_log_into_an_undecodable_record_not_an_exception(
    data: bytes, extra_topics: int
) -> None:
    topics = [bytes(HexBytes(topic0_of("Registered")))] + [_word(i) for i in range(extra_topics)]
    event = DECODER.decode(_log(topics, data))
    assert event is not None
    if isinstance(event, UndecodableLog):
        assert (event.name, event.topics[0], event.data) == ("Registered", topic0_of("Registered"), data)
        assert event.error
    else:
        assert isinstance(event, Registered) and extra_topics == 2


def test_it_keeps_the_raw_log_on_every_decoded_event() -> None:
    log = _feedback_log(b"a\x00b", b"", b"\xff", b"")
    event = DECODER.decode(log)
    assert isinstance(event, NewFeedback)
    assert event.topics == tuple(HexBytes(t).to_0x_hex() for t in log["topics"])
    assert event.data == bytes(log["data"])
    assert (display_text(event.tag1), display_text(event.endpoint)) == ("a\\x00b", "\\xff")


def test_it_lists_every_string_input_of_each_event_as_a_text_field() -> None:
    from signing.chain.events import EVENT_TYPES, _event_abis

    for name, abi in _event_abis().items():
        strings = [i for i in abi["inputs"] if i["type"] == "string" and not i["indexed"]]
        assert len(EVENT_TYPES[name].TEXT_FIELDS) == len(strings), name
