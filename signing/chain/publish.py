"""What the service writes to Base: a trust score as ERC-8004 feedback, and answers to validation requests.

The feedback's value and tags are fixed by ``attestations.services.publishing`` (the one builder of a
score's feedback: :func:`signing.chain.reputation.score_to_feedback_value`, :func:`feedback_file`, and
keccak256 of the file as feedbackHash); the transaction is ``ReputationClient.build_give_feedback``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

import rfc8785

from signing.chain.events import ChainEvent, ValidationRequest, ValidationResponse

__all__ = ["HCS25_TAG", "feedback_file", "open_validation_requests"]

# tag1 says how to read the value: a 0-100 HCS-25 trust score with 2 decimals. It is deliberately not
# "starred", so the erc8004-feedback adapter never reads the service's own scores back as ratings.
HCS25_TAG = "hcs-25"


# JSON numbers are exact only up to 2^53 - 1 (RFC 8785 refuses larger integers): a uint256 agent id
# beyond that is written as a decimal string instead.
_MAX_JSON_INTEGER = 2**53 - 1


def feedback_file(
    *,
    chain_id: int,
    identity_registry: str,
    agent_id: int,
    client_address: str,
    created_at: datetime,
    value: int,
    value_decimals: int,
    tag1: str,
    tag2: str,
    endpoint: str,
    attestation: Mapping[str, Any],
) -> bytes:
    """The ERC-8004 off-chain feedback file served at feedbackURI, as RFC 8785 (JCS) canonical bytes.

    The ERC requires agentRegistry (``eip155:{chainId}:{identityRegistry}``), agentId, clientAddress
    (``eip155:{chainId}:{address}``, the account that sends giveFeedback), createdAt (ISO 8601, UTC),
    value and valueDecimals; tag1, tag2 and endpoint are optional and repeat what the transaction
    carries. ``attestation`` is our signed EIP-712 attestation of the score (typedData, signature,
    signer, scoreUrl), carried whole so a reader can check the signature without a second request.
    The bytes are canonical, so keccak256 of them is the feedbackHash whoever re-serialises the JSON.

    >>> import json
    >>> file = feedback_file(chain_id=8453, identity_registry="0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
    ...     agent_id=7, client_address="0x00000000000000000000000000000000000000aa",
    ...     created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), value=8725, value_decimals=2,
    ...     tag1="hcs-25", tag2="composite", endpoint="https://r.example/s/7", attestation={})
    >>> parsed = json.loads(file)
    >>> parsed["agentRegistry"], parsed["agentId"], parsed["createdAt"], parsed["value"]
    ('eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432', 7, '2026-01-02T03:04:05Z', 8725)
    """
    if created_at.tzinfo is None:
        raise ValueError("created_at must be timezone-aware")
    document: dict[str, Any] = {
        "agentRegistry": f"eip155:{chain_id}:{identity_registry}",
        "agentId": agent_id if agent_id <= _MAX_JSON_INTEGER else str(agent_id),
        "clientAddress": f"eip155:{chain_id}:{client_address}",
        "createdAt": created_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "value": value,
        "valueDecimals": value_decimals,
        "tag1": tag1,
        "tag2": tag2,
        "endpoint": endpoint,
        "attestation": dict(attestation),
    }
    return bytes(rfc8785.dumps(document))


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
