"""Calibration from labelled feedback changes the confidence the engine reports to the registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import Agent, CheckOutcome
from verification.engine.tools.calibration import PlattCalibrator
from verification.engine.tools.confidence import default_calibrator
from verification.models import ToolVerification
from verification.services.calibration import tool_calibration_fit
from verification.services.engine_provider import ENGINE_SLUG


def verify(operator: APIClient, index: int, agent: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "tool": "lookup",
        "args": {"key": index % 5},
        "result": {"value": 10 + index % 5},
        "executionTimeMs": 150.0 + index % 7,
    }
    if agent:
        body["agent"] = agent
    response = operator.post("/api/v1/verify/tool-call", body, format="json")
    assert response.status_code == 200, response.content
    return dict(response.json())


@pytest.fixture
def labelled(operator: APIClient) -> list[dict[str, Any]]:
    """60 accepted calls of which every other one turns out to be a hallucination: the raw posterior
    (near the prior) claims far more certainty than the labels support."""
    results = [verify(operator, i) for i in range(60)]
    for i, result in enumerate(results):
        url = f"/api/v1/verify/tool-call/{result['id']}/feedback"
        assert operator.post(url, {"wasHallucination": i % 2 == 0}, format="json").status_code == 200
    return results


def test_it_reports_reliability_per_tool_and_overall(
    operator: APIClient, labelled: list[dict[str, Any]]
) -> None:
    report = APIClient().get("/api/v1/verify/calibration").json()
    assert report["labelled"] == 60
    assert set(report["raw"]) == {"lookup", "overall"}
    overall = report["raw"]["overall"]
    assert overall["n"] == 60 and overall["positives"] == 30
    assert sum(b["count"] for b in overall["bins"]) == 60
    assert report["calibration"] is None


def test_it_fits_a_calibration_that_lowers_the_error(
    operator: APIClient, labelled: list[dict[str, Any]]
) -> None:
    record = tool_calibration_fit(min_labels=20)
    assert record is not None and record.method == "platt"
    assert record.ece_after < record.ece_before
    report = APIClient().get("/api/v1/verify/calibration").json()
    assert report["calibration"]["labelled"] == 60
    assert report["calibrated"]["overall"]["ece"] < report["raw"]["overall"]["ece"]


def test_it_reports_calibrated_confidence_to_the_registry(
    operator: APIClient,
    labelled: list[dict[str, Any]],
    django_capture_on_commit_callbacks: Any,
    linked_agent: Callable[..., Agent],
) -> None:
    linked_agent("agent-cal")
    with django_capture_on_commit_callbacks(execute=True):
        before = verify(operator, 100, agent="agent-cal")
    # The feedback also moved the tool's threshold, so the verdict may be either; confidence is in it.
    # Before this deployment fitted a map, the engine's shipped map (fitted on generated streams) applies.
    p = default_calibrator().predict(before["posterior"])
    shipped_confidence = p if before["verdict"] == "block" else 1 - p
    record = tool_calibration_fit(min_labels=20)
    assert record is not None and record.method == "platt"
    with django_capture_on_commit_callbacks(execute=True):
        after = verify(operator, 101, agent="agent-cal")
    confidences = list(
        CheckOutcome.objects.filter(agent__subject_id="agent-cal", provider__slug=ENGINE_SLUG)
        .order_by("checked_at")
        .values_list("confidence", flat=True)
    )
    assert confidences[0] == pytest.approx(shipped_confidence, abs=1e-5)  # the API rounds the posterior
    # Once fitted, the deployment's own map (from its labels) replaces the shipped one.
    fitted = PlattCalibrator()
    fitted.a, fitted.b = float(record.params["a"]), float(record.params["b"])
    p_fitted = float(fitted.predict(after["posterior"]))
    p_shipped = default_calibrator().predict(after["posterior"])
    expected = p_fitted if after["verdict"] == "block" else 1 - p_fitted
    assert confidences[1] == pytest.approx(expected, abs=1e-4)
    assert abs(p_fitted - p_shipped) > 1e-3  # the two maps differ here, so the check above can fail
    assert ToolVerification.objects.filter(agent__subject_id="agent-cal").count() == 2


def test_it_does_not_fit_without_both_outcomes(operator: APIClient) -> None:
    for i in range(10):
        result = verify(operator, i)
        operator.post(
            f"/api/v1/verify/tool-call/{result['id']}/feedback", {"wasHallucination": False}, format="json"
        )
    assert tool_calibration_fit(min_labels=5) is None
