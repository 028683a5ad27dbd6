"""Weighting providers by their canary accuracy (issue 21 item 3): real check endpoints on loopback, the
summaries and trust-score API, PostgreSQL and the recompute queue."""

from __future__ import annotations

import json
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from adapters.params import AccuracyWeighting, ScoringParams
from canaries.services.accuracy import provider_accuracy_refresh
from canaries.services.sending import canary_round_run
from common.errors import ApplicationError
from registry.models import Agent, PendingRecompute, Provider, ProviderAccuracy
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from registry.services.scoring import accuracy_counts, scoring_config_create, scoring_config_current
from verification.engine.runs.config import RunVerifierConfig
from verification.engine.runs.verify import verify_run

pytestmark = pytest.mark.django_db

Answer = Callable[[dict[str, Any]], tuple[int, bytes]]
Start = Callable[[Answer], Any]

# What each provider reports about the agent: a discerning one (blocks 10 %, quality 81) and a
# lenient one (blocks 1 %, quality 17.1), on the same number of checks so that unweighted they count
# the same.
DISCERNING = {"allowRate": 0.9, "blockRate": 0.1, "uncertainRate": 0.0, "avgConfidence": 0.9}
LENIENT = {"allowRate": 0.95, "blockRate": 0.01, "uncertainRate": 0.0, "avgConfidence": 0.9}


def engine_verdict(run: dict[str, Any]) -> tuple[int, bytes]:
    """A provider that really verifies: our own run verifier, BLOCK when it finds a hallucination."""
    report = verify_run(run["messages"], run.get("tools") or [], config=RunVerifierConfig()).to_dict()
    verdict = "BLOCK" if report["hallucination_detected"] else "ALLOW"
    return 200, json.dumps({"verdict": verdict, "confidence": 0.9}).encode()


def rubber_stamp(run: dict[str, Any]) -> tuple[int, bytes]:
    return 200, b'{"verdict": "ALLOW", "confidence": 0.99}'


def _provider(slug: str, url: str) -> tuple[Provider, str]:
    provider, issued = provider_create(name=slug.title(), slug=slug, check_endpoint=url)
    assert issued is not None
    return provider, issued.plaintext


def _push(key: str, body: dict[str, Any], capture: Any) -> None:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    with capture(execute=True):
        response = client.post(
            "/api/v1/summaries", {**body, "totalChecks": 100, "windowDays": 7}, format="json"
        )
    assert response.status_code in (200, 201), response.content


def _record(subject: str) -> dict[str, Any]:
    response = APIClient().get(f"/api/v1/agents/{subject}/trust-score")
    assert response.status_code == 200, response.content
    record: dict[str, Any] = response.json()
    return record


def _weigh_by_accuracy(capture: Any, **weighting: Any) -> None:
    params = {**ScoringParams().to_dict(), "accuracy_weighting": weighting}
    with capture(execute=True):
        scoring_config_create(params=params, note="weigh providers by canary accuracy", created_by="test")


def _providers(
    check_endpoint: Start, capture: Any, lenient_reports: dict[str, Any]
) -> tuple[Provider, Provider]:
    agent_register(subject_id="weighed-agent", registry="hcs-10")
    accurate, accurate_key = _provider("accurate", check_endpoint(engine_verdict).url)
    careless, careless_key = _provider("careless", check_endpoint(rubber_stamp).url)
    canary_round_run(provider=accurate, cases=30)
    canary_round_run(provider=careless, cases=30)
    _push(accurate_key, {"agent": "weighed-agent", **DISCERNING}, capture)
    _push(careless_key, {"agent": "weighed-agent", **lenient_reports}, capture)
    return accurate, careless


def _by_provider(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["providerId"]: p for p in record["provenance"]["outputVerification"]["providers"]}


def test_it_lets_a_provider_with_poor_canary_accuracy_move_the_score_less(
    check_endpoint: Start, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    accurate, careless = _providers(check_endpoint, capture, LENIENT)
    before = _record("weighed-agent")
    # Off by default: equal checks, equal weights, no factor anywhere in the record.
    weights = {slug: p["weight"] for slug, p in _by_provider(before).items()}
    assert weights["accurate"] == weights["careless"]
    assert all("accuracyFactor" not in p for p in _by_provider(before).values())

    _weigh_by_accuracy(capture)
    after = _record("weighed-agent")
    assert after["trustScoreConfigVersion"] == before["trustScoreConfigVersion"] + 1
    providers = _by_provider(after)
    weighting = AccuracyWeighting()
    for provider in (accurate, careless):
        counts = accuracy_counts(ProviderAccuracy.objects.get(provider=provider))
        assert providers[provider.slug]["accuracyFactor"] == weighting.factor(*counts)
    assert providers["careless"]["accuracyFactor"] < providers["accurate"]["accuracyFactor"]
    assert providers["careless"]["weight"] < providers["accurate"]["weight"]
    # The rubber stamp reports leniently; counting it less moves the score towards the discerning
    # provider's report (quality 81) and away from the lenient one (17.1).
    quality = "output-verification.quality"
    assert after["trustScores"][quality] > before["trustScores"][quality]
    assert after["trustScore"] > before["trustScore"]
    assert after["provenance"]["inputsDigest"] != before["provenance"]["inputsDigest"]


def test_it_lets_a_careless_provider_lift_the_score_less_too(
    check_endpoint: Start, django_capture_on_commit_callbacks: Any
) -> None:
    # The same careless provider, now reporting a better agent than the accurate one does.
    capture = django_capture_on_commit_callbacks
    glowing = {"allowRate": 0.95, "blockRate": 0.05, "uncertainRate": 0.0, "avgConfidence": 1.0}
    _providers(check_endpoint, capture, glowing)
    before = _record("weighed-agent")
    _weigh_by_accuracy(capture)
    after = _record("weighed-agent")
    assert (
        after["trustScores"]["output-verification.quality"]
        < before["trustScores"]["output-verification.quality"]
    )


def test_it_rescores_exactly_when_a_new_measurement_changes_the_factor(
    check_endpoint: Start, django_capture_on_commit_callbacks: Any
) -> None:
    capture = django_capture_on_commit_callbacks
    _, careless = _providers(check_endpoint, capture, LENIENT)
    agent = Agent.objects.get(subject_id="weighed-agent")
    _weigh_by_accuracy(capture)
    first = _record("weighed-agent")

    # Counting the same cases again changes nothing: nothing is queued, nothing is stored.
    PendingRecompute.objects.all().delete()
    with capture(execute=True):
        provider_accuracy_refresh(provider=careless)
    assert not PendingRecompute.objects.filter(agent=agent).exists()
    assert _record("weighed-agent")["provenance"]["inputsDigest"] == first["provenance"]["inputsDigest"]

    # More canaries move its Wilson bound, so its factor and the score with it.
    with capture(execute=True):
        canary_round_run(provider=careless, cases=20)
    second = _record("weighed-agent")
    factor = _by_provider(second)["careless"]["accuracyFactor"]
    assert factor != _by_provider(first)["careless"]["accuracyFactor"]
    assert factor == AccuracyWeighting().factor(
        *accuracy_counts(ProviderAccuracy.objects.get(provider=careless))
    )
    assert second["provenance"]["inputsDigest"] != first["provenance"]["inputsDigest"]
    assert second["trustScoreUpdatedAt"] != first["trustScoreUpdatedAt"]


def test_it_leaves_configurations_without_the_weighting_as_they_were(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # Off by default: the stored configuration has no such key, so its digest is the one it always had.
    assert "accuracy_weighting" not in ScoringParams().to_dict()
    assert ScoringParams.from_dict(ScoringParams().to_dict()).accuracy_weighting is None
    weighted = ScoringParams.from_dict({"accuracy_weighting": {"min_factor": 0.2}})
    assert weighted.to_dict()["accuracy_weighting"] == {"min_factor": 0.2, "confidence": 0.95}


@pytest.mark.parametrize(
    ("weighting", "field"),
    [
        ({"min_factor": 0}, "min_factor"),
        ({"min_factor": 1.5}, "min_factor"),
        ({"min_factor": 0.0001}, "min_factor"),
        ({"confidence": 1}, "confidence"),
        ({"confidence": "high"}, "confidence"),
        ({"floor": 0.1}, "floor"),
    ],
)
def test_it_refuses_a_bad_accuracy_weighting_and_names_the_field(
    weighting: dict[str, Any], field: str
) -> None:
    with pytest.raises(ApplicationError, match=rf"accuracy_weighting.*{field}|{field}.*accuracy_weighting"):
        scoring_config_create(params={**ScoringParams().to_dict(), "accuracy_weighting": weighting})


def test_it_gives_few_or_no_canaries_little_credit() -> None:
    weighting = AccuracyWeighting()
    assert weighting.factor(0, 0) == weighting.min_factor
    # All right on 3 cases earns less than 95 right of 100: the bound, not the rate, is what counts.
    assert weighting.factor(3, 3) < weighting.factor(95, 100) < weighting.factor(100, 100) <= 1.0
    assert weighting.factor(10, 20) < weighting.factor(19, 20)


def test_it_turns_the_weighting_on_and_off_over_the_configuration_in_force() -> None:
    call_command("scoring_config_sybil_floor")
    floor = scoring_config_current()
    out = StringIO()
    call_command("scoring_config_accuracy_weighting", "--min-factor", "0.2", stdout=out)
    weighted = scoring_config_current()
    assert f"v{weighted.version}" in out.getvalue() and weighted.version == floor.version + 1
    # Everything else of the configuration in force is kept.
    assert {k: v for k, v in weighted.params.items() if k != "accuracy_weighting"} == floor.params
    assert weighted.params["accuracy_weighting"] == {"min_factor": 0.2, "confidence": 0.95}
    # Off again is the floor configuration itself, an earlier version: the command says so instead of
    # pretending to switch (numbered versions only ever move forward).
    with pytest.raises(CommandError, match=f"v{floor.version}, an earlier one"):
        call_command("scoring_config_accuracy_weighting", "--off", stdout=StringIO())
    assert scoring_config_current() == weighted
    with pytest.raises(CommandError, match="min_factor"):
        call_command("scoring_config_accuracy_weighting", "--min-factor", "2", stdout=StringIO())
