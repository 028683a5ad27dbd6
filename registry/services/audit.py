"""Per-provider audit statistics and collusion signals, computed in SQL and stored.

The admin's provider list and the public provider page read ProviderAuditStats; this refresh is the
only place that looks at every summary. It runs on the beat (AUDIT_REFRESH_INTERVAL_SECONDS), from the
admin's "Refresh now" button and from `manage.py refresh_provider_audit`.

One pass: the newest summary of each (agent, provider) goes into a temporary table (PostgreSQL:
DISTINCT ON over the summary_latest order; SQLite: ROW_NUMBER), and every number is an aggregate over
it: per provider (agents, checks, block rate, last summary), per (provider, owner) for capture, and per
pair of providers joined on the agent for copying and leniency. Nothing row-sized comes back to Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from ..models import Provider, ProviderAuditSnapshot, ProviderAuditStats
from ..selectors import COPY_RATE_DELTA, MIN_SHARED_AGENTS

# pg_advisory_xact_lock key: one refresh at a time (beat and an admin click may overlap).
REFRESH_LOCK_KEY = 0x5245_4155_4449_54  # "REAUDIT"
# A refresh reads every summary once; at a million agents that is seconds, more than the request
# statement timeout allows, so the refresh's own transaction gets a larger bound.
REFRESH_STATEMENT_TIMEOUT_MS = 600_000
REFRESH_WORK_MEM = "64MB"

_LATEST_POSTGRES = """
CREATE TEMP TABLE audit_latest ON COMMIT DROP AS
SELECT DISTINCT ON (s.agent_id, s.provider_id)
       s.agent_id, s.provider_id, s.allow_rate, s.block_rate, s.total_checks, s.received_at
FROM registry_verificationsummary s
ORDER BY s.agent_id, s.provider_id, s.window_end DESC, s.id DESC
"""

_LATEST_SQLITE = """
CREATE TEMP TABLE audit_latest AS
SELECT agent_id, provider_id, allow_rate, block_rate, total_checks, received_at FROM (
    SELECT s.agent_id, s.provider_id, s.allow_rate, s.block_rate, s.total_checks, s.received_at,
           ROW_NUMBER() OVER (
               PARTITION BY s.agent_id, s.provider_id ORDER BY s.window_end DESC, s.id DESC
           ) AS newest
    FROM registry_verificationsummary s
) ranked WHERE newest = 1
"""

_PER_PROVIDER = """
SELECT provider_id, COUNT(*), SUM(total_checks), SUM(block_rate * total_checks), MAX(received_at)
FROM audit_latest GROUP BY provider_id
"""

# The most frequent non-empty owner per provider; ties go to the smallest address so a refresh of
# the same data always names the same owner.
_TOP_OWNER = """
SELECT provider_id, owner, n FROM (
    SELECT provider_id, owner, n,
           ROW_NUMBER() OVER (PARTITION BY provider_id ORDER BY n DESC, owner) AS rank_in_provider
    FROM (
        SELECT l.provider_id, LOWER(a.owner_address) AS owner, COUNT(*) AS n
        FROM audit_latest l JOIN registry_agent a ON a.id = l.agent_id
        WHERE a.owner_address <> ''
        GROUP BY l.provider_id, LOWER(a.owner_address)
    ) counted
) ranked WHERE rank_in_provider = 1
"""

# Each unordered pair once, joined on the agent; the reverse direction is the mirror image (same
# count and mean |Δ|, opposite allow-rate difference).
_PAIRS = """
SELECT m.provider_id, t.provider_id, COUNT(*),
       AVG(ABS(m.allow_rate - t.allow_rate) + ABS(m.block_rate - t.block_rate)),
       SUM(m.allow_rate - t.allow_rate)
FROM audit_latest m JOIN audit_latest t ON t.agent_id = m.agent_id AND t.provider_id > m.provider_id
GROUP BY m.provider_id, t.provider_id
"""


# How a provider's confidence is calibrated, with no ground truth to hand: each of its decided outcomes
# (ALLOW or BLOCK) of the last CALIBRATION_WINDOW_DAYS is set against what the other providers say of
# the same agent, their check-weighted block share over their latest summaries. A BLOCK "agrees" by that
# share, an ALLOW by its complement. Binned by tenths of confidence ([0, 0.1) ... [0.9, 1]): in a
# calibrated provider the mean agreement of each bin is near its mean confidence. Agents no other
# provider reports on are left out.
CALIBRATION_WINDOW_DAYS = 30
CALIBRATION_BINS = 10

_CALIBRATION = """
SELECT o.provider_id,
       CASE WHEN o.confidence < 0.1 THEN 0 WHEN o.confidence < 0.2 THEN 1 WHEN o.confidence < 0.3 THEN 2
            WHEN o.confidence < 0.4 THEN 3 WHEN o.confidence < 0.5 THEN 4 WHEN o.confidence < 0.6 THEN 5
            WHEN o.confidence < 0.7 THEN 6 WHEN o.confidence < 0.8 THEN 7 WHEN o.confidence < 0.9 THEN 8
            ELSE 9 END AS bin,
       COUNT(*),
       AVG(o.confidence),
       AVG(CASE WHEN o.verdict = 'BLOCK' THEN x.block_share ELSE 1 - x.block_share END)
FROM registry_checkoutcome o
JOIN (
    SELECT m.agent_id, m.provider_id,
           SUM(t.block_rate * t.total_checks) / SUM(t.total_checks) AS block_share
    FROM audit_latest m
    JOIN audit_latest t ON t.agent_id = m.agent_id AND t.provider_id <> m.provider_id AND t.total_checks > 0
    GROUP BY m.agent_id, m.provider_id
) x ON x.agent_id = o.agent_id AND x.provider_id = o.provider_id
WHERE o.verdict IN ('ALLOW', 'BLOCK') AND o.checked_at >= %s AND o.confidence >= 0
GROUP BY 1, 2
ORDER BY 1, 2
"""


@dataclass(frozen=True)
class AuditRefresh:
    """What one refresh stored."""

    computed_at: datetime
    providers: int
    pruned: int = 0  # snapshots deleted as older than AUDIT_SNAPSHOT_RETENTION_DAYS


def _as_datetime(value: Any) -> datetime | None:
    """A raw cursor's timestamp: PostgreSQL gives aware datetimes, SQLite gives UTC text."""
    if value is None or isinstance(value, datetime):
        return value
    parsed = parse_datetime(str(value))
    if parsed is not None and timezone.is_naive(parsed):
        parsed = parsed.replace(tzinfo=UTC)
    return parsed


def _locked(cursor: Any, *, wait: bool) -> bool:
    if connection.vendor != "postgresql":
        # SQLite serialises writers on its own (IMMEDIATE transactions).
        return True
    if wait:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [REFRESH_LOCK_KEY])
        return True
    cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [REFRESH_LOCK_KEY])
    return bool(cursor.fetchone()[0])


def provider_audit_refresh(*, wait: bool = True) -> AuditRefresh | None:
    """Recompute every provider's audit numbers and collusion signals; store them and a snapshot.

    Idempotent: the stored numbers depend only on the summaries (a snapshot row is added per run).
    With wait=False, returns None at once when another refresh holds the lock (its result is as fresh).
    """
    postgres = connection.vendor == "postgresql"
    with transaction.atomic(), connection.cursor() as cursor:
        if not _locked(cursor, wait=wait):
            return None
        computed_at = timezone.now()
        # Dropped by name as well as ON COMMIT: inside an outer transaction (a test, a caller's atomic
        # block) this is only a savepoint and the table would outlive it.
        drop = (
            "DROP TABLE IF EXISTS pg_temp.audit_latest"
            if postgres
            else "DROP TABLE IF EXISTS temp.audit_latest"
        )
        cursor.execute(drop)
        if postgres:
            cursor.execute(f"SET LOCAL statement_timeout = {REFRESH_STATEMENT_TIMEOUT_MS}")
            cursor.execute(f"SET LOCAL work_mem = '{REFRESH_WORK_MEM}'")
            cursor.execute(_LATEST_POSTGRES)
            # Temporary tables are never analysed by autovacuum; the joins below need row counts.
            cursor.execute("ANALYZE audit_latest")
        else:
            cursor.execute(_LATEST_SQLITE)
        cursor.execute(_PER_PROVIDER)
        per_provider = {row[0]: row[1:] for row in cursor.fetchall()}
        cursor.execute(_TOP_OWNER)
        top_owner = {row[0]: (row[1], int(row[2])) for row in cursor.fetchall()}
        cursor.execute(_PAIRS)
        pairs = cursor.fetchall()
        cursor.execute(_CALIBRATION, [computed_at - timedelta(days=CALIBRATION_WINDOW_DAYS)])
        calibration: dict[int, list[list[Any]]] = {}
        for pid, bin_index, count, confidence, agreement in cursor.fetchall():
            calibration.setdefault(pid, []).append(
                [int(bin_index), int(count), round(float(confidence), 4), round(float(agreement), 4)]
            )
        cursor.execute(drop)

        slugs = dict(Provider.objects.values_list("pk", "slug"))
        copies: dict[int, list[list[Any]]] = {pid: [] for pid in slugs}
        lenient_sum: dict[int, float] = dict.fromkeys(slugs, 0.0)
        lenient_n: dict[int, int] = dict.fromkeys(slugs, 0)
        for first, second, shared, mean_delta, allow_diff in pairs:
            shared, mean_delta, allow_diff = int(shared), float(mean_delta), float(allow_diff)
            for mine, theirs, signed in ((first, second, allow_diff), (second, first, -allow_diff)):
                if mine not in slugs:
                    continue
                lenient_sum[mine] += signed
                lenient_n[mine] += shared
                if shared >= MIN_SHARED_AGENTS and mean_delta < COPY_RATE_DELTA:
                    copies[mine].append([slugs.get(theirs, str(theirs)), shared, mean_delta])

        stats, snapshots = [], []
        for pid in slugs:
            agents, checks, blocked, last = per_provider.get(pid, (0, 0, 0.0, None))
            agents, checks, blocked = int(agents), int(checks or 0), float(blocked or 0.0)
            owner, owned = top_owner.get(pid, ("", 0))
            row = ProviderAuditStats(
                provider_id=pid,
                agents=agents,
                checks=checks,
                blocked_checks=blocked,
                last_summary_at=_as_datetime(last),
                owner_concentration=(owned / agents) if owner and agents else None,
                top_owner=owner,
                copies=sorted(copies[pid]),
                leniency=(lenient_sum[pid] / lenient_n[pid]) if lenient_n[pid] >= MIN_SHARED_AGENTS else None,
                lenient_agents=lenient_n[pid],
                calibration=calibration.get(pid, []),
                computed_at=computed_at,
            )
            stats.append(row)
            snapshots.append(
                ProviderAuditSnapshot(
                    provider_id=pid,
                    computed_at=computed_at,
                    agents=agents,
                    checks=checks,
                    block_rate=(blocked / checks) if checks else None,
                )
            )
        fields = [f.name for f in ProviderAuditStats._meta.concrete_fields if not f.primary_key]
        ProviderAuditStats.objects.bulk_create(
            stats, update_conflicts=True, unique_fields=["provider"], update_fields=fields
        )
        ProviderAuditSnapshot.objects.bulk_create(snapshots)
        pruned = audit_snapshots_prune(now=computed_at, provider_ids=list(slugs))
    return AuditRefresh(computed_at=computed_at, providers=len(stats), pruned=pruned)


def audit_snapshots_prune(*, now: datetime, provider_ids: list[int] | None = None) -> int:
    """Delete snapshots older than AUDIT_SNAPSHOT_RETENTION_DAYS (none when it is 0); returns how many.

    Per provider, so each delete is a range of the (provider, -computed_at) index.
    """
    days = settings.AUDIT_SNAPSHOT_RETENTION_DAYS
    if days <= 0:
        return 0
    if provider_ids is None:
        provider_ids = list(Provider.objects.values_list("pk", flat=True))
    cutoff = now - timedelta(days=days)
    deleted = 0
    for provider_id in provider_ids:
        # Nothing refers to a snapshot: Django deletes them with one DELETE, no rows fetched.
        old = ProviderAuditSnapshot.objects.filter(provider_id=provider_id, computed_at__lt=cutoff)
        deleted += old.delete()[0]
    return deleted
