"""The public agent pages render the score, its breakdown and who was left out."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from registry.services.agents import agent_register
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
    return "agent-page"


def test_it_shows_the_score_breakdown_and_excluded_providers(agent_with_providers: str) -> None:
    from registry.models import Agent

    response = Client().get(f"/agents/{agent_with_providers}")
    assert response.status_code == 200
    html = response.content.decode()
    agent = Agent.objects.get(subject_id=agent_with_providers)
    assert str(agent.trust_score) in html
    assert "output-verification.quality" in html
    assert "left out: self-reported" in html


def test_it_lists_scored_agents_by_score(agent_with_providers: str) -> None:
    html = Client().get("/agents/").content.decode()
    assert "Page agent" in html


def test_it_answers_404_for_an_unknown_agent(db: None) -> None:
    assert Client().get("/agents/nobody").status_code == 404
