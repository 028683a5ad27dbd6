"""Scoring configuration: frozen, validated, and round-trippable through plain JSON.

The registry stores a :class:`ScoringParams` as an immutable, numbered ScoringConfig
row (``trustScoreConfigVersion``), so :meth:`ScoringParams.to_dict` and
:meth:`ScoringParams.from_dict` must round-trip exactly and refuse anything malformed
with a :class:`ValueError` that names the offending field.

JSON keys are the dataclass field names (snake_case); the HCS-25 record itself uses
camelCase, but this is our own configuration document.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Literal, cast

from adapters.graph import CompositionGraph, implicit_graph
from adapters.intervals import wilson_interval

__all__ = [
    "ADAPTER_ID_PATTERN",
    "CONTRIBUTION_MODES",
    "ERC8004_FEEDBACK",
    "MIN_ACCURACY_FACTOR",
    "OUTPUT_VERIFICATION",
    "STAKE_LEVELS",
    "SYBIL_RESISTANCE",
    "AccuracyWeighting",
    "AdapterSpec",
    "ContributionMode",
    "Erc8004FeedbackParams",
    "OutputVerificationParams",
    "ScoringParams",
    "StakeWeights",
    "SybilParams",
]

ContributionMode = Literal["universal", "scoped", "conditional"]

#: The three HCS-25 contribution modes.
CONTRIBUTION_MODES: tuple[ContributionMode, ...] = ("universal", "scoped", "conditional")

#: HCS-25 adapter identifiers: hyphen-separated lowercase segments.
ADAPTER_ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z][a-z0-9]*)*$")

# Component keys: dot-separated, no whitespace (HCS-25 "Component Keys").
_COMPONENT_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+$")

#: Adapter ids this package knows how to compute.
OUTPUT_VERIFICATION = "output-verification"
ERC8004_FEEDBACK = "erc8004-feedback"
SYBIL_RESISTANCE = "sybil-resistance"

#: The smallest accuracy factor a provider's weight may be multiplied by: a smaller one would let a
#: lone provider's weight underflow towards 0, where its weighted mean is undefined.
MIN_ACCURACY_FACTOR = 0.001

#: The stake levels of the output-verification signal, in the order the numpy path uses.
STAKE_LEVELS: tuple[str, ...] = ("low", "medium", "high", "critical")


# --- validation helpers -------------------------------------------------------------


def _number(owner: str, name: str, value: object, *, lo: float | None = None, lo_open: bool = False) -> float:
    # bool is an int subclass; a config saying `true` for a weight is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        bound = ">" if lo_open else ">="
        raise ValueError(f"{owner}.{name} must be {bound} {lo}, got {value!r}")
    return float(value)


def _integer(owner: str, name: str, value: object, *, lo: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValueError(f"{owner}.{name} must be an integer >= {lo}, got {value!r}")
    return value


def _strings(owner: str, name: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ValueError(f"{owner}.{name} must be a list of strings, got {value!r}")
    items = tuple(value)
    for item in items:
        if not isinstance(item, str) or not item:
            raise ValueError(f"{owner}.{name} must hold non-empty strings, got {item!r}")
    return items


def _mapping(owner: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{owner} must be a JSON object, got {type(value).__name__}")
    return value


def _reject_unknown(owner: str, data: Mapping[str, Any], cls: type) -> None:
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"{owner} has unknown field {unknown[0]!r}")


def _require(owner: str, data: Mapping[str, Any], name: str) -> Any:
    if name not in data:
        raise ValueError(f"{owner}.{name} is required")
    return data[name]


# --- adapter specs -------------------------------------------------------------------


def _listed(value: str | None, include: tuple[str, ...], exclude: tuple[str, ...]) -> bool:
    # Exclusion wins; an empty allow-list admits everything, including an unknown value.
    if value is not None and value in exclude:
        return False
    if include:
        return value in include
    return True


@dataclass(frozen=True)
class AdapterSpec:
    """How one adapter takes part in the composite: mode, weight, applicability.

    An empty ``include_registries`` means "every registry"; ``exclude_registries``
    always wins.  ``include_protocols`` / ``exclude_protocols`` do the same for the
    subject's protocol (the HCS-25 ``appliesTo(subject)`` predicate).
    ``default_component_key`` defaults to ``{adapter_id}.score``.

    >>> spec = AdapterSpec("erc8004-feedback", "scoped", 1.0, include_registries=("erc-8004",))
    >>> spec.default_component_key
    'erc8004-feedback.score'
    >>> spec.applies_to("erc-8004"), spec.applies_to("hcs-10")
    (True, False)
    """

    adapter_id: str
    mode: ContributionMode = "conditional"
    weight: float = 1.0
    include_registries: tuple[str, ...] = ()
    exclude_registries: tuple[str, ...] = ()
    default_component_key: str = ""
    include_protocols: tuple[str, ...] = ()
    exclude_protocols: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        owner = "AdapterSpec"
        if not isinstance(self.adapter_id, str) or not ADAPTER_ID_PATTERN.match(self.adapter_id):
            raise ValueError(
                f"{owner}.adapter_id must match {ADAPTER_ID_PATTERN.pattern}, got {self.adapter_id!r}"
            )
        owner = f"AdapterSpec[{self.adapter_id}]"
        if self.mode not in CONTRIBUTION_MODES:
            raise ValueError(
                f"{owner}.mode must be one of {', '.join(CONTRIBUTION_MODES)}, got {self.mode!r}"
            )
        object.__setattr__(self, "weight", _number(owner, "weight", self.weight, lo=0.0))
        include = _strings(owner, "include_registries", self.include_registries)
        exclude = _strings(owner, "exclude_registries", self.exclude_registries)
        object.__setattr__(self, "include_registries", include)
        object.__setattr__(self, "exclude_registries", exclude)
        for name in ("include_protocols", "exclude_protocols"):
            object.__setattr__(self, name, _strings(owner, name, getattr(self, name)))
        key = self.default_component_key or f"{self.adapter_id}.score"
        if not isinstance(key, str) or not _COMPONENT_KEY_PATTERN.match(key):
            raise ValueError(f"{owner}.default_component_key must be a dotted component key, got {key!r}")
        object.__setattr__(self, "default_component_key", key)

    def applies_to(self, registry: str | None, protocol: str | None = None) -> bool:
        """Return whether the adapter applies to a subject of *registry* speaking *protocol*.

        >>> AdapterSpec("output-verification", "scoped").applies_to(None)
        True
        >>> AdapterSpec("x", "scoped", exclude_registries=("hcs-10",)).applies_to("hcs-10")
        False
        >>> AdapterSpec("x", "scoped", include_protocols=("a2a",)).applies_to("hcs-10", "mcp")
        False
        """
        return _listed(registry, self.include_registries, self.exclude_registries) and _listed(
            protocol, self.include_protocols, self.exclude_protocols
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form.

        >>> AdapterSpec("a", "scoped", 2).to_dict()["weight"]
        2.0
        """
        return {
            "adapter_id": self.adapter_id,
            "mode": self.mode,
            "weight": self.weight,
            "include_registries": list(self.include_registries),
            "exclude_registries": list(self.exclude_registries),
            "default_component_key": self.default_component_key,
            "include_protocols": list(self.include_protocols),
            "exclude_protocols": list(self.exclude_protocols),
        }

    @classmethod
    def from_dict(cls, data: object, owner: str = "AdapterSpec") -> AdapterSpec:
        """Build from the plain-JSON form; unknown or missing fields raise ValueError.

        >>> AdapterSpec.from_dict({"adapter_id": "a", "mode": "universal"}).mode
        'universal'
        """
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        return cls(
            adapter_id=_require(owner, data, "adapter_id"),
            mode=_require(owner, data, "mode"),
            weight=data.get("weight", 1.0),
            include_registries=_strings(owner, "include_registries", data.get("include_registries", ())),
            exclude_registries=_strings(owner, "exclude_registries", data.get("exclude_registries", ())),
            default_component_key=data.get("default_component_key", ""),
            include_protocols=_strings(owner, "include_protocols", data.get("include_protocols", ())),
            exclude_protocols=_strings(owner, "exclude_protocols", data.get("exclude_protocols", ())),
        )


# --- per-adapter constants -----------------------------------------------------------


@dataclass(frozen=True)
class StakeWeights:
    """Weight of one check at each stake level (SPEC 2.1: 0.5 / 1 / 2 / 3).

    >>> StakeWeights().as_tuple()
    (0.5, 1.0, 2.0, 3.0)
    """

    low: float = 0.5
    medium: float = 1.0
    high: float = 2.0
    critical: float = 3.0

    def __post_init__(self) -> None:
        for name in STAKE_LEVELS:
            object.__setattr__(self, name, _number("StakeWeights", name, getattr(self, name), lo=0.0))

    def as_tuple(self) -> tuple[float, float, float, float]:
        """Return the weights in :data:`STAKE_LEVELS` order.

        >>> StakeWeights(low=1).as_tuple()[0]
        1.0
        """
        return (self.low, self.medium, self.high, self.critical)


@dataclass(frozen=True)
class OutputVerificationParams:
    """Every constant of the output-verification adapter (SPEC 2.1), with its default.

    >>> p = OutputVerificationParams()
    >>> p.full_power_block_rate, p.stake_multiplier_cap, p.min_checks
    (0.05, 1.5, 10)
    """

    full_power_block_rate: float = 0.05
    stake_weights: StakeWeights = field(default_factory=StakeWeights)
    stake_multiplier_min: float = 0.5
    stake_multiplier_max: float = 3.0
    stake_multiplier_cap: float = 1.5
    volume_cap: float = 50.0
    volume_scale: float = 20.0
    min_checks: int = 10
    quality_weight: float = 0.7
    coverage_weight: float = 0.3
    disagreement_factor: float = 0.5
    max_age_days: float = 30.0

    def __post_init__(self) -> None:
        owner = "OutputVerificationParams"
        for name in ("full_power_block_rate", "volume_cap", "volume_scale", "max_age_days"):
            object.__setattr__(self, name, _number(owner, name, getattr(self, name), lo=0.0, lo_open=True))
        for name in ("stake_multiplier_min", "stake_multiplier_max", "stake_multiplier_cap"):
            object.__setattr__(self, name, _number(owner, name, getattr(self, name), lo=0.0))
        for name in ("quality_weight", "coverage_weight", "disagreement_factor"):
            object.__setattr__(self, name, _number(owner, name, getattr(self, name), lo=0.0))
        _integer(owner, "min_checks", self.min_checks)
        if not isinstance(self.stake_weights, StakeWeights):
            raise ValueError(f"{owner}.stake_weights must be a StakeWeights, got {self.stake_weights!r}")
        if self.stake_multiplier_min > self.stake_multiplier_max:
            raise ValueError(f"{owner}.stake_multiplier_min must not exceed stake_multiplier_max")
        if not math.isclose(self.quality_weight + self.coverage_weight, 1.0, abs_tol=1e-12):
            # Keeps the adapter total inside [0, 100] without an extra clamp.
            raise ValueError(f"{owner}.quality_weight and coverage_weight must add up to 1")
        if self.disagreement_factor > 1.0:
            # D is at most 100, so factor <= 1 keeps quality non-negative.
            raise ValueError(f"{owner}.disagreement_factor must be <= 1, got {self.disagreement_factor!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form.

        >>> OutputVerificationParams().to_dict()["stake_weights"]["critical"]
        3.0
        """
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["stake_weights"] = {level: getattr(self.stake_weights, level) for level in STAKE_LEVELS}
        return out

    @classmethod
    def from_dict(cls, data: object, owner: str = "OutputVerificationParams") -> OutputVerificationParams:
        """Build from the plain-JSON form; omitted fields take their defaults.

        >>> OutputVerificationParams.from_dict({"min_checks": 20}).min_checks
        20
        """
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        kwargs = dict(data)
        if "stake_weights" in kwargs:
            weights = _mapping(f"{owner}.stake_weights", kwargs["stake_weights"])
            _reject_unknown(f"{owner}.stake_weights", weights, StakeWeights)
            kwargs["stake_weights"] = StakeWeights(**weights)
        return cls(**kwargs)


@dataclass(frozen=True)
class Erc8004FeedbackParams:
    """Constants of the erc8004-feedback adapter (SPEC 2.2).

    >>> Erc8004FeedbackParams().rating_tag
    'starred'
    """

    rating_tag: str = "starred"
    volume_cap: float = 20.0
    volume_scale: float = 10.0

    def __post_init__(self) -> None:
        owner = "Erc8004FeedbackParams"
        if not isinstance(self.rating_tag, str) or not self.rating_tag:
            raise ValueError(f"{owner}.rating_tag must be a non-empty string, got {self.rating_tag!r}")
        for name in ("volume_cap", "volume_scale"):
            object.__setattr__(self, name, _number(owner, name, getattr(self, name), lo=0.0, lo_open=True))

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form.

        >>> Erc8004FeedbackParams().to_dict()["volume_cap"]
        20.0
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: object, owner: str = "Erc8004FeedbackParams") -> Erc8004FeedbackParams:
        """Build from the plain-JSON form; omitted fields take their defaults.

        >>> Erc8004FeedbackParams.from_dict({"rating_tag": "quality"}).rating_tag
        'quality'
        """
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        return cls(**data)


def _positive(owner: str, name: str, value: object, *, hi: float = math.inf, open_lo: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError(f"{owner}.{name} must be a finite number, got {value!r}")
    if (value <= 0 if open_lo else value < 0) or value > hi:
        raise ValueError(f"{owner}.{name} must be in {'(' if open_lo else '['}0, {hi:g}], got {value!r}")
    return float(value)


@dataclass(frozen=True)
class SybilParams:
    """The constants of reviewer standing and of the sybil-resistance adapter (:mod:`adapters.sybil`).

    >>> SybilParams().min_age_days, SybilParams().min_standing
    (30.0, 0.2)
    """

    min_age_days: float = 30.0
    cluster_similarity: float = 0.8
    cluster_min_shared: int = 2
    neutral_agreement: float = 0.5
    min_standing: float = 0.2
    reviewers_target: float = 20.0
    providers_target: float = 3.0

    def __post_init__(self) -> None:
        owner = "SybilParams"
        object.__setattr__(self, "min_age_days", _positive(owner, "min_age_days", self.min_age_days))
        for name in ("cluster_similarity", "min_standing"):
            object.__setattr__(self, name, _positive(owner, name, getattr(self, name), hi=1.0))
        agreement = _positive(owner, "neutral_agreement", self.neutral_agreement, hi=1.0, open_lo=False)
        object.__setattr__(self, "neutral_agreement", agreement)
        for name in ("reviewers_target", "providers_target"):
            object.__setattr__(self, name, _positive(owner, name, getattr(self, name)))
        shared = self.cluster_min_shared
        if isinstance(shared, bool) or not isinstance(shared, int) or shared < 1:
            raise ValueError(f"{owner}.cluster_min_shared must be an integer >= 1, got {shared!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form.

        >>> SybilParams().to_dict()["cluster_min_shared"]
        2
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: object, owner: str = "SybilParams") -> SybilParams:
        """Build from the plain-JSON form; omitted fields take their defaults.

        >>> SybilParams.from_dict({"min_age_days": 7}).min_age_days
        7.0
        """
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        return cls(**data)


@dataclass(frozen=True)
class AccuracyWeighting:
    """Weighting providers by their measured accuracy on canary cases (known answers).

    A provider's weight in the output-verification adapter, ``log10(n + 1)``, is multiplied by::

        factor = min_factor + (1 - min_factor) * L

    where ``L`` is the lower bound of the Wilson score interval (at ``confidence``) of the share of
    canary cases it judged right, ``correct / (decisive answers + abstentions)``.  The lower bound,
    not the rate, so that a few lucky canaries give little credit; no canaries at all give ``L = 0``
    and the factor is ``min_factor`` (above 0, so a lone unmeasured provider still scores).

    >>> w = AccuracyWeighting()
    >>> w.factor(0, 0), w.factor(40, 40), w.factor(3, 3)
    (0.1, 0.92116, 0.49465)
    >>> w.factor(20, 40) < w.factor(38, 40)
    True
    """

    min_factor: float = 0.1
    confidence: float = 0.95

    def __post_init__(self) -> None:
        owner = "AccuracyWeighting"
        min_factor = _positive(owner, "min_factor", self.min_factor, hi=1.0)
        if min_factor < MIN_ACCURACY_FACTOR:
            raise ValueError(f"{owner}.min_factor must be >= {MIN_ACCURACY_FACTOR}, got {self.min_factor!r}")
        object.__setattr__(self, "min_factor", min_factor)
        confidence = _positive(owner, "confidence", self.confidence, hi=1.0)
        if confidence >= 1.0:
            raise ValueError(f"{owner}.confidence must be in (0, 1), got {self.confidence!r}")
        object.__setattr__(self, "confidence", confidence)

    def factor(self, correct: int, trials: int) -> float:
        """The weight factor of a provider right on *correct* of *trials* canary cases, in (0, 1].

        Rounded to 6 places so the scoring inputs (and their digest) change only when it does.
        """
        low = wilson_interval(correct, trials, confidence=self.confidence).low
        return round(self.min_factor + (1.0 - self.min_factor) * low, 6)

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form.

        >>> AccuracyWeighting().to_dict()
        {'min_factor': 0.1, 'confidence': 0.95}
        """
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: object, owner: str = "AccuracyWeighting") -> AccuracyWeighting:
        """Build from the plain-JSON form; omitted fields take their defaults.

        >>> AccuracyWeighting.from_dict({"min_factor": 0.25}).min_factor
        0.25
        >>> AccuracyWeighting.from_dict({"min_factor": 0}, "ScoringParams.accuracy_weighting")
        Traceback (most recent call last):
        ...
        ValueError: ScoringParams.accuracy_weighting.min_factor must be in (0, 1], got 0
        """
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        try:
            return cls(**data)
        except ValueError as exc:
            # Name the field where it sits in the configuration document, not in this class.
            raise ValueError(str(exc).replace(f"{cls.__name__}.", f"{owner}.", 1)) from None


def _default_adapters() -> tuple[AdapterSpec, ...]:
    return (
        AdapterSpec(OUTPUT_VERIFICATION, "scoped", 1.0),
        AdapterSpec(ERC8004_FEEDBACK, "scoped", 1.0, include_registries=("erc-8004",)),
    )


@dataclass(frozen=True)
class ScoringParams:
    """The whole scoring configuration: adapter specs, per-adapter constants, stale multiplier.

    The adapter order is the order of the breakdown and of the composite's sums.  ``graph``
    is the optional HCS-25 v1.1 composition graph (:mod:`adapters.graph`); without one the
    score is the composite (the implicit one-node weightedMean graph).  The plain-JSON form
    carries ``graph`` only when there is one, so configurations made before graphs existed
    keep their digests.

    >>> params = ScoringParams()
    >>> [spec.adapter_id for spec in params.adapters]
    ['output-verification', 'erc8004-feedback']
    >>> ScoringParams.from_dict(params.to_dict()) == params
    True
    """

    adapters: tuple[AdapterSpec, ...] = field(default_factory=_default_adapters)
    output_verification: OutputVerificationParams = field(default_factory=OutputVerificationParams)
    erc8004_feedback: Erc8004FeedbackParams = field(default_factory=Erc8004FeedbackParams)
    stale_multiplier: float = 1.0
    graph: CompositionGraph | None = None
    sybil: SybilParams | None = None
    accuracy_weighting: AccuracyWeighting | None = None

    def __post_init__(self) -> None:
        owner = "ScoringParams"
        if isinstance(self.adapters, str | bytes) or not isinstance(self.adapters, Iterable):
            raise ValueError(f"{owner}.adapters must be a list of AdapterSpec")
        adapters = tuple(self.adapters)
        seen: set[str] = set()
        for index, spec in enumerate(adapters):
            if not isinstance(spec, AdapterSpec):
                raise ValueError(f"{owner}.adapters[{index}] must be an AdapterSpec, got {spec!r}")
            if spec.adapter_id in seen:
                raise ValueError(f"{owner}.adapters[{index}].adapter_id {spec.adapter_id!r} is duplicated")
            seen.add(spec.adapter_id)
        object.__setattr__(self, "adapters", adapters)
        if not isinstance(self.output_verification, OutputVerificationParams):
            raise ValueError(f"{owner}.output_verification must be an OutputVerificationParams")
        if not isinstance(self.erc8004_feedback, Erc8004FeedbackParams):
            raise ValueError(f"{owner}.erc8004_feedback must be an Erc8004FeedbackParams")
        multiplier = _number(owner, "stale_multiplier", self.stale_multiplier, lo=0.0)
        if multiplier > 1.0:
            raise ValueError(f"{owner}.stale_multiplier must be in [0, 1], got {self.stale_multiplier!r}")
        object.__setattr__(self, "stale_multiplier", multiplier)
        if self.sybil is not None and not isinstance(self.sybil, SybilParams):
            raise ValueError(f"{owner}.sybil must be a SybilParams, got {self.sybil!r}")
        if self.accuracy_weighting is not None and not isinstance(self.accuracy_weighting, AccuracyWeighting):
            raise ValueError(
                f"{owner}.accuracy_weighting must be an AccuracyWeighting, got {self.accuracy_weighting!r}"
            )
        if self.graph is not None:
            if not isinstance(self.graph, CompositionGraph):
                raise ValueError(f"{owner}.graph must be a CompositionGraph, got {self.graph!r}")
            # Re-validated against these adapters (a graph built for other adapters is refused).
            CompositionGraph.from_dict(
                self.graph.to_dict(), adapter_ids=[spec.adapter_id for spec in adapters]
            )

    def spec(self, adapter_id: str) -> AdapterSpec | None:
        """Return the spec of *adapter_id*, or None when the configuration leaves it out.

        >>> ScoringParams().spec("erc8004-feedback").include_registries
        ('erc-8004',)
        """
        for spec in self.adapters:
            if spec.adapter_id == adapter_id:
                return spec
        return None

    def sybil_params(self) -> SybilParams:
        """The reviewer-standing constants: ``sybil``, or the defaults.

        >>> ScoringParams().sybil_params().min_standing
        0.2
        """
        return self.sybil if self.sybil is not None else SybilParams()

    def reviewer_weighting(self) -> bool:
        """Whether ERC-8004 feedback is weighted by reviewer standing: when the configuration has
        the sybil-resistance adapter or its own ``sybil`` constants.

        >>> ScoringParams().reviewer_weighting()
        False
        """
        return self.sybil is not None or self.spec(SYBIL_RESISTANCE) is not None

    @classmethod
    def sybil_floor(cls) -> ScoringParams:
        """The SPEC 2.4 configuration: the built-in adapters, sybil-resistance as a floor over them.

        sybil-resistance has weight 0 (it is not averaged in) and the graph caps the weighted
        mean of the other two by it.

        >>> ScoringParams.sybil_floor().graph.graph_id
        'sybil-floor-1'
        """
        adapters = (*_default_adapters(), AdapterSpec(SYBIL_RESISTANCE, "universal", 0.0))
        graph = CompositionGraph.from_dict(
            {
                "id": "sybil-floor-1",
                "nodes": [
                    {
                        "name": "evidence",
                        "op": "weightedMean",
                        "inputs": [f"adapter:{OUTPUT_VERIFICATION}", f"adapter:{ERC8004_FEEDBACK}"],
                        "params": {"weights": [1.0, 1.0]},
                    },
                    {
                        "name": "governed",
                        "op": "floor",
                        "inputs": ["node:evidence", f"adapter:{SYBIL_RESISTANCE}"],
                    },
                ],
                "output": "governed",
            },
            adapter_ids=[spec.adapter_id for spec in adapters],
        )
        return cls(adapters=adapters, graph=graph, sybil=SybilParams())

    def effective_graph(self) -> CompositionGraph:
        """The graph scores are explained with: ``graph``, or the implicit composite graph.

        >>> ScoringParams().effective_graph().graph_id
        'hcs25-composite'
        """
        if self.graph is not None:
            return self.graph
        return implicit_graph([(spec.adapter_id, spec.weight) for spec in self.adapters])

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form stored in the ScoringConfig row.

        >>> sorted(ScoringParams().to_dict())
        ['adapters', 'erc8004_feedback', 'output_verification', 'stale_multiplier']
        """
        out: dict[str, Any] = {
            "adapters": [spec.to_dict() for spec in self.adapters],
            "output_verification": self.output_verification.to_dict(),
            "erc8004_feedback": self.erc8004_feedback.to_dict(),
            "stale_multiplier": self.stale_multiplier,
        }
        if self.graph is not None:
            out["graph"] = self.graph.to_dict()
        if self.sybil is not None:
            out["sybil"] = self.sybil.to_dict()
        if self.accuracy_weighting is not None:
            # Only when set, so configurations made before it keep their digests.
            out["accuracy_weighting"] = self.accuracy_weighting.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: object) -> ScoringParams:
        """Build from the plain-JSON form; raises ValueError naming the bad field.

        >>> ScoringParams.from_dict({"stale_multiplier": 0.5}).stale_multiplier
        0.5
        >>> ScoringParams.from_dict({"adapters": [{"adapter_id": "a", "mode": "x"}]})
        Traceback (most recent call last):
        ...
        ValueError: AdapterSpec[a].mode must be one of universal, scoped, conditional, got 'x'
        """
        owner = "ScoringParams"
        data = _mapping(owner, data)
        _reject_unknown(owner, data, cls)
        kwargs: dict[str, Any] = {}
        if "adapters" in data:
            raw = data["adapters"]
            if isinstance(raw, str | bytes | Mapping) or not isinstance(raw, Iterable):
                raise ValueError(f"{owner}.adapters must be a list of objects")
            kwargs["adapters"] = tuple(
                AdapterSpec.from_dict(item, f"{owner}.adapters[{index}]") for index, item in enumerate(raw)
            )
        if "output_verification" in data:
            kwargs["output_verification"] = OutputVerificationParams.from_dict(
                data["output_verification"], f"{owner}.output_verification"
            )
        if "erc8004_feedback" in data:
            kwargs["erc8004_feedback"] = Erc8004FeedbackParams.from_dict(
                data["erc8004_feedback"], f"{owner}.erc8004_feedback"
            )
        if "stale_multiplier" in data:
            kwargs["stale_multiplier"] = data["stale_multiplier"]
        if data.get("sybil") is not None:
            kwargs["sybil"] = SybilParams.from_dict(data["sybil"], f"{owner}.sybil")
        if data.get("accuracy_weighting") is not None:
            kwargs["accuracy_weighting"] = AccuracyWeighting.from_dict(
                data["accuracy_weighting"], f"{owner}.accuracy_weighting"
            )
        if data.get("graph") is not None:
            adapters = kwargs.get("adapters", _default_adapters())
            kwargs["graph"] = CompositionGraph.from_dict(
                data["graph"], adapter_ids=[spec.adapter_id for spec in adapters]
            )
        return cast(ScoringParams, cls(**kwargs))
