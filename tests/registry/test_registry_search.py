"""The agent search (`q=`) through the API, read from the word index (registry/search.py, PostgreSQL).

What matches (words of the name and subject id, begun by every word of the query, any case), how the
index follows renames and rescores (database triggers), cursor walks through a search, hostile
queries, and the plan of a -score search page (one range of the word index, no sort).
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from registry.models import Agent, AgentSearchTerm, TrustScore
from registry.services.scoring import scoring_config_current
from tests.registry.registry_support import list_plan, nodes

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the word index is PostgreSQL's"),
]

T0 = datetime(2026, 1, 1, tzinfo=UTC)
_tags = itertools.count()


def score(agent: Agent, value: Decimal | None, *, rated: bool = True) -> None:
    """Point `agent` at a new score (None: never scored), as the scoring service's writes do."""
    if value is None:
        Agent.objects.filter(pk=agent.pk).update(latest_score=None, trust_score=None)
        return
    record = TrustScore.objects.create(
        agent=agent,
        config=scoring_config_current(),
        trust_score=value,
        trust_confidence=Decimal("0.5") if rated else Decimal("0"),
        record={},
        inputs={},
        inputs_digest="sha256:" + "0" * 64,
        computed_at=T0,
    )
    Agent.objects.filter(pk=agent.pk).update(
        latest_score=record, trust_score=value, trust_score_updated_at=T0
    )


def make(subject_id: str, name: str = "", value: Decimal | None = None, *, rated: bool = True) -> Agent:
    agent = Agent.objects.create(subject_id=subject_id, name=name)
    score(agent, value, rated=rated)
    return agent


def found(api: APIClient, query: str) -> list[str]:
    response = api.get(f"/api/v1/agents?{query}")
    assert response.status_code == 200, response.content
    return [a["subjectId"] for a in response.json()["results"]]


def walk(api: APIClient, query: str) -> list[str]:
    url: str | None = f"/api/v1/agents?{query}"
    seen: list[str] = []
    while url is not None:
        body = api.get(url).json()
        seen += [a["subjectId"] for a in body["results"]]
        url = body["next"]
        assert len(seen) < 1000
    return seen


def test_it_finds_agents_by_a_word_of_the_name_or_subject_id(api: APIClient) -> None:
    make("did:web:forecast.example", "Swift Weather bot", Decimal("80"))
    make("did:web:chess.example", "Calm chess player", Decimal("90"))
    make("scale:agent-0000123", "Agent 123", Decimal("10"))
    assert found(api, "q=weather") == ["did:web:forecast.example"]
    assert found(api, "q=forecast") == ["did:web:forecast.example"]
    assert found(api, "q=0000123") == ["scale:agent-0000123"]
    # A word inside another is not a match: words are compared from their start.
    assert found(api, "q=eather") == []
    assert found(api, "q=web") == ["did:web:chess.example", "did:web:forecast.example"]


def test_it_finds_agents_by_the_beginning_of_a_word(api: APIClient) -> None:
    make("a-1", "Weather bot", Decimal("50"))
    make("a-2", "Weatherly", Decimal("60"))
    make("a-3", "Wealth advisor", Decimal("70"))
    assert found(api, "q=weat") == ["a-2", "a-1"]
    assert found(api, "q=wea") == ["a-3", "a-2", "a-1"]
    assert found(api, "q=weatherl") == ["a-2"]
    assert found(api, "q=weat&ordering=subject") == ["a-1", "a-2"]


def test_it_finds_an_agent_by_its_whole_subject_id(api: APIClient) -> None:
    make("scale:agent-0000123", "Swift weather agent 123")
    make("scale:agent-0000124", "Swift weather agent 124")
    make("scale:agent-0012300", "Calm chess agent 12300")
    assert found(api, "q=scale:agent-0000123") == ["scale:agent-0000123"]
    assert found(api, "q=SCALE:AGENT-0000123") == ["scale:agent-0000123"]
    # Every word begins a word of the agent's: "00001" begins both 0000123 and 0000124.
    assert sorted(found(api, "q=agent-00001")) == ["scale:agent-0000123", "scale:agent-0000124"]


def test_it_needs_every_word_of_the_query(api: APIClient) -> None:
    make("m-1", "Swift weather agent", Decimal("30"))
    make("m-2", "Calm weather agent", Decimal("40"))
    make("m-3", "Swift chess agent", Decimal("50"))
    assert found(api, "q=swift weather") == ["m-1"]
    assert found(api, "q=weather swift") == ["m-1"]
    assert found(api, "q=agent swift") == ["m-3", "m-1"]
    assert found(api, "q=swift+calm") == []
    assert found(api, "q=sw we ag") == ["m-1"]
    assert found(api, "q=agent weather&ordering=score") == ["m-1", "m-2"]


def test_it_ignores_case_and_matches_unicode_words(api: APIClient) -> None:
    make("u-1", "Café Über bot", Decimal("50"))
    make("u-2", "日本 エージェント", Decimal("60"))
    make("u-3", "CAFETERIA", Decimal("70"))
    assert found(api, "q=CAFÉ") == ["u-1"]
    assert found(api, "q=über") == ["u-1"]
    assert found(api, "q=ÜBER café") == ["u-1"]
    assert found(api, "q=caf") == ["u-3", "u-1"]
    assert found(api, "q=日本") == ["u-2"]


def test_it_finds_a_renamed_agent_by_its_new_name_only(api: APIClient) -> None:
    agent = make("r-1", "Old weather bot", Decimal("50"))
    assert found(api, "q=weather") == ["r-1"]
    agent.name = "Fresh chess engine"
    agent.save()
    assert found(api, "q=weather") == []
    assert found(api, "q=old") == []
    assert found(api, "q=chess engine") == ["r-1"]
    Agent.objects.filter(pk=agent.pk).update(subject_id="r-renamed")
    assert found(api, "q=r-1") == []
    assert found(api, "q=renamed chess") == ["r-renamed"]
    # The index rows are the agent's current words, nothing left of the old ones.
    terms = set(AgentSearchTerm.objects.filter(agent=agent).values_list("term", flat=True))
    assert terms == {"fresh", "chess", "engine", "r", "renamed"}


def test_it_moves_a_rescored_agent_in_the_search_results(api: APIClient) -> None:
    low = make("s-low", "Weather low", Decimal("20"))
    make("s-mid", "Weather mid", Decimal("50"))
    unrated = make("s-unrated", "Weather unrated")
    assert found(api, "q=weather") == ["s-mid", "s-low", "s-unrated"]
    score(low, Decimal("90"))
    assert found(api, "q=weather") == ["s-low", "s-mid", "s-unrated"]
    score(unrated, Decimal("60"))
    assert found(api, "q=weather") == ["s-low", "s-unrated", "s-mid"]
    # Scored but not rated (confidence 0): unrated, last.
    score(low, Decimal("99"), rated=False)
    assert found(api, "q=weather") == ["s-unrated", "s-mid", "s-low"]
    assert found(api, "q=weather&rated=false") == ["s-low"]


def test_it_drops_a_deleted_agent_from_the_index(api: APIClient) -> None:
    agent = make("d-1", "Weather doomed", Decimal("20"))
    Agent.objects.filter(pk=agent.pk).delete()
    assert found(api, "q=doomed") == []
    assert not AgentSearchTerm.objects.filter(agent_id=agent.pk).exists()


SCORES = st.one_of(
    st.none(), st.sampled_from([Decimal("0"), Decimal("12.5"), Decimal("50"), Decimal("99.99")])
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    specs=st.lists(st.tuples(SCORES, st.booleans()), min_size=0, max_size=12),
    limit=st.integers(1, 4),
    ordering=st.sampled_from(["-score", "score", "subject", "-updated"]),
    moves=st.lists(st.tuples(st.integers(0, 11), st.sampled_from([Decimal("5"), Decimal("95")])), max_size=3),
)
def test_it_walks_a_search_by_cursor_showing_each_unmoved_match_once(
    api: APIClient,
    specs: list[tuple[Decimal | None, bool]],
    limit: int,
    ordering: str,
    moves: list[tuple[int, Decimal]],
) -> None:
    tag = f"searchwalk{next(_tags)}"
    agents = []
    for i, (value, matching) in enumerate(specs):
        # Every agent has the tag as a word of its subject id; half also have "keen" in the name.
        agent = make(f"{tag}:{i:03d}", "Keen finder" if matching else "Other finder", value)
        agents.append(agent)
    wanted = {a.subject_id for a, (_, matching) in zip(agents, specs, strict=True) if matching}
    # Without changes: exactly the matches, in the ordering asked, each once, both ways.
    expected = found(api, f"q={tag} keen&ordering={ordering}&limit=1000")
    assert set(expected) == wanted and len(expected) == len(wanted)
    assert walk(api, f"q=keen {tag.upper()}&ordering={ordering}&limit={limit}") == expected
    # Rescored between pages: an agent whose keys did not change is shown exactly once.
    moved: set[str] = set()
    url: str | None = f"/api/v1/agents?q={tag} keen&ordering={ordering}&limit={limit}"
    seen: list[str] = []
    pending = list(moves)
    while url is not None:
        body = api.get(url).json()
        seen += [a["subjectId"] for a in body["results"]]
        url = body["next"]
        if pending and agents:
            index, value = pending.pop()
            agent = agents[index % len(agents)]
            score(agent, value)
            moved.add(agent.subject_id)
    unmoved = [s for s in expected if s not in moved]
    assert [s for s in seen if s not in moved] == unmoved


def test_it_pages_a_search_back_and_forth_through_the_word_index(api: APIClient) -> None:
    agents = [make(f"p-{i:02d}", "Pager weather", Decimal(i % 4)) for i in range(9)]
    agents.append(make("p-none", "Pager weather"))
    everything = found(api, "q=pager&limit=100")
    assert len(everything) == 10 and everything[-1] == "p-none"
    first = api.get("/api/v1/agents?q=pager&limit=3").json()
    second = api.get(first["next"]).json()
    back = api.get(second["previous"]).json()
    assert [a["subjectId"] for a in back["results"]] == everything[:3]
    assert [a["subjectId"] for a in second["results"]] == everything[3:6]
    counted = api.get("/api/v1/agents?q=pager weather&count=exact&limit=2").json()
    assert counted["count"] == 10 and counted["countCapped"] is False


@pytest.mark.parametrize(
    ("query", "status"),
    [
        ("q=" + "w" * 201, 400),
        ("q=" + "weather " * 9, 400),
        ("q=we%00ather", 400),
        ("q=%00", 400),
        ("q=%25", 200),
        ("q=_", 200),
        ("q=%25weather%25", 200),
        ("q=w_ather", 200),
        ("q=...---!!!", 200),
        ("q=%E2%80%A8.%E2%80%A8", 200),
        ("q=%F4%8F%BF%BF", 200),
        ("q=%27%3B%20DROP%20TABLE%20registry_agent%3B--", 200),
        ("q=" + "\u00e9" * 200, 200),
        ("q=" + "9" * 200, 200),
        ("q=weather&cursor=abc", 400),
    ],
)
def test_it_answers_a_hostile_search_with_a_400_or_the_words_it_holds(
    api: APIClient, query: str, status: int
) -> None:
    make("h-1", "Weather bot", Decimal("50"))
    response = api.get(f"/api/v1/agents?{query}")
    assert response.status_code == status, response.content
    if status == 400:
        assert response["Content-Type"].startswith("application/problem+json")
        return
    subjects = [a["subjectId"] for a in response.json()["results"]]
    # Wildcards and punctuation only separate words: `%weather%` is the word weather; `w_ather` is
    # two words (w, ather) that no agent begins words with together; punctuation alone matches nothing.
    assert subjects == (["h-1"] if "weather" in query else [])
    directory = api.get(f"/agents/?{query}")
    assert directory.status_code == 200


def test_it_answers_the_directorys_search_and_refuses_a_hostile_one(api: APIClient) -> None:
    make("dir-1", "Directory weather", Decimal("50"))
    assert "dir-1" in api.get("/agents/?q=weather").content.decode()
    assert api.get("/agents/?q=we%00").status_code == 400
    assert api.get("/agents/?q=" + "w" * 201).status_code == 400


def test_it_reads_a_best_first_search_page_as_one_range_of_the_word_index(api: APIClient) -> None:
    # Enough agents that reading the word's range beats scanning: a tenth of them have the word.
    config = scoring_config_current()
    agents = Agent.objects.bulk_create(
        Agent(subject_id=f"idx-{i:05d}", name=f"Agent {i} weather" if i % 10 == 0 else f"Agent {i}")
        for i in range(3000)
    )
    scores = TrustScore.objects.bulk_create(
        TrustScore(
            agent=a,
            config=config,
            trust_score=Decimal(i % 997) / 10,
            trust_confidence=Decimal("0.6"),
            record={},
            inputs={},
            inputs_digest="sha256:" + "0" * 64,
            computed_at=T0 + timedelta(seconds=i),
        )
        for i, a in enumerate(agents)
    )
    for agent, record in zip(agents, scores, strict=True):
        agent.latest_score, agent.trust_score = record, record.trust_score
    Agent.objects.bulk_update(agents, ["latest_score", "trust_score"], batch_size=1000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE registry_agent")
        cursor.execute("ANALYZE registry_agentsearchterm")
    first = api.get("/api/v1/agents?q=weather&limit=20").json()
    queries = (
        "q=weather&limit=20",
        "q=WEATH&limit=20",
        f"q=weather&limit=20&cursor={_cursor(first)}",
        # Unrated agents are the key -1 of the word's range, not a filter over the rated ones first.
        "q=weather&limit=20&rated=false",
    )
    for query in queries:
        plan = list_plan(api, query)
        kinds = [n["Node Type"] for n in nodes(plan)]
        assert "Sort" not in kinds and "Seq Scan" not in kinds, (query, plan)
        scans = [n for n in nodes(plan) if n.get("Relation Name") == "registry_agentsearchterm"]
        assert [n.get("Index Name") for n in scans] == ["agent_search_term_rank"], (query, plan)
        condition = scans[0]["Index Cond"]
        assert "term" in condition, (query, plan)
        if "cursor" in query or "rated" in query:
            # The cursor bounds the index range; it is not a filter over rows read from its start.
            assert "rank" in condition, (query, plan)


def _cursor(page: dict[str, Any]) -> str:
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(page["next"]).query)["cursor"][0]


def test_it_walks_several_common_words_through_the_best_entries_of_the_rarest(api: APIClient) -> None:
    # Both words have more entries than the cap: the -score walk filters the driving word's best
    # AGENT_SEARCH_MAX_MATCHES entries by the other word and stops there; other orderings rank the same set.
    for i in range(8):
        make(f"c-{i}", "Keen weather" if i % 2 else "Calm weather", Decimal(10 * i))
    for i in range(12):
        make(f"k-{i}", "Keen chess", Decimal(5))
    with override_settings(AGENT_SEARCH_MAX_MATCHES=4):
        # The best four weather agents: c-7, c-6, c-5, c-4; of those, keen: c-7, c-5.
        assert found(api, "q=keen weather") == ["c-7", "c-5"]
        assert found(api, "q=weather keen&ordering=subject") == ["c-5", "c-7"]
        first = api.get("/api/v1/agents?q=keen+weather&limit=1").json()
        assert [a["subjectId"] for a in api.get(first["next"]).json()["results"]] == ["c-5"]
    assert found(api, "q=keen weather") == ["c-7", "c-5", "c-3", "c-1"]


def test_it_backfills_the_index_of_agents_written_before_it(api: APIClient) -> None:
    from importlib import import_module

    migration = import_module("registry.migrations.0014_agent_search_terms")
    for i in range(7):
        make(f"old-{i}", f"Legacy weather {i}", Decimal(i))
    # As before migration 0014: agents without index rows (and one row that is already there).
    AgentSearchTerm.objects.exclude(agent__subject_id="old-3", term="legacy").delete()
    assert found(api, "q=legacy weather") == []
    with connection.schema_editor() as editor:
        migration.search_terms_backfill(editor, chunk=2)
    assert found(api, "q=legacy weather") == [f"old-{i}" for i in reversed(range(7))]
    assert found(api, "q=old-3") == ["old-3"]


def test_it_finds_the_unrated_matches_of_a_search_in_every_ordering(api: APIClient) -> None:
    make("un-0", "Keen weather", Decimal("1"))
    make("un-1", "Keen weather", Decimal("11"), rated=False)
    make("un-2", "Keen weather", Decimal("21"))
    make("un-3", "Keen weather", Decimal("31"), rated=False)
    make("un-4", "Keen weather")
    make("un-5", "Keen weather")
    unrated = ["un-1", "un-3", "un-4", "un-5"]
    assert sorted(found(api, "q=weather&rated=false")) == unrated
    assert found(api, "q=weather&rated=false&ordering=subject") == unrated
    with override_settings(AGENT_SEARCH_MAX_MATCHES=2):
        # More matches than the cap: the entries read are unrated ones (the best two by key, then id).
        assert found(api, "q=weather&rated=false&ordering=subject") == ["un-4", "un-5"]
        assert found(api, "q=keen weather&rated=false") == ["un-5", "un-4"]
    assert sorted(found(api, "q=weather&rated=true")) == ["un-0", "un-2"]
