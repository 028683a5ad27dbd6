"""What the service writes to Base: a trust score as ERC-8004 feedback, and answers to validation requests.

>>> feedback = score_feedback(7, 87.25, adapter="output-verification", score_url="https://r.example/s/7",
...     attestation_url="https://r.example/a/7", attestation_document=b"{}")
>>> (feedback.value, feedback.value_decimals, feedback.tag1, feedback.tag2)
(8725, 2, 'hcs-25', 'output-verification')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from eth_utils import keccak

from attestations.chain.events import ChainEvent, ValidationRequest, ValidationResponse
from attestations.chain.reputation import score_to_feedback_value

__all__ = ["HCS25_TAG", "ScoreFeedback", "open_validation_requests", "score_feedback"]

# tag1 says how to read the value: a 0-100 HCS-25 trust score with 2 decimals. It is deliberately not
# "starred", so the erc8004-feedback adapter never reads the service's own scores back as ratings.
HCS25_TAG = "hcs-25"


@dataclass(frozen=True)
class ScoreFeedback:
    """The arguments of ``giveFeedback`` that publish one trust score."""

    agent_id: int
    value: int
    value_decimals: int
    tag1: str
    tag2: str
    endpoint: str
    feedback_uri: str
    feedback_hash: bytes


def score_feedback(
    agent_id: int,
    score: float | int | str | Decimal,
    *,
    adapter: str,
    score_url: str,
    attestation_url: str,
    attestation_document: bytes,
) -> ScoreFeedback:
    """Feedback for a 0-100 score: value = score x 100 at 2 decimals, tags ("hcs-25", adapter), the score's
    URL as endpoint, the signed attestation's URL as feedbackURI and keccak256 of its exact bytes as hash.

    >>> score_feedback(1, 50, adapter="composite", score_url="u", attestation_url="a",
    ...     attestation_document=b"x").feedback_hash == keccak(b"x")
    True
    """
    if not adapter:
        raise ValueError("adapter (tag2) must name the HCS-25 adapter or 'composite'")
    value, decimals = score_to_feedback_value(score)
    return ScoreFeedback(
        agent_id=agent_id,
        value=value,
        value_decimals=decimals,
        tag1=HCS25_TAG,
        tag2=adapter,
        endpoint=score_url,
        feedback_uri=attestation_url,
        feedback_hash=bytes(keccak(attestation_document)),
    )


def open_validation_requests(events: Iterable[ChainEvent], validator: str) -> list[ValidationRequest]:
    """The requests addressed to ``validator`` that it has not answered yet, in the order they came.

    >>> open_validation_requests([], "0x" + "11" * 20)
    []
    """
    wanted = validator.lower()
    requests: dict[str, ValidationRequest] = {}
    answered: set[str] = set()
    for event in events:
        if isinstance(event, ValidationRequest) and event.validator_address.lower() == wanted:
            requests.setdefault(event.request_hash, event)
        elif isinstance(event, ValidationResponse) and event.validator_address.lower() == wanted:
            answered.add(event.request_hash)
    return [request for request_hash, request in requests.items() if request_hash not in answered]
