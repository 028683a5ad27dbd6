"""Score many agents at once with numpy: output-verification, erc8004-feedback and the composite.

Inputs are 2-D arrays with one row per agent and one column per provider slot (agents
with fewer providers leave slots unused and say so in ``mask``).  The arithmetic is the
scalar path's, operation for operation and in the same order, so every number equals
what :func:`adapters.scoring.score_subject` gives for the same agent:

* provider sums run column by column (not ``np.sum``, whose pairwise summation would
  reassociate), and unused slots add an exact ``0.0``;
* ``log10`` runs on contiguous arrays through numpy in both paths
  (:func:`adapters.numbers.log10`);
* rounding uses :func:`adapters.numbers.round_half_up_array`, bit-identical to the
  scalar rule.

Eligibility (suspended, self-reported, stale providers) is decided by the caller and
expressed through ``mask``; slots with zero checks never count, as in the scalar path.
Only the two built-in adapters are scored here; the sybil-resistance adapter may sit beside
them (SPEC 2.4's floor gives it weight 0): its per-subject result comes from the scalar
function, and with a weight its total enters the composite sum in its configuration place.

:func:`hcs25_records` turns one :func:`score_batch` (which also returns the per-provider
provenance terms) into the HCS-25 records that ``score_subject(...).to_hcs25(...)`` gives,
dict for dict: the recompute drain stores those.  Under reviewer weighting it takes each
subject's reviewer standings and scores the (cheap, per-subject) sybil-resistance adapter with
the scalar function, so its breakdown entry, the graph's floor and the reviewer provenance are
the scalar path's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from adapters.core import REASON_INFORMATIONAL, REASON_NO_OUTPUT, REASON_NOT_APPLICABLE, AdapterResult
from adapters.erc8004_feedback import RATING_KEY, VOLUME_KEY, FeedbackSummary
from adapters.numbers import clamp_array, round_half_up_array
from adapters.output_verification import (
    COVERAGE_KEY,
    QUALITY_KEY,
    REASON_INSUFFICIENT_SAMPLE,
    ProviderSummary,
    exclusion_reason,
)
from adapters.params import (
    ERC8004_FEEDBACK,
    MIN_ACCURACY_FACTOR,
    OUTPUT_VERIFICATION,
    STAKE_LEVELS,
    SYBIL_RESISTANCE,
    AdapterSpec,
    ScoringParams,
)
from adapters.scoring import (
    Subject,
    graph_outcome,
    independent_providers,
    reviewer_provenance,
    sybil_resistance_result,
)
from adapters.sybil import ReviewerStanding

__all__ = [
    "BatchScores",
    "applicability_flags",
    "batch_supported",
    "hcs25_records",
    "pack_subjects",
    "score_batch",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class BatchScores:
    """Per-agent results of :func:`score_batch`; every array has one entry per agent.

    Values of adapters that are not applicable are 0 (see the ``*_applicable`` flags);
    ``mean_quality`` and ``disagreement`` are NaN for agents without eligible providers.
    """

    quality: FloatArray
    coverage: FloatArray
    ov_total: FloatArray
    ov_applicable: BoolArray
    mean_quality: FloatArray
    disagreement: FloatArray
    total_checks: IntArray
    feedback_rating: FloatArray
    feedback_volume: FloatArray
    feedback_total: FloatArray
    feedback_applicable: BoolArray
    feedback_in_denominator: BoolArray
    trust_score: FloatArray
    trust_confidence: FloatArray
    # Per provider slot (agents x providers), the output-verification provenance terms of
    # eligible slots, unrounded (0 in slots that are unused or not eligible).
    provider_weight: FloatArray
    provider_quality: FloatArray
    discriminative_power: FloatArray
    stake_multiplier: FloatArray


def applicability_flags(
    registries: Iterable[str | None], spec: AdapterSpec, protocols: Iterable[str | None] | None = None
) -> BoolArray:
    """Return, per subject, whether *spec* applies to its registry (and protocol).

    >>> spec = AdapterSpec("erc8004-feedback", "scoped", include_registries=("erc-8004",))
    >>> applicability_flags(["erc-8004", "hcs-10", None], spec).tolist()
    [True, False, False]
    >>> applicability_flags(["x", "x"], AdapterSpec("a", exclude_protocols=("mcp",)), ["mcp", None]).tolist()
    [False, True]
    """
    registries = list(registries)
    subjects = zip(
        registries, [None] * len(registries) if protocols is None else list(protocols), strict=True
    )
    cache: dict[tuple[str | None, str | None], bool] = {}
    flags = []
    for key in subjects:
        flag = cache.get(key)
        if flag is None:
            flag = cache[key] = spec.applies_to(*key)
        flags.append(flag)
    return np.array(flags, dtype=np.bool_)


def pack_subjects(
    items: Sequence[tuple[Subject, Sequence[ProviderSummary], FeedbackSummary | None]], params: ScoringParams
) -> dict[str, npt.NDArray[Any]]:
    """Pack (subject, summaries, feedback) triples into the keyword arrays of :func:`score_batch`.

    Excluded, stale and empty summaries get ``mask`` False, exactly as the scalar path
    leaves them out; unknown stake levels are dropped.

    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2, "micro": 5})
    >>> packed = pack_subjects([(Subject("a"), [s], None)], ScoringParams())
    >>> score_batch(**packed, params=ScoringParams()).trust_score.tolist()
    [42.74]
    """
    agents = len(items)
    slots = max([len(summaries) for _, summaries, _ in items] + [1])
    shape = (agents, slots)
    allow, block, confidence = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    checks = np.zeros(shape, dtype=np.int64)
    stakes = np.zeros((*shape, len(STAKE_LEVELS)), dtype=np.int64)
    mask = np.zeros(shape, dtype=np.bool_)
    # 1.0 where a provider has no accuracy factor: multiplying a weight by 1.0 leaves every bit.
    accuracy = np.ones(shape)
    feedback_average = np.zeros(agents)
    feedback_count = np.zeros(agents, dtype=np.int64)
    for i, (_, summaries, feedback) in enumerate(items):
        for j, summary in enumerate(summaries):
            allow[i, j] = summary.allow_rate
            block[i, j] = summary.block_rate
            confidence[i, j] = summary.avg_confidence
            checks[i, j] = summary.total_checks
            for k, level in enumerate(STAKE_LEVELS):
                stakes[i, j, k] = (summary.stake_distribution or {}).get(level, 0)
            mask[i, j] = exclusion_reason(summary, params.output_verification) is None
            if summary.accuracy_factor is not None:
                accuracy[i, j] = summary.accuracy_factor
        if feedback is not None:
            feedback_average[i] = feedback.average_score
            feedback_count[i] = feedback.total_feedbacks
    registries = [subject.registry for subject, _, _ in items]
    protocols = [subject.protocol for subject, _, _ in items]
    ov_spec = params.spec(OUTPUT_VERIFICATION)
    fb_spec = params.spec(ERC8004_FEEDBACK)
    return {
        "allow": allow,
        "block": block,
        "confidence": confidence,
        "checks": checks,
        "stake_checks": stakes,
        "mask": mask,
        "accuracy": accuracy,
        "feedback_average": feedback_average,
        "feedback_count": feedback_count,
        "ov_registry_ok": applicability_flags(registries, ov_spec, protocols)
        if ov_spec
        else np.zeros(agents, dtype=np.bool_),
        "feedback_registry_ok": applicability_flags(registries, fb_spec, protocols)
        if fb_spec
        else np.zeros(agents, dtype=np.bool_),
    }


#: Agents scored per chunk: small enough for the temporaries to stay in cache and be
#: reused by the allocator, large enough to amortise numpy's per-call overhead.
CHUNK_AGENTS = 1 << 15


def _clamp(x: FloatArray, lo: float = 0.0, hi: float = 100.0) -> FloatArray:
    return clamp_array(x, lo, hi, validate=False)


def _round(x: FloatArray, places: int = 2) -> FloatArray:
    return round_half_up_array(x, places, validate=False)


def _float2d(name: str, value: npt.ArrayLike, shape: tuple[int, ...]) -> FloatArray:
    arr: FloatArray = np.ascontiguousarray(value, dtype=np.float64)
    if arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape} (agents x providers), got {arr.shape}")
    return arr


def _per_agent(
    name: str, value: npt.ArrayLike | None, agents: int, dtype: type, default: object
) -> npt.NDArray[Any]:
    if value is None:
        return np.full(agents, default, dtype=dtype)
    arr: npt.NDArray[Any] = np.ascontiguousarray(value, dtype=dtype)
    if arr.shape != (agents,):
        raise ValueError(f"{name} must have shape ({agents},), got {arr.shape}")
    return arr


def _integers(name: str, value: npt.ArrayLike, ndim: int) -> IntArray:
    arr = np.ascontiguousarray(value)
    if arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got shape {arr.shape}")
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    result: IntArray = arr.astype(np.int64, copy=False)
    return result


@dataclass(frozen=True)
class _Inputs:
    allow: FloatArray
    block: FloatArray
    confidence: FloatArray
    checks: IntArray
    stakes: IntArray | None
    present: BoolArray
    accuracy: FloatArray | None
    feedback_average: FloatArray
    feedback_count: IntArray
    ov_registry: BoolArray
    feedback_registry: BoolArray
    sybil_total: FloatArray
    sybil_in_denominator: BoolArray
    sybil_ok_share: FloatArray


def score_batch(
    allow: npt.ArrayLike,
    block: npt.ArrayLike,
    confidence: npt.ArrayLike,
    checks: npt.ArrayLike,
    stake_checks: npt.ArrayLike | None = None,
    mask: npt.ArrayLike | None = None,
    *,
    accuracy: npt.ArrayLike | None = None,
    feedback_average: npt.ArrayLike | None = None,
    feedback_count: npt.ArrayLike | None = None,
    ov_registry_ok: npt.ArrayLike | None = None,
    feedback_registry_ok: npt.ArrayLike | None = None,
    sybil_total: npt.ArrayLike | None = None,
    sybil_in_denominator: npt.ArrayLike | None = None,
    sybil_ok_share: npt.ArrayLike | None = None,
    params: ScoringParams | None = None,
) -> BatchScores:
    """Score agents in bulk; results equal the scalar path exactly.

    ``allow``, ``block``, ``confidence``: rates (agents × providers); ``checks``: total
    checks per provider; ``stake_checks``: (agents × providers × 4) checks at the
    low/medium/high/critical levels (all zero = no stake data; unknown levels have no
    slot and so are ignored); ``mask``: True where a provider slot holds an eligible
    summary (other slots may hold anything).  ``accuracy``: per provider slot, the canary
    accuracy factor its weight is multiplied by (omitted: 1 everywhere).
    ``feedback_count`` 0 means no feedback.
    ``*_registry_ok`` say whether each adapter's registry rules admit the agent (see
    :func:`applicability_flags`); omitted, they are the adapter's answer for a subject
    without a registry.  ``sybil_*``: per agent, the total, ``inDenominator`` and share of ok
    components of its sybil-resistance result (:func:`adapters.scoring.sybil_resistance_result`),
    needed only when that adapter has a weight.

    >>> out = score_batch([[0.9]], [[0.1]], [[0.8]], [[10]], [[[8, 2, 0, 0]]])
    >>> out.quality.tolist(), out.coverage.tolist(), out.trust_score.tolist()
    ([43.2], [41.66], [42.74])
    """
    params = params or ScoringParams()
    for spec in params.adapters:
        if spec.adapter_id not in (OUTPUT_VERIFICATION, ERC8004_FEEDBACK, SYBIL_RESISTANCE):
            raise ValueError(f"score_batch() supports only the built-in adapters, not {spec.adapter_id!r}")
        if spec.adapter_id == SYBIL_RESISTANCE and spec.weight > 0 and sybil_total is None:
            raise ValueError("a weighted sybil-resistance adapter needs sybil_total and sybil_in_denominator")
    n_checks = _integers("checks", checks, 2)
    shape = n_checks.shape
    agents = shape[0]
    present = np.ones(shape, dtype=np.bool_) if mask is None else np.ascontiguousarray(mask, dtype=np.bool_)
    if present.shape != shape:
        raise ValueError(f"mask must have shape {shape}, got {present.shape}")
    stakes = None
    if stake_checks is not None:
        stakes = _integers("stake_checks", stake_checks, 3)
        if stakes.shape != (*shape, 4):
            raise ValueError(f"stake_checks must have shape {(*shape, 4)}, got {stakes.shape}")
    factors = None
    if accuracy is not None:
        factors = _float2d("accuracy", accuracy, shape)
        if not np.all(~present | ((factors >= MIN_ACCURACY_FACTOR) & (factors <= 1.0))):
            raise ValueError(
                f"accuracy must hold factors in [{MIN_ACCURACY_FACTOR}, 1] for every provider in mask"
            )
    ov_spec = params.spec(OUTPUT_VERIFICATION)
    fb_spec = params.spec(ERC8004_FEEDBACK)
    inputs = _Inputs(
        allow=_float2d("allow", allow, shape),
        block=_float2d("block", block, shape),
        confidence=_float2d("confidence", confidence, shape),
        checks=n_checks,
        stakes=stakes,
        present=present,
        accuracy=factors,
        feedback_average=_per_agent("feedback_average", feedback_average, agents, np.float64, 0.0),
        feedback_count=_per_agent("feedback_count", feedback_count, agents, np.int64, 0),
        ov_registry=_per_agent(
            "ov_registry_ok", ov_registry_ok, agents, np.bool_, ov_spec.applies_to(None) if ov_spec else False
        ),
        feedback_registry=_per_agent(
            "feedback_registry_ok",
            feedback_registry_ok,
            agents,
            np.bool_,
            fb_spec.applies_to(None) if fb_spec else False,
        ),
        sybil_total=_per_agent("sybil_total", sybil_total, agents, np.float64, 0.0),
        sybil_in_denominator=_per_agent(
            "sybil_in_denominator", sybil_in_denominator, agents, np.bool_, False
        ),
        sybil_ok_share=_per_agent("sybil_ok_share", sybil_ok_share, agents, np.float64, 0.0),
    )
    out = BatchScores(
        quality=np.zeros(agents),
        coverage=np.zeros(agents),
        ov_total=np.zeros(agents),
        ov_applicable=np.zeros(agents, dtype=np.bool_),
        mean_quality=np.zeros(agents),
        disagreement=np.zeros(agents),
        total_checks=np.zeros(agents, dtype=np.int64),
        feedback_rating=np.zeros(agents),
        feedback_volume=np.zeros(agents),
        feedback_total=np.zeros(agents),
        feedback_applicable=np.zeros(agents, dtype=np.bool_),
        feedback_in_denominator=np.zeros(agents, dtype=np.bool_),
        trust_score=np.zeros(agents),
        trust_confidence=np.zeros(agents),
        provider_weight=np.zeros(shape),
        provider_quality=np.zeros(shape),
        discriminative_power=np.zeros(shape),
        stake_multiplier=np.zeros(shape),
    )
    for begin in range(0, agents, CHUNK_AGENTS):
        _score_chunk(inputs, slice(begin, min(begin + CHUNK_AGENTS, agents)), params, out)
    return out


def _score_chunk(inputs: _Inputs, rows: slice, params: ScoringParams, out: BatchScores) -> None:
    ovp = params.output_verification
    fbp = params.erc8004_feedback
    ov_spec = params.spec(OUTPUT_VERIFICATION)
    fb_spec = params.spec(ERC8004_FEEDBACK)
    n_checks = inputs.checks[rows]
    present = inputs.present[rows]
    agents, slots = n_checks.shape
    if np.any(present & (n_checks < 0)):
        raise ValueError("checks must be >= 0 for every provider in mask")
    eligible = present & (n_checks > 0)

    a = _rates("allow", inputs.allow[rows], eligible)
    b = _rates("block", inputs.block[rows], eligible)
    c = _rates("confidence", inputs.confidence[rows], eligible)
    n = np.where(eligible, n_checks, 0)

    # Stake multiplier, level by level in the scalar path's order.
    if inputs.stakes is None:
        sm = np.ones((agents, slots), dtype=np.float64)
    else:
        stakes = inputs.stakes[rows]
        if np.any(eligible & (stakes.min(axis=2) < 0)):
            raise ValueError("stake_checks must be >= 0 for every provider in mask")
        weighted = np.zeros((agents, slots), dtype=np.float64)
        level_sum = np.zeros((agents, slots), dtype=np.int64)
        for level, weight in enumerate(ovp.stake_weights.as_tuple()):
            count = stakes[..., level]
            weighted += weight * count  # int64 -> float64 is exact below 2**53, as in Python
            level_sum += count
        no_stake = ~eligible | (level_sum == 0)
        ratio = weighted / np.where(no_stake, 1, level_sum)
        sm = np.where(no_stake, 1.0, _clamp(ratio, ovp.stake_multiplier_min, ovp.stake_multiplier_max))

    dp = _clamp(b / ovp.full_power_block_rate, 0.0, 1.0)
    q = a * c
    q *= dp
    q *= np.minimum(sm, ovp.stake_multiplier_cap)
    q *= 100.0
    q = _clamp(q)
    w = np.log10(np.ascontiguousarray(n.astype(np.float64) + 1.0))  # 0 for unused slots
    if inputs.accuracy is not None:
        # One correctly rounded product per slot, as output_verification.provider_weight does.
        w = w * np.where(eligible, inputs.accuracy[rows], 1.0)

    weight_sum = np.zeros(agents, dtype=np.float64)
    weighted_q = np.zeros(agents, dtype=np.float64)
    for j in range(slots):
        weight_sum += w[:, j]
        weighted_q += w[:, j] * q[:, j]
    has_provider = weight_sum > 0.0
    safe_sum = np.where(has_provider, weight_sum, 1.0)
    mean_q = weighted_q / safe_sum
    spread = np.zeros(agents, dtype=np.float64)
    for j in range(slots):
        spread += w[:, j] * np.abs(q[:, j] - mean_q)
    multi = np.count_nonzero(eligible, axis=1) > 1
    disagreement = np.where(multi, spread / safe_sum, 0.0)
    quality_raw = np.where(multi, mean_q * (1.0 - ovp.disagreement_factor * disagreement / 100.0), mean_q)

    total_checks = np.zeros(agents, dtype=np.int64)
    for j in range(slots):
        total_checks += n[:, j]
    volume = np.minimum(
        ovp.volume_cap,
        np.log10(np.ascontiguousarray(total_checks.astype(np.float64) + 1.0)) * ovp.volume_scale,
    )
    coverage_raw = 100.0 * _clamp(volume / ovp.volume_cap, 0.0, 1.0)

    ov_applicable = inputs.ov_registry[rows] & has_provider & (total_checks >= ovp.min_checks)
    if ov_spec is None:
        ov_applicable[:] = False
    quality = np.where(ov_applicable, _round(_clamp(quality_raw)), 0.0)
    coverage = np.where(ov_applicable, _round(_clamp(coverage_raw)), 0.0)
    ov_total = np.where(
        ov_applicable, _round(_clamp(ovp.quality_weight * quality + ovp.coverage_weight * coverage)), 0.0
    )

    # erc8004-feedback
    fb_count = inputs.feedback_count[rows]
    if np.any(fb_count < 0):
        raise ValueError("feedback_count must be >= 0")
    has_feedback = fb_count > 0
    fb_avg = np.where(has_feedback, inputs.feedback_average[rows], 0.0)
    if not np.all(np.isfinite(fb_avg)):
        raise ValueError("feedback_average must be finite where feedback_count > 0")
    fb_applicable = inputs.feedback_registry[rows].copy()
    if fb_spec is None:
        fb_applicable[:] = False
    rating = _round(_clamp(fb_avg))
    fb_volume_raw = np.minimum(
        fbp.volume_cap, np.log10(np.ascontiguousarray(fb_count.astype(np.float64) + 1.0)) * fbp.volume_scale
    )
    fb_volume = _round(_clamp(100.0 * _clamp(fb_volume_raw / fbp.volume_cap, 0.0, 1.0)))
    # core.adapter_total re-rounds each component before the mean; rounding is idempotent
    # (see adapters.numbers), so the mean of the rounded values is what it computes.
    fb_mean = _round((0.0 + rating + fb_volume) / 2.0)
    scored = fb_applicable & has_feedback
    feedback_total = np.where(scored, fb_mean, 0.0)

    # Composite, adapter by adapter in configuration order, as core.composite sums.
    numerator = np.zeros(agents, dtype=np.float64)
    denominator = np.zeros(agents, dtype=np.float64)
    confidence_sum = np.zeros(agents, dtype=np.float64)
    fb_in_den = np.zeros(agents, dtype=np.bool_)
    for spec in params.adapters:
        if spec.weight <= 0:
            continue
        if spec.adapter_id == OUTPUT_VERIFICATION:
            in_den, total, ok_share = ov_applicable, ov_total, np.ones(agents)
        elif spec.adapter_id == SYBIL_RESISTANCE:
            in_den = inputs.sybil_in_denominator[rows]
            total, ok_share = inputs.sybil_total[rows], inputs.sybil_ok_share[rows]
        else:
            in_den = fb_applicable & (has_feedback | (spec.mode != "conditional"))
            fb_in_den = in_den
            total, ok_share = feedback_total, np.where(has_feedback, 1.0, 0.0)
        numerator += np.where(in_den, spec.weight * total, 0.0)
        denominator += np.where(in_den, spec.weight, 0.0)
        confidence_sum += np.where(in_den, spec.weight * ok_share, 0.0)
    scored_any = denominator > 0.0
    safe_den = np.where(scored_any, denominator, 1.0)

    out.provider_weight[rows] = w
    out.provider_quality[rows] = np.where(eligible, q, 0.0)
    out.discriminative_power[rows] = np.where(eligible, dp, 0.0)
    out.stake_multiplier[rows] = np.where(eligible, sm, 0.0)
    out.quality[rows] = quality
    out.coverage[rows] = coverage
    out.ov_total[rows] = ov_total
    out.ov_applicable[rows] = ov_applicable
    out.mean_quality[rows] = np.where(has_provider, mean_q, np.nan)
    out.disagreement[rows] = np.where(has_provider, disagreement, np.nan)
    out.total_checks[rows] = total_checks
    out.feedback_rating[rows] = np.where(scored, rating, 0.0)
    out.feedback_volume[rows] = np.where(scored, fb_volume, 0.0)
    out.feedback_total[rows] = feedback_total
    out.feedback_applicable[rows] = fb_applicable
    out.feedback_in_denominator[rows] = fb_in_den
    out.trust_score[rows] = np.where(scored_any, _round(_clamp(numerator / safe_den)), 0.0)
    out.trust_confidence[rows] = np.where(
        scored_any, _round(_clamp(confidence_sum / safe_den, 0.0, 1.0), places=4), 0.0
    )


def _rates(name: str, arr: FloatArray, mask: BoolArray) -> FloatArray:
    clean = np.where(mask, arr, 0.0)
    # NaN fails both comparisons and infinities fail one, so this also checks finiteness.
    if not np.all((clean >= 0.0) & (clean <= 1.0)):
        raise ValueError(f"{name} must hold finite rates in [0, 1] for every provider in mask")
    return clean


def batch_supported(params: ScoringParams) -> bool:
    """Whether :func:`hcs25_records` can score under *params*: the built-in adapters, with or
    without sybil-resistance (the SPEC 2.4 floor).

    >>> batch_supported(ScoringParams()), batch_supported(ScoringParams.sybil_floor())
    (True, True)
    >>> batch_supported(ScoringParams(adapters=(AdapterSpec("availability"),)))
    False
    """
    builtin = (OUTPUT_VERIFICATION, ERC8004_FEEDBACK, SYBIL_RESISTANCE)
    return all(spec.adapter_id in builtin for spec in params.adapters)


def _adapter_entry(
    spec: AdapterSpec,
    *,
    applicable: bool,
    in_denominator: bool,
    components: list[dict[str, Any]],
    total: float,
    reason: str | None,
) -> dict[str, Any]:
    # The shape of core.AdapterResult.to_breakdown(), key for key.
    entry: dict[str, Any] = {
        "adapterId": spec.adapter_id,
        "contributionMode": spec.mode,
        "applicable": applicable,
        "inDenominator": in_denominator,
        "weight": spec.weight,
        "components": components,
        "total": total,
    }
    if reason is not None:
        entry["reason"] = reason
    return entry


def hcs25_records(
    items: Sequence[tuple[Subject, Sequence[ProviderSummary], FeedbackSummary | None]],
    params: ScoringParams,
    *,
    digests: Sequence[str],
    config_version: int,
    updated_at_iso: str,
    reviewers: Sequence[Sequence[ReviewerStanding] | None] | None = None,
) -> list[dict[str, Any]]:
    """The HCS-25 records of many subjects at once, equal to ``score_subject(...).to_hcs25(...)``.

    The numbers (composite, adapter totals, per-provider weights, qualities, discriminative
    powers and stake multipliers) come from one :func:`score_batch`; only the dicts are built
    per subject.  *digests* are the subjects' inputs digests
    (:func:`adapters.scoring.scoring_inputs_digest`, given the same reviewers), which the
    record carries.  *reviewers*, one entry per subject, are what ``score_subject`` takes as
    ``reviewers`` (None: no reviewer standing for that subject).  Only the configurations of
    :func:`batch_supported` are supported.

    >>> s = ProviderSummary("tp", 0.9, 0.1, 0.0, 0.8, 10, {"low": 8, "medium": 2})
    >>> rec = hcs25_records([(Subject("a"), [s], None)], ScoringParams(), digests=["sha256:x"],
    ...                     config_version=1, updated_at_iso="2026-01-01T00:00:00Z")[0]
    >>> rec["trustScore"], rec["provenance"]["outputVerification"]["providers"][0]["quality"]
    (42.74, 43.2)
    """
    if not batch_supported(params):
        raise ValueError("hcs25_records() supports only the built-in adapters")
    if len(digests) != len(items):
        raise ValueError(f"digests must have one entry per subject ({len(items)}), got {len(digests)}")
    if reviewers is not None and len(reviewers) != len(items):
        raise ValueError(f"reviewers must have one entry per subject ({len(items)}), got {len(reviewers)}")
    if not items:
        return []
    sybil_spec = params.spec(SYBIL_RESISTANCE)
    sybil_results: list[AdapterResult] = []
    if sybil_spec is not None:
        # Per subject, the scalar function, whose totals the composite then sums. A subject nobody
        # rated depends only on its registry, protocol and independent providers: most of a batch
        # shares a handful of results (immutable), each computed once.
        standings_of = [None] * len(items) if reviewers is None else list(reviewers)
        unrated: dict[tuple[str | None, str | None, int], AdapterResult] = {}
        for (subject, summaries, _), standings in zip(items, standings_of, strict=True):
            if standings:
                sybil_results.append(
                    sybil_resistance_result(subject, summaries, standings, params=params, spec=sybil_spec)
                )
                continue
            key = (subject.registry, subject.protocol, independent_providers(summaries, params))
            result = unrated.get(key)
            if result is None:
                result = unrated[key] = sybil_resistance_result(
                    subject, summaries, standings, params=params, spec=sybil_spec
                )
            sybil_results.append(result)
    packed = pack_subjects(items, params)
    out = score_batch(
        **packed,
        sybil_total=[r.total for r in sybil_results] if sybil_results else None,
        sybil_in_denominator=[r.in_denominator for r in sybil_results] if sybil_results else None,
        sybil_ok_share=[r.ok_share for r in sybil_results] if sybil_results else None,
        params=params,
    )
    ovp = params.output_verification
    ov_spec = params.spec(OUTPUT_VERIFICATION)
    # Rounded once for the whole batch, and turned into Python floats (tolist keeps every bit).
    weights = _round_rows(out.provider_weight, 6)
    qualities = _round_rows(out.provider_quality, 2)
    powers = _round_rows(out.discriminative_power, 4)
    multipliers = _round_rows(out.stake_multiplier, 4)
    mean_quality = _round(np.nan_to_num(out.mean_quality)).tolist()
    disagreement = _round(np.nan_to_num(out.disagreement)).tolist()
    columns = {
        name: getattr(out, name).tolist()
        for name in (
            "quality",
            "coverage",
            "ov_total",
            "ov_applicable",
            "total_checks",
            "feedback_rating",
            "feedback_volume",
            "feedback_total",
            "trust_score",
            "trust_confidence",
        )
    }
    ov_registry = packed["ov_registry_ok"].tolist()
    fb_registry = packed["feedback_registry_ok"].tolist()
    has_feedback = (packed["feedback_count"] > 0).tolist()
    records = []
    for i, (subject, summaries, _) in enumerate(items):
        scores: dict[str, float] = {}
        breakdown = []
        standings = None if reviewers is None else reviewers[i]
        for spec in params.adapters:
            in_den_if_ok = spec.weight > 0
            informational = None if in_den_if_ok else REASON_INFORMATIONAL
            if spec.adapter_id == SYBIL_RESISTANCE:
                result = sybil_results[i]
                if result.applicable:
                    for component in result.components:
                        if component.value is not None:
                            scores[component.key] = float(component.value)
                entry = result.to_breakdown()
            elif spec.adapter_id == OUTPUT_VERIFICATION:
                if not ov_registry[i]:
                    entry = _adapter_entry(
                        spec, applicable=False, in_denominator=False, components=[], total=0.0,
                        reason=REASON_NOT_APPLICABLE,
                    )  # fmt: skip
                elif not columns["ov_applicable"][i]:
                    entry = _adapter_entry(
                        spec, applicable=False, in_denominator=False, components=[], total=0.0,
                        reason=REASON_INSUFFICIENT_SAMPLE,
                    )  # fmt: skip
                else:
                    quality, coverage = columns["quality"][i], columns["coverage"][i]
                    scores[QUALITY_KEY] = quality
                    scores[COVERAGE_KEY] = coverage
                    entry = _adapter_entry(
                        spec,
                        applicable=True,
                        in_denominator=in_den_if_ok,
                        components=[
                            {"key": QUALITY_KEY, "value": quality, "status": "ok"},
                            {"key": COVERAGE_KEY, "value": coverage, "status": "ok"},
                        ],
                        total=columns["ov_total"][i],
                        reason=informational,
                    )
            elif not fb_registry[i]:
                entry = _adapter_entry(
                    spec, applicable=False, in_denominator=False, components=[], total=0.0,
                    reason=REASON_NOT_APPLICABLE,
                )  # fmt: skip
            elif has_feedback[i]:
                rating, volume = columns["feedback_rating"][i], columns["feedback_volume"][i]
                scores[RATING_KEY] = rating
                scores[VOLUME_KEY] = volume
                entry = _adapter_entry(
                    spec,
                    applicable=True,
                    in_denominator=in_den_if_ok,
                    components=[
                        {"key": RATING_KEY, "value": rating, "status": "ok"},
                        {"key": VOLUME_KEY, "value": volume, "status": "ok"},
                    ],
                    total=columns["feedback_total"][i],
                    reason=informational,
                )
            elif spec.mode == "conditional":
                entry = _adapter_entry(
                    spec, applicable=True, in_denominator=False, components=[], total=0.0,
                    reason=REASON_NO_OUTPUT,
                )  # fmt: skip
            else:
                # HCS-25 penalises missing output of a universal/scoped adapter with a 0.
                scores[spec.default_component_key] = 0.0
                entry = _adapter_entry(
                    spec,
                    applicable=True,
                    in_denominator=in_den_if_ok,
                    components=[{"key": spec.default_component_key, "value": 0.0, "status": "missing"}],
                    total=0.0,
                    reason=REASON_NO_OUTPUT if in_den_if_ok else REASON_INFORMATIONAL,
                )
            breakdown.append(entry)
        # The graph (or the implicit composite graph) runs on the same breakdown dicts as the
        # one-by-one path, so the explanation and a graph's score are the same bytes.
        composite_score = columns["trust_score"][i]
        graph_score, explanation = graph_outcome(params, breakdown, composite_score)
        # score_subject keeps the composite unless the graph's score compares unequal.
        trust_score = graph_score if graph_score != composite_score else composite_score
        scores["total"] = trust_score
        provenance: dict[str, Any] = {"inputsDigest": digests[i]}
        if ov_spec is not None:
            providers = []
            excluded = []
            for j, summary in enumerate(summaries):
                reason = exclusion_reason(summary, ovp)
                if reason is not None:
                    excluded.append({"providerId": summary.provider_id, "reason": reason})
                    continue
                contribution: dict[str, Any] = {
                    "providerId": summary.provider_id,
                    "totalChecks": summary.total_checks,
                    "weight": weights[i][j],
                    "quality": qualities[i][j],
                    "discriminativePower": powers[i][j],
                    "stakeMultiplier": multipliers[i][j],
                }
                if summary.accuracy_factor is not None:
                    contribution["accuracyFactor"] = summary.accuracy_factor
                providers.append(contribution)
            provenance["outputVerification"] = {
                "providers": providers,
                "excluded": excluded,
                "disagreement": disagreement[i] if providers else None,
                "meanQuality": mean_quality[i] if providers else None,
                "totalChecks": columns["total_checks"][i],
            }
        if standings is not None:
            provenance["reviewers"] = reviewer_provenance(standings, params)
        records.append(
            {
                "subjectId": subject.subject_id,
                "trustScore": trust_score,
                "trustScores": scores,
                "trustScoreConfigVersion": config_version,
                "trustScoreUpdatedAt": updated_at_iso,
                "trustConfidence": columns["trust_confidence"][i],
                "compositionGraphId": explanation["graphId"],
                "breakdown": {"adapters": breakdown},
                "explanation": explanation,
                "provenance": provenance,
            }
        )
    return records


def _round_rows(x: FloatArray, places: int) -> list[list[float]]:
    rounded: list[list[float]] = _round(x, places).tolist()
    return rounded
