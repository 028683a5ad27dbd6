"""Read-side queries shared by the API and the admin."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, F, Max, OuterRef, Subquery, Sum

from .models import Agent, VerificationSummary

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


# Below this block rate a verifier is close to a rubber stamp (SPEC: discriminative power).
RUBBER_STAMP_BLOCK_RATE = 0.005
FULL_POWER_BLOCK_RATE = 0.05


@dataclass(frozen=True)
class ProviderAudit:
    agents: int
    checks: int
    block_rate: float | None
    last_summary_at: datetime | None

    @property
    def discriminative_power(self) -> float | None:
        if self.block_rate is None:
            return None
        return max(0.0, min(1.0, self.block_rate / FULL_POWER_BLOCK_RATE))

    @property
    def rubber_stamp(self) -> bool:
        return self.checks > 0 and self.block_rate is not None and self.block_rate < RUBBER_STAMP_BLOCK_RATE


def provider_audit_stats(*, provider_ids: Iterable[int]) -> dict[int, ProviderAudit]:
    """Per provider, over its latest summary of each agent: agents, checks, check-weighted block rate."""
    ids = list(provider_ids)
    newest = (
        VerificationSummary.objects.filter(provider_id=OuterRef("provider_id"), agent_id=OuterRef("agent_id"))
        .order_by("-window_end", "-id")
        .values("id")[:1]
    )
    rows = (
        VerificationSummary.objects.filter(provider_id__in=ids, id=Subquery(newest))
        .values("provider_id")
        .annotate(
            agents=Count("agent_id", distinct=True),
            checks=Sum("total_checks"),
            blocked=Sum(F("block_rate") * F("total_checks")),
            last=Max("received_at"),
        )
    )
    out = {pid: ProviderAudit(0, 0, None, None) for pid in ids}
    for row in rows:
        checks = int(row["checks"] or 0)
        out[row["provider_id"]] = ProviderAudit(
            agents=row["agents"],
            checks=checks,
            block_rate=(float(row["blocked"]) / checks) if checks else None,
            last_summary_at=row["last"],
        )
    return out


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


def _latest_by_provider(
    provider_ids: list[int] | None = None,
) -> dict[int, dict[int, tuple[float, float, str]]]:
    """provider -> agent -> (allow rate, block rate, agent owner) of the newest summary."""
    newest = (
        VerificationSummary.objects.filter(provider_id=OuterRef("provider_id"), agent_id=OuterRef("agent_id"))
        .order_by("-window_end", "-id")
        .values("id")[:1]
    )
    rows = VerificationSummary.objects.filter(id=Subquery(newest))
    if provider_ids is not None:
        shared_agents = VerificationSummary.objects.filter(provider_id__in=provider_ids).values("agent_id")
        rows = rows.filter(agent_id__in=shared_agents)
    out: dict[int, dict[int, tuple[float, float, str]]] = {}
    for provider_id, agent_id, allow, block, owner in rows.values_list(
        "provider_id", "agent_id", "allow_rate", "block_rate", "agent__owner_address"
    ):
        out.setdefault(provider_id, {})[agent_id] = (allow, block, (owner or "").lower())
    return out


def provider_collusion_signals(*, provider_ids: Iterable[int]) -> dict[int, CollusionSignals]:
    """Capture (one owner's agents), copying (identical rates) and leniency against peers."""
    from .models import Provider

    ids = list(provider_ids)
    latest = _latest_by_provider(ids)
    slugs = dict(Provider.objects.values_list("pk", "slug"))
    out: dict[int, CollusionSignals] = {}
    for pid in ids:
        mine = latest.get(pid, {})
        owners = [owner for _, _, owner in mine.values() if owner]
        top_owner, concentration = None, None
        if owners:
            top_owner = max(set(owners), key=owners.count)
            concentration = owners.count(top_owner) / len(mine)
        copies = []
        lenient_deltas: list[float] = []
        for other, theirs in latest.items():
            if other == pid:
                continue
            shared = set(mine) & set(theirs)
            if not shared:
                continue
            deltas = [abs(mine[a][0] - theirs[a][0]) + abs(mine[a][1] - theirs[a][1]) for a in shared]
            if len(shared) >= MIN_SHARED_AGENTS and sum(deltas) / len(deltas) < COPY_RATE_DELTA:
                copies.append((slugs.get(other, str(other)), len(shared), sum(deltas) / len(deltas)))
            lenient_deltas.extend(mine[a][0] - theirs[a][0] for a in shared)
        leniency = (
            sum(lenient_deltas) / len(lenient_deltas) if len(lenient_deltas) >= MIN_SHARED_AGENTS else None
        )
        out[pid] = CollusionSignals(concentration, top_owner, copies, leniency, len(lenient_deltas))
    return out
