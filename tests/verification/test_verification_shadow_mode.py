"""Shadow mode: the proxy and the verify endpoints verify and count, and enforce nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from registry.models import Agent, CheckOutcome
from tests.verification.test_verification_runs_api import QUESTION, RIGHT, TOOLS, WRONG, Upstream, run
from tests.verification.test_verification_runs_api import (
    upstream as upstream,  # the local OpenAI-protocol upstream fixture
)
from tests.verification.test_verification_tool_api import WEATHER, call
from verification.models import RunVerification, ToolVerification
from verification.services.engine_provider import ENGINE_SLUG

SHADOW = {"x-vsr-shadow": "true"}


def _proxy(operator: APIClient, answer: str, action: str, headers: dict[str, str] | None = None) -> Any:
    Upstream.answer = answer
    return operator.post(
        "/v1/chat/completions",
        {"model": "m", "messages": QUESTION, "tools": TOOLS},
        format="json",
        headers={"x-hallucination-action": action, **(headers or {})},
    )


def _counters(operator: APIClient) -> dict[str, Any]:
    shadow: dict[str, Any] = operator.get("/api/v1/operators/me").json()["shadow"]
    return shadow


@pytest.mark.usefixtures("upstream")
def test_it_passes_the_answer_untouched_and_says_what_each_action_would_have_done(
    operator: APIClient,
) -> None:
    expected = {"block": "block", "body": "annotate", "revise": "revise", "header": "pass"}
    for action, would in expected.items():
        response = _proxy(operator, WRONG, action, SHADOW)
        assert response.status_code == 200, action
        assert response.json()["choices"][0]["message"]["content"] == WRONG
        assert (response["x-vsr-shadow"], response["x-vsr-shadow-would"]) == ("true", would)
        assert response["x-vsr-hallucination-detected"] == "true"
    assert len(Upstream.seen) == len(expected)  # revise re-asked nothing
    clean = _proxy(operator, RIGHT, "block", SHADOW)
    assert clean["x-vsr-shadow-would"] == "pass"
    assert RunVerification.objects.filter(shadow=True).count() == len(expected) + 1
    proxy = _counters(operator)["endpoints"]["proxy"]
    assert proxy == {"checks": 5, "wouldBlock": 1, "wouldWarn": 2}


@pytest.mark.usefixtures("upstream")
def test_it_enforces_again_without_the_header(operator: APIClient) -> None:
    assert _proxy(operator, WRONG, "block", SHADOW).status_code == 200
    assert _proxy(operator, WRONG, "block", {"x-vsr-shadow": "false"}).status_code == 422
    assert _proxy(operator, WRONG, "block").status_code == 422
    assert _counters(operator)["endpoints"]["proxy"]["checks"] == 1


@pytest.mark.usefixtures("upstream")
@override_settings(ENGINE_SHADOW_MODE=True)
def test_it_shadows_every_request_when_the_setting_is_on_whatever_the_header_says(
    operator: APIClient,
) -> None:
    response = _proxy(operator, WRONG, "block", {"x-vsr-shadow": "false"})
    assert response.status_code == 200 and response["x-vsr-shadow-would"] == "block"
    assert _counters(operator)["enabledForDeployment"] is True


@pytest.mark.usefixtures("upstream")
def test_it_names_the_header_when_its_value_is_not_a_boolean(operator: APIClient) -> None:
    response = _proxy(operator, WRONG, "block", {"x-vsr-shadow": "maybe"})
    assert response.status_code == 400
    assert "x-vsr-shadow" in response.json()["detail"]
    (error,) = response.json()["errors"]
    assert (error["field"], error["header"], error["pointer"]) == ("x-vsr-shadow", "x-vsr-shadow", "")
    assert Upstream.seen == []


def test_it_answers_emit_for_a_run_with_the_gates_verdict_under_shadow(
    operator: APIClient, linked_agent: Callable[..., Agent], django_capture_on_commit_callbacks: Any
) -> None:
    linked_agent("shadow-agent")
    with django_capture_on_commit_callbacks(execute=True):
        response = operator.post(
            "/api/v1/verify/run",
            {"messages": run(WRONG), "tools": TOOLS, "agent": "shadow-agent"},
            format="json",
            headers=SHADOW,
        )
    assert response.status_code == 200
    report = response.json()
    assert report["action"] == "emit" and report["shadow"]["action"] in ("block", "revise")
    assert report["shadow"]["would"] == report["shadow"]["action"]
    assert report["hallucinationDetected"] is True  # measurements are not shadowed, decisions are
    assert (response["x-vsr-action"], response["x-vsr-shadow-would"]) == ("emit", report["shadow"]["would"])
    stored = RunVerification.objects.get(run_id=report["runId"])
    assert stored.shadow is True and stored.action == report["shadow"]["action"]
    # The agent's output was observed all the same: shadow mode is no way to keep it out of the score.
    verdicts = CheckOutcome.objects.filter(provider__slug=ENGINE_SLUG, agent__subject_id="shadow-agent")
    assert [outcome.verdict for outcome in verdicts] == ["BLOCK" if stored.action == "block" else "UNCERTAIN"]
    run_counter = _counters(operator)["endpoints"]["run"]
    assert run_counter["checks"] == 1 and run_counter["wouldBlock"] + run_counter["wouldWarn"] == 1

    clean = operator.post(
        "/api/v1/verify/run", {"messages": run(RIGHT)}, format="json", headers=SHADOW
    ).json()
    assert clean["action"] == "emit" and clean["shadow"] == {"action": "emit", "would": "pass"}


def test_it_accepts_a_tool_result_it_would_have_blocked_and_counts_it(operator: APIClient) -> None:
    assert operator.put("/api/v1/tools/get_weather/profile", WEATHER, format="json").status_code == 200
    calls = [call(), call(result={"temperature": 18})]
    results = operator.post(
        "/api/v1/verify/tool-call", {"calls": calls}, format="json", headers=SHADOW
    ).json()["results"]
    assert [r["verdict"] for r in results] == ["accept", "accept"]
    assert [r["shadow"]["would"] for r in results] == ["pass", "block"]
    assert results[1]["shadow"]["isHallucinated"] is True and results[1]["isHallucinated"] is False
    stored = ToolVerification.objects.get(public_id=results[1]["id"])
    assert (stored.verdict, stored.shadow) == ("block", True)
    assert _counters(operator)["endpoints"]["tool-call"] == {"checks": 2, "wouldBlock": 1, "wouldWarn": 0}

    enforced = operator.post("/api/v1/verify/tool-call", call(result={"temperature": 18}), format="json")
    assert enforced.json()["verdict"] == "block" and "shadow" not in enforced.json()
