"""HCS-25 core: components, statuses, adapter totals, contribution modes and the composite.

Rules implemented (HCS-25 "Missing and Stale Data", "Aggregation"):

* ``ok`` values are used as they are (clamped to [0, 100]);
* ``stale`` values are multiplied by the stale multiplier (default 1);
* ``missing`` / ``timeout`` / ``error`` values count as 0, unless the component is
  declared non-scorable, in which case it is left out of the adapter total and only
  reported in the breakdown;
* an adapter total is the mean of its scorable components (or a custom deterministic
  aggregate), 0 when there are none;
* not applicable adapters never count; ``universal`` and ``scoped`` adapters that are
  applicable but produce nothing contribute a single ``defaultComponentKey`` = 0
  (status ``missing``); ``conditional`` ones count only when they produce components;
  weight 0 means informational (never in the denominator);
* ``trustScore = Σ w·total / Σ w`` over the denominator, 0 when it is empty;
* ``trustConfidence = Σ w·c / Σ w`` with ``c`` the share of the adapter's components
  whose status is ``ok``.

All values are rounded half-up to 2 decimals (:func:`adapters.numbers.round_half_up`);
confidence to 4.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Literal

from adapters.numbers import clamp, round_half_up
from adapters.params import AdapterSpec, ContributionMode

__all__ = [
    "STATUSES",
    "AdapterResult",
    "Component",
    "ComponentStatus",
    "CompositeScore",
    "adapter_result",
    "adapter_total",
    "composite",
    "effective_value",
]

ComponentStatus = Literal["ok", "missing", "timeout", "error", "stale"]

#: The HCS-25 signal status codes.
STATUSES: tuple[ComponentStatus, ...] = ("ok", "missing", "timeout", "error", "stale")
_UNAVAILABLE = frozenset({"missing", "timeout", "error"})
_WHITESPACE = re.compile(r"\s")

REASON_NOT_APPLICABLE = "not applicable to registry"
REASON_NO_OUTPUT = "no output"
REASON_INFORMATIONAL = "informational (weight 0)"


@dataclass(frozen=True)
class Component:
    """One normalised component of an adapter: a key, a value in [0, 100] and a status.

    ``value`` may be None when the signal is unavailable.  ``non_scorable`` declares
    that the component is omitted (rather than counted as 0) when unavailable.

    >>> Component("availability.uptime", 90, "ok").value
    90
    >>> Component("simple-evals.science", None, "missing").status
    'missing'
    """

    key: str
    value: float | None
    status: ComponentStatus = "ok"
    non_scorable: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not self.key or _WHITESPACE.search(self.key):
            raise ValueError(f"Component.key must be a non-empty string without whitespace, got {self.key!r}")
        if self.status not in STATUSES:
            raise ValueError(
                f"Component[{self.key}].status must be one of {', '.join(STATUSES)}, got {self.status!r}"
            )
        if self.value is not None and (
            isinstance(self.value, bool)
            or not isinstance(self.value, int | float)
            or not math.isfinite(self.value)
        ):
            raise ValueError(
                f"Component[{self.key}].value must be a finite number or None, got {self.value!r}"
            )
        if self.status == "ok" and self.value is None:
            raise ValueError(f"Component[{self.key}].value is required when status is 'ok'")

    @property
    def scorable(self) -> bool:
        """Whether the component enters the adapter total.

        >>> Component("a.b", None, "timeout", non_scorable=True).scorable
        False
        """
        return not (self.non_scorable and self.status in _UNAVAILABLE)


def effective_value(component: Component, stale_multiplier: float = 1.0) -> float | None:
    """Return the value the component contributes, rounded, or None when it is omitted.

    >>> effective_value(Component("a.b", 104.2, "ok"))
    100.0
    >>> effective_value(Component("a.b", 80, "stale"), stale_multiplier=0.5)
    40.0
    >>> effective_value(Component("a.b", 80, "error"))
    0.0
    >>> effective_value(Component("a.b", None, "missing", non_scorable=True)) is None
    True
    """
    if not 0.0 <= stale_multiplier <= 1.0:
        raise ValueError(f"stale_multiplier must be in [0, 1], got {stale_multiplier!r}")
    if not component.scorable:
        return None
    if component.status in _UNAVAILABLE:
        return 0.0
    value = clamp(float(component.value if component.value is not None else 0.0))
    if component.status == "stale":
        value = value * stale_multiplier
    return round_half_up(value)


def adapter_total(components: Iterable[Component], stale_multiplier: float = 1.0) -> float:
    """Return the HCS-25 adapter total: the mean of the scorable effective values.

    >>> adapter_total([Component("s.math", 100, "ok"), Component("s.science", None, "missing")])
    50.0
    >>> adapter_total([Component("s.x", None, "error", non_scorable=True)])
    0.0
    """
    values = [v for c in components if (v := effective_value(c, stale_multiplier)) is not None]
    if not values:
        return 0.0
    total = 0.0
    for value in values:
        total += value
    return round_half_up(total / len(values))


@dataclass(frozen=True)
class AdapterResult:
    """One adapter's contribution to a subject's score, in the HCS-25 breakdown shape.

    ``components`` hold effective (clamped, stale-adjusted, rounded) values, with None
    for non-scorable unavailable ones.  ``reason`` explains a non-contribution.

    >>> r = adapter_result(AdapterSpec("availability", "scoped"), [Component("availability.uptime", 90)])
    >>> r.total, r.in_denominator
    (90.0, True)
    """

    adapter_id: str
    contribution_mode: ContributionMode
    applicable: bool
    in_denominator: bool
    weight: float
    components: tuple[Component, ...] = ()
    total: float = 0.0
    reason: str | None = None

    @property
    def ok_share(self) -> float:
        """Share of components whose status is ``ok`` (0 when there are none).

        >>> adapter_result(AdapterSpec("a", "scoped"), []).ok_share
        0.0
        """
        if not self.components:
            return 0.0
        return sum(1 for c in self.components if c.status == "ok") / len(self.components)

    def to_breakdown(self) -> dict[str, Any]:
        """Return the HCS-25 ``breakdown.adapters[]`` entry.

        >>> adapter_result(AdapterSpec("a", "scoped"), []).to_breakdown()["components"]
        [{'key': 'a.score', 'value': 0.0, 'status': 'missing'}]
        """
        entry: dict[str, Any] = {
            "adapterId": self.adapter_id,
            "contributionMode": self.contribution_mode,
            "applicable": self.applicable,
            "inDenominator": self.in_denominator,
            "weight": self.weight,
            "components": [{"key": c.key, "value": c.value, "status": c.status} for c in self.components],
            "total": self.total,
        }
        if self.reason is not None:
            entry["reason"] = self.reason
        return entry


def adapter_result(
    spec: AdapterSpec,
    components: Sequence[Component],
    *,
    applicable: bool = True,
    stale_multiplier: float = 1.0,
    total: float | None = None,
    reason: str | None = None,
) -> AdapterResult:
    """Apply the HCS-25 applicability, contribution-mode and weight rules to one adapter.

    *total* overrides the mean of components for adapters with a custom (documented,
    deterministic) within-adapter aggregate; it is only used when scorable components
    remain.  *reason* is reported when the adapter does not contribute.

    >>> spec = AdapterSpec("reputation", "conditional")
    >>> adapter_result(spec, []).in_denominator
    False
    >>> adapter_result(AdapterSpec("reputation", "universal"), []).total
    0.0
    >>> adapter_result(spec, [Component("reputation.score", 40)], applicable=False).reason
    'not applicable to registry'
    """
    base = partial(AdapterResult, adapter_id=spec.adapter_id, contribution_mode=spec.mode, weight=spec.weight)
    if not applicable:
        # Not applicable: it must neither contribute nor sit in the denominator.
        return base(applicable=False, in_denominator=False, reason=reason or REASON_NOT_APPLICABLE)
    effective = tuple(
        Component(c.key, effective_value(c, stale_multiplier), c.status, c.non_scorable) for c in components
    )
    scorable = [c for c in effective if c.value is not None]
    if not scorable:
        if spec.mode == "conditional":
            return base(
                applicable=True,
                in_denominator=False,
                components=effective,
                reason=reason or REASON_NO_OUTPUT,
            )
        # universal / scoped: missingness is penalised with a deterministic 0.
        default = Component(spec.default_component_key, 0.0, "missing")
        in_den = spec.weight > 0
        return base(
            applicable=True,
            in_denominator=in_den,
            components=(*effective, default),
            total=0.0,
            reason=reason or (REASON_NO_OUTPUT if in_den else REASON_INFORMATIONAL),
        )
    value = adapter_total(components, stale_multiplier) if total is None else round_half_up(clamp(total))
    in_den = spec.weight > 0
    return base(
        applicable=True,
        in_denominator=in_den,
        components=effective,
        total=value,
        reason=None if in_den else REASON_INFORMATIONAL,
    )


@dataclass(frozen=True)
class CompositeScore:
    """The composite HCS-25 score of one subject.

    >>> c = composite([adapter_result(AdapterSpec("a", "scoped"), [Component("a.x", 70)])])
    >>> c.trust_score, c.trust_scores, c.trust_confidence
    (70.0, {'a.x': 70.0, 'total': 70.0}, 1.0)
    """

    trust_score: float
    trust_scores: dict[str, float]
    trust_confidence: float
    breakdown: list[dict[str, Any]] = field(default_factory=list)


def composite(results: Iterable[AdapterResult]) -> CompositeScore:
    """Combine adapter results into the weighted-mean trust score and confidence.

    ``trust_scores`` carries every scored component of the applicable adapters (also
    informational ones, whose weight is 0) plus ``total``.

    >>> a = adapter_result(AdapterSpec("availability", "scoped", 1), [Component("availability.uptime", 90)])
    >>> b = adapter_result(AdapterSpec("reputation", "conditional", 1), [])
    >>> composite([a, b]).trust_score
    90.0
    >>> composite([]).trust_scores
    {'total': 0.0}
    """
    results = list(results)
    numerator = 0.0
    denominator = 0.0
    confidence = 0.0
    scores: dict[str, float] = {}
    for result in results:
        if result.applicable:
            for component in result.components:
                if component.value is not None:
                    scores[component.key] = float(component.value)
        if result.in_denominator:
            numerator += result.weight * result.total
            denominator += result.weight
            confidence += result.weight * result.ok_share
    if denominator > 0:
        trust_score = round_half_up(clamp(numerator / denominator))
        trust_confidence = round_half_up(clamp(confidence / denominator, 0.0, 1.0), places=4)
    else:
        trust_score = 0.0
        trust_confidence = 0.0
    scores["total"] = trust_score
    return CompositeScore(
        trust_score=trust_score,
        trust_scores=scores,
        trust_confidence=trust_confidence,
        breakdown=[result.to_breakdown() for result in results],
    )
