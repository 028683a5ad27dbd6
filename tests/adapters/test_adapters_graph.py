"""HCS-25 v1.1 composition graphs: the draft's Test Vectors 3-5, validation, and exact explanations."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters import AdapterSpec, Component, ScoringParams, Subject, score_subject
from adapters.core import ComponentStatus
from adapters.graph import MAX_GRAPH_INPUTS, MAX_GRAPH_NODES, CompositionGraph, GraphError, evaluate_graph
from adapters.params import CONTRIBUTION_MODES
from tests.adapters.graph_support import graphs, recompute_explanation

VECTORS_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "hcs25_vectors.json"
VECTORS: list[dict[str, Any]] = json.loads(VECTORS_PATH.read_text())["compositionGraph"]


def _params(vector: dict[str, Any], *, graph: bool) -> ScoringParams:
    data: dict[str, Any] = {
        "adapters": [
            {"adapter_id": a["id"], "mode": a["mode"], "weight": a["weight"]} for a in vector["adapters"]
        ],
        "stale_multiplier": vector.get("staleMultiplier", 1.0),
    }
    if graph:
        data["graph"] = vector["graph"]
    return ScoringParams.from_dict(data)


def _components(vector: dict[str, Any]) -> dict[str, list[Component]]:
    return {
        a["id"]: [Component(key, value, status) for key, (value, status) in a["components"].items()]
        + [Component(key, None, "missing", non_scorable=True) for key in a.get("nonScorable", [])]
        for a in vector["adapters"]
    }


def _score(vector: dict[str, Any], *, graph: bool) -> dict[str, Any]:
    record = score_subject(
        Subject("agent"), summaries=[], feedback=None, params=_params(vector, graph=graph),
        extra_components=_components(vector),
    )  # fmt: skip
    return record.to_hcs25(1, "2026-01-01T00:00:00Z")


@pytest.mark.parametrize("vector", VECTORS, ids=[v["name"] for v in VECTORS])
def test_it_passes_the_composition_graph_vectors(vector: dict[str, Any]) -> None:
    out = _score(vector, graph=True)
    expected = vector["expected"]
    assert out["trustScore"] == expected["trustScore"]
    assert out["trustScores"]["total"] == expected["trustScore"]
    assert out["compositionGraphId"] == vector["graph"]["id"] == out["explanation"]["graphId"]
    nodes = {node["name"]: node for node in out["explanation"]["nodes"]}
    for name, want in expected["nodes"].items():
        if "constraintApplied" in want:
            assert nodes[name]["constraintApplied"] is want["constraintApplied"]
        assert {key: nodes[name][key] for key in want} == want
    assert recompute_explanation(out["explanation"], out["breakdown"]["adapters"]) == out["trustScore"]


@pytest.mark.parametrize("vector", [v for v in VECTORS if "withoutGraph" in v], ids=lambda v: v["name"])
def test_it_scores_the_vectors_without_their_graph_as_the_composite(vector: dict[str, Any]) -> None:
    out = _score(vector, graph=False)
    assert out["trustScore"] == vector["withoutGraph"]["trustScore"]
    assert out["compositionGraphId"] == "hcs25-composite"
    assert recompute_explanation(out["explanation"], out["breakdown"]["adapters"]) == out["trustScore"]


def _graph(nodes: list[dict[str, Any]], output: str = "n0") -> dict[str, Any]:
    return {"id": "g-1", "nodes": nodes, "output": output}


def _one(op: str, inputs: list[str], **extra: Any) -> dict[str, Any]:
    return _graph([{"name": "n0", "op": op, "inputs": inputs, **extra}])


AB = ["adapter:a", "adapter:b"]


BAD_GRAPHS = [
    (_graph([{"name": "n0", "op": "sum", "inputs": ["adapter:a"]}]), "/graph/nodes/0/op"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["adapter:zz"]}]), "/graph/nodes/0/inputs/0"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["component:zz.x"]}]), "/graph/nodes/0/inputs/0"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["node:nope"]}]), "/graph/nodes/0/inputs/0"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["weird:a"]}]), "/graph/nodes/0/inputs/0"),
    (_graph([{"name": "n0", "op": "mean", "inputs": []}]), "/graph/nodes/0/inputs"),
    (
        _graph([
            {"name": "n0", "op": "mean", "inputs": ["node:n1"]},
            {"name": "n1", "op": "max", "inputs": ["adapter:a", "node:n0"]},
        ]),
        "/graph/nodes/0/inputs/0",
    ),
    (_graph([{"name": "n0", "op": "floor", "inputs": ["adapter:a"]}]), "/graph/nodes/0/inputs"),
    (_graph([{"name": "n0", "op": "gate", "inputs": ["adapter:a", "adapter:b"], "params": {"cap": 5}}]),
     "/graph/nodes/0/params/below"),
    (_one("gate", AB, params={"below": 5, "cap": 101}),
     "/graph/nodes/0/params/cap"),
    (_graph([{"name": "n0", "op": "weightedMean", "inputs": ["adapter:a"], "params": {"weights": [1, 2]}}]),
     "/graph/nodes/0/params/weights"),
    (_graph([{"name": "n0", "op": "weightedMean", "inputs": ["adapter:a"], "params": {"weights": [0]}}]),
     "/graph/nodes/0/params/weights"),
    (_one("weightedMean", ["adapter:a"], params={"weights": [float("nan")]}),
     "/graph/nodes/0/params/weights/0"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["adapter:a"], "params": {"weights": [1]}}]),
     "/graph/nodes/0/params/weights"),
    (_graph([{"name": "n0", "op": "constant", "inputs": ["adapter:a"], "params": {"value": 1}}]),
     "/graph/nodes/0/inputs"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["adapter:a"]}], output="n9"), "/graph/output"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["adapter:a"]}] * 2), "/graph/nodes/1/name"),
    (_graph([{"name": f"n{i}", "op": "mean", "inputs": ["adapter:a"]} for i in range(MAX_GRAPH_NODES + 1)]),
     "/graph/nodes"),
    (_one("mean", ["adapter:a"] * (MAX_GRAPH_INPUTS + 1)), "/graph/nodes/0/inputs"),
    (_graph([{"name": "n0", "op": "mean", "inputs": ["adapter:a"], "extra": 1}]), "/graph/nodes/0/extra"),
    ({**_one("mean", ["adapter:a"]), "id": "Bad Id"}, "/graph/id"),
    ({"id": "g", "nodes": [], "output": "n0"}, "/graph/nodes"),
    ("not a graph", "/graph"),
]  # fmt: skip


@pytest.mark.parametrize(("graph", "pointer"), BAD_GRAPHS)
def test_it_refuses_an_invalid_graph_naming_the_field(graph: object, pointer: str) -> None:
    config = {"adapters": [{"adapter_id": "a", "mode": "scoped"}, {"adapter_id": "b", "mode": "scoped"}]}
    with pytest.raises(GraphError) as caught:
        ScoringParams.from_dict({**config, "graph": graph})
    assert caught.value.pointer == pointer


def test_it_refuses_a_graph_built_for_other_adapters() -> None:
    graph = CompositionGraph.from_dict(
        _graph([{"name": "n0", "op": "mean", "inputs": ["adapter:a"]}]), adapter_ids=["a"]
    )
    with pytest.raises(GraphError):
        ScoringParams(adapters=(AdapterSpec("b", "scoped"),), graph=graph)


def test_it_round_trips_a_graph_and_leaves_graphless_configurations_as_they_were() -> None:
    vector = VECTORS[1]
    params = _params(vector, graph=True)
    assert ScoringParams.from_dict(json.loads(json.dumps(params.to_dict()))) == params
    assert params.to_dict()["graph"]["nodes"][1]["inputs"] == vector["graph"]["nodes"][1]["inputs"]
    assert "graph" not in _params(vector, graph=False).to_dict()


def test_it_evaluates_dependencies_first_in_declaration_order() -> None:
    nodes: list[dict[str, Any]] = [
        {"name": "top", "op": "floor", "inputs": ["node:q", "node:s"]},
        {"name": "s", "op": "constant", "params": {"value": 30}},
        {"name": "q", "op": "mean", "inputs": ["adapter:a", "adapter:b"]},
    ]
    one = CompositionGraph.from_dict(_graph(nodes, "top"), adapter_ids=["a", "b"])
    assert one.order == ("s", "q", "top")
    reordered = CompositionGraph.from_dict(_graph(nodes[::-1], "top"), adapter_ids=["a", "b"])
    assert reordered.order == ("q", "s", "top")
    breakdown = [
        {
            "adapterId": a,
            "applicable": True,
            "total": v,
            "components": [{"key": f"{a}.x", "value": v, "status": "ok"}],
        }
        for a, v in (("a", 80.0), ("b", 61.0))
    ]
    assert (
        evaluate_graph(one, breakdown).trust_score == evaluate_graph(reordered, breakdown).trust_score == 30.0
    )


ADAPTER_IDS = ("availability", "performance", "sybil-resistance")
STATUSES: tuple[ComponentStatus, ...] = ("ok", "ok", "stale", "missing", "timeout", "error")


@st.composite
def subjects(draw: st.DrawFn) -> tuple[ScoringParams, dict[str, list[Component]], bool]:
    use_graph = draw(st.booleans())
    specs = [
        {
            "adapter_id": a,
            "mode": draw(st.sampled_from(CONTRIBUTION_MODES)),
            "weight": draw(st.sampled_from([0, 0.5, 1, 2, 3.7])),
        }
        for a in ADAPTER_IDS
    ]
    refs = [f"adapter:{a}" for a in ADAPTER_IDS] + [
        f"component:{a}.{c}" for a in ADAPTER_IDS for c in ("x", "y")
    ]
    data: dict[str, Any] = {"adapters": specs, "stale_multiplier": draw(st.sampled_from([1.0, 0.8, 0.5]))}
    if use_graph:
        data["graph"] = draw(graphs(refs))
    components = {}
    for a in ADAPTER_IDS:
        chosen = draw(st.lists(st.sampled_from(["x", "y"]), unique=True, max_size=2))
        components[a] = [
            Component(
                f"{a}.{c}",
                draw(st.none() | st.integers(0, 10000).map(lambda v: v / 100))
                if (s := draw(st.sampled_from(STATUSES))) != "ok"
                else draw(st.integers(0, 10000)) / 100,
                s,
                non_scorable=draw(st.booleans()),
            )
            for c in chosen
        ]
    return ScoringParams.from_dict(data), components, use_graph


@settings(max_examples=300, deadline=None)
@given(case=subjects(), registry=st.sampled_from([None, "erc-8004"]))
def test_it_publishes_an_explanation_that_recomputes_the_total_exactly(
    case: tuple[ScoringParams, dict[str, list[Component]], bool], registry: str | None
) -> None:
    params, components, use_graph = case
    record = score_subject(
        Subject("a", registry), summaries=[], feedback=None, params=params, extra_components=components
    )
    out = record.to_hcs25(1, "2026-01-01T00:00:00Z")
    assert (
        recompute_explanation(out["explanation"], out["breakdown"]["adapters"]) == out["trustScores"]["total"]
    )
    assert out["trustScore"] == out["trustScores"]["total"]
    if not use_graph:
        # The implicit one-node weightedMean graph is the HCS-25 composite, exactly.
        assert out["compositionGraphId"] == "hcs25-composite"
        assert out["explanation"]["trustScore"] == out["trustScore"]
