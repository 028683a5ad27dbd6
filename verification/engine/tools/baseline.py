"""What the engine learns from accepted results, kept as plain JSON-compatible dicts.

Three kinds of state, each under its own store key:

- tool state (one per tool): SPC baselines of latency and response size, how often each top-level
  field appears, the type of each field, per-field numeric baselines, how often a field holds a
  "round" placeholder-like value, learned invariants (a count equal to a list's length), and how
  fields change between two results for the same arguments (how often, by how much, which fields
  change together, whether timestamps only move forward);
- argument state (one per tool and argument hash): the last accepted leaves;
- session state (one per session): the last results the agent saw.

Only results that were not blocked are learned, so a fabrication does not poison the baselines, and
the latency and size baselines take an accepted spike in at their 3σ limit (``stats.push_bounded``).
"""

from __future__ import annotations

import math
from typing import Any, Final

try:
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - CPython has it (Counter.update uses it)

    def _count_elements(mapping: dict[str, int], iterable: Any) -> None:
        for k in iterable:
            mapping[k] = mapping.get(k, 0) + 1


from verification.engine.tools.features import Inspected, Leaf, has_field, tpath_of
from verification.engine.tools.state import ArgsState, SessionState, ToolState
from verification.engine.tools.stats import (
    LATENCY_MIN_SIGMA,
    SIZE_MIN_SIGMA,
    RunningStats,
    new_stats,
    push_bounded,
    push_finite,
)
from verification.engine.tools.values import as_number, is_timestamp

__all__ = [
    "ECHO_DISTINCT",
    "SESSION_WINDOW",
    "change_size",
    "count_floor",
    "count_gone",
    "hold_pending",
    "learn_args",
    "learn_echo",
    "learn_session",
    "learn_tool",
    "new_tool_state",
]

#: The seed compares a result with the last 10 results of its session.
SESSION_WINDOW: Final = 10
# Nonzero same-argument changes remembered per field (their typical size is the change scale).
_CHANGE_WINDOW: Final = 60
# Larger numbers are no measurement, and their squares would overflow the running statistics.
_MAX_MAGNITUDE: Final = 1e100
# Per-field baselines are updated from every result until this many, then from every _SAMPLE_EVERY-th.
_MATURE: Final = 200
_SAMPLE_EVERY: Final = 4
# Co-change bookkeeping is quadratic in fields, so it only covers this many fields per result.
_CO_FIELDS: Final = 40


# Marks a path missing from the earlier leaves (no leaf value is this object).
_ABSENT: Final = object()
# Accepted results in which fields that repeat an argument are looked for (then only counted).
_ECHO_DISCOVERY: Final = 20
#: An argument counts as echoed only once results repeated this many of its different values.
ECHO_DISTINCT: Final = 10


def new_tool_state() -> ToolState:
    """Return an empty tool state.

    >>> new_tool_state()["n"]
    0
    """
    return {
        "n": 0,
        "lat": new_stats(),
        "size": new_stats(),
        "keys": {},
        "types": {},
        "num": {},
        "rnd": {},
        "inv": {},
        "chg": {},
        "same_args": [0, 0, 0],
    }


def change_size(tool_state: ToolState, tpath: str, old: float, new: float) -> float:
    """Return how far *new* is from *old* on the field's natural scale.

    Fields that were always positive change multiplicatively (``|ln(new/old)|``); others by the
    absolute change over the field's standard deviation.

    >>> change_size({"num": {}}, "/p", 100.0, 110.0) > 0
    True
    """
    num = tool_state["num"].get(tpath)
    if num is not None and num["nonpos"] == 0 and old > 0 and new > 0:
        return abs(math.log(new / old))
    if old > 0 and new > 0 and num is None:
        return abs(math.log(new / old))
    sd = 0.0
    if num is not None:
        raw: RunningStats = num["raw"]
        sd = math.sqrt(raw["m2"] / (raw["n"] - 1)) if raw["n"] > 1 else 0.0
    return abs(new - old) / max(sd, 1e-9 + 1e-6 * max(abs(old), abs(new)))


def learn_tool(
    ts: ToolState,
    ins: Inspected,
    log_latency: float,
    log_size: float,
    previous: dict[str, Any] | None,
    before_previous: dict[str, Any] | None = None,
    echo: tuple[tuple[str, Any], ...] = (),
) -> ToolState:
    """Fold one accepted result into the tool state *ts* (mutated and returned).

    *previous* and *before_previous* are the last two accepted leaves for the same arguments, if any;
    *echo* the call's scalar top-level arguments (see :func:`learn_echo`).

    >>> from verification.engine.tools.features import inspect_result
    >>> ts = learn_tool(new_tool_state(), inspect_result({"a": 1.0}), 2.0, 1.5, None)
    >>> ts["n"], ts["keys"]
    (1, {'a': 1})
    """
    if not (math.isfinite(log_latency) and math.isfinite(log_size)):
        raise ValueError(f"baseline values must be finite, got {log_latency!r}, {log_size!r}")
    ts["n"] += 1
    # Winsorised at the 3σ limits: an accepted result whose latency or size was a spike (its other
    # evidence kept it below the block threshold) must not widen the bands that catch the next one.
    push_bounded(ts["lat"], log_latency, LATENCY_MIN_SIGMA)
    push_bounded(ts["size"], log_size, SIZE_MIN_SIGMA)
    _count_elements(ts["keys"], ins.top_keys)  # keys[k] = keys.get(k, 0) + 1 for each, in C
    if ins.stub_values:
        # Placeholder words this tool really returns (an accepted one) are its data, not a test double.
        stubv: dict[str, int] = ts.setdefault("stubv", {})
        for _, tp in ins.stub_values:
            stubv[tp] = stubv.get(tp, 0) + 1
    if previous is not None:
        _learn_changes(ts, ins.leaves, previous, before_previous, ins.feats)
        count_gone(ts, ins, previous)
    if echo:
        learn_echo(ts, echo, ins.leaves)
    if ts["n"] > _MATURE and ts["n"] % _SAMPLE_EVERY:
        # A mature baseline is refreshed from every few accepted results: the estimates stay
        # current while the per-field bookkeeping, the bulk of the cost, is paid less often.
        return ts
    # Typed locals: compiled, a dict's .get on a typed dict is a direct call, on Any a method lookup.
    types: dict[str, dict[str, Any]] = ts["types"]
    num_state: dict[str, Any] = ts["num"]
    rnd: dict[str, Any] = ts["rnd"]
    ints_state: dict[str, Any] = ts.setdefault("ints", {})
    ints: list[tuple[str, float]] = []
    lengths: list[tuple[str, float]] = []
    for path, tp, _, tc, x, round_value in ins.feats:
        t = types.get(tp)
        if t is None:
            types[tp] = {tc: 1}
        else:
            t[tc] = t.get(tc, 0) + 1
        r = rnd.get(tp)
        if r is None:
            r = rnd[tp] = [0, 0]
        r[1] += 1
        if round_value:
            r[0] += 1
        if x is None or abs(x) > _MAX_MAGNITUDE:
            continue
        ns = num_state.get(tp)
        if ns is None:
            ns = num_state[tp] = {"raw": new_stats(), "log": new_stats(), "nonpos": 0, "neg": 0}
        # How often the field held a whole number (tier1.check_spc: a count turned fraction).
        w = ints_state.get(tp)
        if w is None:
            w = ints_state[tp] = [0, 0]
        w[1] += 1
        if x.is_integer():
            w[0] += 1
        # x is finite (and so is its log): stats.push without its check, inlined.
        push_finite(ns["raw"], x)
        if x > 0:
            push_finite(ns["log"], math.log(x))
        else:
            ns["nonpos"] += 1
            if x < 0:
                ns["neg"] += 1
        depth = path.count("/")
        if depth == 2 and path.endswith("/#"):
            lengths.append((path, x))
        elif depth == 1 and x.is_integer():
            ints.append((path, x))
    # Invariants "this count equals that length", learned from traffic.
    inv: dict[str, Any] = ts["inv"]
    for a, x in ints:
        for b, y in lengths:
            key = f"{a}|{b}"
            held = inv.get(key)
            if held is None:
                held = inv[key] = [0, 0]
            held[1] += 1
            if x == y:
                held[0] += 1
    return ts


def learn_echo(ts: ToolState, echo: tuple[tuple[str, Any], ...], leaves: dict[str, Any]) -> None:
    """Count, per scalar argument and top-level result field, how often the field repeats the argument.

    A lookup tool echoes its key (``{"id": "Z543"}`` answers ``{"id": "Z543", ...}``): a result that
    names another entity than the one asked for was not produced for these arguments. Candidate
    fields are found in the tool's first :data:`_ECHO_DISCOVERY` accepted results (a field equal to
    an argument, of the same type); from then on each candidate counts ``[repeated, present]``, and
    the first :data:`ECHO_DISTINCT` different values repeated are kept.

    >>> ts = new_tool_state()
    >>> ts["n"] = 1
    >>> learn_echo(ts, (("id", "Z1"),), {"/id": "Z1", "/v": 2.0})
    >>> ts["echo"], ts["echov"]
    ({'id': {'/id': [1, 1]}}, {'id': ['Z1']})
    """
    learned = ts.get("echo")
    if learned is None:
        learned = ts["echo"] = {}
    distinct = ts.get("echov")
    if distinct is None:
        distinct = ts["echov"] = {}
    discover = ts["n"] <= _ECHO_DISCOVERY
    for key, value in echo:
        fields = learned.get(key)
        if discover:
            for path, leaf in leaves.items():
                if leaf == value and type(leaf) is type(value) and path.count("/") == 1:
                    if fields is None:
                        fields = learned[key] = {}
                    if path not in fields:
                        fields[path] = [0, 0]
        if fields:
            echoed = False
            for path, counts in fields.items():
                leaf = leaves.get(path, _ABSENT)
                if leaf is not _ABSENT:
                    counts[1] += 1
                    if leaf == value:
                        counts[0] += 1
                        echoed = True
            if echoed:
                # Repeated for how many different values: a few arguments asked many times teach
                # nothing about the next one (a geocoder echoing two addresses and extending a third).
                values = distinct.get(key)
                if values is None:
                    values = distinct[key] = []
                if len(values) < ECHO_DISTINCT and value not in values:
                    values.append(value)


def _learn_changes(
    ts: ToolState,
    leaves: dict[str, Any],
    previous: dict[str, Any],
    before_previous: dict[str, Any] | None,
    feats: tuple[Leaf, ...] | None = None,
) -> None:
    chg: dict[str, Any] = ts["chg"]  # typed: see learn_tool
    if feats is None:
        feats = tuple((path, tpath_of(path), v, "", None, False) for path, v in leaves.items())
    if leaves == previous:
        # The common case (a repeat that returned the same result): every field was seen, none changed.
        for _, tp, _, _, _, _ in feats:
            c = chg.get(tp)
            if c is None:
                c = chg[tp] = {"rep": 0, "chg": 0, "d": [], "tch": 0, "dec": 0, "co": {}}
            c["rep"] += 1
        ts["same_args"][0] += 1
        return
    changed: set[str] = set()
    present: set[str] = set()
    moved: list[tuple[str, Any]] = []  # (path, new value) of every leaf that changed, in order
    for path, tp, v, _, _, _ in feats:
        old = previous.get(path, _ABSENT)
        if old is _ABSENT:
            continue
        present.add(tp)
        c = chg.get(tp)
        if c is None:
            c = chg[tp] = {"rep": 0, "chg": 0, "d": [], "tch": 0, "dec": 0, "co": {}}
        c["rep"] += 1
        if old == v:
            continue
        changed.add(tp)
        moved.append((path, v))
        c["chg"] += 1
        if type(old) is str and type(v) is str:
            # Two texts (no numbers): only timestamps are counted. The length test goes first.
            if len(old) == len(v) and is_timestamp(old) and is_timestamp(v):
                c["tch"] += 1
                if v < old:
                    c["dec"] += 1
            continue
        x, y = as_number(old), as_number(v)
        if x is not None and y is not None:
            d = change_size(ts, tp, x, y)
            # Both finite (float arithmetic rather than math.isfinite, see values.as_number).
            if d > 0 and d - d == 0.0 and (y - x) - (y - x) == 0.0:
                c["d"].append(d)
                # The absolute change too: some quantities move by ratios (prices), others by amounts
                # (credits burnt, stock drained), and a change is only odd if it is odd both ways.
                c.setdefault("a", []).append(abs(y - x))
                # And its direction: counters restock upward by 10x but never drain 10x in one step,
                # so a jump is judged against the real changes that went the same way.
                c.setdefault("r", []).append(1 if y > x else -1)
                if len(c["d"]) > _CHANGE_WINDOW:
                    del c["d"][0]
                    del c["a"][0]
                    del c["r"][0]
        elif is_timestamp(old) and is_timestamp(v) and len(old) == len(v):
            c["tch"] += 1
            if v < old:
                c["dec"] += 1
    # How often a repeat of the same arguments returns a different result at all, and how often such
    # a change was undone by the next call (the signature of a one-off wrong result, not of a change).
    same = ts["same_args"]
    same[0] += 1
    if changed:
        same[1] += 1
        if before_previous is not None and all(before_previous.get(p) == v for p, v in moved):
            same[2] += 1
    if changed and len(present) <= _CO_FIELDS:
        # Each present field, and whether it changed too, in the set's order (new pairs are added to
        # "co" in that order, as before); a field's own entry is never created.
        flags = [(q, q in changed) for q in present]
        for tp in changed:
            co: dict[str, Any] = chg[tp]["co"]
            for q, both in flags:
                seen = co.get(q)
                if seen is None:
                    if q == tp:
                        continue
                    seen = co[q] = [0, 0]
                seen[1] += 1
                if both:
                    seen[0] += 1


def learn_args(state: ArgsState | None, leaves: dict[str, Any], accepted: bool = True) -> ArgsState:
    """Record *leaves* as the latest result for one argument set.

    ``changes`` counts accepted results that differed from the one before (real changes); ``ok``
    says whether the last one was accepted (not only flagged).

    >>> learn_args(None, {"/p": 1.0})
    {'n': 1, 'last': {'/p': 1.0}, 'prev': None, 'pending': None, 'changes': 0, 'ok': True}
    """
    if state is None:
        return {"n": 1, "last": dict(leaves), "prev": None, "pending": None, "changes": 0, "ok": accepted}
    if accepted and state["last"] != leaves:
        state["changes"] = state.get("changes", 0) + 1
    # Whether the last result was accepted (not only flagged): a doubtful reference decides nothing.
    # Through a run of flagged results, "good" keeps the last accepted one: the tool learns the change
    # from it to the next accepted result, so a flagged change that the next call confirms is learned
    # as a real change (else a field whose first changes were flagged would stay "fixed" for ever).
    if accepted:
        state.pop("good", None)
    elif state.get("ok", True):
        state["good"] = state["last"]
    state["ok"] = accepted
    state["n"] += 1
    state["pending"] = None
    state["prev"] = state["last"]
    state["last"] = dict(leaves)
    return state


def count_gone(ts: ToolState, ins: Inspected, reference: dict[str, Any]) -> ToolState:
    """Count the top-level fields *reference* (the last accepted result for the same arguments) held
    and *ins* does not (tier0.habitual_missing: a field that comes and goes for the same arguments is
    optional). Counted for every verified result, accepted or not: a real optional field is often
    flagged when it first goes missing, and counting only accepted results would never learn that.

    >>> from verification.engine.tools.features import inspect_result
    >>> count_gone({"keys": {"a": 3, "b": 3}}, inspect_result({"a": 1}), {"/a": 1, "/b": 2})["gone"]
    {'b': 1}
    """
    if ins.is_object:
        dropped = ts["keys"].keys() - ins.top_set.keys()
        if dropped:
            gone: dict[str, int] = ts.setdefault("gone", {})
            for k in dropped:
                if has_field(reference, k):
                    gone[k] = gone.get(k, 0) + 1
    return ts


def count_floor(ts: ToolState, below_floor: bool) -> ToolState:
    """Count a call of an unprofiled tool, and whether it beat the network floor.

    >>> count_floor(new_tool_state(), True)["floor"]
    [1, 1]
    """
    floor = ts.setdefault("floor", [0, 0])
    floor[0] += 1
    if below_floor:
        floor[1] += 1
    return ts


def hold_pending(state: ArgsState | None, leaves: dict[str, Any]) -> ArgsState | None:
    """Remember a blocked result for one argument set, so a later identical result can confirm it.

    >>> hold_pending({"n": 1, "last": {}, "prev": None, "pending": None}, {"/p": 2})["pending"]
    {'/p': 2}
    """
    if state is None:
        return None
    state["pending"] = dict(leaves)
    return state


def learn_session(
    state: SessionState | None, tool: str, args_hash: str, leaves: dict[str, Any]
) -> SessionState:
    """Append a result to the session window (the last :data:`SESSION_WINDOW` results).

    >>> len(learn_session(None, "t", "h", {})["items"])
    1
    """
    if state is None:
        state = {"items": []}
    items = state["items"]
    items.append([tool, args_hash, dict(leaves)])
    if len(items) > SESSION_WINDOW:
        del items[: len(items) - SESSION_WINDOW]
    return state
