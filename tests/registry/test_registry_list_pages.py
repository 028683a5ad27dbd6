"""The agent list at scale: cursor pages through the API, the provider semi-join, and plans (PostgreSQL).

Every ordering is walked page by page through the `next` links (and back through `previous`) over
random scores, ties and unrated agents; scores change mid-walk; cursors are tampered with; and the
list's SQL, captured from a real request, is EXPLAINed to show it is one index range with no sort.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from registry.models import Agent, Provider, TrustScore, VerificationSummary
from registry.services.scoring import scoring_config_current
from tests.registry.registry_support import list_plan, nodes

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="plans and scale are PostgreSQL's"),
]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
REGISTRIES = ["other", "hcs-10", "erc-8004"]
_tags = itertools.count()

# (score or None when never scored, rated, minutes after T0 of the score)
AgentSpec = tuple[Decimal | None, bool, int]
agent_specs = st.lists(
    st.tuples(
        # Few distinct scores, so ties are common.
        st.one_of(
            st.none(), st.sampled_from([Decimal("0"), Decimal("12.5"), Decimal("50"), Decimal("99.99")])
        ),
        st.booleans(),
        st.integers(0, 4),
    ),
    min_size=0,
    max_size=14,
)


def score_agent(agent: Agent, score: Decimal, *, rated: bool, at: datetime) -> None:
    """Store a score for `agent` and point the agent at it, as the scoring service's writes do."""
    record = TrustScore.objects.create(
        agent=agent,
        config=scoring_config_current(),
        trust_score=score,
        trust_confidence=Decimal("0.5") if rated else Decimal("0"),
        record={"trustScore": float(score)},
        inputs={},
        inputs_digest="sha256:" + "0" * 64,
        computed_at=at,
    )
    Agent.objects.filter(pk=agent.pk).update(
        latest_score=record, trust_score=score, trust_score_updated_at=at
    )


def population(specs: list[AgentSpec]) -> tuple[str, list[Agent]]:
    """Agents tagged with a protocol of their own (so each example lists only its own agents)."""
    tag = f"walk{next(_tags)}"
    made = []
    for i, (score, rated, minutes) in enumerate(specs):
        agent = Agent.objects.create(subject_id=f"{tag}x{i:03d}", registry=REGISTRIES[i % 3], protocol=tag)
        if score is not None:
            score_agent(agent, score, rated=rated, at=T0 + timedelta(minutes=minutes))
        made.append(agent)
    return tag, [Agent.objects.get(pk=a.pk) for a in made]


def expected(agents: list[Agent], ordering: str) -> list[str]:
    """The documented order: NULL keys (unrated, never updated) last both ways, ties by id in the
    ordering's direction; rated means the newest score's confidence is above 0."""
    down = ordering.startswith("-")
    field = ordering.lstrip("-")

    if field == "subject":  # unique: no tie-break
        return sorted((a.subject_id for a in agents), reverse=down)

    def key(agent: Agent) -> Any:
        rated = agent.latest_score is not None and agent.latest_score.trust_confidence > 0
        value = (agent.trust_score if rated else None) if field == "score" else agent.trust_score_updated_at
        return (
            value is None,
            (-1 if down else 1) * (value.timestamp() if isinstance(value, datetime) else value or 0),
        )

    ordered = sorted(agents, key=lambda a: (key(a), -a.pk if down else a.pk))
    return [a.subject_id for a in ordered]


def walk(api: APIClient, query: str) -> tuple[list[str], list[dict[str, Any]]]:
    """Follow `next` from the first page; (subject ids in order, the pages' bodies)."""
    url: str | None = f"/api/v1/agents?{query}"
    seen, pages = [], []
    while url is not None:
        response = api.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        pages.append(body)
        seen += [a["subjectId"] for a in body["results"]]
        url = body["next"]
        assert len(pages) < 200, "the walk does not end"
    return seen, pages


def walk_back(api: APIClient, last_page: dict[str, Any]) -> list[str]:
    """Follow `previous` from the last page back to the first; subject ids in list order."""
    seen = [a["subjectId"] for a in last_page["results"]]
    url = last_page["previous"]
    while url is not None:
        body = api.get(url).json()
        seen = [a["subjectId"] for a in body["results"]] + seen
        url = body["previous"]
    return seen


ORDERINGS = ["-score", "score", "-updated", "updated", "subject", "-subject"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=agent_specs, limit=st.integers(1, 5), registry=st.sampled_from([None, *REGISTRIES]))
def test_it_walks_every_agent_exactly_once_in_each_ordering(
    api: APIClient, specs: list[AgentSpec], limit: int, registry: str | None
) -> None:
    tag, agents = population(specs)
    if registry is not None:
        agents = [a for a in agents if a.registry == registry]
    for ordering in ORDERINGS:
        query = f"protocol={tag}&ordering={ordering}&limit={limit}" + (
            f"&registry={registry}" if registry else ""
        )
        seen, pages = walk(api, query)
        assert seen == expected(agents, ordering), ordering
        assert all(len(p["results"]) == limit for p in pages[:-1])
        assert "count" not in pages[0]
        # Back from the last page through `previous`: the same rows, the same order.
        assert walk_back(api, pages[-1]) == seen, ordering


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=agent_specs,
    limit=st.integers(1, 5),
    bound=st.sampled_from(
        [Decimal("-1"), Decimal("0"), Decimal("12.5"), Decimal("50"), Decimal("100"), Decimal("2000")]
    ),
)
def test_it_lists_the_same_agents_under_a_score_bound_in_each_ordering(
    api: APIClient, specs: list[AgentSpec], limit: int, bound: Decimal
) -> None:
    # min_score / max_score also bound the ordering's index key (unrated agents, whose key is past
    # every score, must still be judged by their stored score alone).
    tag, agents = population(specs)
    for name, keep in (
        ("max_score", lambda a: a.trust_score <= bound),
        ("min_score", lambda a: a.trust_score >= bound),
    ):
        chosen = [a for a in agents if a.trust_score is not None and keep(a)]
        for ordering in ORDERINGS:
            seen, _ = walk(api, f"protocol={tag}&ordering={ordering}&limit={limit}&{name}={bound}")
            assert seen == expected(chosen, ordering), (name, ordering)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=agent_specs.filter(lambda s: len(s) >= 4),
    limit=st.integers(1, 4),
    moves=st.lists(st.tuples(st.integers(0, 13), st.sampled_from([Decimal("1"), Decimal("75")])), max_size=6),
)
def test_it_shows_unchanged_agents_once_while_scores_change_mid_walk(
    api: APIClient, specs: list[AgentSpec], limit: int, moves: list[tuple[int, Decimal]]
) -> None:
    tag, agents = population(specs)
    moved: set[str] = set()
    url: str | None = f"/api/v1/agents?protocol={tag}&limit={limit}"
    seen: list[str] = []
    pending = list(moves)
    while url is not None:
        body = api.get(url).json()
        seen += [a["subjectId"] for a in body["results"]]
        url = body["next"]
        if pending:
            index, score = pending.pop()
            agent = agents[index % len(agents)]
            if agent.subject_id not in moved:
                # Rescored between two pages, as a recompute would.
                score_agent(agent, score, rated=True, at=T0 + timedelta(hours=1))
                moved.add(agent.subject_id)
    counts = Counter(seen)
    for agent in agents:
        if agent.subject_id in moved:
            # Keyset semantics: shown before and after its move at most, or skipped if it moved behind.
            assert counts[agent.subject_id] <= 2
        else:
            assert counts[agent.subject_id] == 1, agent.subject_id


def test_it_counts_only_when_asked_and_caps_the_count(api: APIClient) -> None:
    tag, _ = population([(Decimal("10"), True, 0)] * 5)
    assert "count" not in api.get(f"/api/v1/agents?protocol={tag}").json()
    counted = api.get(f"/api/v1/agents?protocol={tag}&count=exact&limit=2").json()
    assert counted["count"] == 5 and counted["countCapped"] is False and len(counted["results"]) == 2
    bad = api.get("/api/v1/agents?count=all")
    assert bad.status_code == 400 and [e["field"] for e in bad.json()["errors"]] == ["count"]


def test_it_refuses_a_tampered_or_foreign_cursor_as_a_problem_naming_cursor(api: APIClient) -> None:
    tag, _ = population([(Decimal("10"), True, 0), (Decimal("20"), True, 1), (None, False, 0)])
    first = api.get(f"/api/v1/agents?protocol={tag}&limit=1").json()
    cursor = parse_qs(urlsplit(first["next"]).query)["cursor"][0]
    assert api.get(f"/api/v1/agents?protocol={tag}&limit=1&cursor={cursor}").status_code == 200
    flipped = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    for bad in (
        f"cursor={flipped}",
        f"cursor={cursor}x",
        "cursor=not-a-cursor",
        "cursor=" + "A" * 5000,
        f"cursor={cursor}&ordering=subject",  # made for -score
        f"cursor={cursor}&offset=10",
    ):
        response = api.get(f"/api/v1/agents?protocol={tag}&{bad}")
        assert response.status_code == 400, bad
        assert response["Content-Type"].startswith("application/problem+json")
        assert [e["field"] for e in response.json()["errors"]] == ["cursor"], bad


def test_it_keeps_a_bounded_offset_for_old_clients(api: APIClient) -> None:
    tag, agents = population([(Decimal(n), True, 0) for n in range(5)])
    page = api.get(f"/api/v1/agents?protocol={tag}&limit=2&offset=2").json()
    assert [a["subjectId"] for a in page["results"]] == expected(agents, "-score")[2:4]
    assert page["count"] == 5 and "offset=4" in page["next"] and "offset=0" in page["previous"]
    too_deep = api.get("/api/v1/agents?offset=10001")
    assert too_deep.status_code == 400 and [e["field"] for e in too_deep.json()["errors"]] == ["offset"]
    assert api.get("/api/v1/agents?ordering=score,subject").status_code == 400


def test_it_lists_an_agent_reported_in_several_windows_once_for_its_provider(
    api: APIClient, make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    provider, _ = make_provider("windows")
    other, _ = make_provider("elsewhere")
    tag, agents = population([(Decimal("40"), True, 0), (Decimal("60"), True, 0), (None, False, 0)])
    for n, (agent, source) in enumerate(itertools.product(agents[:2], [provider, provider, provider, other])):
        VerificationSummary.objects.create(
            provider=source,
            agent=agent,
            window_days=7,
            window_end=T0 + timedelta(days=n),
            body_digest="sha256:" + "1" * 64,
            raw_body={},
            allow_rate=0.9,
            block_rate=0.1,
            avg_confidence=0.9,
            total_checks=100,
        )
    VerificationSummary.objects.create(
        provider=other,
        agent=agents[2],
        window_days=7,
        window_end=T0,
        body_digest="sha256:" + "2" * 64,
        raw_body={},
        allow_rate=0.9,
        block_rate=0.1,
        avg_confidence=0.9,
        total_checks=100,
    )
    seen, _ = walk(api, f"protocol={tag}&provider=windows&limit=1")
    assert seen == [agents[1].subject_id, agents[0].subject_id]
    assert walk(api, f"protocol={tag}&provider=elsewhere&limit=2")[0] == expected(agents, "-score")
    assert walk(api, f"protocol={tag}&provider=nobody")[0] == []


def test_it_keeps_the_rank_trigger_in_step_with_the_newest_score(db: None) -> None:
    _, (agent,) = population([(Decimal("70"), True, 0)])
    assert agent.trust_rank == Decimal("70")
    score_agent(agent, Decimal("0"), rated=False, at=T0 + timedelta(hours=1))
    agent.refresh_from_db()
    assert agent.trust_rank is None
    # A save of a stale copy cannot leave a rank that disagrees with the score it points at.
    agent.trust_rank = Decimal("99")
    agent.save()
    agent.refresh_from_db()
    assert agent.trust_rank is None


# --- plans ------------------------------------------------------------------------------------------

PLAN_AGENTS = 4000


@pytest.fixture
def big_table(make_provider: Callable[..., tuple[Provider, str]]) -> dict[str, Any]:
    """A few thousand agents, scored (a tenth unrated) and reported on by one provider, analysed."""
    provider, _ = make_provider("planned")
    config = scoring_config_current()
    agents = Agent.objects.bulk_create(
        Agent(
            subject_id=f"plan-{i:05d}",
            name=f"Agent {i} weather" if i % 50 == 0 else f"Agent {i}",
            registry=REGISTRIES[i % 3],
        )
        for i in range(PLAN_AGENTS)
    )
    scores = TrustScore.objects.bulk_create(
        TrustScore(
            agent=a,
            config=config,
            trust_score=Decimal(i % 997) / 10,
            trust_confidence=Decimal("0") if i % 10 == 0 else Decimal("0.6"),
            record={},
            inputs={},
            inputs_digest="sha256:" + "0" * 64,
            computed_at=T0 + timedelta(seconds=i),
        )
        for i, a in enumerate(agents)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE registry_agent a SET latest_score_id = s.id, trust_score = s.trust_score, "
            "trust_score_updated_at = s.computed_at FROM registry_trustscore s WHERE s.agent_id = a.id "
            "AND a.subject_id LIKE 'plan-%%'"
        )
    VerificationSummary.objects.bulk_create(
        VerificationSummary(
            provider=provider,
            agent=a,
            window_days=7,
            window_end=T0,
            body_digest="sha256:" + "1" * 64,
            raw_body={},
            allow_rate=0.9,
            block_rate=0.1,
            avg_confidence=0.9,
            total_checks=100,
        )
        for a in agents
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE registry_agent")
        cursor.execute("ANALYZE registry_verificationsummary")
    return {"scores": scores}


# (query, the index (or indexes) its pages may read)
PLANNED = [
    ("", "agent_rank_desc"),
    ("ordering=score", "agent_rank_asc"),
    ("ordering=-updated", "agent_updated_desc"),
    ("ordering=updated", "agent_updated_asc"),
    ("ordering=subject", "registry_agent_subject_id"),
    ("ordering=-subject", "registry_agent_subject_id"),
    ("registry=hcs-10", "agent_registry_rank_desc"),
    ("registry=erc-8004&ordering=score", "agent_registry_rank_asc"),
    # With the score fixed, the index's id order serves too: the planner picks by the unrated share.
    ("rated=false", ("agent_rank_desc", "registry_agent_pkey")),
    ("rated=false&ordering=score", ("agent_rank_asc", "registry_agent_pkey")),
    ("rated=true&ordering=score", "agent_rank_asc"),
    ("provider=planned", "agent_rank_desc"),
    ("max_score=50", "agent_rank_desc"),
    ("min_score=50&ordering=score", "agent_rank_asc"),
    ("registry=hcs-10&max_score=50", "agent_registry_rank_desc"),
]


def test_it_reads_a_list_page_as_one_index_range_without_sorting(
    api: APIClient, big_table: dict[str, Any]
) -> None:
    # One table for every case: building it is most of the test's time.
    for query, index in PLANNED:
        first = api.get(f"/api/v1/agents?{query}&limit=20").json()
        cursor = parse_qs(urlsplit(first["next"]).query)["cursor"][0]
        for page in (f"{query}&limit=20", f"{query}&limit=20&cursor={cursor}"):
            plan = list_plan(api, page)
            scans = [n for n in nodes(plan) if n.get("Relation Name") == "registry_agent"]
            assert [n["Node Type"] for n in scans] in (["Index Scan"], ["Index Only Scan"]), (page, plan)
            assert scans[0]["Index Name"].startswith(index), (page, plan)  # str.startswith takes a tuple
            assert not [n for n in nodes(plan) if n["Node Type"] in ("Sort", "Incremental Sort")], (
                page,
                plan,
            )
            if "cursor" in page:
                # The cursor bounds the index range; it is not a filter over rows read from its start.
                condition = scans[0].get("Index Cond", "")
                assert ">" in condition or "<" in condition, (page, plan)


def test_it_starts_a_score_bounded_page_at_the_bound(api: APIClient, big_table: dict[str, Any]) -> None:
    # Without the bound on the index key the walk reads every better agent first (a sequential scan
    # at 1 M); with it the first page's range starts at the bound.
    for query, sign in (("max_score=50", "<="), ("min_score=50&ordering=score", ">=")):
        plan = list_plan(api, f"{query}&limit=20")
        scans = [n for n in nodes(plan) if n.get("Relation Name") == "registry_agent"]
        assert [n["Node Type"] for n in scans] in (["Index Scan"], ["Index Only Scan"]), (query, plan)
        assert sign in scans[0].get("Index Cond", ""), (query, plan)


def outer_nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan's nodes outside its InitPlans (the subqueries run once before it)."""
    found = [plan]
    for child in plan.get("Plans", []):
        if child.get("Parent Relationship") != "InitPlan":
            found += outer_nodes(child)
    return found


def test_it_reads_a_searchs_candidates_by_primary_key(api: APIClient, big_table: dict[str, Any]) -> None:
    # Orderings other than -score, and prefixes several words begin with: the candidates are collected
    # once (an InitPlan reading at most AGENT_SEARCH_MAX_MATCHES word-index entries) and the page reads
    # them by id, whatever the table's size; no scan of the table or its orderings' indexes.
    for query in (
        "q=plan-0012",
        "q=WEATHER&ordering=subject",
        "q=agent&ordering=-updated",
        "q=agent 1&ordering=score",
    ):
        plan = list_plan(api, query)
        scans = [n for n in outer_nodes(plan) if n.get("Relation Name") == "registry_agent"]
        assert [(n["Node Type"], n.get("Index Name")) for n in scans] == [
            ("Index Scan", "registry_agent_pkey")
        ], (query, plan)
        assert "ANY" in scans[0]["Index Cond"], (query, plan)
        assert [n for n in nodes(plan) if n.get("Parent Relationship") == "InitPlan"], (query, plan)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(specs=agent_specs, limit=st.integers(1, 5), ordering=st.sampled_from(ORDERINGS))
def test_it_walks_a_search_exactly_once_in_each_ordering(
    api: APIClient, specs: list[AgentSpec], limit: int, ordering: str
) -> None:
    tag, agents = population(specs)
    # Upper case: the search ignores case. `walk1x` does not match `walk10x...` of another example.
    seen, pages = walk(api, f"q={tag.upper()}X&ordering={ordering}&limit={limit}")
    assert seen == expected(agents, ordering)
    if pages[-1]["results"]:
        assert walk_back(api, pages[-1]) == seen


def test_it_ranks_at_most_the_search_cap_of_matches_each_once(api: APIClient) -> None:
    tag, agents = population([(Decimal(i), True, i % 5) for i in range(9)])
    with override_settings(AGENT_SEARCH_MAX_MATCHES=5):
        for ordering in ("-score", "subject"):
            seen, pages = walk(api, f"q={tag}x&ordering={ordering}&limit=2")
            assert len(seen) == len(set(seen)) == 5
            # The capped set, in the ordering asked.
            assert seen == [subject for subject in expected(agents, ordering) if subject in seen]
            assert walk_back(api, pages[-1]) == seen
            capped = api.get(f"/api/v1/agents?q={tag}x&ordering={ordering}&count=exact").json()
            assert (capped["count"], capped["countCapped"]) == (5, False)
