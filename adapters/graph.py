"""HCS-25 v1.1 composition graphs and score explanations (SPEC 2.4).

A composition graph is an acyclic graph of named nodes.  Each node applies one operator
(``weightedMean``, ``mean``, ``min``, ``max``, ``median``, ``floor``, ``gate``,
``constant``) to inputs that name an adapter total (``adapter:{id}``), one component
(``component:{key}``) or another node (``node:{name}``).  The graph is part of the
numbered scoring configuration (:class:`adapters.params.ScoringParams`) and its
``output`` node's value is the trust score.

Rules (HCS-25 v1.1 draft):

* unavailable inputs are omitted, never counted as 0;
* a ``floor`` or ``gate`` whose condition is unavailable applies no constraint;
* a node's status is the most severe status among its available inputs;
* staleness is applied once, when components are normalised (the stale multiplier),
  never again by a node;
* a one-node ``weightedMean`` graph over the adapters, with their weights, reproduces
  the HCS-25 composite exactly (:func:`implicit_graph` is that graph).

The evaluator reads the published ``breakdown.adapters[]`` entries of a record, so anyone
holding a record and its configuration can recompute ``trustScores.total``; the
:func:`explain` trace lists every node with its inputs, their values and statuses.

Availability of an input:

* ``adapter:{id}``: the adapter is applicable and has a scorable component (a
  ``universal``/``scoped`` adapter that produced nothing has its deterministic 0);
* ``component:{key}``: the component is present with a value and its status is ``ok``
  or ``stale`` (``missing``/``timeout``/``error`` signals are not there);
* ``node:{name}``: that node had at least one available input (``constant`` always).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from adapters.numbers import clamp, round_half_up

__all__ = [
    "GRAPH_OPERATORS",
    "IMPLICIT_GRAPH_ID",
    "MAX_GRAPH_INPUTS",
    "MAX_GRAPH_NODES",
    "CompositionGraph",
    "GraphError",
    "GraphEvaluation",
    "GraphNode",
    "NodeTrace",
    "evaluate_graph",
    "explain",
    "implicit_graph",
]

#: The operators of the HCS-25 v1.1 draft.
GRAPH_OPERATORS: tuple[str, ...] = (
    "constant",
    "floor",
    "gate",
    "max",
    "mean",
    "median",
    "min",
    "weightedMean",
)

#: The id of the graph a configuration without one is scored with (the HCS-25 composite).
IMPLICIT_GRAPH_ID = "hcs25-composite"

#: Size bounds: a configuration is stored and evaluated for every agent.
MAX_GRAPH_NODES = 64
MAX_GRAPH_INPUTS = 32

_ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_NAME_PATTERN = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
_REF_KINDS = ("adapter", "component", "node")
_PARAMS: dict[str, frozenset[str]] = {
    "constant": frozenset({"value"}),
    "floor": frozenset(),
    "gate": frozenset({"below", "cap"}),
    "max": frozenset(),
    "mean": frozenset(),
    "median": frozenset(),
    "min": frozenset(),
    "weightedMean": frozenset({"weights"}),
}
# Most severe last; a node's status is the most severe of its available inputs.
_SEVERITY = {"ok": 0, "stale": 1, "missing": 2, "timeout": 3, "error": 4}
_UNAVAILABLE = frozenset({"missing", "timeout", "error"})


class GraphError(ValueError):
    """An invalid composition graph; ``pointer`` is the RFC 6901 pointer of the bad field.

    >>> GraphError("/graph/output", "must name a node").pointer
    '/graph/output'
    """

    def __init__(self, pointer: str, detail: str) -> None:
        self.pointer = pointer
        self.detail = detail
        path = re.sub(r"/(\d+)", r"[\1]", pointer.removeprefix("/graph")).replace("/", ".")
        super().__init__(f"ScoringParams.graph{path} {detail}")


def _finite(pointer: str, value: object, *, lo: float = 0.0, hi: float = 100.0) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise GraphError(pointer, f"must be a finite number, got {value!r}")
    if not lo <= value <= hi:
        raise GraphError(pointer, f"must be in [{lo:g}, {hi:g}], got {value!r}")
    return float(value)


def _split_ref(pointer: str, ref: object) -> tuple[str, str]:
    if not isinstance(ref, str) or ":" not in ref:
        raise GraphError(pointer, f"must be 'adapter:<id>', 'component:<key>' or 'node:<name>', got {ref!r}")
    kind, _, target = ref.partition(":")
    if kind not in _REF_KINDS or not target:
        raise GraphError(pointer, f"must be 'adapter:<id>', 'component:<key>' or 'node:<name>', got {ref!r}")
    return kind, target


@dataclass(frozen=True)
class GraphNode:
    """One named node: an operator, its input references and its parameters.

    >>> GraphNode("all", "mean", ("adapter:a", "adapter:b")).inputs
    ('adapter:a', 'adapter:b')
    """

    name: str
    op: str
    inputs: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    below: float | None = None
    cap: float | None = None
    value: float | None = None

    @property
    def params(self) -> dict[str, Any]:
        """The operator's parameters in the draft's ``params`` shape.

        >>> GraphNode("g", "gate", ("adapter:a", "adapter:b"), below=50, cap=70).params
        {'below': 50, 'cap': 70}
        """
        if self.op == "weightedMean":
            return {"weights": list(self.weights)}
        if self.op == "gate":
            return {"below": self.below, "cap": self.cap}
        if self.op == "constant":
            return {"value": self.value}
        return {}

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form (the draft's node shape).

        >>> GraphNode("c", "constant", (), value=50.0).to_dict()
        {'name': 'c', 'op': 'constant', 'inputs': [], 'params': {'value': 50.0}}
        """
        return {"name": self.name, "op": self.op, "inputs": list(self.inputs), "params": self.params}


@dataclass(frozen=True)
class CompositionGraph:
    """A validated composition graph; ``order`` is its deterministic topological order.

    Construct with :meth:`from_dict`, which validates (known operators and references,
    acyclic, bounded size) and raises :class:`GraphError` naming the field.

    >>> g = CompositionGraph.from_dict({"id": "g-1", "output": "top", "nodes": [
    ...     {"name": "top", "op": "floor", "inputs": ["node:q", "adapter:b"]},
    ...     {"name": "q", "op": "mean", "inputs": ["adapter:a"]}]}, adapter_ids=("a", "b"))
    >>> g.order
    ('q', 'top')
    """

    graph_id: str
    nodes: tuple[GraphNode, ...]
    output: str
    order: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the plain-JSON form stored in the configuration.

        >>> implicit_graph([("a", 1.0)]).to_dict()["output"]
        'composite'
        """
        return {"id": self.graph_id, "nodes": [node.to_dict() for node in self.nodes], "output": self.output}

    @classmethod
    def from_dict(cls, data: object, *, adapter_ids: Sequence[str]) -> CompositionGraph:
        """Validate and build a graph whose ``adapter:``/``component:`` inputs name *adapter_ids*.

        >>> CompositionGraph.from_dict({"id": "g", "output": "x", "nodes": [
        ...     {"name": "x", "op": "mean", "inputs": ["node:x"]}]}, adapter_ids=())
        Traceback (most recent call last):
        ...
        adapters.graph.GraphError: ScoringParams.graph.nodes[0].inputs[0] makes a cycle through node 'x'
        """
        if not isinstance(data, Mapping):
            raise GraphError("/graph", f"must be a JSON object, got {type(data).__name__}")
        unknown = sorted(set(data) - {"id", "nodes", "output"})
        if unknown:
            raise GraphError(f"/graph/{unknown[0]}", "is not a known field (id, nodes, output)")
        graph_id = data.get("id")
        if not isinstance(graph_id, str) or not _ID_PATTERN.match(graph_id):
            raise GraphError("/graph/id", f"must match {_ID_PATTERN.pattern}, got {graph_id!r}")
        raw_nodes = data.get("nodes")
        if (
            isinstance(raw_nodes, str | bytes | Mapping)
            or not isinstance(raw_nodes, Sequence)
            or not raw_nodes
        ):
            raise GraphError("/graph/nodes", "must be a non-empty list of nodes")
        if len(raw_nodes) > MAX_GRAPH_NODES:
            raise GraphError(
                "/graph/nodes", f"must hold at most {MAX_GRAPH_NODES} nodes, got {len(raw_nodes)}"
            )
        names = {}
        for index, raw in enumerate(raw_nodes):
            name = raw.get("name") if isinstance(raw, Mapping) else None
            if not isinstance(name, str) or not _NAME_PATTERN.match(name):
                raise GraphError(
                    f"/graph/nodes/{index}/name", f"must match {_NAME_PATTERN.pattern}, got {name!r}"
                )
            if name in names:
                raise GraphError(f"/graph/nodes/{index}/name", f"duplicates node {name!r}")
            names[name] = index
        adapters = set(adapter_ids)
        nodes = tuple(_node(index, raw, names, adapters) for index, raw in enumerate(raw_nodes))
        output = data.get("output")
        if not isinstance(output, str) or output not in names:
            raise GraphError("/graph/output", f"must name a node of the graph, got {output!r}")
        return cls(graph_id=graph_id, nodes=nodes, output=output, order=_topological_order(nodes))


def _node(index: int, raw: Mapping[str, Any], names: Mapping[str, int], adapters: set[str]) -> GraphNode:
    here = f"/graph/nodes/{index}"
    unknown = sorted(set(raw) - {"name", "op", "inputs", "params"})
    if unknown:
        raise GraphError(f"{here}/{unknown[0]}", "is not a known field (name, op, inputs, params)")
    op = raw.get("op")
    if op not in GRAPH_OPERATORS:
        raise GraphError(f"{here}/op", f"must be one of {', '.join(GRAPH_OPERATORS)}, got {op!r}")
    inputs = raw.get("inputs", [])
    if isinstance(inputs, str | bytes | Mapping) or not isinstance(inputs, Sequence):
        raise GraphError(f"{here}/inputs", "must be a list of references")
    if len(inputs) > MAX_GRAPH_INPUTS:
        raise GraphError(
            f"{here}/inputs", f"must hold at most {MAX_GRAPH_INPUTS} references, got {len(inputs)}"
        )
    for position, ref in enumerate(inputs):
        kind, target = _split_ref(f"{here}/inputs/{position}", ref)
        if kind == "adapter" and target not in adapters:
            raise GraphError(
                f"{here}/inputs/{position}", f"names adapter {target!r}, not in the configuration"
            )
        if kind == "component" and target.partition(".")[0] not in adapters:
            raise GraphError(
                f"{here}/inputs/{position}", f"names component {target!r} of no adapter in the configuration"
            )
        if kind == "node" and target not in names:
            raise GraphError(f"{here}/inputs/{position}", f"names node {target!r}, not in the graph")
    if op == "constant" and inputs:
        raise GraphError(f"{here}/inputs", "must be empty for a constant")
    if op in ("floor", "gate") and len(inputs) != 2:
        raise GraphError(f"{here}/inputs", f"must hold exactly 2 references (primary, condition) for {op}")
    if op not in ("constant", "floor", "gate") and not inputs:
        raise GraphError(f"{here}/inputs", f"must hold at least one reference for {op}")
    raw_params = raw.get("params", {})
    if not isinstance(raw_params, Mapping):
        raise GraphError(f"{here}/params", "must be a JSON object")
    extra = sorted(set(raw_params) - _PARAMS[op])
    if extra:
        raise GraphError(f"{here}/params/{extra[0]}", f"is not a parameter of {op}")
    params: dict[str, Any] = {}
    if op == "weightedMean":
        weights = raw_params.get("weights")
        if isinstance(weights, str | bytes | Mapping) or not isinstance(weights, Sequence):
            raise GraphError(f"{here}/params/weights", "must be a list of numbers, one per input")
        if len(weights) != len(inputs):
            raise GraphError(f"{here}/params/weights", f"must hold {len(inputs)} weights, got {len(weights)}")
        checked = tuple(_finite(f"{here}/params/weights/{i}", w, hi=math.inf) for i, w in enumerate(weights))
        if not any(w > 0 for w in checked):
            raise GraphError(f"{here}/params/weights", "must hold at least one positive weight")
        params["weights"] = checked
    elif op == "gate":
        for key in ("below", "cap"):
            if key not in raw_params:
                raise GraphError(f"{here}/params/{key}", "is required for gate")
            params[key] = _finite(f"{here}/params/{key}", raw_params[key])
    elif op == "constant":
        if "value" not in raw_params:
            raise GraphError(f"{here}/params/value", "is required for constant")
        params["value"] = _finite(f"{here}/params/value", raw_params["value"])
    return GraphNode(name=raw["name"], op=op, inputs=tuple(inputs), **params)


def _topological_order(nodes: Sequence[GraphNode]) -> tuple[str, ...]:
    # Kahn's algorithm, taking ready nodes in declaration order: the same graph always
    # evaluates in the same order.
    index = {node.name: i for i, node in enumerate(nodes)}
    deps = [{ref[5:] for ref in node.inputs if ref.startswith("node:")} for node in nodes]
    done: set[str] = set()
    order: list[str] = []
    while len(order) < len(nodes):
        ready = [n for i, n in enumerate(nodes) if n.name not in done and deps[i] <= done]
        if not ready:
            stuck = next(n for n in nodes if n.name not in done)
            position = next(
                p for p, ref in enumerate(stuck.inputs) if ref[5:] not in done and ref[:5] == "node:"
            )
            raise GraphError(
                f"/graph/nodes/{index[stuck.name]}/inputs/{position}",
                f"makes a cycle through node {stuck.name!r}",
            )
        order.append(ready[0].name)
        done.add(ready[0].name)
    return tuple(order)


def implicit_graph(weights: Sequence[tuple[str, float]]) -> CompositionGraph:
    """The one-node ``weightedMean`` graph equal to the HCS-25 composite of *weights*.

    *weights* are ``(adapter_id, weight)`` in configuration order; weight-0
    (informational) adapters are left out.  With no weighted adapter the graph is a
    ``constant`` 0, as the composite of an empty denominator is.

    >>> implicit_graph([("a", 1.0), ("b", 0.0), ("c", 2.0)]).nodes[0].inputs
    ('adapter:a', 'adapter:c')
    """
    weighted = [(adapter_id, w) for adapter_id, w in weights if w > 0]
    if not weighted:
        node = GraphNode("composite", "constant", (), value=0.0)
    else:
        node = GraphNode(
            "composite",
            "weightedMean",
            tuple(f"adapter:{adapter_id}" for adapter_id, _ in weighted),
            weights=tuple(float(w) for _, w in weighted),
        )
    return CompositionGraph(IMPLICIT_GRAPH_ID, (node,), "composite", ("composite",))


@dataclass(frozen=True)
class NodeTrace:
    """One evaluated node: its inputs as seen (ref, value, status, available) and its result."""

    name: str
    op: str
    params: dict[str, Any]
    inputs: tuple[dict[str, Any], ...]
    value: float | None
    status: str
    constraint_applied: bool | None = None

    @property
    def available(self) -> bool:
        """Whether the node produced a value.

        >>> NodeTrace("n", "mean", {}, (), None, "missing").available
        False
        """
        return self.value is not None

    def to_dict(self) -> dict[str, Any]:
        """Return the explanation entry of this node.

        >>> NodeTrace("n", "constant", {"value": 5.0}, (), 5.0, "ok").to_dict()["value"]
        5.0
        """
        entry: dict[str, Any] = {
            "name": self.name,
            "op": self.op,
            "params": self.params,
            "inputs": list(self.inputs),
            "available": self.available,
            "value": self.value,
            "status": self.status,
        }
        if self.constraint_applied is not None:
            entry["constraintApplied"] = self.constraint_applied
        return entry


@dataclass(frozen=True)
class GraphEvaluation:
    """The result of :func:`evaluate_graph`: the output value and every node's trace in order."""

    graph_id: str
    output: str
    trust_score: float
    nodes: tuple[NodeTrace, ...]

    def node(self, name: str) -> NodeTrace:
        """Return the trace of node *name*.

        >>> evaluate_graph(implicit_graph([]), []).node("composite").value
        0.0
        """
        for trace in self.nodes:
            if trace.name == name:
                return trace
        raise KeyError(name)


def _inputs_of(
    breakdown: Sequence[Mapping[str, Any]],
) -> tuple[dict[str, tuple[float, str]], dict[str, tuple[float, str]]]:
    adapters: dict[str, tuple[float, str]] = {}
    components: dict[str, tuple[float, str]] = {}
    for entry in breakdown:
        if not entry.get("applicable"):
            continue
        scored = [c for c in entry.get("components", []) if c.get("value") is not None]
        for c in scored:
            if c["status"] not in _UNAVAILABLE:
                components[c["key"]] = (float(c["value"]), c["status"])
        if scored:
            worst = max((c["status"] for c in scored), key=_SEVERITY.__getitem__)
            adapters[entry["adapterId"]] = (float(entry["total"]), worst)
    return adapters, components


def evaluate_graph(graph: CompositionGraph, breakdown: Sequence[Mapping[str, Any]]) -> GraphEvaluation:
    """Evaluate *graph* over a record's ``breakdown.adapters[]`` entries.

    Node values are clamped to [0, 100] and rounded half-up to 2 decimals; the output
    node's value is the trust score (0 when it is unavailable).

    >>> breakdown = [
    ...     {"adapterId": "q", "applicable": True, "total": 77.0,
    ...      "components": [{"key": "q.score", "value": 77.0, "status": "ok"}]},
    ...     {"adapterId": "s", "applicable": True, "total": 24.0,
    ...      "components": [{"key": "s.score", "value": 24.0, "status": "ok"}]}]
    >>> g = CompositionGraph.from_dict({"id": "f", "output": "top", "nodes": [
    ...     {"name": "top", "op": "floor", "inputs": ["adapter:q", "adapter:s"]}]}, adapter_ids=("q", "s"))
    >>> evaluate_graph(g, breakdown).trust_score
    24.0
    """
    adapters, components = _inputs_of(breakdown)
    by_name = {node.name: node for node in graph.nodes}
    values: dict[str, tuple[float, str] | None] = {}
    traces: list[NodeTrace] = []
    for name in graph.order:
        node = by_name[name]
        seen: list[tuple[float, str] | None] = []
        shown: list[dict[str, Any]] = []
        for ref in node.inputs:
            kind, _, target = ref.partition(":")
            got = (
                adapters.get(target)
                if kind == "adapter"
                else components.get(target)
                if kind == "component"
                else values[target]
            )
            seen.append(got)
            shown.append(
                {"ref": ref, "available": got is not None, "value": None if got is None else got[0],
                 "status": "missing" if got is None else got[1]}
            )  # fmt: skip
        value, status, constrained = _apply(node, seen)
        values[name] = None if value is None else (value, status)
        traces.append(NodeTrace(name, node.op, node.params, tuple(shown), value, status, constrained))
    out = values[graph.output]
    return GraphEvaluation(graph.graph_id, graph.output, 0.0 if out is None else out[0], tuple(traces))


def _apply(
    node: GraphNode, seen: Sequence[tuple[float, str] | None]
) -> tuple[float | None, str, bool | None]:
    if node.op == "constant":
        return round_half_up(clamp(node.value or 0.0)), "ok", None
    if node.op in ("floor", "gate"):
        primary, condition = seen
        if primary is None:
            return None, "missing", False
        if condition is None:
            # An unavailable condition applies no constraint.
            return primary[0], primary[1], False
        status = max(primary[1], condition[1], key=_SEVERITY.__getitem__)
        if node.op == "floor":
            return round_half_up(clamp(min(primary[0], condition[0]))), status, condition[0] < primary[0]
        if condition[0] < (node.below or 0.0):
            return round_half_up(clamp(min(primary[0], (node.cap or 0.0)))), status, True
        return primary[0], status, False
    weights: Sequence[float] = node.weights if node.op == "weightedMean" else (1.0,) * len(seen)
    pairs = [(got, w) for got, w in zip(seen, weights, strict=True) if got is not None]
    if node.op == "weightedMean":
        pairs = [(got, w) for got, w in pairs if w > 0]
    if not pairs:
        return None, "missing", None
    status = max((got[1] for got, _ in pairs), key=_SEVERITY.__getitem__)
    numbers = [got[0] for got, _ in pairs]
    if node.op in ("weightedMean", "mean"):
        # Summed in input order, as the composite sums adapters.
        numerator = 0.0
        denominator = 0.0
        for got, w in pairs:
            numerator += w * got[0]
            denominator += w
        result = numerator / denominator
    elif node.op == "min":
        result = min(numbers)
    elif node.op == "max":
        result = max(numbers)
    else:
        ordered = sorted(numbers)
        middle = len(ordered) // 2
        result = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return round_half_up(clamp(result)), status, None


def explain(evaluation: GraphEvaluation) -> dict[str, Any]:
    """Return the published score explanation: graph id, evaluation order and node trace.

    Each node lists its inputs (reference, availability, value, status) and its value, so
    ``trustScores.total`` can be recomputed from the explanation alone.

    >>> doc = explain(evaluate_graph(implicit_graph([]), []))
    >>> doc["graphId"], doc["output"], doc["trustScore"], doc["order"]
    ('hcs25-composite', 'composite', 0.0, ['composite'])
    """
    doc: dict[str, Any] = {
        "graphId": evaluation.graph_id,
        "output": evaluation.output,
        "order": [trace.name for trace in evaluation.nodes],
        "nodes": [trace.to_dict() for trace in evaluation.nodes],
        "trustScore": evaluation.trust_score,
    }
    return doc
