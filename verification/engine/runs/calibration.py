"""Calibrated probabilities for a run report: per claim and per response, from a small JSON parameter file.

The engine's scores are three levels (0.95 / 0.90 supported, 0.5 unsupported, 0.2 contradicted); how often
a claim at each level really is wrong depends on what kind of value it is. ``calibration.json`` (next to
this module) holds, fitted offline by ``python -m verification.engine.eval.calibrate_runs``:

- ``claims``: for each cell ``LABEL:group`` (``CONTRADICTED:number``, ``UNSUPPORTED:name``, ...) the share of
  such claims that lay inside a gold error span of the fitting sets, smoothed towards the label's share
  (``prior_weight`` pseudo-claims), with a ``LABEL`` fallback for cells seen too rarely;
- ``response``: an isotonic (pool-adjacent-violators) map from a response's largest claim probability
  (``none_value`` when it has no claim) to the share of hallucinated answers, as ``(x, y)`` steps;
- ``thresholds``: the response probabilities at which a gate would ``revise`` and ``block``, chosen on the
  fitting sets (how: ``calibrate_runs``'s docstring and docs/run-verification.md).

Pure and deterministic: no Django, no randomness; the same report and file give the same numbers. Not
compiled (setup.py): it runs once per report, on a handful of claims.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_PATH", "RESOURCE", "Calibration", "claim_group", "load_calibration"]

# The shipped parameters are package data (pyproject.toml, ``[tool.setuptools.package-data]``): read through
# importlib.resources, so a wheel or any non-editable install finds them, not only a source tree.
RESOURCE = "calibration.json"
DEFAULT_PATH = Path(__file__).with_name(RESOURCE)

_GROUPS = {
    "money": "number",
    "percent": "number",
    "quantity": "number",
    "count": "number",
    "number": "number",
    "duration": "number",
    "score": "number",
    "year": "date",
    "date": "date",
    "time": "time",
    "entity": "name",
    "name": "name",
    "id": "id",
    "url": "id",
    "email": "id",
    "state": "state",
    "direction": "state",
    "likelihood": "state",
    "currency": "number",
}


def claim_group(kind: str) -> str:
    """The group of a claim kind that calibration pools over (``money`` and ``count`` are both numbers).

    >>> claim_group("money"), claim_group("entity"), claim_group("weird")
    ('number', 'name', 'other')
    """
    return _GROUPS.get(kind, "other")


@dataclass(frozen=True)
class Calibration:
    """The fitted parameters (see the module docstring) and what they give for a report."""

    claims: dict[str, float]
    response_x: tuple[float, ...]
    response_y: tuple[float, ...]
    none_value: float
    thresholds: dict[str, float]
    meta: dict[str, Any]

    def claim_probability(self, label: str, kind: str) -> float:
        """Probability that a claim with this engine label and kind is a real error."""
        cell = f"{label}:{claim_group(kind)}"
        if cell in self.claims:
            return self.claims[cell]
        return self.claims.get(label, self.claims.get("*", 0.5))

    def response_probability_of(self, claim_probabilities: list[float]) -> float:
        """Probability that an answer whose claims have these probabilities is hallucinated."""
        raw = max(claim_probabilities) if claim_probabilities else self.none_value
        if not self.response_x:
            return raw
        i = bisect_right(self.response_x, raw) - 1
        return self.response_y[max(i, 0)]

    def of_report(self, report: Any) -> dict[str, Any]:
        """``{"claims": [p per claim, in report order], "response": p, "action": gate action}``."""
        probs = [self.claim_probability(c.label, c.kind) for c in report.claims]
        response = self.response_probability_of(probs)
        return {"claims": probs, "response": response, "action": self.action(response)}

    def action(self, response_probability: float) -> str:
        """``emit``, ``revise`` or ``block`` by the fitted thresholds."""
        if response_probability >= self.thresholds.get("block", 2.0):
            return "block"
        if response_probability >= self.thresholds.get("revise", 2.0):
            return "revise"
        return "emit"

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        """Build from the JSON object ``calibrate_runs`` writes."""
        steps = data.get("response", {}).get("steps", [])
        return cls(
            claims={str(k): float(v) for k, v in data.get("claims", {}).items()},
            response_x=tuple(float(x) for x, _ in steps),
            response_y=tuple(float(y) for _, y in steps),
            none_value=float(data.get("response", {}).get("none_value", 0.0)),
            thresholds={str(k): float(v) for k, v in data.get("thresholds", {}).items()},
            meta=dict(data.get("meta", {})),
        )


@lru_cache(maxsize=4)
def load_calibration(path: str | None = None) -> Calibration | None:
    """The calibration in ``path`` (default: the shipped ``calibration.json``, read as package data through
    importlib.resources), or None when there is none."""
    if path:
        file = Path(path)
        if not file.is_file():
            return None
        return Calibration.from_dict(json.loads(file.read_text(encoding="utf-8")))
    resource = files(__package__ or "verification.engine.runs").joinpath(RESOURCE)
    if not resource.is_file():
        return None
    return Calibration.from_dict(json.loads(resource.read_text(encoding="utf-8")))
