"""Decode ERC-8004 registry logs into plain dataclasses.

Every event carries where it came from (block number and hash, transaction, log index, contract address) so
that an indexer can store it idempotently and undo it when its block is reorganised away, and the raw log
(topics and data) it was decoded from.

Anything on chain was written by whoever paid the gas: the registries accept strings of any length, with NUL
and with invalid UTF-8. The logs are therefore decoded here rather than by web3 (whose ABI decoder reads
``string`` as strict UTF-8 and raises): every ``string`` is read as ``bytes`` (the ABI encodes both alike)
and turned into text with the ``surrogateescape`` handler, so no byte is lost (:func:`raw_text` gives
them back) and :func:`display_text` gives a form any database and page can hold. A log with a registry
topic that still cannot be decoded comes back as :class:`UndecodableLog`, never as an exception.

>>> sorted(EVENT_TYPES)[:3]
['FeedbackRevoked', 'MetadataSet', 'NewFeedback']
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, cast

from eth_abi import decode as abi_decode
from eth_typing import ABIEvent
from eth_utils import event_abi_to_log_topic
from hexbytes import HexBytes
from web3 import Web3
from web3.types import LogReceipt

from signing.chain.artifacts import ARTIFACT_NAMES, load_artifact

__all__ = [
    "EVENT_TYPES",
    "ChainEvent",
    "FeedbackRevoked",
    "LogDecoder",
    "MetadataSet",
    "NewFeedback",
    "Registered",
    "ResponseAppended",
    "Transfer",
    "URIUpdated",
    "UndecodableLog",
    "ValidationRequest",
    "ValidationResponse",
    "display_text",
    "raw_text",
    "topic0_of",
]

# What decoding turns undecodable bytes into (surrogateescape: U+DC80..U+DCFF), and NUL, which
# PostgreSQL refuses in text and in jsonb.
_UNSAFE = re.compile("[\x00\udc80-\udcff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return f"\\x{ord(char) & 0xFF:02x}"


def raw_text(text: str) -> bytes:
    """The exact bytes of a decoded on-chain string (inverse of the decoder's surrogateescape).

    >>> raw_text(b"ok\\xff\\x00".decode("utf-8", "surrogateescape"))
    b'ok\\xff\\x00'
    """
    return text.encode("utf-8", "surrogateescape")


def display_text(text: str) -> str:
    """A decoded on-chain string as text that every store accepts: undecodable bytes and NUL as ``\\xNN``.

    Equal to ``text`` whenever the string was valid UTF-8 without NUL; otherwise not reversible on its
    own (a sender could write ``\\x00`` literally), which is why the raw bytes are kept beside it.

    >>> display_text(b"tag\\x00\\xc3(".decode("utf-8", "surrogateescape"))
    'tag\\\\x00\\\\xc3('
    >>> display_text("ünïcode")
    'ünïcode'
    """
    return _UNSAFE.sub(_escape, text)


@dataclass(frozen=True)
class ChainEvent:
    """Where a log came from; the fields every decoded event shares."""

    block_number: int
    block_hash: str
    transaction_hash: str
    log_index: int
    address: str
    # The raw log this came from (keyword-only so subclasses keep their positional fields).
    topics: tuple[str, ...] = field(default=(), kw_only=True)
    data: bytes = field(default=b"", kw_only=True)

    # The fields that hold on-chain strings (arbitrary bytes; see display_text and raw_text).
    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ()

    @property
    def key(self) -> tuple[str, int]:
        """A unique, reorg-aware key for idempotent storage: (block hash, log index).

        >>> ChainEvent(1, "0xaa", "0xbb", 3, "0xcc").key
        ('0xaa', 3)
        """
        return (self.block_hash, self.log_index)


@dataclass(frozen=True)
class Registered(ChainEvent):
    agent_id: int
    agent_uri: str
    owner: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("agent_uri",)


@dataclass(frozen=True)
class Transfer(ChainEvent):
    """ERC-721 Transfer of an agent's identity NFT (a mint comes from the zero address)."""

    from_address: str
    to_address: str
    agent_id: int


@dataclass(frozen=True)
class URIUpdated(ChainEvent):
    agent_id: int
    new_uri: str
    updated_by: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("new_uri",)


@dataclass(frozen=True)
class MetadataSet(ChainEvent):
    agent_id: int
    metadata_key: str
    metadata_value: bytes

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("metadata_key",)


@dataclass(frozen=True)
class NewFeedback(ChainEvent):
    agent_id: int
    client_address: str
    feedback_index: int
    value: int
    value_decimals: int
    tag1: str
    tag2: str
    endpoint: str
    feedback_uri: str
    feedback_hash: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("tag1", "tag2", "endpoint", "feedback_uri")


@dataclass(frozen=True)
class FeedbackRevoked(ChainEvent):
    agent_id: int
    client_address: str
    feedback_index: int


@dataclass(frozen=True)
class ResponseAppended(ChainEvent):
    agent_id: int
    client_address: str
    feedback_index: int
    responder: str
    response_uri: str
    response_hash: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("response_uri",)


@dataclass(frozen=True)
class ValidationRequest(ChainEvent):
    validator_address: str
    agent_id: int
    request_uri: str
    request_hash: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("request_uri",)


@dataclass(frozen=True)
class ValidationResponse(ChainEvent):
    validator_address: str
    agent_id: int
    request_hash: str
    response: int
    response_uri: str
    response_hash: str
    tag: str

    TEXT_FIELDS: ClassVar[tuple[str, ...]] = ("response_uri", "tag")


@dataclass(frozen=True)
class UndecodableLog(ChainEvent):
    """A log with a registry event's topic0 whose topics or data do not decode as that event.

    The registries never emit one, but an indexer must not depend on that: it is kept (raw) and skipped.
    """

    name: str
    error: str


def _hex(value: bytes) -> str:
    return HexBytes(value).to_0x_hex()


# Event name -> (dataclass, function from the decoded args to the dataclass's own fields).
_FIELDS: dict[str, tuple[type[ChainEvent], Callable[[Mapping[str, Any]], dict[str, Any]]]] = {
    "Registered": (
        Registered,
        lambda a: {"agent_id": a["agentId"], "agent_uri": a["agentURI"], "owner": a["owner"]},
    ),
    "Transfer": (
        Transfer,
        lambda a: {"from_address": a["from"], "to_address": a["to"], "agent_id": a["tokenId"]},
    ),
    "URIUpdated": (
        URIUpdated,
        lambda a: {"agent_id": a["agentId"], "new_uri": a["newURI"], "updated_by": a["updatedBy"]},
    ),
    "MetadataSet": (
        MetadataSet,
        lambda a: {
            "agent_id": a["agentId"],
            "metadata_key": a["metadataKey"],
            "metadata_value": bytes(a["metadataValue"]),
        },
    ),
    "NewFeedback": (
        NewFeedback,
        lambda a: {
            "agent_id": a["agentId"],
            "client_address": a["clientAddress"],
            "feedback_index": a["feedbackIndex"],
            "value": a["value"],
            "value_decimals": a["valueDecimals"],
            "tag1": a["tag1"],
            "tag2": a["tag2"],
            "endpoint": a["endpoint"],
            "feedback_uri": a["feedbackURI"],
            "feedback_hash": _hex(a["feedbackHash"]),
        },
    ),
    "FeedbackRevoked": (
        FeedbackRevoked,
        lambda a: {
            "agent_id": a["agentId"],
            "client_address": a["clientAddress"],
            "feedback_index": a["feedbackIndex"],
        },
    ),
    "ResponseAppended": (
        ResponseAppended,
        lambda a: {
            "agent_id": a["agentId"],
            "client_address": a["clientAddress"],
            "feedback_index": a["feedbackIndex"],
            "responder": a["responder"],
            "response_uri": a["responseURI"],
            "response_hash": _hex(a["responseHash"]),
        },
    ),
    "ValidationRequest": (
        ValidationRequest,
        lambda a: {
            "validator_address": a["validatorAddress"],
            "agent_id": a["agentId"],
            "request_uri": a["requestURI"],
            "request_hash": _hex(a["requestHash"]),
        },
    ),
    "ValidationResponse": (
        ValidationResponse,
        lambda a: {
            "validator_address": a["validatorAddress"],
            "agent_id": a["agentId"],
            "request_hash": _hex(a["requestHash"]),
            "response": a["response"],
            "response_uri": a["responseURI"],
            "response_hash": _hex(a["responseHash"]),
            "tag": a["tag"],
        },
    ),
}

EVENT_TYPES: dict[str, type[ChainEvent]] = {name: entry[0] for name, entry in _FIELDS.items()}


@cache
def _event_abis() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for artifact_name in ARTIFACT_NAMES:
        for item in load_artifact(artifact_name).abi:
            if item["type"] == "event" and item["name"] in _FIELDS:
                found[item["name"]] = item
    return found


def topic0_of(event_name: str) -> str:
    """The topic0 (keccak256 of the canonical signature) of a registry event.

    >>> topic0_of("FeedbackRevoked")
    '0x25156fd3288212246d8b008d5921fde376c71ed14ac2e072a506eb06fde6d09d'
    """
    try:
        return _hex(event_abi_to_log_topic(cast(ABIEvent, _event_abis()[event_name])))
    except KeyError:
        raise KeyError(f"unknown registry event {event_name!r}; known: {sorted(_FIELDS)}") from None


class _EventLayout:
    """How one event's log is laid out: which inputs are topics and the ABI types of its data."""

    def __init__(self, abi: Mapping[str, Any]) -> None:
        inputs = abi["inputs"]
        self.indexed: list[tuple[str, str]] = [(i["name"], i["type"]) for i in inputs if i["indexed"]]
        self.names: list[str] = [i["name"] for i in inputs if not i["indexed"]]
        self.types: list[str] = [i["type"] for i in inputs if not i["indexed"]]
        # `string` and `bytes` share their ABI encoding: read the bytes, decode them leniently below.
        self.byte_types = [_as_bytes(t) for t in self.types]

    def args(self, topics: Sequence[bytes], data: bytes) -> dict[str, Any]:
        if len(topics) != 1 + len(self.indexed):
            raise ValueError(f"expected {1 + len(self.indexed)} topics, got {len(topics)}")
        found: dict[str, Any] = {}
        for (name, kind), topic in zip(self.indexed, topics[1:], strict=True):
            if len(topic) != 32:
                raise ValueError(f"topic {name} is {len(topic)} bytes, not 32")
            # An indexed dynamic value (string, bytes, arrays) is stored as its keccak256 only.
            found[name] = topic if _is_dynamic(kind) else _convert(kind, abi_decode([kind], topic)[0])
        values = abi_decode(self.byte_types, data) if self.types else ()
        for name, kind, value in zip(self.names, self.types, values, strict=True):
            found[name] = _convert(kind, value)
        return found


def _as_bytes(kind: str) -> str:
    return "bytes" + kind[len("string") :] if kind.startswith("string") else kind


def _is_dynamic(kind: str) -> bool:
    return kind in ("string", "bytes") or kind.endswith("]") or kind.startswith("(")


def _convert(kind: str, value: Any) -> Any:
    if kind == "string":
        return bytes(value).decode("utf-8", "surrogateescape")
    if kind == "address":
        return Web3.to_checksum_address(value)
    return value


class LogDecoder:
    """Turns raw logs of the three registries into event dataclasses; other logs decode to None.

    >>> LogDecoder().topics() == {topic0_of(name) for name in EVENT_TYPES}
    True
    """

    def __init__(self) -> None:
        self._by_topic: dict[str, tuple[str, _EventLayout]] = {
            topic0_of(name): (name, _EventLayout(abi)) for name, abi in _event_abis().items()
        }

    def topics(self) -> set[str]:
        """The topic0 values this decoder knows.

        >>> len(LogDecoder().topics())
        9
        """
        return set(self._by_topic)

    def decode(self, log: LogReceipt) -> ChainEvent | None:
        """Decode one log: None when its topic0 is not a registry event this module knows, an
        :class:`UndecodableLog` when it is one but its topics or data do not fit that event.

        >>> LogDecoder().decode({"topics": []})  # doctest: +SKIP
        """
        topics = [HexBytes(topic) for topic in log.get("topics") or []]
        if not topics:
            return None
        known = self._by_topic.get(_hex(topics[0]))
        if known is None:
            return None
        name, layout = known
        data = bytes(HexBytes(log.get("data") or b""))
        origin: dict[str, Any] = {
            "block_number": int(log["blockNumber"]),
            "block_hash": _hex(log["blockHash"]),
            "transaction_hash": _hex(log["transactionHash"]),
            "log_index": int(log["logIndex"]),
            "address": Web3.to_checksum_address(log["address"]),
            "topics": tuple(_hex(topic) for topic in topics),
            "data": data,
        }
        kind, fields = _FIELDS[name]
        try:
            return kind(**origin, **fields(layout.args(topics, data)))
        except Exception as error:
            # Arbitrary bytes can fail in any step of decoding: the log is then kept raw, never raised.
            return UndecodableLog(**origin, name=name, error=f"{type(error).__name__}: {error}")
