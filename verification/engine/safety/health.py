"""Runtime health of an agent's model calls against its own baseline (seed 003's runtime engines).

A ``HealthBaseline`` is kept per (agent, model): running means of latency, tokens per second and of a
structural fingerprint of the answers.  ``update_baseline`` folds one ``HealthObservation`` in (an exact
running mean for the first ``window`` observations, then an exponential moving average with
alpha = 1/window so the baseline follows slow change).  Once a metric has ``min_samples``
observations, a value enters with bounded influence: it is clipped into the warn band on the ratio
scale, ``[mean / k, mean * k]`` with ``k = 1 + latency_warn_ratio`` for latency and
``k = 1 / (1 - tps_warn_deficit)`` for the token rate.  The clip is symmetric, so clipping the
anomalous side does not bias the mean towards the other (clipping only low token rates drove the mean
up on noisy traffic until a third of ordinary calls warned: see ``eval/health_streams.py``).  A
fingerprint outside the warn similarity moves the mean a quarter of its usual step.  One spike
therefore cannot drag the mean up to where the next spike looks normal.  A lasting change is
recognised instead of being fought: each observation beyond the warn band adds one to a run counter
and each one within it takes one off; when the counter reaches ``relearn_after`` (12) the baseline
restarts at the mean of the values beyond the band (a provider that is now 3x slower for good stops
alerting after about a dozen calls, an outage of a few calls does not move the baseline).
``assess_health`` classifies one observation:

- latency: ``deviation = max(0, latency / mean - 1)``; ok below 1.5, warn below 3.0, else error
  (value ``deviation / 3`` capped at 1), exactly as the seed specifies;
- token rate: ``deficit = max(0, 1 - tps / mean_tps)``; ok below 0.3, warn below 0.6, else error;
- fingerprint: cosine similarity of the answer's fingerprint to the baseline mean; ok at or above 0.90,
  warn at or above 0.75, else error (the seed gives no numbers here; these are ours, in ``HealthThresholds``).

The baselines are plain data (``to_dict``/``from_dict``) so any store can persist them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = [
    "FINGERPRINT_FEATURES",
    "HealthAssessment",
    "HealthBaseline",
    "HealthObservation",
    "HealthThresholds",
    "MetricStatus",
    "assess_health",
    "cosine_similarity",
    "fingerprint",
    "update_baseline",
]

#: Names of the fingerprint vector's components, in order; every component lies in [0, 1].
FINGERPRINT_FEATURES: tuple[str, ...] = (
    "sentence_count",
    "avg_sentence_words",
    "avg_word_length",
    "vocabulary_diversity",
    "comma_rate",
    "question_rate",
    "exclamation_rate",
    "colon_semicolon_rate",
    "line_break_rate",
    "bullet_rate",
    "digit_rate",
    "uppercase_rate",
)
_STATUS_ORDER = {"ok": 0, "unknown": 0, "warn": 1, "error": 2}
_SENTENCE_SPLIT = re.compile(r"[.!?]+(?:\s|$)|\n{2,}")
_WORD = re.compile(r"[^\W_]+")
_BULLET = re.compile(r"^[ \t]{0,8}(?:[-*•]|\d{1,3}[.)])[ \t]", re.MULTILINE)
_FINGERPRINT_CHARS = 20_000


def _unit(x: float) -> float:
    return 0.0 if x <= 0 else 1.0 if x >= 1 else x


def fingerprint(text: str) -> tuple[float, ...]:
    """Return the structural fingerprint of ``text``: ``FINGERPRINT_FEATURES``, each scaled into [0, 1].

    Only the first 20 000 characters are read: structure is visible long before that.

    >>> len(fingerprint("Hello there. How are you?")) == len(FINGERPRINT_FEATURES)
    True
    """
    text = text[:_FINGERPRINT_CHARS]
    words = _WORD.findall(text)
    n_words = len(words)
    n_chars = max(1, len(text))
    sentences = [s for s in _SENTENCE_SPLIT.split(text) if s.strip()]
    n_sentences = max(1, len(sentences)) if text.strip() else 0
    lines = max(1, text.count("\n") + 1)
    # Rates are per character (or per line) and multiplied so typical prose lands mid-range.
    return (
        _unit(math.log1p(n_sentences) / math.log(64)),
        _unit((n_words / max(1, n_sentences)) / 40),
        _unit((sum(map(len, words)) / max(1, n_words)) / 10),
        _unit(len({w.lower() for w in words}) / max(1, n_words)),
        _unit(text.count(",") / n_chars * 20),
        _unit(text.count("?") / n_chars * 50),
        _unit(text.count("!") / n_chars * 50),
        _unit((text.count(":") + text.count(";")) / n_chars * 40),
        _unit(text.count("\n") / n_chars * 20),
        _unit(len(_BULLET.findall(text)) / lines),
        _unit(sum(c.isdigit() for c in text) / n_chars * 5),
        _unit(sum(c.isupper() for c in text) / n_chars * 10),
    )


def cosine_similarity(a: tuple[float, ...] | list[float], b: tuple[float, ...] | list[float]) -> float:
    """Return the cosine similarity of two equal-length vectors (0.0 if either is all zeros).

    >>> cosine_similarity((1.0, 0.0), (1.0, 0.0)), cosine_similarity((1.0, 0.0), (0.0, 1.0))
    (1.0, 0.0)
    """
    if len(a) != len(b):
        raise ValueError(f"vectors differ in length: {len(a)} != {len(b)}")
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    if na == 0.0 or nb == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot / (na * nb)))


@dataclass(frozen=True, slots=True)
class HealthObservation:
    """One model call: its latency, how many tokens it produced and (optionally) the answer text."""

    latency_ms: float
    response_tokens: int | None = None
    text: str | None = None

    def __post_init__(self) -> None:
        if not (
            isinstance(self.latency_ms, int | float)
            and math.isfinite(self.latency_ms)
            and self.latency_ms > 0
        ):
            raise ValueError(f"latency_ms must be a finite number > 0, got {self.latency_ms!r}")
        if self.response_tokens is not None and (
            isinstance(self.response_tokens, bool)
            or not isinstance(self.response_tokens, int)
            or self.response_tokens < 0
        ):
            raise ValueError(f"response_tokens must be an int >= 0, got {self.response_tokens!r}")

    @property
    def tokens_per_second(self) -> float | None:
        """Throughput of the call, or ``None`` without a token count.

        >>> HealthObservation(500.0, 100).tokens_per_second
        200.0
        """
        if self.response_tokens is None:
            return None
        return self.response_tokens / self.latency_ms * 1000.0


@dataclass(frozen=True, slots=True)
class HealthBaseline:
    """Running means for one (agent, model); ``*_count`` say how many observations fed each mean."""

    agent_id: str
    model: str
    window: int = 100
    latency_count: int = 0
    latency_mean_ms: float = 0.0
    tps_count: int = 0
    tps_mean: float = 0.0
    fingerprint_count: int = 0
    fingerprint_mean: tuple[float, ...] = ()
    latency_run: int = 0
    latency_run_sum: float = 0.0
    tps_run: int = 0
    tps_run_sum: float = 0.0

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be >= 1, got {self.window!r}")

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict that ``from_dict`` turns back into an equal baseline.

        >>> b = HealthBaseline("agent-1", "gpt-x")
        >>> HealthBaseline.from_dict(b.to_dict()) == b
        True
        """
        return {
            "agent_id": self.agent_id,
            "model": self.model,
            "window": self.window,
            "latency_count": self.latency_count,
            "latency_mean_ms": self.latency_mean_ms,
            "tps_count": self.tps_count,
            "tps_mean": self.tps_mean,
            "fingerprint_count": self.fingerprint_count,
            "fingerprint_mean": list(self.fingerprint_mean),
            "latency_run": self.latency_run,
            "latency_run_sum": self.latency_run_sum,
            "tps_run": self.tps_run,
            "tps_run_sum": self.tps_run_sum,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HealthBaseline:
        """Rebuild a baseline from ``to_dict`` output.

        >>> HealthBaseline.from_dict({"agent_id": "a", "model": "m"}).latency_count
        0
        """
        return cls(
            agent_id=str(data["agent_id"]),
            model=str(data["model"]),
            window=int(data.get("window", 100)),
            latency_count=int(data.get("latency_count", 0)),
            latency_mean_ms=float(data.get("latency_mean_ms", 0.0)),
            tps_count=int(data.get("tps_count", 0)),
            tps_mean=float(data.get("tps_mean", 0.0)),
            fingerprint_count=int(data.get("fingerprint_count", 0)),
            fingerprint_mean=tuple(float(x) for x in data.get("fingerprint_mean", ())),
            latency_run=int(data.get("latency_run", 0)),
            latency_run_sum=float(data.get("latency_run_sum", 0.0)),
            tps_run=int(data.get("tps_run", 0)),
            tps_run_sum=float(data.get("tps_run_sum", 0.0)),
        )


def _clamp(x: float, mean: float, edge: float) -> float:
    # Into [mean / edge, mean * edge]: symmetric on the ratio scale, so clipping the anomalous side
    # does not bias the mean towards the other (clipping only low token rates drove the mean up until
    # ordinary calls fell below the band, were clipped in turn, and a third of them warned).
    return min(max(x, mean / edge), mean * edge)


def _run(run: int, run_sum: float, outside: bool, x: float) -> tuple[int, float]:
    # Evidence of a lasting change: +1 for an observation beyond the warn band, -1 for one within it
    # (a noisy new level still has calls inside the old band), with the sum of the values beyond it.
    if outside:
        return run + 1, run_sum + x
    if run <= 1:
        return 0, 0.0
    return run - 1, run_sum * (run - 1) / run


def _fold(mean: float, count: int, x: float, window: int) -> float:
    # Exact running mean while count < window, then an EMA with alpha = 1/window.
    return mean + (x - mean) / min(count + 1, window)


def update_baseline(
    baseline: HealthBaseline,
    observation: HealthObservation,
    *,
    thresholds: HealthThresholds | None = None,
) -> HealthBaseline:
    """Return a new baseline with ``observation`` folded in (the input is not changed).

    Anomalous values enter with bounded influence (see the module docstring); *thresholds* must be the
    ones ``assess_health`` judged the observation with.

    >>> b = HealthBaseline("agent-1", "gpt-x")
    >>> for ms in (100.0, 200.0, 300.0):
    ...     b = update_baseline(b, HealthObservation(ms, 50))
    >>> b.latency_count, b.latency_mean_ms
    (3, 200.0)
    >>> b = HealthBaseline("a", "m", latency_count=10, latency_mean_ms=100.0)
    >>> update_baseline(b, HealthObservation(10_000.0)).latency_mean_ms  # counted as 250 ms
    113.63636363636364
    """
    t = thresholds or HealthThresholds()
    w = baseline.window
    latency = observation.latency_ms
    changes: dict[str, Any] = {"latency_count": baseline.latency_count + 1}
    mean = baseline.latency_mean_ms
    if baseline.latency_count >= t.min_samples and mean > 0:
        # Outside the warn band: a run of such values is counted, a single one enters at the band's edge.
        run, run_sum = _run(
            baseline.latency_run,
            baseline.latency_run_sum,
            latency > mean * (1 + t.latency_warn_ratio),
            latency,
        )
        if run >= t.relearn_after:
            # A lasting change, not an anomaly: the baseline restarts at the run's level.
            changes["latency_mean_ms"], run, run_sum = run_sum / run, 0, 0.0
        else:
            edge = 1.0 + t.latency_warn_ratio
            changes["latency_mean_ms"] = _fold(mean, baseline.latency_count, _clamp(latency, mean, edge), w)
        changes["latency_run"], changes["latency_run_sum"] = run, run_sum
    else:
        changes["latency_mean_ms"] = _fold(mean, baseline.latency_count, latency, w)
    tps = observation.tokens_per_second
    if tps is not None:
        changes["tps_count"] = baseline.tps_count + 1
        mean = baseline.tps_mean
        if baseline.tps_count >= t.min_samples and mean > 0:
            run, run_sum = _run(
                baseline.tps_run, baseline.tps_run_sum, tps < mean * (1 - t.tps_warn_deficit), tps
            )
            if run >= t.relearn_after:
                changes["tps_mean"], run, run_sum = run_sum / run, 0, 0.0
            else:
                edge = 1.0 / (1.0 - t.tps_warn_deficit)
                changes["tps_mean"] = _fold(mean, baseline.tps_count, _clamp(tps, mean, edge), w)
            changes["tps_run"], changes["tps_run_sum"] = run, run_sum
        else:
            changes["tps_mean"] = _fold(mean, baseline.tps_count, tps, w)
    if observation.text is not None:
        current = fingerprint(observation.text)
        n = baseline.fingerprint_count
        fp_mean = baseline.fingerprint_mean or tuple(0.0 for _ in current)
        # An answer of another shape moves the mean a quarter step (as if counted 4 times over).
        weight = 1.0
        if (
            n >= t.min_samples
            and baseline.fingerprint_mean
            and cosine_similarity(current, fp_mean) < t.fingerprint_warn_similarity
        ):
            weight = 0.25
        changes["fingerprint_count"] = n + 1
        changes["fingerprint_mean"] = tuple(
            m + weight * (x - m) / min(n + 1, w) for m, x in zip(fp_mean, current, strict=True)
        )
    return replace(baseline, **changes)


@dataclass(frozen=True, slots=True)
class HealthThresholds:
    """Classification thresholds; defaults are the seed's (latency, token rate) and ours (fingerprint)."""

    latency_warn_ratio: float = 1.5
    latency_error_ratio: float = 3.0
    tps_warn_deficit: float = 0.3
    tps_error_deficit: float = 0.6
    fingerprint_warn_similarity: float = 0.90
    fingerprint_error_similarity: float = 0.75
    min_samples: int = 5
    relearn_after: int = 12


@dataclass(frozen=True, slots=True)
class MetricStatus:
    """One engine's result: ``status`` ok/warn/error/unknown, ``value`` in [0, 1] and the raw measure."""

    metric: str
    status: str
    value: float
    measure: float | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict.

        >>> MetricStatus("latency", "ok", 0.0, 1.0).to_dict()["status"]
        'ok'
        """
        return {
            "metric": self.metric,
            "status": self.status,
            "value": round(self.value, 4),
            "measure": None if self.measure is None else round(self.measure, 4),
            "detail": self.detail,
        }


@dataclass(frozen=True, slots=True)
class HealthAssessment:
    """The worst status over the metrics, and each metric's result."""

    status: str
    metrics: tuple[MetricStatus, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict.

        >>> HealthAssessment("ok").to_dict()
        {'status': 'ok', 'metrics': []}
        """
        return {"status": self.status, "metrics": [m.to_dict() for m in self.metrics]}


def _latency(b: HealthBaseline, o: HealthObservation, t: HealthThresholds) -> MetricStatus:
    if b.latency_count < t.min_samples or b.latency_mean_ms <= 0:
        return MetricStatus("latency", "unknown", 0.0, None, f"baseline has {b.latency_count} samples")
    ratio = o.latency_ms / b.latency_mean_ms
    deviation = max(0.0, ratio - 1.0)
    if deviation < t.latency_warn_ratio:
        return MetricStatus("latency", "ok", 0.0, ratio)
    status = "warn" if deviation < t.latency_error_ratio else "error"
    return MetricStatus("latency", status, min(1.0, deviation / t.latency_error_ratio), ratio)


def _token_rate(b: HealthBaseline, o: HealthObservation, t: HealthThresholds) -> MetricStatus:
    tps = o.tokens_per_second
    if tps is None:
        return MetricStatus("token_rate", "unknown", 0.0, None, "no token count")
    if b.tps_count < t.min_samples or b.tps_mean <= 0:
        return MetricStatus("token_rate", "unknown", 0.0, tps, f"baseline has {b.tps_count} samples")
    deficit = max(0.0, 1.0 - tps / b.tps_mean)
    status = "ok" if deficit < t.tps_warn_deficit else "warn" if deficit < t.tps_error_deficit else "error"
    return MetricStatus("token_rate", status, min(1.0, deficit), tps)


def _fingerprint(b: HealthBaseline, o: HealthObservation, t: HealthThresholds) -> MetricStatus:
    if o.text is None:
        return MetricStatus("fingerprint", "unknown", 0.0, None, "no text")
    if b.fingerprint_count < t.min_samples or not b.fingerprint_mean:
        return MetricStatus(
            "fingerprint", "unknown", 0.0, None, f"baseline has {b.fingerprint_count} samples"
        )
    similarity = cosine_similarity(fingerprint(o.text), b.fingerprint_mean)
    if similarity >= t.fingerprint_warn_similarity:
        status = "ok"
    elif similarity >= t.fingerprint_error_similarity:
        status = "warn"
    else:
        status = "error"
    return MetricStatus("fingerprint", status, max(0.0, 1.0 - similarity), similarity)


def assess_health(
    baseline: HealthBaseline,
    observation: HealthObservation,
    *,
    thresholds: HealthThresholds | None = None,
) -> HealthAssessment:
    """Classify ``observation`` against ``baseline``; metrics without enough baseline are ``unknown``.

    >>> b = HealthBaseline("a", "m", latency_count=10, latency_mean_ms=100.0)
    >>> assess_health(b, HealthObservation(120.0)).metrics[0].status
    'ok'
    >>> assess_health(b, HealthObservation(500.0)).status
    'error'
    """
    t = thresholds or HealthThresholds()
    metrics = (
        _latency(baseline, observation, t),
        _token_rate(baseline, observation, t),
        _fingerprint(baseline, observation, t),
    )
    known = [m.status for m in metrics if m.status != "unknown"]
    status = max(known, key=_STATUS_ORDER.__getitem__) if known else "unknown"
    return HealthAssessment(status, metrics)
