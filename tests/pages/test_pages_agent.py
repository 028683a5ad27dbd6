"""The public agent pages render the score, its breakdown and who was left out."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from registry.services.agents import agent_register
from registry.services.audit import provider_audit_refresh
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest

OWNER = "0x" + "12" * 20


@pytest.fixture
def agent_with_providers(db: None, django_capture_on_commit_callbacks: Any) -> str:
    agent_register(subject_id="agent-page", name="Page agent", registry="hcs-10", owner_address=OWNER)
    fair, _ = provider_create(name="Fair", slug="fair")
    own, _ = provider_create(name="Own", slug="own", operator_address=OWNER)
    body = {
        "agent": "agent-page",
        "allowRate": 0.9,
        "blockRate": 0.1,
        "avgConfidence": 0.8,
        "totalChecks": 40,
    }
    with django_capture_on_commit_callbacks(execute=True):
        summaries_ingest(provider=fair, bodies=[body])
        summaries_ingest(provider=own, bodies=[{**body, "blockRate": 0.0}])
    # The provider pages show the stored audit numbers: the beat's refresh, run here at once.
    provider_audit_refresh()
    return "agent-page"


def test_it_shows_the_score_breakdown_and_excluded_providers(agent_with_providers: str) -> None:
    from registry.models import Agent

    response = Client().get(f"/agents/{agent_with_providers}")
    assert response.status_code == 200
    html = response.content.decode()
    agent = Agent.objects.get(subject_id=agent_with_providers)
    assert str(agent.trust_score) in html
    assert "output-verification.quality" in html
    # Each component says in one line what it measures, and the page links the methodology.
    assert "How many checks back the quality figure" in html and 'href="/docs/scoring"' in html
    assert "left out: self-reported" in html


def test_it_flags_a_rubber_stamp_provider_and_shows_disagreement(
    db: None, django_capture_on_commit_callbacks: Any
) -> None:
    agent_register(subject_id="agent-two", name="Two", registry="hcs-10")
    strict, _ = provider_create(name="Strict", slug="strict")
    stamp, _ = provider_create(name="Stamp", slug="stamp")
    body = {"agent": "agent-two", "allowRate": 0.7, "blockRate": 0.3, "avgConfidence": 0.8, "totalChecks": 50}
    with django_capture_on_commit_callbacks(execute=True):
        summaries_ingest(provider=strict, bodies=[body])
        summaries_ingest(provider=stamp, bodies=[{**body, "allowRate": 1.0, "blockRate": 0.0}])
    html = Client().get("/agents/agent-two").content.decode()
    stamp_row = html[html.index('href="/providers/stamp"') :]
    assert "rubber stamp" in stamp_row[: stamp_row.index("</tr>")]
    strict_row = html[html.index('href="/providers/strict"') :]
    assert "rubber stamp" not in strict_row[: strict_row.index("</tr>")]
    assert "Disagreement between the counted providers" in html


def test_it_lists_scored_agents_by_score(agent_with_providers: str) -> None:
    html = Client().get("/agents/").content.decode()
    assert "Page agent" in html


def test_it_answers_404_for_an_unknown_agent(db: None) -> None:
    assert Client().get("/agents/nobody").status_code == 404


def test_it_shows_an_unrated_agent_as_not_rated_rather_than_zero(db: None) -> None:
    agent_register(subject_id="agent-new", name="New agent", registry="hcs-10")
    html = Client().get("/agents/agent-new").content.decode()
    assert "Not rated yet" in html
    assert "0.0 / 100" not in html and "/ 100" not in html
    assert "none UTC" not in html
    # No link to an attestation the registry refuses to sign.
    assert "trust-score/attestation" not in html


def test_it_lists_unrated_agents_after_rated_ones_without_a_score(agent_with_providers: str) -> None:
    agent_register(subject_id="agent-new", name="New agent", registry="hcs-10")
    Client().get("/agents/agent-new")  # scores it (unrated)
    html = Client().get("/agents/").content.decode()
    assert html.index("Page agent") < html.index("New agent")
    row = html[html.index("New agent") :]
    assert "not rated yet" in row[: row.index("</tr>")]


def test_it_draws_the_score_history_as_inline_svg_and_says_how_old_it_is(
    agent_with_providers: str, django_capture_on_commit_callbacks: Any
) -> None:
    from registry.models import Provider

    later = {
        "agent": "agent-page",
        "allowRate": 0.5,
        "blockRate": 0.3,
        "avgConfidence": 0.7,
        "totalChecks": 90,
    }
    with django_capture_on_commit_callbacks(execute=True):
        summaries_ingest(provider=Provider.objects.get(slug="fair"), bodies=[later])
    response = Client().get(f"/agents/{agent_with_providers}")
    html = response.content.decode()
    assert '<svg class="chart"' in html and "<polyline points=" in html
    assert html.count("<circle ") == 2
    assert "<script" not in html
    assert " ago</time>" in html and "changes on its own in" in html
    assert '<link rel="icon" href="data:image/svg+xml,' in html
    # Every table cell names its column, so the narrow-screen layout can stack rows.
    assert 'data-label="Trust score"' in html


def test_it_serves_the_engine_providers_methodology_url(db: None) -> None:
    from verification.services.engine_provider import engine_provider

    path = engine_provider().methodology_url.split("://", 1)[-1]
    path = path[path.index("/") :]
    response = Client().get(path)
    assert response.status_code == 200, path
    html = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert "<h1>" in html and "<script" not in html
    # Links between served docs stay on the site.
    scoring = Client().get("/docs/scoring").content.decode()
    assert "<h1>" in scoring


def test_it_answers_a_person_with_an_html_404_and_a_client_with_a_problem(db: None) -> None:
    page = Client().get("/docs/no-such-page")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert "Not found" in page.content.decode()
    missing = Client().get("/nowhere/at-all")
    assert missing.status_code == 404 and missing["Content-Type"].startswith("text/html")
    api = Client().get("/api/v1/nowhere")
    assert api.status_code == 404 and api["Content-Type"] == "application/problem+json"


def test_it_searches_filters_and_pages_the_directory(agent_with_providers: str) -> None:
    from registry.views import AGENTS_PER_PAGE

    for n in range(AGENTS_PER_PAGE + 2):
        agent_register(subject_id=f"bulk-{n:02d}", name=f"Bulk {n}", registry="other")
    client = Client()
    assert "Page agent" in client.get("/agents/?q=page").content.decode()
    assert "Bulk 1" not in client.get("/agents/?q=page").content.decode()
    rated = client.get("/agents/?rated=true").content.decode()
    assert "Page agent" in rated and "Bulk" not in rated
    unrated = client.get("/agents/?rated=false&registry=other").content.decode()
    assert "Page agent" not in unrated and 'rel="prev"' not in unrated
    # Cursor pages, as in the API: the next link keeps the filters and carries the cursor.
    following = re.search(r'href="\?([^"]+)" rel="next"', unrated)
    assert following is not None
    next_query = unescape(following.group(1))
    assert "rated=false" in next_query and "registry=other" in next_query and "cursor=" in next_query
    second = client.get(f"/agents/?{next_query}").content.decode()
    assert 'rel="prev"' in second and 'rel="next"' not in second
    shown = re.findall(r">Bulk (\d+)<", unrated) + re.findall(r">Bulk (\d+)<", second)
    assert sorted(shown, key=int) == [str(n) for n in range(AGENTS_PER_PAGE + 2)]
    tampered = client.get(f"/agents/?{next_query}x")
    assert tampered.status_code == 400 and "cursor" in tampered.content.decode()
    assert "Page agent" in client.get("/agents/?provider=fair").content.decode()
    assert "Page agent" not in client.get("/agents/?min_score=101").content.decode()
    bad = client.get("/agents/?min_score=lots")
    assert bad.status_code == 400 and "min_score" in bad.content.decode()


def test_it_filters_rated_agents_in_the_api_like_the_page(agent_with_providers: str) -> None:
    agent_register(subject_id="agent-new", registry="hcs-10")
    Client().get("/agents/agent-new")
    rated = Client().get("/api/v1/agents?rated=true").json()["results"]
    unrated = Client().get("/api/v1/agents?rated=false").json()["results"]
    assert [a["subjectId"] for a in rated] == ["agent-page"]
    assert [a["subjectId"] for a in unrated] == ["agent-new"]


def test_it_shows_a_providers_page_with_its_audit_and_agents(agent_with_providers: str) -> None:
    agent_page = Client().get(f"/agents/{agent_with_providers}").content.decode()
    assert 'href="/providers/fair"' in agent_page
    response = Client().get("/providers/fair")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Fair" in html and "10.00%" in html and "Page agent" in html
    assert "<script" not in html and "Rubber stamp" not in html
    stamp = Client().get("/providers/own").content.decode()
    assert "Rubber stamp" in stamp
    assert Client().get("/providers/nobody").status_code == 404


def test_it_answers_a_person_with_an_html_500_and_a_client_with_a_problem() -> None:
    from django.test import RequestFactory

    from common.errors import handler500

    page = handler500(RequestFactory().get("/agents/someone"))
    assert page.status_code == 500 and page["Content-Type"].startswith("text/html")
    assert "Something went wrong" in page.content.decode()
    api = handler500(RequestFactory().get("/api/v1/agents"))
    assert api.status_code == 500 and api["Content-Type"] == "application/problem+json"
