"""Calibration of the tool verifier's confidence from labelled feedback (SPEC 4.3).

The engine's posterior P(hallucination) is only a model; labels say how often it is right. A
monotone map (isotonic with enough labels, Platt below that) fitted on the labelled verifications
turns posteriors into observed rates, and the confidence the engine reports to the registry (its
avgConfidence) is computed from the calibrated value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache

from ..engine.tools.calibration import (
    IsotonicCalibrator,
    PlattCalibrator,
    calibration_by_tool,
    calibration_report,
    fit_calibrator,
)
from ..engine.tools.confidence import default_calibrator
from ..models import ToolCalibration, ToolVerification

CALIBRATION_VERSION_KEY = "verification:tool-calibration:version"
ISOTONIC_MIN_LABELS = 200

_cached: tuple[int | None, IsotonicCalibrator | PlattCalibrator | None] = (None, None)


def _labelled() -> tuple[list[str], list[float], list[int]]:
    rows = list(
        ToolVerification.objects.filter(was_hallucination__isnull=False).values_list(
            "tool", "posterior", "was_hallucination"
        )
    )
    return [r[0] for r in rows], [float(r[1]) for r in rows], [int(bool(r[2])) for r in rows]


def _build(record: ToolCalibration) -> IsotonicCalibrator | PlattCalibrator:
    if record.method == "isotonic":
        iso = IsotonicCalibrator()
        iso.x_ = np.asarray(record.params["x"], dtype=float)
        iso.y_ = np.asarray(record.params["y"], dtype=float)
        return iso
    platt = PlattCalibrator()
    platt.a, platt.b = float(record.params["a"]), float(record.params["b"])
    return platt


def _params(calibrator: IsotonicCalibrator | PlattCalibrator) -> dict[str, Any]:
    if isinstance(calibrator, IsotonicCalibrator):
        assert calibrator.x_ is not None and calibrator.y_ is not None
        return {"x": calibrator.x_.tolist(), "y": calibrator.y_.tolist()}
    return {"a": calibrator.a, "b": calibrator.b}


def tool_calibration_fit(*, min_labels: int | None = None) -> ToolCalibration | None:
    """Fit a new calibration when there are enough labels with both outcomes; None otherwise."""
    _, scores, labels = _labelled()
    needed = settings.TOOL_CALIBRATION_MIN_LABELS if min_labels is None else min_labels
    if len(labels) < needed or len(set(labels)) < 2:
        return None
    method = "isotonic" if len(labels) >= ISOTONIC_MIN_LABELS else "platt"
    calibrator = fit_calibrator(scores, labels, method)
    before = calibration_report(scores, labels)
    after = calibration_report(calibrator.predict_many(scores), labels)
    record = ToolCalibration.objects.create(
        method=method,
        params=_params(calibrator),
        labelled=len(labels),
        positives=sum(labels),
        brier_before=before.brier,
        brier_after=after.brier,
        ece_before=before.ece,
        ece_after=after.ece,
    )
    try:
        cache.incr(CALIBRATION_VERSION_KEY)
    except ValueError:
        cache.set(CALIBRATION_VERSION_KEY, 1, timeout=None)
    return record


_SHIPPED = default_calibrator()


def calibrated_probability(posterior: float) -> float:
    """The calibrated P(hallucination) for a posterior.

    Before this deployment has fitted a map from its own labels, the engine's shipped map
    (engine/tools/confidence.py, fitted on generated development streams) stands in: the raw
    posterior is a ranking score that is off by 0.10-0.14 as a probability.
    """
    global _cached
    version = cache.get(CALIBRATION_VERSION_KEY, 0)
    if _cached[0] != version:
        record = ToolCalibration.objects.order_by("-fitted_at", "-id").first()
        _cached = (version, _build(record) if record is not None else None)
    calibrator = _cached[1]
    if calibrator is None:
        return min(1.0, max(0.0, _SHIPPED.predict(posterior)))
    return min(1.0, max(0.0, calibrator.predict(posterior)))


def tool_calibration_report() -> dict[str, Any]:
    """Reliability bins, Brier score and ECE per tool and overall, raw and calibrated."""
    tools, scores, labels = _labelled()
    current = ToolCalibration.objects.order_by("-fitted_at", "-id").first()
    out: dict[str, Any] = {
        "labelled": len(labels),
        "calibration": None
        if current is None
        else {
            "method": current.method,
            "labelled": current.labelled,
            "fittedAt": current.fitted_at.isoformat().replace("+00:00", "Z"),
            "brier": {"before": current.brier_before, "after": current.brier_after},
            "ece": {"before": current.ece_before, "after": current.ece_after},
        },
        "raw": {},
        "calibrated": {},
    }
    if not labels:
        return out
    out["raw"] = {
        tool: r.to_dict() for tool, r in calibration_by_tool(zip(tools, scores, labels, strict=True)).items()
    }
    if current is not None:
        calibrator = _build(current)
        calibrated = calibrator.predict_many(scores)
        out["calibrated"] = {
            tool: r.to_dict()
            for tool, r in calibration_by_tool(zip(tools, calibrated, labels, strict=True)).items()
        }
    return out
