"""Stored provider audit numbers: equal to a plain reference computation, idempotent, read cheaply."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common import admin as common_admin
from registry.models import (
    Agent,
    Provider,
    ProviderAuditSnapshot,
    ProviderAuditStats,
    VerificationSummary,
)
from registry.selectors import (
    COPY_RATE_DELTA,
    LENIENCY_DELTA,
    MIN_SHARED_AGENTS,
    provider_audit_stats,
    provider_collusion_signals,
)
from registry.services.agents import agent_register
from registry.services.audit import provider_audit_refresh
from registry.services.providers import provider_create

pytestmark = pytest.mark.django_db

BASE = datetime(2026, 11, 1, tzinfo=UTC)
OWNERS = ["", "0x" + "ab" * 20, "0x" + "AB" * 20, "0x" + "cd" * 20]
# Rates on a coarse grid: a mean |Δ| is then either 0 or far from the copy threshold, so float
# summation order (SQL against Python) cannot flip a comparison.
RATES = [0.0, 0.1, 0.3, 0.6, 0.9, 1.0]


def add_summary(
    provider: Provider, agent: Agent, *, allow: float, block: float, checks: int, day: int
) -> None:
    VerificationSummary.objects.create(
        provider=provider,
        agent=agent,
        window_days=7,
        window_end=BASE + timedelta(days=day),
        body_digest="sha256:" + "0" * 64,
        raw_body={},
        allow_rate=allow,
        block_rate=block,
        avg_confidence=0.8,
        total_checks=checks,
    )


def reference(provider_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The audit numbers computed the plain way: every summary into Python, newest per pair."""
    newest: dict[tuple[int, int], VerificationSummary] = {}
    for s in VerificationSummary.objects.select_related("agent").order_by("window_end", "id"):
        newest[(s.provider_id, s.agent_id)] = s
    slugs = dict(Provider.objects.values_list("pk", "slug"))
    mine_of: dict[int, dict[int, VerificationSummary]] = {}
    for (pid, aid), s in newest.items():
        mine_of.setdefault(pid, {})[aid] = s
    out = {}
    for pid in provider_ids:
        mine = mine_of.get(pid, {})
        checks = sum(s.total_checks for s in mine.values())
        blocked = sum(s.block_rate * s.total_checks for s in mine.values())
        owners = Counter(s.agent.owner_address.lower() for s in mine.values() if s.agent.owner_address)
        top = min(owners, key=lambda o: (-owners[o], o)) if owners else None
        copies: list[tuple[str, int]] = []
        lenient: list[float] = []
        for other, theirs in mine_of.items():
            if other == pid:
                continue
            shared = sorted(set(mine) & set(theirs))
            if not shared:
                continue
            deltas = [
                abs(mine[a].allow_rate - theirs[a].allow_rate)
                + abs(mine[a].block_rate - theirs[a].block_rate)
                for a in shared
            ]
            if len(shared) >= MIN_SHARED_AGENTS and sum(deltas) / len(deltas) < COPY_RATE_DELTA:
                copies.append((slugs[other], len(shared)))
            lenient.extend(mine[a].allow_rate - theirs[a].allow_rate for a in shared)
        out[pid] = {
            "agents": len(mine),
            "checks": checks,
            "block_rate": blocked / checks if checks else None,
            "last": max((s.received_at for s in mine.values()), default=None),
            "top_owner": top,
            "concentration": owners[top] / len(mine) if top else None,
            "copies": sorted(copies),
            "leniency": sum(lenient) / len(lenient) if len(lenient) >= MIN_SHARED_AGENTS else None,
            "lenient_agents": len(lenient),
        }
    return out


summary_plan = st.lists(
    st.tuples(
        st.integers(0, 3),  # provider
        st.integers(0, 9),  # agent
        st.sampled_from(RATES),  # allow
        st.sampled_from(RATES),  # block
        st.integers(0, 500),  # checks
        st.integers(0, 3),  # day: several windows per pair, only the newest counts
    ),
    max_size=60,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    plan=summary_plan, owners=st.lists(st.sampled_from(OWNERS), min_size=10, max_size=10), copy=st.booleans()
)
def test_it_stores_the_same_numbers_as_a_plain_computation(
    db: None, plan: list[tuple[int, int, float, float, int, int]], owners: list[str], copy: bool
) -> None:
    with transaction.atomic():
        providers = [provider_create(name=f"P{i}", slug=f"p{i}")[0] for i in range(4)]
        agents = [agent_register(subject_id=f"prop-{i}", owner_address=owners[i]) for i in range(10)]
        seen = set()
        for p, a, allow, block, checks, day in plan:
            if (p, a, day) in seen:
                continue
            seen.add((p, a, day))
            add_summary(providers[p], agents[a], allow=allow, block=block, checks=checks, day=day)
            if copy and p == 0 and (3, a, day) not in seen:
                # Provider 3 copies provider 0 on the same windows: the copy signal must fire alike.
                seen.add((3, a, day))
                add_summary(providers[3], agents[a], allow=allow, block=block, checks=checks, day=day)
        provider_audit_refresh()
        ids = [p.pk for p in providers]
        expected = reference(ids)
        stats = provider_audit_stats(provider_ids=ids)
        signals = provider_collusion_signals(provider_ids=ids)
        for pid in ids:
            want, got, sig = expected[pid], stats[pid], signals[pid]
            assert (got.agents, got.checks, got.last_summary_at) == (
                want["agents"],
                want["checks"],
                want["last"],
            )
            if want["block_rate"] is None:
                assert got.block_rate is None
            else:
                assert got.block_rate == pytest.approx(want["block_rate"], abs=1e-9)
            assert sig.top_owner == want["top_owner"]
            assert sig.owner_concentration == (
                None if want["concentration"] is None else pytest.approx(want["concentration"])
            )
            assert [(slug, shared) for slug, shared, _ in sig.copies] == want["copies"]
            assert sig.lenient_agents == want["lenient_agents"]
            assert sig.leniency == (
                None if want["leniency"] is None else pytest.approx(want["leniency"], abs=1e-9)
            )
        transaction.set_rollback(True)


@pytest.fixture
def three_providers(db: None) -> list[Provider]:
    owner = "0x" + "12" * 20
    providers = [provider_create(name=f"Q{i}", slug=f"q{i}")[0] for i in range(3)]
    for i in range(8):
        agent = agent_register(subject_id=f"idem-{i}", owner_address=owner if i < 7 else "")
        add_summary(providers[0], agent, allow=0.6, block=0.4, checks=100, day=1)
        add_summary(providers[1], agent, allow=0.6, block=0.4, checks=100, day=1)  # a copier
        add_summary(providers[2], agent, allow=1.0, block=0.0, checks=50, day=1)  # lenient rubber stamp
    return providers


def stored_numbers() -> list[tuple[Any, ...]]:
    return list(
        ProviderAuditStats.objects.order_by("provider_id").values_list(
            "provider_id", "agents", "checks", "blocked_checks", "last_summary_at", "owner_concentration",
            "top_owner", "copies", "leniency", "lenient_agents",
        )
    )  # fmt: skip


def test_it_refreshes_idempotently_and_keeps_a_snapshot_per_run(three_providers: list[Provider]) -> None:
    first = provider_audit_refresh()
    once = stored_numbers()
    second = provider_audit_refresh()
    assert first is not None and second is not None and second.computed_at >= first.computed_at
    assert stored_numbers() == once
    assert ProviderAuditStats.objects.filter(computed_at=second.computed_at).count() == 3
    snapshots = ProviderAuditSnapshot.objects.filter(provider=three_providers[0]).order_by("computed_at")
    assert [(s.agents, s.checks, s.block_rate) for s in snapshots] == [(8, 800, pytest.approx(0.4))] * 2


@pytest.mark.parametrize("retention_days", [30, 0])
def test_it_prunes_snapshots_older_than_the_retention_on_refresh(
    three_providers: list[Provider], retention_days: int, settings: Any
) -> None:
    settings.AUDIT_SNAPSHOT_RETENTION_DAYS = retention_days
    now = datetime.now(UTC)
    ages = [400, 31, 29, 1]  # days
    for provider in three_providers:
        ProviderAuditSnapshot.objects.bulk_create(
            ProviderAuditSnapshot(
                provider=provider, computed_at=now - timedelta(days=age), agents=1, checks=1, block_rate=0.0
            )
            for age in ages
        )
    done = provider_audit_refresh()
    assert done is not None
    kept_ages = [age for age in ages if not retention_days or age < retention_days]
    assert done.pruned == 3 * (len(ages) - len(kept_ages))
    for provider in three_providers:
        stored = ProviderAuditSnapshot.objects.filter(provider=provider).order_by("computed_at")
        # The seeded ones inside the retention, then this refresh's own.
        assert [round((now - s.computed_at) / timedelta(days=1)) for s in stored] == [*kept_ages, 0]


def test_it_fires_the_planted_copy_leniency_and_capture_signals(three_providers: list[Provider]) -> None:
    original, copier, stamp = three_providers
    provider_audit_refresh()
    signals = provider_collusion_signals(provider_ids=[p.pk for p in three_providers])
    assert [(slug, shared) for slug, shared, _ in signals[copier.pk].copies] == [("q0", 8)]
    assert [(slug, shared) for slug, shared, _ in signals[original.pk].copies] == [("q1", 8)]
    assert signals[stamp.pk].copies == []
    leniency = signals[stamp.pk].leniency
    assert leniency is not None and leniency >= LENIENCY_DELTA and leniency == pytest.approx(0.4)
    assert signals[stamp.pk].lenient_agents == 16
    assert signals[original.pk].owner_concentration == pytest.approx(7 / 8)
    assert any("belong to" in flag for flag in signals[original.pk].flags)
    assert provider_audit_stats(provider_ids=[stamp.pk])[stamp.pk].rubber_stamp


def test_it_reports_nothing_before_the_first_refresh(three_providers: list[Provider]) -> None:
    audit = provider_audit_stats(provider_ids=[three_providers[0].pk])[three_providers[0].pk]
    assert (audit.agents, audit.checks, audit.block_rate, audit.computed_at) == (0, 0, None, None)
    assert provider_collusion_signals(provider_ids=[three_providers[0].pk])[three_providers[0].pk].flags == []


def changelist_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/admin/registry/provider/")
    assert response.status_code == 200
    return len(queries)


def test_it_lists_providers_in_a_constant_number_of_queries(
    admin_client_logged_in: tuple[Client, Any], three_providers: list[Provider]
) -> None:
    client, _ = admin_client_logged_in
    provider_audit_refresh()
    few = changelist_queries(client)
    more = [provider_create(name=f"R{i}", slug=f"r{i}")[0] for i in range(6)]
    for i in range(30):
        agent = agent_register(subject_id=f"more-{i}")
        for provider in more:
            add_summary(provider, agent, allow=0.9, block=0.05, checks=10, day=2)
    provider_audit_refresh()
    page = client.get("/admin/registry/provider/").content.decode()
    assert changelist_queries(client) == few
    assert 3 <= few <= 12  # session, user, freshness, counts, the providers with their stats
    assert 'id="audit-computed"' in page and "Refresh audit numbers" in page
    # The stored signals are on the list: a short label, the sentence as its tooltip.
    assert re.search(r'title="reports the same rates as q0 on 8 agents[^"]*">⚠ copies q0<', page)
    change = client.get(f"/admin/registry/provider/{three_providers[2].pk}/change/").content.decode()
    assert "⚠ allows 40% more than the other providers on 16 agents" in change


def test_it_draws_the_block_rate_over_time_on_the_providers_admin_page(
    admin_client_logged_in: tuple[Client, Any], three_providers: list[Provider]
) -> None:
    client, _ = admin_client_logged_in
    original = three_providers[0]
    provider_audit_refresh()
    url = f"/admin/registry/provider/{original.pk}/change/"
    assert "Fewer than two audit snapshots" in client.get(url).content.decode()
    agent = Agent.objects.get(subject_id="idem-0")
    add_summary(original, agent, allow=0.2, block=0.8, checks=100, day=2)
    provider_audit_refresh()
    page = client.get(url).content.decode()
    svg = re.search(r"<svg[^>]*Block rate over time.*?</svg>", page, re.S)
    assert svg is not None and "<script" not in svg.group(0)
    assert svg.group(0).count("<circle") == 2
    assert "45.00%" in svg.group(0)  # (7 x 0.4 + 0.8) x 100 / 800 after the newer window


def test_it_refreshes_from_the_admin_button_and_the_command(
    admin_client_logged_in: tuple[Client, Any],
    three_providers: list[Provider],
    committed: Callable[[Callable[[], Any]], Any],
) -> None:
    client, _ = admin_client_logged_in
    url = "/admin/registry/provider/refresh-audit/"
    assert client.get(url).status_code == 405
    assert Client().post(url).status_code == 302  # to the login page
    assert not ProviderAuditStats.objects.exists()
    response = committed(lambda: client.post(url))
    assert response.status_code == 302 and response["Location"].endswith("/admin/registry/provider/")
    assert ProviderAuditStats.objects.count() == 3
    out = StringIO()
    call_command("refresh_provider_audit", stdout=out)
    assert "Refreshed 3 provider(s)" in out.getvalue()
    assert ProviderAuditSnapshot.objects.count() == 6


def test_it_pages_agents_and_summaries_without_counting_the_whole_table(
    admin_client_logged_in: tuple[Client, Any],
    three_providers: list[Provider],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client, _ = admin_client_logged_in
    monkeypatch.setattr(common_admin, "EXACT_COUNT_CAP", 5)
    for model in ("agent", "verificationsummary", "trustscore"):
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/admin/registry/{model}/")
        assert response.status_code == 200
        counts = [q["sql"] for q in queries if "COUNT(" in q["sql"].upper()]
        assert counts, model
        # Every count reads at most EXACT_COUNT_CAP + 1 rows: a LIMITed subquery, never the table.
        assert all("LIMIT 6" in sql for sql in counts), counts
    listing = client.get("/admin/registry/agent/").content.decode()
    assert "idem-0" in listing


def test_it_asks_for_a_providers_agent_by_id_not_in_a_list_of_every_agent(
    admin_client_logged_in: tuple[Client, Any], three_providers: list[Provider]
) -> None:
    client, _ = admin_client_logged_in
    page = client.get(f"/admin/registry/provider/{three_providers[0].pk}/change/").content.decode()
    assert re.search(r'<input type="text" name="agent"[^>]*class="vForeignKeyRawIdAdminField"', page)
    assert "idem-0" not in page  # no <option> per agent


outcome_plan = st.lists(
    st.tuples(
        st.integers(0, 5),  # agent
        st.sampled_from(["ALLOW", "BLOCK", "UNCERTAIN"]),
        st.floats(0.0, 1.0, allow_nan=False),  # confidence
        st.booleans(),  # inside the calibration window or older
    ),
    max_size=40,
)
others_plan = st.lists(
    st.tuples(st.integers(1, 2), st.integers(0, 5), st.sampled_from(RATES), st.integers(0, 300)), max_size=12
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(outcomes=outcome_plan, others=others_plan)
def test_it_bins_a_providers_confidence_against_the_other_providers_like_a_plain_computation(
    db: None, outcomes: list[tuple[int, str, float, bool]], others: list[tuple[int, int, float, int]]
) -> None:
    from registry.models import CheckOutcome
    from registry.services.audit import CALIBRATION_WINDOW_DAYS

    with transaction.atomic():
        providers = [provider_create(name=f"P{i}", slug=f"cal-{i}")[0] for i in range(3)]
        agents = [agent_register(subject_id=f"cal-agent-{i}", registry="other") for i in range(6)]
        now = datetime.now(UTC)
        for index, (agent, verdict, confidence, recent) in enumerate(outcomes):
            CheckOutcome.objects.create(
                provider=providers[0],
                agent=agents[agent],
                outcome_id=f"o-{index}",
                verdict=verdict,
                reported_verdict=verdict,
                confidence=confidence,
                checked_at=now - timedelta(days=1 if recent else CALIBRATION_WINDOW_DAYS + 1),
                body_digest="sha256:" + "0" * 64,
            )
        # Provider 0 reports on every agent (its outcomes roll up into summaries); the others on some.
        for each in agents:
            add_summary(providers[0], each, allow=0.5, block=0.5, checks=10, day=0)
        newest: dict[tuple[int, int], tuple[float, int]] = {}  # one summary per (provider, agent)
        for pid, agent, block, checks in others:
            newest[(pid, agent)] = (block, checks)
        for (pid, agent), (block, checks) in newest.items():
            add_summary(providers[pid], agents[agent], allow=1.0 - block, block=block, checks=checks, day=0)
        provider_audit_refresh()
        stored = provider_audit_stats(provider_ids=[providers[0].pk])[providers[0].pk].calibration

        # The plain way: the others' check-weighted block share per agent.
        share: dict[int, float] = {}
        for agent in range(6):
            mine = [(b, c) for (pid, a), (b, c) in newest.items() if a == agent and c > 0]
            if mine:
                share[agent] = sum(b * c for b, c in mine) / sum(c for _, c in mine)
        bins: dict[int, list[tuple[float, float]]] = {}
        for agent, verdict, confidence, recent in outcomes:
            if not recent or verdict == "UNCERTAIN" or agent not in share:
                continue
            agree = share[agent] if verdict == "BLOCK" else 1 - share[agent]
            tenth = sum(confidence >= k / 10 for k in range(1, 10))  # [0, 0.1) is 0, ..., [0.9, 1] is 9
            bins.setdefault(tenth, []).append((confidence, agree))
        expected = [
            (n / 10, len(rows), sum(c for c, _ in rows) / len(rows), sum(a for _, a in rows) / len(rows))
            for n, rows in sorted(bins.items())
        ]
        assert [(b.low, b.outcomes) for b in stored] == [(low, count) for low, count, _, _ in expected]
        for got, (_, _, confidence, agreement) in zip(stored, expected, strict=True):
            assert got.confidence == pytest.approx(confidence, abs=1e-4)
            assert got.agreement == pytest.approx(agreement, abs=1e-4)
        transaction.set_rollback(True)


def test_it_shows_the_calibration_of_a_providers_confidence_on_its_page(db: None) -> None:
    from registry.models import CheckOutcome

    sure, other = provider_create(name="Sure", slug="sure")[0], provider_create(name="Other", slug="other")[0]
    agent = agent_register(subject_id="cal-page", registry="other")
    add_summary(sure, agent, allow=0.1, block=0.9, checks=20, day=0)
    add_summary(other, agent, allow=0.75, block=0.25, checks=20, day=0)
    for index in range(4):  # BLOCK at 0.95 while the other provider blocks a quarter of the checks
        CheckOutcome.objects.create(
            provider=sure,
            agent=agent,
            outcome_id=f"s-{index}",
            verdict="BLOCK",
            reported_verdict="BLOCK",
            confidence=0.95,
            checked_at=datetime.now(UTC) - timedelta(hours=1),
            body_digest="sha256:" + "0" * 64,
        )
    before = Client().get("/providers/sure").content.decode()
    assert "Calibration of its confidence" in before and "Not measured yet" in before
    provider_audit_refresh()
    html = Client().get("/providers/sure").content.decode()
    assert "Not measured yet" not in html
    assert '<td data-label="Confidence">0.9–1.0</td>' in html
    assert '<td data-label="Agreement">0.25</td>' in html and '<td data-label="Gap">+0.70</td>' in html
    assert "Expected calibration error 0.700 over 4 outcomes" in html
