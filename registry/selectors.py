"""Read-side queries shared by the API and the admin."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import connection

from adapters import ScoringParams
from adapters.scoring import graph_outcome

from .lookups import any_of
from .models import Agent, AgentLink, ProviderAuditSnapshot, ProviderAuditStats, TrustScore

SCORE_CACHE_SECONDS = 300


def trust_score_cache_key(subject_id: str) -> str:
    return f"trust-score:v1:{subject_id}"


@dataclass(frozen=True)
class ScoreDocument:
    """An agent's current trust-score record, rendered once and served as bytes."""

    etag: str
    body: bytes


def trust_score_document(*, subject_id: str) -> ScoreDocument | None:
    """The agent's current record as JSON bytes (from the cache when warm), or None if unscored.

    Raises Agent.DoesNotExist for an unknown agent. The cache entry is dropped whenever a new score
    is stored (registry.services.scoring), so it is never older than the newest committed score.
    """
    key = trust_score_cache_key(subject_id)
    cached = cache.get(key)
    if cached is not None:
        etag, body = cached
        return ScoreDocument(etag, body)
    # The record is read as JSON text and served as is: decoding and re-encoding it would cost more
    # than the query (PostgreSQL prints jsonb as text; SQLite stores the text).
    record_text = "s.record::text" if connection.vendor == "postgresql" else "s.record"
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT a.id, s.id, s.inputs_digest, {record_text} FROM registry_agent a "
            "LEFT JOIN registry_trustscore s ON s.id = a.latest_score_id WHERE a.subject_id = %s",
            [subject_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise Agent.DoesNotExist(subject_id)
    _, score_id, digest, record = row
    if score_id is None:
        return None
    body = record.encode() if isinstance(record, str) else json.dumps(record, separators=(",", ":")).encode()
    if b'"rated"' not in body:
        # Records stored before `rated` existed get it here (once per cache fill, not per request).
        decoded = json.loads(body)
        decoded["rated"] = float(decoded.get("trustConfidence") or 0) > 0
        body = json.dumps(decoded, separators=(",", ":")).encode()
    document = ScoreDocument(f'"{digest[7:23]}-{score_id}"', body)
    cache.set(key, (document.etag, document.body), timeout=SCORE_CACHE_SECONDS)
    return document


def trust_score_explanation(*, score: TrustScore) -> dict[str, Any]:
    """The score explanation of *score*: its graph, breakdown and node trace (HCS-25 v1.1).

    Records stored before explanations existed get theirs computed from their breakdown and
    their configuration, which is what the stored explanation would have said.
    """
    record = score.record
    params = ScoringParams.from_dict(score.config.params)
    breakdown = record.get("breakdown", {}).get("adapters", [])
    explanation = record.get("explanation")
    if explanation is None:
        explanation = graph_outcome(params, breakdown, record["trustScore"])[1]
    return {
        "subjectId": record["subjectId"],
        "trustScore": record["trustScore"],
        "trustScoreConfigVersion": record["trustScoreConfigVersion"],
        "trustScoreUpdatedAt": record["trustScoreUpdatedAt"],
        "compositionGraphId": explanation["graphId"],
        "graph": params.effective_graph().to_dict(),
        "staleMultiplier": params.stale_multiplier,
        "breakdown": {"adapters": breakdown},
        "explanation": explanation,
    }


# Below this block rate a verifier is close to a rubber stamp (SPEC: discriminative power).
RUBBER_STAMP_BLOCK_RATE = 0.005
FULL_POWER_BLOCK_RATE = 0.05


@dataclass(frozen=True)
class CalibrationBin:
    """Outcomes whose confidence falls in [low, low + 0.1): how many, their mean confidence, and how
    often the other providers' checks of the same agents agree with their verdict (the mean agreement)."""

    low: float
    outcomes: int
    confidence: float
    agreement: float

    @property
    def high(self) -> float:
        return round(min(1.0, self.low + 0.1), 1)

    @property
    def gap(self) -> float:
        """Confidence minus agreement: above 0 the provider is overconfident in this bin."""
        return self.confidence - self.agreement


@dataclass(frozen=True)
class ProviderAudit:
    """A provider's coverage and block rate over its latest summary of each agent, as last refreshed."""

    agents: int
    checks: int
    block_rate: float | None
    last_summary_at: datetime | None
    # When registry.services.audit last computed these; None if it never has.
    computed_at: datetime | None = None
    # Reliability bins of its confidence against the other providers' verdicts (CalibrationBin).
    calibration: tuple[CalibrationBin, ...] = ()

    @property
    def calibration_outcomes(self) -> int:
        return sum(b.outcomes for b in self.calibration)

    @property
    def calibration_error(self) -> float | None:
        """Expected calibration error: the outcome-weighted mean |confidence - agreement| over the bins."""
        total = self.calibration_outcomes
        if not total:
            return None
        return sum(b.outcomes * abs(b.confidence - b.agreement) for b in self.calibration) / total

    @property
    def discriminative_power(self) -> float | None:
        if self.block_rate is None:
            return None
        return max(0.0, min(1.0, self.block_rate / FULL_POWER_BLOCK_RATE))

    @property
    def rubber_stamp(self) -> bool:
        return self.checks > 0 and self.block_rate is not None and self.block_rate < RUBBER_STAMP_BLOCK_RATE


def provider_audit_of(stats: ProviderAuditStats | None) -> ProviderAudit:
    """The audit numbers of one stored row (zeros before the first refresh)."""
    if stats is None:
        return ProviderAudit(0, 0, None, None)
    return ProviderAudit(
        agents=stats.agents,
        checks=stats.checks,
        block_rate=(stats.blocked_checks / stats.checks) if stats.checks else None,
        last_summary_at=stats.last_summary_at,
        computed_at=stats.computed_at,
        calibration=tuple(
            CalibrationBin(low=int(b) / 10, outcomes=int(n), confidence=float(c), agreement=float(a))
            for b, n, c, a in stats.calibration or []
        ),
    )


def provider_audit_stats(*, provider_ids: Iterable[int]) -> dict[int, ProviderAudit]:
    """Per provider, over its latest summary of each agent: agents, checks, check-weighted block rate.

    Read from ProviderAuditStats (one indexed query); registry.services.audit.provider_audit_refresh
    computes them.
    """
    ids = list(provider_ids)
    stored = {row.provider_id: row for row in ProviderAuditStats.objects.filter(provider_id__in=ids)}
    return {pid: provider_audit_of(stored.get(pid)) for pid in ids}


def provider_audit_history(*, provider_id: int, limit: int = 200) -> list[ProviderAuditSnapshot]:
    """The provider's newest `limit` audit snapshots, oldest first (for the block-rate chart)."""
    newest = ProviderAuditSnapshot.objects.filter(provider_id=provider_id).order_by("-computed_at", "-id")
    return list(newest[:limit])[::-1]


# --- collusion and capture ---------------------------------------------------------------------------

# A provider whose covered agents mostly share one owner looks captive rather than independent.
OWNER_CONCENTRATION_FLAG = 0.8
# Two providers whose rates on the same agents differ by less than this look copied from each other.
COPY_RATE_DELTA = 0.005
# A provider whose allow rate sits this far above the other providers' on the same agents is lenient.
LENIENCY_DELTA = 0.15
MIN_SHARED_AGENTS = 5


@dataclass(frozen=True)
class CollusionSignals:
    """Reasons an admin should look closer at a provider; each names the evidence."""

    owner_concentration: float | None
    top_owner: str | None
    copies: list[tuple[str, int, float]]
    leniency: float | None
    lenient_agents: int

    @property
    def flags(self) -> list[str]:
        out = []
        if self.owner_concentration is not None and self.owner_concentration >= OWNER_CONCENTRATION_FLAG:
            out.append(f"{self.owner_concentration:.0%} of its agents belong to {self.top_owner}")
        for slug, shared, delta in self.copies:
            out.append(f"reports the same rates as {slug} on {shared} agents (mean |Δ| {delta:.4f})")
        if self.leniency is not None and self.leniency >= LENIENCY_DELTA:
            out.append(
                f"allows {self.leniency:.0%} more than the other providers on {self.lenient_agents} agents"
            )
        return out


def provider_signals_of(stats: ProviderAuditStats | None) -> CollusionSignals:
    """The collusion signals of one stored row (none before the first refresh)."""
    if stats is None:
        return CollusionSignals(None, None, [], None, 0)
    return CollusionSignals(
        owner_concentration=stats.owner_concentration,
        top_owner=stats.top_owner or None,
        copies=[(str(slug), int(shared), float(delta)) for slug, shared, delta in stats.copies],
        leniency=stats.leniency,
        lenient_agents=stats.lenient_agents,
    )


def provider_collusion_signals(*, provider_ids: Iterable[int]) -> dict[int, CollusionSignals]:
    """Capture (one owner's agents), copying (identical rates) and leniency against peers.

    Read from ProviderAuditStats, as of its computed_at (see registry.services.audit).
    """
    ids = list(provider_ids)
    stored = {row.provider_id: row for row in ProviderAuditStats.objects.filter(provider_id__in=ids)}
    return {pid: provider_signals_of(stored.get(pid)) for pid in ids}


def identity_groups_many(agent_ids: list[int]) -> dict[int, list[int]]:
    """Per agent, the ids of its linked identities (registry.AgentLink), itself included, ascending.

    Two queries for the whole batch: the agents' primaries, then every member of those groups.
    """
    primary_of = dict(
        AgentLink.objects.filter(any_of("agent_id", agent_ids)).values_list("agent_id", "primary_id")
    )
    keys = {primary_of.get(agent_id, agent_id) for agent_id in agent_ids}
    members: dict[int, set[int]] = {key: {key} for key in keys}
    for member, primary in AgentLink.objects.filter(any_of("primary_id", keys)).values_list(
        "agent_id", "primary_id"
    ):
        members[primary].add(member)
    return {
        agent_id: sorted(members[primary_of.get(agent_id, agent_id)] | {agent_id}) for agent_id in agent_ids
    }


def agent_identity_ids(*, agent: Agent) -> set[int]:
    """Ids of the identities linked with `agent` (registry.AgentLink), itself included."""
    return set(identity_groups_many([agent.pk])[agent.pk])


def agent_identities(*, agent: Agent) -> list[Agent]:
    """Every identity of the agent (on every chain), the primary first; just the agent when unlinked."""
    return list(Agent.objects.filter(pk__in=agent_identity_ids(agent=agent)).order_by("created_at", "pk"))
