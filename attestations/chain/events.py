"""Decode ERC-8004 registry logs into plain dataclasses.

Every event carries where it came from (block number and hash, transaction, log index, contract address) so
that an indexer can store it idempotently and undo it when its block is reorganised away.

>>> sorted(EVENT_TYPES)[:3]
['FeedbackRevoked', 'MetadataSet', 'NewFeedback']
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from eth_typing import ABIEvent
from eth_utils import event_abi_to_log_topic
from hexbytes import HexBytes
from web3 import Web3
from web3.types import LogReceipt

from attestations.chain.artifacts import ARTIFACT_NAMES, load_artifact

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
    "ValidationRequest",
    "ValidationResponse",
    "topic0_of",
]


@dataclass(frozen=True)
class ChainEvent:
    """Where a log came from; the fields every decoded event shares."""

    block_number: int
    block_hash: str
    transaction_hash: str
    log_index: int
    address: str

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


@dataclass(frozen=True)
class MetadataSet(ChainEvent):
    agent_id: int
    metadata_key: str
    metadata_value: bytes


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


@dataclass(frozen=True)
class ValidationRequest(ChainEvent):
    validator_address: str
    agent_id: int
    request_uri: str
    request_hash: str


@dataclass(frozen=True)
class ValidationResponse(ChainEvent):
    validator_address: str
    agent_id: int
    request_hash: str
    response: int
    response_uri: str
    response_hash: str
    tag: str


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


class LogDecoder:
    """Turns raw logs of the three registries into event dataclasses; other logs decode to None.

    >>> LogDecoder().topics() == {topic0_of(name) for name in EVENT_TYPES}
    True
    """

    def __init__(self) -> None:
        # An unconnected Web3 is enough: decoding needs only the ABIs.
        w3 = Web3()
        self._by_topic: dict[str, tuple[str, Any]] = {}
        for name, abi in _event_abis().items():
            event = w3.eth.contract(abi=[abi]).events[name]()
            self._by_topic[topic0_of(name)] = (name, event)

    def topics(self) -> set[str]:
        """The topic0 values this decoder knows.

        >>> len(LogDecoder().topics())
        8
        """
        return set(self._by_topic)

    def decode(self, log: LogReceipt) -> ChainEvent | None:
        """Decode one log, or return None when its topic0 is not a registry event this module knows.

        >>> LogDecoder().decode({"topics": []})  # doctest: +SKIP
        """
        topics = log.get("topics") or []
        if not topics:
            return None
        known = self._by_topic.get(_hex(topics[0]))
        if known is None:
            return None
        name, event = known
        decoded = event.process_log(log)
        kind, fields = _FIELDS[name]
        return kind(
            block_number=int(log["blockNumber"]),
            block_hash=_hex(log["blockHash"]),
            transaction_hash=_hex(log["transactionHash"]),
            log_index=int(log["logIndex"]),
            address=Web3.to_checksum_address(log["address"]),
            **fields(decoded["args"]),
        )
