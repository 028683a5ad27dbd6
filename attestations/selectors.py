"""Read-only queries for the public agent page: the agent's registration file, its on-chain feedback,
and the scores the registry published about it."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from django.db.models import Avg, Count, DecimalField, ExpressionWrapper, F, Q
from django.db.models.functions import Power

from registry.models import Agent, FeedbackEntry

from .models import AgentRegistration, ScorePublication

# Bounds on what one page view reads, whatever an agent has accumulated on chain.
FEEDBACK_TAGS_SHOWN = 10
PUBLICATIONS_SHOWN = 20
# Block explorers for the chains the presets know; other chains show the hash alone.
EXPLORERS = {8453: "https://basescan.org", 84532: "https://sepolia.basescan.org"}


@dataclass(frozen=True)
class FeedbackTag:
    tag1: str
    count: int
    average: Decimal | None


@dataclass(frozen=True)
class FeedbackSummary:
    """On-chain ERC-8004 feedback about one agent: totals and the average value per tag1."""

    active: int = 0
    revoked: int = 0
    clients: int = 0
    tags: list[FeedbackTag] = field(default_factory=list)


def agent_registration_get(*, agent: Agent) -> AgentRegistration | None:
    """The agent's agentURI and what its registration file says, if it is an indexed on-chain agent."""
    return AgentRegistration.objects.filter(agent=agent).first()


def agent_feedback_summarize(*, agent: Agent) -> FeedbackSummary:
    """Counts and per-tag averages (value / 10^valueDecimals) of the agent's feedback, in the database.

    The meaning of a value depends on its tag1 ("starred" 0-100, "uptime" %, our own "hcs-25" score),
    so averages are per tag and never mixed.
    """
    entries = FeedbackEntry.objects.filter(agent=agent)
    totals = entries.aggregate(
        n_active=Count("pk", filter=Q(revoked=False)),
        n_revoked=Count("pk", filter=Q(revoked=True)),
        n_clients=Count("client_address", filter=Q(revoked=False), distinct=True),
    )
    scaled = ExpressionWrapper(
        F("value") / Power(10, F("value_decimals")),
        output_field=DecimalField(max_digits=80, decimal_places=18),
    )
    rows = (
        entries.filter(revoked=False)
        .values("tag1")
        .annotate(n=Count("pk"), average=Avg(scaled))
        .order_by("-n", "tag1")[:FEEDBACK_TAGS_SHOWN]
    )
    tags = [
        FeedbackTag(
            tag1=row["tag1"],
            count=row["n"],
            average=None if row["average"] is None else Decimal(row["average"]).quantize(Decimal("0.01")),
        )
        for row in rows
    ]
    return FeedbackSummary(
        active=totals["n_active"], revoked=totals["n_revoked"], clients=totals["n_clients"], tags=tags
    )


def agent_publications_list(*, agent: Agent) -> list[dict[str, Any]]:
    """The newest scores the registry published about the agent on chain, with transaction hashes."""
    rows = ScorePublication.objects.filter(agent=agent).select_related("score").order_by("-created_at", "-id")
    return [
        {
            "publication": row,
            "explorer": EXPLORERS.get(row.chain_id, ""),
            "score": row.score.trust_score,
        }
        for row in rows[:PUBLICATIONS_SHOWN]
    ]
