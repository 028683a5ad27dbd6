"""Tool-result verification through the REST API, with profiles from the database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import Agent, CheckOutcome
from verification.models import ToolVerification
from verification.services.engine_provider import ENGINE_SLUG

WEATHER = {"expectedLatencyMs": [100, 5000], "requiredFields": ["temperature", "humidity"], "stake": "high"}


def call(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "tool": "get_weather",
        "args": {"city": "London"},
        "result": {"temperature": 18, "humidity": 65},
        "executionTimeMs": 350.0,
        "sessionId": "s-1",
    }
    body.update(overrides)
    return body


def test_it_requires_an_operator_key(db: None) -> None:
    assert APIClient().post("/api/v1/verify/tool-call", call(), format="json").status_code == 401
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Bearer tro_not-a-real-key")
    assert bad.post("/api/v1/verify/tool-call", call(), format="json").status_code == 401


def test_it_blocks_a_result_missing_a_required_field_of_the_stored_profile(operator: APIClient) -> None:
    assert operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json").status_code == 200
    ok = operator.post("/api/v1/verify/tool-call", call(), format="json").json()
    assert ok["verdict"] == "accept"
    bad = operator.post("/api/v1/verify/tool-call", call(result={"temperature": 18}), format="json").json()
    assert bad["verdict"] == "block"
    assert bad["signals"]["schema_mismatch"]["fired"] is True
    assert ToolVerification.objects.get(public_id=bad["id"]).verdict == "block"


def test_it_verifies_a_batch_in_order(operator: APIClient) -> None:
    operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json")
    calls = [call(), call(result={"temperature": 18}), call(tool="unregistered_tool", result={"x": 1})]
    results = operator.post("/api/v1/verify/tool-call", {"calls": calls}, format="json").json()["results"]
    assert [r["verdict"] for r in results[:2]] == ["accept", "block"]
    assert results[2]["tool"] == "unregistered_tool"


def test_it_names_the_field_of_a_bad_call(operator: APIClient) -> None:
    response = operator.post(
        "/api/v1/verify/tool-call", {"calls": [call(), call(executionTimeMs=-1)]}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "calls[1].executionTimeMs"
    missing = operator.post("/api/v1/verify/tool-call", {"tool": "x", "executionTimeMs": 1}, format="json")
    assert missing.json()["errors"][0]["field"] == "result"


def test_it_refuses_a_hostile_result_with_a_clear_error(operator: APIClient) -> None:
    # Written as text: with the interpreter's recursion limit (restored at start-up) json.dumps
    # itself refuses a value this deep.
    deep = "[" * 5000 + "0" + "]" * 5000
    response = operator.post("/api/v1/verify/tool-call", call(result=deep), format="json")
    assert response.status_code in (200, 400)
    if response.status_code == 400:
        assert response.json()["errors"][0]["field"] == "result"


def test_it_counts_verifications_as_the_engines_outcomes_for_the_agent(
    operator: APIClient, django_capture_on_commit_callbacks: Any, linked_agent: Callable[..., Agent]
) -> None:
    linked_agent("agent-tools")
    operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json")
    with django_capture_on_commit_callbacks(execute=True):
        operator.post("/api/v1/verify/tool-call", call(agent="agent-tools"), format="json")
        operator.post(
            "/api/v1/verify/tool-call", call(agent="agent-tools", result={"humidity": 1}), format="json"
        )
    outcomes = CheckOutcome.objects.filter(agent__subject_id="agent-tools", provider__slug=ENGINE_SLUG)
    assert sorted(outcomes.values_list("verdict", flat=True)) == ["ALLOW", "BLOCK"]
    assert set(outcomes.values_list("stake", flat=True)) == {"high"}


def test_it_refuses_an_unknown_agent(operator: APIClient) -> None:
    response = operator.post("/api/v1/verify/tool-call", call(agent="nobody"), format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "agent"


def test_it_adapts_the_tool_to_feedback_and_replays_a_repeated_label(operator: APIClient) -> None:
    first = operator.post("/api/v1/verify/tool-call", call(), format="json").json()
    url = f"/api/v1/verify/tool-call/{first['id']}/feedback"
    labelled = operator.post(url, {"wasHallucination": True}, format="json").json()
    assert labelled["feedback"] == 1.0 and labelled["replayed"] is False
    assert labelled["prior"] > first["prior"]
    assert operator.post(url, {"wasHallucination": True}, format="json").json()["replayed"] is True
    assert operator.post(url, {"wasHallucination": False}, format="json").status_code == 409
    assert operator.post(url, {"wasHallucination": "yes"}, format="json").status_code == 400
    missing = "/api/v1/verify/tool-call/00000000-0000-0000-0000-000000000000/feedback"
    assert operator.post(missing, {"wasHallucination": True}, format="json").status_code == 404


@pytest.mark.parametrize(
    ("profile", "field"),
    [
        ({"responsePatterns": ["(unclosed"]}, "responsePatterns[0]"),
        ({"expectedLatencyMs": [500, 100]}, "expectedLatencyMs"),
        ({"likelihoodRatios": {"schema_mismatch": 0.5}}, "likelihoodRatios.schema_mismatch"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_it_refuses_an_invalid_profile(operator: APIClient, profile: dict[str, Any], field: str) -> None:
    response = operator.put("/api/v1/tools/t/profile", profile, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field


def test_it_serves_profiles_publicly_and_404s_unregistered_tools(operator: APIClient) -> None:
    operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json")
    public = APIClient()
    profile = public.get("/api/v1/tools/get_weather/profile").json()
    assert profile["requiredFields"] == ["temperature", "humidity"] and profile["stake"] == "high"
    assert [p["tool"] for p in public.get("/api/v1/tools").json()] == ["get_weather"]
    assert public.get("/api/v1/tools/nothing/profile").status_code == 404
    assert public.put("/api/v1/tools/x/profile", WEATHER, format="json").status_code == 401


def test_it_reports_what_the_engine_learned_about_a_tool(operator: APIClient) -> None:
    operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json")
    latencies = [300.0 + 10 * i for i in range(20)]
    for index, latency in enumerate(latencies):
        body = call(executionTimeMs=latency, result={"temperature": 10 + index % 5, "humidity": 60})
        assert operator.post("/api/v1/verify/tool-call", body, format="json").json()["verdict"] == "accept"
    baseline = APIClient().get("/api/v1/tools/get_weather/baseline").json()
    assert baseline["observations"] == len(latencies)
    assert baseline["latencyMs"]["p50"] == pytest.approx(
        sorted(latencies)[9] / 2 + sorted(latencies)[10] / 2, rel=1e-3
    )
    assert baseline["fieldFrequency"]["temperature"] == 1.0
    assert baseline["profile"]["requiredFields"] == ["temperature", "humidity"]
    unknown = APIClient().get("/api/v1/tools/never_called/baseline").json()
    assert unknown["observations"] == 0 and unknown["latencyMs"] is None


@pytest.mark.parametrize("pattern", ["(a+)+b", "(x*)*y", "(a|a)*b", r"(\w+)\1", "(?=x)y"])
def test_it_refuses_a_response_pattern_that_can_backtrack(operator: APIClient, pattern: str) -> None:
    body = {"responsePatterns": [r'"temperature"\s*:\s*\d', pattern]}
    response = operator.put("/api/v1/tools/get_weather/profile", body, format="json")
    assert response.status_code == 400, response.content
    assert [e["field"] for e in response.json()["errors"]] == ["responsePatterns[1]"]


def test_it_checks_a_long_adversarial_result_against_an_accepted_pattern(operator: APIClient) -> None:
    body = {**WEATHER, "responsePatterns": [r'"temperature"\s*:\s*-?\d+.*"humidity"']}
    assert operator.put("/api/v1/tools/get_weather/profile", body, format="json").status_code == 200
    hostile = {"temperature": 18, "humidity": 65, "note": "9" * 500_000}
    ok = operator.post("/api/v1/verify/tool-call", call(result=hostile), format="json").json()
    assert ok["signals"]["pattern_mismatch"]["fired"] is False
    missing = {"temperature": "x" * 500_000, "humidity": 65}
    bad = operator.post("/api/v1/verify/tool-call", call(result=missing), format="json").json()
    assert bad["signals"]["pattern_mismatch"]["fired"] is True
