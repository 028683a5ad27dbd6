"""A replayable runtime-health stream: labelled model-call observations, and its evaluation.

Runtime health (``safety/health.py``) keeps a baseline per (agent, model) and judges each call's
latency, token rate and answer shape against it.  Its failure mode is the mirror of the tool
verifier's: an anomalous observation learned into the baseline makes the next one look normal.  This
module generates streams that exercise that, and replays them through ``assess_health`` then
``update_baseline`` (the order ``runtime_observation_record`` uses), so the figures can be reproduced.

What a stream holds, drawn from the seed: 3-8 (agent, model) pairs, each with its own latency (time to
first token 80 ms - 1.5 s, lognormal, heavy-tailed or bimodal with a warm cache, plus tokens over its
token rate), diurnal load, answer length and answer style (prose, bullet lists, questions, figures);
sessions with quiet periods and bursts.  Events, after a warm-up of 8-30 normal calls per pair (a young
baseline is the easiest to poison):

========================  ========  ============================================================
kind                      label     what happens
========================  ========  ============================================================
``normal``                normal    ordinary traffic
``spike``                 anomalous one call 4.5-20x slower than usual (8-30x when the first of a pair)
``spike_repeat``          anomalous a second spike (4.5-8x) 3-15 calls after a first one, normal calls
                                    between (the poisoning probe: still an error only if the first
                                    spike did not drag the baseline up)
``burst``                 anomalous 3-8 consecutive calls 4-12x slower (an outage)
``slow``                  anomalous one call 3.2-3.9x slower (a warn-level slowdown)
``tps_drop``              anomalous normal latency, 15-35 % of the usual tokens (a truncated answer)
``shape``                 anomalous an answer of another style (another model answering, a dump)
``shift_onset``           anomalous first 5 calls after a lasting 3-4x slowdown (provider change)
``after_shift``           normal    the same slowdown, later: it is the new normal
``drift``                 normal    a slow trend (latency x1.5-2 over 150 calls), to be followed
``recovery``              normal    the 20 calls after a spike or burst
========================  ========  ============================================================

Seeds: ``HEALTH_DEV_SEEDS`` may be looked at; ``HEALTH_HELDOUT_SEEDS`` are only measured.

Run ``python -m verification.engine.eval.health_streams --seed 301 [--out FILE.jsonl] [--evaluate]``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from verification.engine.safety.health import (
    HealthBaseline,
    HealthObservation,
    HealthThresholds,
    assess_health,
    update_baseline,
)
from verification.engine.tools.calibration import auroc

__all__ = [
    "ANOMALOUS_KINDS",
    "HEALTH_DEV_SEEDS",
    "HEALTH_HELDOUT_SEEDS",
    "evaluate_health_stream",
    "generate_health_stream",
    "main",
]

HEALTH_DEV_SEEDS: tuple[int, ...] = (301, 302, 303, 304)
HEALTH_HELDOUT_SEEDS: tuple[int, ...] = (951, 952, 953, 954)
ANOMALOUS_KINDS: tuple[str, ...] = (
    "spike",
    "spike_repeat",
    "burst",
    "slow",
    "tps_drop",
    "shape",
    "shift_onset",
)
_EVENTS: tuple[str, ...] = ("spike_pair", "spike", "burst", "slow", "tps_drop", "shape", "shift", "drift")
_STYLES = ("prose", "bullets", "questions", "figures")
_WORDS = (
    "service", "request", "region", "result", "account", "summary", "report", "update", "customer",
    "balance", "schedule", "network", "storage", "invoice", "shipment", "weather", "market", "policy",
    "review", "model", "answer", "context", "system", "quality", "latency", "window", "signal", "team",
)  # fmt: skip


@dataclass
class _Pair:
    agent: str
    model: str
    lat_ms: float
    sigma: float
    shape: str  # lognormal | heavy | bimodal
    diurnal: float
    tps: float
    tokens: int
    style: str
    with_text: bool
    warmup: int
    # Mutable state: a lasting slowdown, a drift in progress, queued event calls.
    factor: float = 1.0
    drift_left: int = 0
    drift_step: float = 1.0
    queue: list[tuple[str, str, float, float, str | None]] = field(default_factory=list)
    calls: int = 0
    since_anomaly: int = 10_000


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    if n > 6:
        words[n // 2] += ","
    return " ".join(words).capitalize()


def _text(rng: random.Random, style: str, tokens: int) -> str:
    """An answer of about *tokens* words in *style* (each style has its own fingerprint)."""
    words = max(8, tokens)
    parts: list[str] = []
    total = 0
    while total < words:
        n = rng.randint(8, 16)
        total += n
        if style == "prose":
            parts.append(_sentence(rng, n) + ".")
        elif style == "bullets":
            parts.append("- " + _sentence(rng, max(3, n // 3)) + "\n")
        elif style == "questions":
            parts.append(_sentence(rng, n) + "? " + _sentence(rng, 4) + "!")
        else:
            figs = "; ".join(f"{rng.choice(_WORDS).upper()}: {rng.randint(10, 99999)}" for _ in range(3))
            parts.append(figs + ";\n")
    sep = "" if style in ("bullets", "figures") else " "
    return sep.join(parts)


def _pairs(rng: random.Random) -> list[_Pair]:
    out: list[_Pair] = []
    for i in range(rng.randint(3, 8)):
        style = rng.choice(_STYLES)
        out.append(
            _Pair(
                agent=f"agent-{rng.randint(100, 999)}-{i}",
                model=rng.choice(("m-small", "m-large", "m-fast", "m-long")) + f"-{rng.randint(1, 9)}",
                lat_ms=math.exp(rng.uniform(math.log(80), math.log(1500))),
                sigma=rng.uniform(0.12, 0.4),
                shape=rng.choice(("lognormal", "heavy", "bimodal")),
                diurnal=rng.uniform(0.0, 0.25),
                tps=rng.uniform(20, 140),
                tokens=rng.randint(40, 400),
                style=style,
                with_text=rng.random() < 0.8,
                warmup=rng.randint(8, 30),
            )
        )
    return out


def _normal(rng: random.Random, p: _Pair, ts: datetime) -> tuple[float, int]:
    """A normal call's latency and token count at *ts* (seasonality, slowdown and drift included).

    Latency is time to first token plus generation (tokens over the pair's token rate), each with
    its own noise, scaled by the time of day (load) and by any lasting slowdown or drift.
    """
    season = 1.0 + p.diurnal * math.sin(2 * math.pi * (ts.hour + ts.minute / 60) / 24)
    tokens = max(5, int(p.tokens * math.exp(rng.gauss(0, 0.3))))
    x = rng.gauss(0, p.sigma)
    if p.shape == "heavy" and rng.random() < 0.04:
        x += rng.expovariate(2.5)
    if p.shape == "bimodal" and rng.random() < 0.25:
        x -= rng.uniform(0.5, 1.2)  # a warm cache
    ttft = p.lat_ms * math.exp(x)
    generation = tokens / (p.tps * math.exp(rng.gauss(0, 0.08))) * 1000.0
    return round((ttft + generation) * season * p.factor, 2), tokens


def _usual(p: _Pair) -> float:
    """The pair's usual latency now (the level an anomaly is a multiple of)."""
    return (p.lat_ms + p.tokens / p.tps * 1000.0) * p.factor


def _schedule(rng: random.Random, p: _Pair, event: str) -> None:
    """Queue the calls of one event: (kind, label, latency factor, token factor, style or None)."""
    q = p.queue
    if event == "spike_pair":
        # A large spike, then a smaller one: the second is still an error against the usual level,
        # but not against a mean the first one dragged up.
        q.append(("spike", "anomalous", rng.uniform(8, 30), 1.0, None))
        q.extend(("recovery", "normal", 1.0, 1.0, None) for _ in range(rng.randint(3, 15)))
        q.append(("spike_repeat", "anomalous", rng.uniform(4.5, 8), 1.0, None))
    elif event == "spike":
        q.append(("spike", "anomalous", rng.uniform(4.5, 20), 1.0, None))
    elif event == "burst":
        q.extend(("burst", "anomalous", rng.uniform(4, 12), 1.0, None) for _ in range(rng.randint(3, 8)))
    elif event == "slow":
        q.append(("slow", "anomalous", rng.uniform(3.2, 3.9), 1.0, None))
    elif event == "tps_drop":
        q.append(("tps_drop", "anomalous", 1.0, rng.uniform(0.15, 0.35), None))
    elif event == "shape":
        other = rng.choice([s for s in _STYLES if s != p.style])
        q.append(("shape", "anomalous", 1.0, 1.0, other))
    elif event == "shift":
        p.factor *= rng.uniform(3.0, 4.0)
        q.extend(("shift_onset", "anomalous", 1.0, 1.0, None) for _ in range(5))
        q.extend(("after_shift", "normal", 1.0, 1.0, None) for _ in range(rng.randint(80, 200)))
    elif event == "drift":
        p.drift_left = 150
        p.drift_step = math.exp(math.log(rng.uniform(1.5, 2.0)) / 150)
        q.extend(("drift", "normal", 1.0, 1.0, None) for _ in range(150))


def generate_health_stream(seed: int, observations: int = 4000) -> list[dict[str, Any]]:
    """Return the observation lines of one stream, in time order.

    >>> lines = generate_health_stream(5, observations=300)
    >>> len(lines), {line["label"] for line in lines} <= {"normal", "anomalous"}
    (300, True)
    """
    rng = random.Random(seed)
    pairs = _pairs(rng)
    event_rate = rng.uniform(0.01, 0.025)
    weights = [rng.gammavariate(1.5, 1.0) + 0.2 for _ in _EVENTS]
    clock = datetime(2025, 3, 3, tzinfo=UTC) + timedelta(days=rng.randint(0, 300), hours=rng.randint(0, 23))
    lines: list[dict[str, Any]] = []
    n = 0
    while n < observations:
        # Bursts of back-to-back sessions and quiet periods between them.
        clock += timedelta(seconds=rng.expovariate(1 / (5400 if rng.random() < 0.15 else 90)))
        p = rng.choice(pairs)
        for _ in range(min(1 + int(rng.expovariate(1 / rng.choice((4, 12, 30)))), observations - n)):
            clock += timedelta(seconds=rng.expovariate(1 / 15))
            if p.calls >= p.warmup and not p.queue and rng.random() < event_rate:
                _schedule(rng, p, rng.choices(_EVENTS, weights)[0])
            kind, label, lat_f, tok_f, style = p.queue.pop(0) if p.queue else ("normal", "normal", 1, 1, None)
            if p.drift_left > 0:
                p.factor *= p.drift_step
                p.drift_left -= 1
            if kind == "normal" and p.since_anomaly < 20:
                kind = "recovery"
            latency, tokens = _normal(rng, p, clock)
            if kind == "shift_onset" or (label == "anomalous" and lat_f > 1):
                # An anomaly is judged against the usual level, not against this call's own noise.
                latency = round(_usual(p) * lat_f * math.exp(rng.gauss(0, 0.05)), 2)
            if tok_f < 1:
                # A truncated answer that took the usual time: far fewer tokens per second.
                tokens = max(1, int(p.tokens * tok_f))
                latency = round(_usual(p) * math.exp(rng.gauss(0, 0.05)), 2)
            p.calls += 1
            p.since_anomaly = 0 if label == "anomalous" else p.since_anomaly + 1
            n += 1
            line: dict[str, Any] = {
                "type": "observation",
                "id": f"h{seed}-{n:06d}",
                "ts": clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "agent": p.agent,
                "model": p.model,
                "latency_ms": latency,
                "response_tokens": tokens,
                "label": label,
                "kind": kind,
            }
            if p.with_text or style is not None:
                line["text"] = _text(rng, style or p.style, min(tokens, 200))
            lines.append(line)
    return lines


def _score(assessment: Any) -> float:
    """A continuous anomaly score from the measures (for AUROC): the worst metric on a common scale."""
    s = 0.0
    for m in assessment.metrics:
        if m.measure is None or m.status == "unknown":
            continue
        if m.metric == "latency":
            s = max(s, (m.measure - 1.0) / 3.0)
        elif m.metric == "token_rate":
            s = max(s, m.value / 0.6)
        else:
            s = max(s, (1.0 - m.measure) / 0.25)
    return s / (1.0 + s)  # into [0, 1), monotone


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {
        "precision": round(p, 4),
        "recall": round(r, 4),
        "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
    }


def evaluate_health_stream(
    lines: Iterable[dict[str, Any]],
    *,
    thresholds: HealthThresholds | None = None,
    bounded: bool = True,
) -> dict[str, Any]:
    """Replay *lines* (assess, then learn, per agent and model) and return the metrics.

    ``bounded=False`` learns every observation at full weight (the baseline before issue 17), for
    comparison. An alert is ``warn`` or ``error``.

    >>> m = evaluate_health_stream(generate_health_stream(7, observations=400))
    >>> 0.0 <= m["alert"]["recall"] <= 1.0
    True
    """
    t = thresholds or HealthThresholds()
    # Learning without bounds: the bound applies from min_samples on, so an unreachable min_samples.
    learn_t = t if bounded else HealthThresholds(min_samples=2**62)
    baselines: dict[tuple[str, str], HealthBaseline] = {}
    labels: list[int] = []
    scores: list[float] = []
    statuses: list[str] = []
    kinds: list[str] = []
    for line in lines:
        key = (str(line["agent"]), str(line["model"]))
        baseline = baselines.get(key) or HealthBaseline(key[0], key[1])
        obs = HealthObservation(float(line["latency_ms"]), line.get("response_tokens"), line.get("text"))
        a = assess_health(baseline, obs, thresholds=t)
        baselines[key] = update_baseline(baseline, obs, thresholds=learn_t)
        labels.append(1 if line["label"] == "anomalous" else 0)
        scores.append(_score(a))
        statuses.append(a.status)
        kinds.append(str(line["kind"]))

    def confusion(positive: set[str]) -> dict[str, float]:
        tp = sum(1 for y, s in zip(labels, statuses, strict=True) if y and s in positive)
        fp = sum(1 for y, s in zip(labels, statuses, strict=True) if not y and s in positive)
        return _prf(tp, fp, sum(labels) - tp)

    by_kind: dict[str, list[str]] = {}
    for k, s in zip(kinds, statuses, strict=True):
        by_kind.setdefault(k, []).append(s)
    normal = [s for y, s in zip(labels, statuses, strict=True) if not y]
    return {
        "observations": len(labels),
        "anomalous": sum(labels),
        "alert": confusion({"warn", "error"}),
        "error": confusion({"error"}),
        "normal_alerted_rate": round(sum(s in ("warn", "error") for s in normal) / max(1, len(normal)), 4),
        "normal_error_rate": round(sum(s == "error" for s in normal) / max(1, len(normal)), 4),
        "auroc": round(auroc(scores, labels), 4) if 0 < sum(labels) < len(labels) else None,
        "per_kind": {
            k: {
                "n": len(v),
                "alerted": round(sum(s in ("warn", "error") for s in v) / len(v), 4),
                "error": round(sum(s == "error" for s in v) / len(v), 4),
            }
            for k, v in sorted(by_kind.items())
        },
    }


def main(argv: list[str] | None = None) -> int:
    """Write one stream as JSON lines (``--out``) and/or print its metrics (``--evaluate``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, action="append", required=True)
    parser.add_argument("--observations", type=int, default=4000)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--unbounded", action="store_true", help="learn every observation at full weight")
    args = parser.parse_args(argv)
    for seed in args.seed:
        lines = generate_health_stream(seed, observations=args.observations)
        if args.out is not None:
            with args.out.open("w", encoding="utf-8") as fh:
                for line in lines:
                    fh.write(json.dumps(line, separators=(",", ":")) + "\n")
        if args.evaluate:
            metrics = evaluate_health_stream(lines, bounded=not args.unbounded)
            print(json.dumps({"seed": seed, **metrics}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
