"""ERC-8004 feedback about agents: the typed domain service the chain indexer stores it through.

Feedback counts in the agent's trust score (scoring.py), so every change to it marks the agent for a
recompute in the same transaction (recompute.py): the score cannot miss a committed change, however
the drain and this write interleave.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from ..models import Agent, FeedbackEntry
from ..selectors import agent_identity_ids
from .recompute import recompute_mark
from .transactions import transaction_run_retrying


@dataclass(frozen=True)
class Feedback:
    """One feedback as the reputation registry holds it; tags already fit FeedbackEntry's columns."""

    client_address: str
    feedback_index: int
    value: Decimal
    value_decimals: int
    tag1: str
    tag2: str
    block_number: int | None = None
    # The block's timestamp: when the reviewer was seen rating on chain (its age, adapters.sybil).
    block_time: datetime | None = None


def feedback_record(*, agent: Agent, feedback: Feedback, revoked: bool = False) -> FeedbackEntry:
    """Store (or overwrite) the agent's feedback from one client and index; mark the agent.

    Keyed by (agent, client, index), as on chain: storing it again replaces the stored values (a
    chain event read twice changes nothing). `revoked` stores feedback that is already revoked (read
    back from the chain for a revocation of feedback the registry never saw).
    """

    def work() -> FeedbackEntry:
        defaults = {
            "value": feedback.value,
            "value_decimals": feedback.value_decimals,
            "tag1": feedback.tag1,
            "tag2": feedback.tag2,
        }
        if revoked:
            defaults["revoked"] = True
        if feedback.block_number is not None:
            defaults["block_number"] = feedback.block_number
        if feedback.block_time is not None:
            defaults["block_time"] = feedback.block_time
        entry, _ = FeedbackEntry.objects.update_or_create(
            agent=agent,
            client_address=feedback.client_address,
            feedback_index=feedback.feedback_index,
            defaults=defaults,
        )
        # Linked identities on other chains score this feedback too (merged feedback).
        recompute_mark(agent_ids=sorted(agent_identity_ids(agent=agent)))
        return entry

    return transaction_run_retrying(work=work)


def feedback_revoke(*, agent: Agent, client_address: str, feedback_index: int) -> bool:
    """Mark the agent's feedback from `client_address` at `feedback_index` revoked; False if unknown.

    The agent is marked for a recompute only when a row changed; an unknown feedback is the caller's
    to read from the chain and store with :func:`feedback_record` (``revoked=True``).
    """

    def work() -> bool:
        updated = FeedbackEntry.objects.filter(
            agent=agent, client_address=client_address, feedback_index=feedback_index
        ).update(revoked=True)
        if updated:
            recompute_mark(agent_ids=sorted(agent_identity_ids(agent=agent)))
        return bool(updated)

    return transaction_run_retrying(work=work)
