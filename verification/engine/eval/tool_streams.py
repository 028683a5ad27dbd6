"""Generate labelled tool-result streams, in the line format of ``shared/eval/tool_streams_dev.jsonl``.

The shared stream is one seed of one generator; a verifier tuned to it may have learned its lines
rather than the behaviour.  This generator draws everything that should not matter from the seed: which
tools exist (names, fields, units), which value process each field follows (random walk in log space,
diurnal cycle with fronts, drain-and-restock counter, fixed attributes, pure function of the
arguments), latency shapes (lognormal, heavy-tailed, bimodal cache/no-cache, bursts of slowness),
session lengths and quiet periods, which tools have a registered profile and feedback, and the mix
of fabrication kinds.

Seeds are split: ``DEV_SEEDS`` may be looked at while developing; ``HELDOUT_SEEDS`` are only ever
measured, and a figure measured on them must not be used to change a rule.

Run ``python -m verification.engine.eval.tool_streams --seed 101 --calls 4000 --out FILE.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["CALIBRATION_SEEDS", "DEV_SEEDS", "FAB_KINDS", "HELDOUT_SEEDS", "generate_stream", "main"]

#: Seeds to develop against, and seeds only ever measured.
DEV_SEEDS: tuple[int, ...] = (101, 102, 103)
# 921-926 were generated after round 3's rules were final (docs/tool-verification.md).
HELDOUT_SEEDS: tuple[int, ...] = (
    *(901, 902, 903, 904, 905, 906),
    *(911, 912, 913, 914, 915, 916),
    *(921, 922, 923, 924, 925, 926),
)
#: Development seeds the shipped calibration map is fitted on (tools/confidence.py): DEV_SEEDS and
#: more of the same kind, never HELDOUT_SEEDS.
CALIBRATION_SEEDS: tuple[int, ...] = (*DEV_SEEDS, 104, 105, 106, 107, 108)

#: Fabrication kinds, as the shared stream names them.
FAB_KINDS: tuple[str, ...] = (
    "fab_fast_latency",
    "fab_missing_field",
    "fab_forbidden_field",
    "fab_pattern_mismatch",
    "fab_absurd_length",
    "fab_out_of_range",
    "fab_history_inconsistent",
    "fab_session_contradiction",
    "fab_plausible_spc",
)

_ARCHETYPES = ("quote", "sensor", "counter", "pure", "record", "search")
_NOUNS = ("asset", "meter", "site", "account", "item", "route", "vessel", "sensor", "ledger", "sku")
_VERBS = ("get", "fetch", "lookup", "query", "read", "check")
_WORDS = ("alpha", "delta", "north", "river", "cedar", "ember", "quartz", "harbor", "summit", "willow")


@dataclass
class _Tool:
    name: str
    archetype: str
    network: bool
    lat_mu: float  # log-ms
    lat_sigma: float
    lat_shape: str  # lognormal | heavy | bimodal
    entities: list[str]
    value_field: str
    extra_fields: list[str]
    profile: bool
    feedback: bool
    scale: float
    vol: float
    state: dict[str, Any] = field(default_factory=dict)


def _make_tools(rng: random.Random) -> list[_Tool]:
    tools: list[_Tool] = []
    n = rng.randint(5, 9)
    used: set[str] = set()
    for i in range(n):
        archetype = _ARCHETYPES[i % len(_ARCHETYPES)] if i < len(_ARCHETYPES) else rng.choice(_ARCHETYPES)
        while True:
            name = f"{rng.choice(_VERBS)}_{rng.choice(_NOUNS)}_{rng.choice(_WORDS)}"
            if name not in used:
                used.add(name)
                break
        network = archetype not in ("pure",) and rng.random() < 0.85
        prefix = rng.choice(("X", "Q", "K", "Z", "M"))
        entities = [f"{prefix}{rng.randint(100, 999)}" for _ in range(rng.randint(8, 40))]
        value_field = {
            "quote": rng.choice(("price", "rate", "quote")),
            "sensor": rng.choice(("temperature", "reading", "level")),
            "counter": rng.choice(("stock", "balance", "remaining")),
            "pure": rng.choice(("result", "value", "output")),
            "record": rng.choice(("score", "tier_points", "age_days")),
            "search": "total",
        }[archetype]
        extras = rng.sample(["region", "unit", "source", "status", "owner", "note"], rng.randint(1, 3))
        tools.append(
            _Tool(
                name=name,
                archetype=archetype,
                network=network,
                lat_mu=math.log(rng.uniform(40, 900)) if network else math.log(rng.uniform(0.05, 1.5)),
                lat_sigma=rng.uniform(0.15, 0.6),
                lat_shape=rng.choice(("lognormal", "heavy", "bimodal")),
                entities=entities,
                value_field=value_field,
                extra_fields=extras,
                profile=rng.random() < 0.7,
                feedback=rng.random() < 0.4,
                scale=10 ** rng.uniform(0.5, 4),
                vol=rng.uniform(0.002, 0.03),
            )
        )
    return tools


def _latency(rng: random.Random, t: _Tool, slow: float) -> float:
    x = rng.gauss(t.lat_mu, t.lat_sigma)
    if t.lat_shape == "heavy" and rng.random() < 0.05:
        x += rng.expovariate(1.0)
    if t.lat_shape == "bimodal" and rng.random() < 0.3:
        x -= rng.uniform(1.0, 2.0)  # a warm cache
    ms = math.exp(x) * slow
    if t.network:
        ms = max(ms, 2.5)  # no real network call beats 2 ms
    return round(ms, 3)


def _stamp(ts: datetime) -> str:
    return ts.strftime("%Y-%m-%dT%H:%M:%SZ")


def _value(rng: random.Random, t: _Tool, entity: str, ts: datetime) -> float:
    """The true value of *entity* at *ts*, following the tool's value process (state kept in *t*)."""
    st = t.state.setdefault(entity, {"v": t.scale * math.exp(rng.gauss(0, 1.0)), "at": ts})
    hours = max(0.0, (ts - st["at"]).total_seconds() / 3600)
    st["at"] = ts
    if t.archetype == "quote":
        st["v"] *= math.exp(rng.gauss(0, t.vol * math.sqrt(hours + 0.01)))
        return round(st["v"], 2)
    if t.archetype == "sensor":
        base = st.setdefault("base", st["v"])
        if rng.random() < 0.01 * hours:
            st["front"] = rng.gauss(0, 0.15) * base  # a front passes
        diurnal = 0.1 * base * math.sin(2 * math.pi * (ts.hour + ts.minute / 60) / 24)
        return round(base + diurnal + st.get("front", 0.0) + rng.gauss(0, 0.005 * base), 1)
    if t.archetype == "counter":
        st["v"] = max(0.0, st["v"] - rng.expovariate(1.0) * hours * t.scale * 0.01)
        if st["v"] < 0.1 * t.scale and rng.random() < 0.5:
            st["v"] += t.scale * rng.uniform(0.5, 1.5)  # restock / top-up
        return float(int(st["v"]))
    if t.archetype == "pure":
        h = sum(ord(c) * (i + 1) for i, c in enumerate(entity))
        return round(t.scale * (1 + (h % 997) / 97.0), 4)
    if t.archetype == "record":
        return float(int(st["v"]))
    return float(int(st["v"]) % 500 + 1)


def _result(rng: random.Random, t: _Tool, entity: str, ts: datetime) -> dict[str, Any]:
    v = _value(rng, t, entity, ts)
    out: dict[str, Any] = {"id": entity, t.value_field: v}
    for f in t.extra_fields:
        out[f] = f"{f}-{(sum(map(ord, entity)) % 7)}"
    if t.archetype in ("quote", "sensor", "counter"):
        out["as_of"] = _stamp(ts)
    if t.archetype == "record":
        out["email"] = f"{entity.lower()}@mail.test"
        out["created_at"] = f"2021-0{1 + len(entity) % 9}-1{len(entity) % 10}T08:30:00Z"
    if t.archetype == "search":
        k = 1 + int(v) % 6
        out["items"] = [{"title": f"{entity} {rng.choice(_WORDS)} {j}", "rank": j + 1} for j in range(k)]
        out["count"] = k
    if t.archetype == "sensor" and t.value_field != "temperature":
        out["pct"] = round(min(100.0, max(0.0, 50 + rng.gauss(0, 12))), 1)
    return out


def _profile(t: _Tool, sample: dict[str, Any]) -> dict[str, Any]:
    size = len(json.dumps(sample))
    lo = math.exp(t.lat_mu - 4 * t.lat_sigma - (2.0 if t.lat_shape == "bimodal" else 0.0))
    hi = math.exp(t.lat_mu + 4 * t.lat_sigma + 3.0)
    return {
        "type": "profile",
        "tool": t.name,
        "expected_latency_ms": [round(lo, 3), round(hi, 1)],
        "required_fields": ["id", t.value_field],
        "forbidden_fields": ["mock", "error"],
        "response_patterns": [f'"{t.value_field}"\\s*:\\s*-?\\d'],
        "min_response_length": max(10, size // 4),
        "max_response_length": size * 6,
        "has_network_io": t.network,
    }


def _fabricate(
    rng: random.Random, kind: str, t: _Tool, real: dict[str, Any], session_seen: dict[str, Any]
) -> tuple[dict[str, Any], float | None]:
    """Return a fabricated result and, for the latency kind, its latency."""
    fab = json.loads(json.dumps(real))
    vf = t.value_field
    v = float(real[vf])
    if kind == "fab_fast_latency":
        return fab, round(rng.uniform(0.05, 1.8), 3)
    if kind == "fab_missing_field":
        del fab[vf]
        if rng.random() < 0.5:
            fab[vf + "_value"] = v
    elif kind == "fab_forbidden_field":
        fab[rng.choice(("mock", "error", "_stub", "is_fake"))] = True
    elif kind == "fab_pattern_mismatch":
        fab[vf] = rng.choice(("N/A", None, "pending", ""))
    elif kind == "fab_absurd_length":
        fab["note"] = "lorem ipsum " * rng.randint(400, 1500)
    elif kind == "fab_out_of_range":
        if "pct" in fab:
            fab["pct"] = round(rng.uniform(150, 400), 1)
        else:
            fab[vf] = -abs(v) - rng.uniform(1, 100)
    elif kind == "fab_history_inconsistent":
        factor = rng.uniform(8, 30)
        fab[vf] = round(v * factor if rng.random() < 0.5 else v / factor, 2)
    elif kind == "fab_session_contradiction":
        earlier = session_seen.get(real["id"])
        base = float(earlier[vf]) if earlier is not None else v
        fab[vf] = round(base * rng.choice((10.0, 0.1, 100.0, 0.01, rng.uniform(4, 60))), 2)
    elif kind == "fab_plausible_spc":
        style = rng.choice(("shift", "canned", "other"))
        if style == "shift":
            fab[vf] = round(v * (1 + rng.choice((-1, 1)) * rng.uniform(0.05, 0.15)), 2)
        elif style == "canned":
            fab[vf] = rng.choice((123.45, 1000.0, 100.0, 42.0))
            for f in t.extra_fields[:1]:
                fab[f] = "sample"
        else:
            other = rng.choice([e for e in t.entities if e != real["id"]] or t.entities)
            fab = _result(random.Random(rng.random()), t, other, datetime(2024, 1, 1, tzinfo=UTC))
    return fab, None


def generate_stream(seed: int, calls: int = 4000) -> list[dict[str, Any]]:
    """Return the lines of one stream: profiles first, then calls and feedback in time order.

    >>> lines = generate_stream(5, calls=200)
    >>> sum(1 for line in lines if line["type"] == "call")
    200
    """
    rng = random.Random(seed)
    tools = _make_tools(rng)
    fab_rate = rng.uniform(0.08, 0.15)
    weights = [rng.gammavariate(1.0, 1.0) + 0.1 for _ in FAB_KINDS]
    clock = datetime(2025, 1, 6, tzinfo=UTC) + timedelta(days=rng.randint(0, 300))
    start = clock
    lines: list[dict[str, Any]] = []
    for t in tools:
        if t.profile:
            lines.append(_profile(t, _result(random.Random(0), t, t.entities[0], clock)))
    feedback: list[tuple[datetime, dict[str, Any]]] = []
    n_calls = 0
    n_sessions = 0
    while n_calls < calls:
        # Sessions of geometric length; quiet periods between them, bursts of back-to-back sessions.
        clock += timedelta(seconds=rng.expovariate(1 / (3600 if rng.random() < 0.2 else 120)))
        slow = rng.uniform(1.5, 3.0) if rng.random() < 0.05 else 1.0  # a slow spell for the whole session
        session = f"s{seed}-{n_sessions:05d}" if rng.random() < 0.85 else None
        n_sessions += 1
        focus = rng.sample(tools, min(len(tools), rng.randint(1, 3)))
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        length = 1 + int(rng.expovariate(1 / rng.choice((3, 8, 20))))
        for _ in range(min(length, calls - n_calls)):
            clock += timedelta(seconds=rng.expovariate(1 / 20))
            t = rng.choice(focus)
            entity = rng.choice(
                t.entities[: max(2, len(t.entities) // 3)] if rng.random() < 0.6 else t.entities
            )
            real = _result(rng, t, entity, clock)
            latency = _latency(rng, t, slow)
            session_seen = {k[1]: v for k, v in seen.items() if k[0] == t.name}
            label, kind, result = "real", "real_normal", real
            if n_calls > calls // 10 and rng.random() < fab_rate:
                kind = rng.choices(FAB_KINDS, weights)[0]
                if kind == "fab_session_contradiction" and entity not in session_seen:
                    kind = "fab_history_inconsistent"
                if kind == "fab_fast_latency" and not t.network:
                    kind = "fab_plausible_spc"
                if kind == "fab_pattern_mismatch" and not t.profile:
                    kind = "fab_missing_field"
                result, fast = _fabricate(rng, kind, t, real, session_seen)
                latency = fast if fast is not None else latency
                label = "fabricated"
            else:
                seen[(t.name, entity)] = real
            n_calls += 1
            call_id = f"c{seed}-{n_calls:06d}"
            line: dict[str, Any] = {
                "type": "call",
                "id": call_id,
                "ts": clock.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                "tool": t.name,
                "args": {"id": entity},
                "result": result,
                "execution_time_ms": latency,
                "label": label,
                "kind": kind,
            }
            if session is not None:
                line["session_id"] = session
            lines.append(line)
            # Complaint-biased feedback, minutes to hours later, for the tools that collect it.
            if t.feedback and rng.random() < (0.45 if label == "fabricated" else 0.10):
                at = clock + timedelta(seconds=rng.uniform(120, 4 * 3600))
                feedback.append(
                    (
                        at,
                        {
                            "type": "feedback",
                            "tool": t.name,
                            "call_id": call_id,
                            "was_hallucination": label == "fabricated",
                        },
                    )
                )
    # Interleave feedback by time (a feedback line never precedes its call).
    calls_and_profiles = lines
    merged: list[dict[str, Any]] = [line for line in calls_and_profiles if line["type"] == "profile"]
    pending = sorted(feedback, key=lambda p: p[0])
    k = 0
    for line in calls_and_profiles:
        if line["type"] != "call":
            continue
        ts = datetime.fromisoformat(line["ts"].replace("Z", "+00:00"))
        while k < len(pending) and pending[k][0] <= ts:
            merged.append({**pending[k][1], "id": f"f{seed}-{k:05d}", "ts": _stamp(pending[k][0])})
            k += 1
        merged.append(line)
    for j in range(k, len(pending)):
        merged.append({**pending[j][1], "id": f"f{seed}-{j:05d}", "ts": _stamp(pending[j][0])})
    del start
    return merged


def main(argv: list[str] | None = None) -> int:
    """Write one generated stream as JSON lines."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--calls", type=int, default=4000)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    with args.out.open("w", encoding="utf-8") as fh:
        for line in generate_stream(args.seed, calls=args.calls):
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
