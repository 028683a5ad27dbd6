"""Read-side queries shared by the API and the admin."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, F, Max, OuterRef, Subquery, Sum

from .models import VerificationSummary

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
