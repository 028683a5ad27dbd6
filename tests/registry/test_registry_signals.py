"""The registry tells the apps built on it what changed through its signals (registry/signals.py), so it
imports none of them: a score stored, a provider suspended, an agent page shown."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import Client

from registry.models import Provider
from registry.services.agents import agent_register
from registry.services.providers import provider_set_status
from registry.services.scoring import trust_score_compute
from registry.signals import ScoreChange, agent_page_shown, provider_suspended, score_changes


@pytest.fixture
def heard() -> Iterator[Callable[[Any], list[dict[str, Any]]]]:
    """Connect a recording receiver to a signal for the test; returns what it heard."""
    connected: list[tuple[Any, Callable[..., Any]]] = []

    def listen(signal: Any) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = []

        def receiver(**kwargs: Any) -> dict[str, Any]:
            calls.append(kwargs)
            return {"extra_from_receiver": "shown"}

        signal.connect(receiver, weak=False)
        connected.append((signal, receiver))
        return calls

    yield listen
    for signal, receiver in connected:
        signal.disconnect(receiver)


def test_it_announces_a_suspension_with_the_provider_and_the_reason(
    make_provider: Callable[..., tuple[Provider, str]], heard: Callable[[Any], list[dict[str, Any]]]
) -> None:
    provider, _ = make_provider("checker")
    calls = heard(provider_suspended)
    provider_set_status(provider=provider, status=Provider.Status.SUSPENDED, reason="forged")
    provider_set_status(provider=provider, status=Provider.Status.ACTIVE)
    assert [(c["provider"], c["reason"]) for c in calls] == [(provider, "forged")]


def test_it_announces_each_new_score_against_the_one_it_replaces(
    db: None, heard: Callable[[Any], list[dict[str, Any]]]
) -> None:
    agent = agent_register(subject_id="agent-signals")
    calls = heard(score_changes)
    trust_score_compute(agent=agent)
    assert len(calls) == 1
    (change,) = calls[0]["changes"]
    assert isinstance(change, ScoreChange)
    assert change.subject_id == "agent-signals" and change.previous_score is None


def test_it_adds_what_the_receivers_answer_to_the_agent_page(
    db: None, client: Client, heard: Callable[[Any], list[dict[str, Any]]]
) -> None:
    agent = agent_register(subject_id="agent-page-signals")
    calls = heard(agent_page_shown)
    response = client.get("/agents/agent-page-signals")
    assert response.status_code == 200
    assert [c["agent"] for c in calls] == [agent]
    assert response.context["extra_from_receiver"] == "shown"
