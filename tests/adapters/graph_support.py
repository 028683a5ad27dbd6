"""Random composition graphs, and an independent recomputation of a published explanation.

`recompute_explanation` re-derives every node of an explanation from the inputs it lists, with
`decimal` arithmetic and the SPEC's half-up rule, without importing `adapters.graph`; the tests use it
to check that anyone can recompute `trustScores.total` from the explanation alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from hypothesis import strategies as st

OPERATORS = ("weightedMean", "mean", "min", "max", "median", "floor", "gate", "constant")
SEVERITY = ("ok", "stale", "missing", "timeout", "error")


@st.composite
def graphs(draw: st.DrawFn, refs: Sequence[str]) -> dict[str, Any]:
    """A random valid graph document over the *refs* (``adapter:…``/``component:…``)."""
    count = draw(st.integers(min_value=1, max_value=6))
    nodes: list[dict[str, Any]] = []
    for index in range(count):
        earlier = [f"node:n{j}" for j in range(index)]
        pool = list(refs) + earlier
        op = draw(st.sampled_from(OPERATORS))
        node: dict[str, Any] = {"name": f"n{index}", "op": op}
        if op == "constant":
            node["inputs"] = []
            node["params"] = {"value": draw(st.integers(0, 10000)) / 100}
        elif op in ("floor", "gate"):
            node["inputs"] = [draw(st.sampled_from(pool)), draw(st.sampled_from(pool))]
            if op == "gate":
                node["params"] = {"below": draw(st.integers(0, 100)), "cap": draw(st.integers(0, 100))}
        else:
            node["inputs"] = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=5))
            if op == "weightedMean":
                weights = draw(
                    st.lists(
                        st.sampled_from([0, 0.5, 1, 2, 3.7]),
                        min_size=len(node["inputs"]),
                        max_size=len(node["inputs"]),
                    )
                )
                if not any(weights):
                    weights[0] = 1
                node["params"] = {"weights": weights}
        nodes.append(node)
    # Declared in a shuffled order: evaluation must not depend on it.
    shuffled = draw(st.permutations(nodes))
    return {
        "id": draw(st.sampled_from(["g-1", "sybil-floor-1", "x.y_z"])),
        "nodes": shuffled,
        "output": f"n{count - 1}",
    }


def _half_up(value: Decimal) -> Decimal:
    return min(max(value, Decimal(0)), Decimal(100)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def _worst(statuses: Sequence[str]) -> str:
    return max(statuses, key=SEVERITY.index)


def recompute_explanation(explanation: dict[str, Any], breakdown: list[dict[str, Any]]) -> float:
    """Recompute the explanation's output from the breakdown; assert every node on the way."""
    adapters = {}
    components = {}
    for entry in breakdown:
        if not entry["applicable"]:
            continue
        scored = [c for c in entry["components"] if c["value"] is not None]
        for c in scored:
            if c["status"] in ("ok", "stale"):
                components[c["key"]] = (c["value"], c["status"])
        if scored:
            adapters[entry["adapterId"]] = (entry["total"], _worst([c["status"] for c in scored]))
    values: dict[str, tuple[float, str] | None] = {}
    for node in explanation["nodes"]:
        seen = []
        for shown in node["inputs"]:
            kind, _, target = shown["ref"].partition(":")
            source = adapters if kind == "adapter" else components if kind == "component" else None
            got = source.get(target) if source is not None else values[target]
            assert shown["available"] == (got is not None), (node["name"], shown)
            if got is not None:
                assert (shown["value"], shown["status"]) == got, (node["name"], shown)
            seen.append(got)
        value, status = _node(node, seen)
        assert node["value"] == (None if value is None else float(value)), node
        if value is not None:
            assert node["status"] == status, node
        values[node["name"]] = None if value is None else (float(value), status)
    out = values[explanation["output"]]
    assert explanation["trustScore"] == (0.0 if out is None else out[0])
    return explanation["trustScore"]


def _node(node: dict[str, Any], seen: list[tuple[float, str] | None]) -> tuple[Decimal | None, str]:
    op, params = node["op"], node["params"]
    if op == "constant":
        return _half_up(Decimal(str(params["value"]))), "ok"
    if op in ("floor", "gate"):
        primary, condition = seen
        if primary is None:
            return None, "missing"
        if condition is None:
            return Decimal(str(primary[0])), primary[1]
        status = _worst([primary[1], condition[1]])
        if op == "floor":
            return _half_up(min(Decimal(str(primary[0])), Decimal(str(condition[0])))), status
        if condition[0] < params["below"]:
            return _half_up(min(Decimal(str(primary[0])), Decimal(str(params["cap"])))), status
        return Decimal(str(primary[0])), status
    weights = params.get("weights", [1] * len(seen))
    pairs = [
        (got, Decimal(str(w))) for got, w in zip(seen, weights, strict=True) if got is not None and w > 0
    ]
    if not pairs:
        return None, "missing"
    status = _worst([got[1] for got, _ in pairs])
    numbers = sorted(Decimal(str(got[0])) for got, _ in pairs)
    result: Decimal
    if op in ("weightedMean", "mean"):
        result = sum((Decimal(str(got[0])) * w for got, w in pairs), Decimal(0)) / sum(
            (w for _, w in pairs), Decimal(0)
        )
    elif op == "min":
        result = numbers[0]
    elif op == "max":
        result = numbers[-1]
    else:
        mid = len(numbers) // 2
        result = numbers[mid] if len(numbers) % 2 else (numbers[mid - 1] + numbers[mid]) / 2
    return _half_up(result), status
