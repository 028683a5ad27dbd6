"""Client for the ERC-8004 ReputationRegistry: feedback reads, summaries and feedback transactions.

>>> score_to_feedback_value("87.125")
(8713, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from web3 import Web3
from web3.types import TxParams

from signing.chain.base import RegistryClient
from signing.chain.tx import Fees

__all__ = [
    "FeedbackEntry",
    "FeedbackSummary",
    "ReputationClient",
    "feedback_value_to_decimal",
    "score_to_feedback_value",
]

_MAX_ABS_VALUE = 10**38
_MAX_DECIMALS = 18


def score_to_feedback_value(score: float | int | str | Decimal) -> tuple[int, int]:
    """A 0-100 score as ERC-8004 feedback ``(value, valueDecimals)``: hundredths, rounded half up.

    >>> score_to_feedback_value(99.77)
    (9977, 2)
    >>> score_to_feedback_value(101)
    Traceback (most recent call last):
    ...
    ValueError: score must be between 0 and 100, not 101
    """
    try:
        # str() first so a float like 99.77 is read as written, not as its binary approximation.
        exact = Decimal(str(score))
    except InvalidOperation:
        raise ValueError(f"score must be a number, not {score!r}") from None
    if not exact.is_finite() or not 0 <= exact <= 100:
        raise ValueError(f"score must be between 0 and 100, not {score}")
    return int((exact * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP)), 2


def feedback_value_to_decimal(value: int, value_decimals: int) -> Decimal:
    """The number a feedback ``(value, valueDecimals)`` pair means.

    >>> feedback_value_to_decimal(-32, 1)
    Decimal('-3.2')
    """
    if not 0 <= value_decimals <= _MAX_DECIMALS:
        raise ValueError(f"valueDecimals must be between 0 and {_MAX_DECIMALS}, not {value_decimals}")
    return Decimal(value).scaleb(-value_decimals)


@dataclass(frozen=True)
class FeedbackEntry:
    """One stored feedback as ``readFeedback`` / ``readAllFeedback`` answer it."""

    client_address: str
    feedback_index: int
    value: int
    value_decimals: int
    tag1: str
    tag2: str
    is_revoked: bool

    @property
    def number(self) -> Decimal:
        """The value with its decimals applied.

        >>> FeedbackEntry("0x0", 1, 9977, 2, "uptime", "", False).number
        Decimal('99.77')
        """
        return feedback_value_to_decimal(self.value, self.value_decimals)


@dataclass(frozen=True)
class FeedbackSummary:
    """``getSummary``'s answer: how many feedbacks matched and their average at ``value_decimals``."""

    count: int
    value: int
    value_decimals: int

    @property
    def number(self) -> Decimal:
        """The average with its decimals applied.

        >>> FeedbackSummary(2, 875, 1).number
        Decimal('87.5')
        """
        return feedback_value_to_decimal(self.value, self.value_decimals)


class ReputationClient(RegistryClient):
    """Reads and transaction builders for the ReputationRegistry."""

    artifact_name = "ReputationRegistry"

    # ---- reads ----

    def get_clients(self, agent_id: int) -> list[str]:
        """Every address that ever gave the agent feedback, in first-feedback order.

        >>> reputation.get_clients(0)  # doctest: +SKIP
        ['0x…']
        """
        return [str(address) for address in self._call("getClients", agent_id)]

    def get_last_index(self, agent_id: int, client_address: str) -> int:
        """The last feedback index of a client for an agent (0 when none; indexes start at 1).

        >>> reputation.get_last_index(0, client)  # doctest: +SKIP
        1
        """
        return int(self._call("getLastIndex", agent_id, Web3.to_checksum_address(client_address)))

    def read_feedback(self, agent_id: int, client_address: str, feedback_index: int) -> FeedbackEntry:
        """One feedback; reverts for an index outside 1..lastIndex.

        >>> reputation.read_feedback(0, client, 1).tag1  # doctest: +SKIP
        'starred'
        """
        client = Web3.to_checksum_address(client_address)
        value, decimals, tag1, tag2, revoked = self._call("readFeedback", agent_id, client, feedback_index)
        return FeedbackEntry(client, feedback_index, value, decimals, tag1, tag2, revoked)

    def read_all_feedback(
        self,
        agent_id: int,
        clients: Sequence[str] = (),
        tag1: str = "",
        tag2: str = "",
        *,
        include_revoked: bool = False,
    ) -> list[FeedbackEntry]:
        """All feedback of an agent; no clients means every client, empty tags do not filter.

        >>> len(reputation.read_all_feedback(0))  # doctest: +SKIP
        3
        """
        addresses = [Web3.to_checksum_address(client) for client in clients]
        columns = self._call("readAllFeedback", agent_id, addresses, tag1, tag2, include_revoked)
        return [FeedbackEntry(*row) for row in zip(*columns, strict=True)]

    def get_summary(
        self, agent_id: int, clients: Sequence[str], tag1: str = "", tag2: str = ""
    ) -> FeedbackSummary:
        """``getSummary`` over the given clients (required: without them a summary is open to Sybils).

        >>> ReputationClient(Web3(), "0x" + "11" * 20).get_summary(0, [])
        Traceback (most recent call last):
        ...
        ValueError: getSummary needs at least one client address
        """
        if not clients:
            raise ValueError("getSummary needs at least one client address")
        addresses = [Web3.to_checksum_address(client) for client in clients]
        count, value, decimals = self._call("getSummary", agent_id, addresses, tag1, tag2)
        return FeedbackSummary(count, value, decimals)

    # ---- transaction builders ----

    def build_give_feedback(
        self,
        agent_id: int,
        value: int,
        value_decimals: int,
        *,
        tag1: str = "",
        tag2: str = "",
        endpoint: str = "",
        feedback_uri: str = "",
        feedback_hash: bytes = b"\x00" * 32,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``giveFeedback``; the registry refuses feedback from the agent's owner or operators.

        >>> value, decimals = score_to_feedback_value(87.5)
        >>> reputation.build_give_feedback(0, value, decimals, tag1="hcs-25", sender=me, nonce=0,
        ...     fees=fees)  # doctest: +SKIP
        """
        if abs(value) > _MAX_ABS_VALUE:
            raise ValueError(f"|value| must be at most 1e38, not {value}")
        if not 0 <= value_decimals <= _MAX_DECIMALS:
            raise ValueError(f"valueDecimals must be between 0 and {_MAX_DECIMALS}, not {value_decimals}")
        if len(feedback_hash) != 32:
            raise ValueError(f"feedback_hash must be 32 bytes, not {len(feedback_hash)}")
        call = self.contract.functions.giveFeedback(
            agent_id, value, value_decimals, tag1, tag2, endpoint, feedback_uri, feedback_hash
        )
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_revoke_feedback(
        self,
        agent_id: int,
        feedback_index: int,
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``revokeFeedback`` of the sender's own feedback.

        >>> reputation.build_revoke_feedback(0, 1, sender=me, nonce=1, fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.revokeFeedback(agent_id, feedback_index)
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)

    def build_append_response(
        self,
        agent_id: int,
        client_address: str,
        feedback_index: int,
        response_uri: str,
        response_hash: bytes = b"\x00" * 32,
        *,
        sender: str,
        nonce: int,
        fees: Fees,
        gas: int | None = None,
    ) -> TxParams:
        """``appendResponse`` to a feedback (anyone may respond).

        >>> reputation.build_append_response(0, client, 1, "https://r.example", sender=me, nonce=2,
        ...     fees=fees)  # doctest: +SKIP
        """
        call = self.contract.functions.appendResponse(
            agent_id, Web3.to_checksum_address(client_address), feedback_index, response_uri, response_hash
        )
        return self.build_call(call, sender=sender, nonce=nonce, fees=fees, gas=gas)
