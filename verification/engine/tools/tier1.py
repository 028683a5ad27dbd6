"""Tier 1: checks against what the engine has learned (SPC baselines, history, session, plausibility)."""

from __future__ import annotations

import math
from typing import Any, Final

from verification.engine.tools.baseline import ECHO_DISTINCT, change_size
from verification.engine.tools.features import Inspected, Leaf, tpath_of
from verification.engine.tools.result import Signal
from verification.engine.tools.state import ArgsState, ChangeStats, SessionState, ToolState
from verification.engine.tools.stats import (
    LATENCY_MIN_SIGMA,
    SIZE_MIN_SIGMA,
    envelope,
    quantile,
    std,
    western_electric,
)
from verification.engine.tools.values import as_number, is_timestamp

__all__ = ["check_history", "check_plausibility", "check_session", "check_spc"]

# Learned field statistics need this many observations before they count as evidence.
_MIN_FIELD_OBS: Final = 20
# Same-argument repeats (over the whole tool) before "this tool is a pure function" counts as evidence;
# stateful tools can return identical results for long stretches before their first real change.
_MIN_REPEATS: Final = 50
# A field that changed in at most this share of same-argument repeats is treated as deterministic.
_DETERMINISTIC_RATE: Final = 0.02
# A field that changed in at most this share is "stable": a change is suspicious, not impossible.
_STABLE_RATE: Final = 0.10
# Companion fields that changed together in at least this share of changes must change together.
_CO_CHANGE_RATE: Final = 0.98
_MIN_CHANGES: Final = 8
_MIN_CO_CHANGES: Final = 30
# A field that holds a round value in at most this share of results is a canned-value suspect.
_ROUND_RATE: Final = 0.15
# A learned invariant ("this count equals that length") must have held this often to count.
_INV_RATE: Final = 0.98
# A field that repeated an argument in at least this share of results echoes it (decisive at _INV_RATE).
_ECHO_RATE: Final = 0.9
# Fields with fewer distinct recent values are categorical in effect: no 3σ rule for them.
_MIN_DISTINCT: Final = 5
# Share of the recent values' range a value may lie beyond it before it is implausible.
_ENVELOPE_MARGIN: Final = 0.25
# Learned bounds: a value beyond the recent range by its whole width, at this many σ, with this many
# observations, is out of range (decisive).
_BOUND_Z: Final = 6.0
_BOUND_MIN_OBS: Final = 50
# The seed's session rule: a 50x swing in a numeric field.
_SESSION_SWING: Final = 50.0
# Relative to the typical real change (90th percentile), a change this many times larger is suspect.
_CHANGE_FACTOR: Final = 3.0
# A jump is decisive when its log ratio is this many times the largest real change of the field...
_STABLE_JUMP: Final = 3.0
# ...of which at least this many were learned.
_MIN_STABLE_CHANGES: Final = 8
# Before any change scale is learned, a jump by this factor counts (the seed's $650 -> $50 case).
_UNLEARNED_RATIO: Final = 8.0


def _noisy_or(scores: list[float]) -> float:
    p = 1.0
    for s in scores:
        p *= 1.0 - min(max(s, 0.0), 1.0)
    return 1.0 - p


def check_spc(ts: ToolState | None, ins: Inspected, log_latency: float, log_size: float, lr: float) -> Signal:
    """SPC on latency, response size and field frequency (fields, types, canned values).

    Latency and size use Welford baselines with the four Western Electric rules (weights
    0.40/0.25/0.20/0.15, active after 8 observations); the field channel scores fields that vanish,
    appear for the first time, change type (a whole-number field holding a fraction counts), or hold
    placeholder-round values where real values are not.
    The channels combine by noisy-OR.

    >>> from verification.engine.tools.baseline import new_tool_state
    >>> from verification.engine.tools.features import inspect_result
    >>> check_spc(new_tool_state(), inspect_result({}), 2.0, 1.0, 3.0).fired
    False
    """
    if ts is None or ts["n"] == 0:
        return Signal("spc_anomaly", False, 0.0, lr, "", 1)
    channels: list[float] = []
    details: list[str] = []
    s_lat, rules = western_electric(ts["lat"], log_latency, LATENCY_MIN_SIGMA)
    if s_lat:
        channels.append(s_lat)
        details.append(f"latency rules {rules}")
    # Sizes vary with the arguments: a σ below ~15 % would make ordinary variety look like a shift.
    s_size, rules = western_electric(ts["size"], log_size, SIZE_MIN_SIGMA)
    if s_size:
        channels.append(s_size)
        details.append(f"size rules {rules}")
    n = ts["n"]
    if n >= _MIN_FIELD_OBS:
        field_score = 0.0
        keys = ts["keys"]
        if ins.is_object:
            top = ins.top_set
            habitual = 0.98 * n
            # Usually every known field is present and none is new: two set operations in C say so.
            absent = keys.keys() - top
            vanished = [k for k, c in keys.items() if c >= habitual and k not in top] if absent else []
            new = [k for k in ins.top_keys if k not in keys] if not keys.keys() >= top.keys() else []
            if vanished:
                details.append(f"habitual field(s) missing: {vanished[:5]}")
            if new:
                details.append(f"field(s) never seen before: {new[:5]}")
            field_score += 0.4 * (len(vanished) + len(new))
        # Typed locals: compiled, a dict's .get on a typed dict is a direct call, on Any a method lookup.
        types: dict[str, Any] = ts["types"]
        rnd: dict[str, Any] = ts["rnd"]
        retyped: list[str] = []
        canned: list[str] = []
        ints: dict[str, Any] = ts.get("ints") or {}
        for path, tp, _, tc, x, round_value in ins.feats:
            t = types.get(tp)
            if t is not None and len(t) == 1 and tc not in t and sum(t.values()) >= _MIN_FIELD_OBS:
                retyped.append(path)
            elif x is not None and not x.is_integer():
                # A field that only ever held whole numbers (a count, a stock) now has a fraction:
                # the number was computed, not read.
                w = ints.get(tp)
                if w is not None and w[1] >= _MIN_FIELD_OBS and w[0] == w[1]:
                    retyped.append(path)
            if round_value:
                r = rnd.get(tp)
                if r is not None and r[1] >= _MIN_FIELD_OBS and r[0] <= _ROUND_RATE * r[1]:
                    canned.append(path)
        if retyped:
            details.append(f"field type changed: {retyped[:5]}")
            field_score += 0.4 * len(retyped)
        if len(canned) >= 2:
            details.append(f"placeholder-round values: {canned[:5]}")
            field_score += 0.25 * len(canned)
        if field_score:
            channels.append(min(field_score, 1.0))
    if not channels:
        return Signal("spc_anomaly", False, 0.0, lr, "", 1)
    score = _noisy_or(channels)
    return Signal("spc_anomaly", score > 0, score, lr, "; ".join(details), 1)


def check_plausibility(
    ts: ToolState | None,
    ins: Inspected,
    lr: float,
    decisive_lr: float,
    reference: dict[str, Any] | None = None,
    echo: tuple[tuple[str, Any], ...] = (),
) -> Signal:
    """Numeric fields against the tool's baseline at mean ± 3σ, plus learned hard facts.

    Always-positive fields are judged in log space (prices, counts and sizes are skewed), and only
    fields with at least five distinct recent values, outside the envelope of those values by a
    margin; beyond the envelope by its whole width at 6σ or more (50 observations), for arguments
    whose last value was not close, is decisive (learned bounds). A negative value in a field never
    negative before, or a count that no longer equals the length of the list it always equalled,
    scores fully.

    *reference* is the last accepted result for the same arguments: a value close to it is judged
    by the history check, not against a tool-wide baseline that pools other arguments.

    *echo* holds the call's scalar arguments: a field that repeated an argument in >= 90 % of >= 20
    accepted results, for at least ten different values, and now holds another value than the
    argument and than the same arguments' last result names another entity than the one asked for
    (decisive at >= 98 % when the same arguments' last result repeated it; ``baseline.learn_echo``).

    >>> from verification.engine.tools.features import inspect_result
    >>> check_plausibility(None, inspect_result({"x": 1}), 3.0, 40.0).fired
    False
    """
    if ts is None:
        return Signal("value_plausibility", False, 0.0, lr, "", 1)
    num: dict[str, Any] = ts["num"]  # typed: see check_spc
    best = 0.0
    details: list[str] = []
    decisive = False
    for path, tp, v, _, x, _ in ins.feats:
        if x is None:
            continue
        ns = num.get(tp)
        if ns is None or ns["raw"]["n"] < _MIN_FIELD_OBS:
            continue
        last_x: float | None = None
        if reference is not None:
            ref: Any = reference.get(path)
            kind = type(ref)
            if kind is float or kind is int:  # as_number, inlined for the plain types leaves hold
                r = float(ref)
                if r - r == 0.0:
                    if r == x or (r > 0 and x > 0 and max(r, x) / min(r, x) < 2.0):
                        continue
                    last_x = r
            else:
                r2 = as_number(ref)
                if r2 is not None:
                    if r2 == x or (r2 > 0 and x > 0 and max(r2, x) / min(r2, x) < 2.0):
                        continue
                    last_x = r2
        if x < 0 and ns["neg"] == 0 and ns["raw"]["total"] >= _MIN_FIELD_OBS:
            best = 1.0
            if (
                ns["nonpos"] == 0
                and ns["raw"]["total"] >= _BOUND_MIN_OBS
                and last_x is not None
                and last_x > 0
                and _beyond_amounts(ts, tp, x - last_x)
            ):
                # Always strictly positive, and the same arguments gave a positive value last time:
                # crossing zero by far more than the field's real steps for the same arguments is no
                # change a real process makes in one step (a temperature near zero crosses by a step).
                decisive = True
                details.append(
                    f"{path}={v} is negative; the same arguments gave {last_x} and it was never <= 0"
                )
            else:
                details.append(f"{path}={v} is negative; never negative in {ns['raw']['total']} results")
            continue
        if ns["nonpos"] == 0 and x > 0 and ns["log"]["n"] >= _MIN_FIELD_OBS:
            rs, value = ns["log"], math.log(x)
        else:
            rs, value = ns["raw"], x
        sd = std(rs)
        if sd <= 0:
            continue
        z = abs(value - rs["mean"]) / sd
        if z <= 3.0:
            continue  # within 3σ: the envelope below cannot make it implausible, so it is not computed
        distinct, lo, hi = envelope(rs)
        if distinct < _MIN_DISTINCT:
            continue  # a near-constant or few-valued field has no meaningful σ
        margin = _ENVELOPE_MARGIN * (hi - lo)
        # Skewed and zero-inflated fields break the normal 3σ rule: also require the value to leave
        # the envelope of recent real values by a margin.
        if not lo - margin <= value <= hi + margin:
            s = min(1.0, (z - 3.0) / 6.0)
            width = hi - lo
            if (
                z >= _BOUND_Z
                and reference is not None
                and path in reference
                and rs["n"] >= _BOUND_MIN_OBS
                and not lo - width <= value <= hi + width
            ):
                # Beyond the learned bounds by more than their whole width (a percentage at 300),
                # and far from what the same arguments gave last time: out of range, not a tail.
                # Arguments never seen may be a new entity of another scale: never decisive there.
                s, decisive = 1.0, True
                details.append(f"{path}={v} is {z:.1f}σ from the mean, beyond the learned range")
            else:
                details.append(f"{path}={v} is {z:.1f}σ from the mean")
            if s > best:
                best = s
    invariants: Any = ts["inv"]  # untyped as before: compiled, its items unpack as generic sequences
    for key, (held, n) in invariants.items():
        if n < _MIN_FIELD_OBS or held < _INV_RATE * n:
            continue
        a, b = key.split("|")
        if a in ins.leaves and b in ins.leaves and ins.leaves[a] != ins.leaves[b]:
            # Graded, not decisive: a real result that breaks the rule is learned and retires it.
            best = 1.0
            details.append(f"{a}={ins.leaves[a]} but {b}={ins.leaves[b]}; they were equal in {held} of {n}")
    if echo:
        learned = ts.get("echo")
        repeated = ts.get("echov")
        if learned and repeated:
            leaves = ins.leaves
            for arg_name, arg_value in echo:
                fields = learned.get(arg_name)
                values = repeated.get(arg_name)
                if not fields or values is None or len(values) < ECHO_DISTINCT:
                    continue
                for path, counts in fields.items():
                    same, seen = counts[0], counts[1]
                    if seen < _MIN_FIELD_OBS or same < _ECHO_RATE * seen:
                        continue
                    leaf = leaves.get(path, _ABSENT)
                    if leaf is _ABSENT or leaf == arg_value:
                        continue
                    if reference is not None and reference.get(path, _ABSENT) == leaf:
                        continue  # what the same arguments gave last time: their own answer, not an echo
                    best = 1.0
                    if (
                        same >= _INV_RATE * seen
                        and reference is not None
                        and reference.get(path) == arg_value
                    ):
                        # These arguments' last answer repeated the argument, this one does not:
                        # decisive. For arguments never seen it stays graded: a tool may spell some
                        # arguments its own way (a flagged answer is kept, never blocked for ever).
                        decisive = True
                    details.append(
                        f"{path}={leaf!r} but the argument {arg_name}={arg_value!r}; the field repeated "
                        f"it in {same} of {seen} results"
                    )
    if best > 0:
        return Signal(
            "value_plausibility", True, best, decisive_lr if decisive else lr, "; ".join(details), 1, decisive
        )
    return Signal("value_plausibility", False, 0.0, lr, "", 1)


def _beyond_amounts(ts: ToolState, tp: str, step: float) -> bool:
    """True when *step* exceeds :data:`_CHANGE_FACTOR` times the 90th percentile of the field's real
    same-argument changes (absolute amounts; at least five of them learned; those in the step's
    direction when five went that way).

    >>> _beyond_amounts({"chg": {"/p": {"a": [1.0] * 10}}}, "/p", -50.0)
    True
    """
    c = ts["chg"].get(tp)
    if c is None:
        return False
    amounts = c.get("a")
    if not amounts or len(amounts) < 5:
        return False
    directions = c.get("r")
    if directions is not None and len(directions) == len(amounts):
        # Judged against the steps that went the same way when five did (restocks are no drops).
        way = 1 if step > 0 else -1
        same = [amounts[i] for i in range(len(amounts)) if directions[i] == way]
        if len(same) >= 5:
            amounts = same
    return abs(step) > _CHANGE_FACTOR * quantile(amounts, 0.9)


# Marks a path missing from the earlier leaves (no leaf value is this object).
_ABSENT: Final = object()


def _any_stuck(co: dict[str, list[int]], unchanged: set[str]) -> bool:
    """True when a field that always changes together with this one is present but did not change.

    Only the few present, *unchanged* fields can be stuck, so they are looked up in the companion
    statistics *co* instead of scanning all of it (the full scan, in *co*'s order, names them).

    >>> _any_stuck({"/b": [30, 30], "/c": [0, 40]}, {"/b", "/c"})
    True
    """
    for q in unchanged:
        pair = co.get(q)
        if pair is not None:
            together, seen = pair
            if seen >= _MIN_CO_CHANGES and together >= _CO_CHANGE_RATE * seen:
                return True
    return False


def _change_evidence(
    ts: ToolState,
    old_leaves: dict[str, Any],
    leaves: dict[str, Any],
    *,
    within_session: bool,
    pending: dict[str, Any] | None = None,
    args_changed: bool = False,
    feats: tuple[Leaf, ...] | None = None,
    trusted: bool = True,
) -> tuple[float, bool, list[str]]:
    """Score how implausible the change from *old_leaves* to *leaves* (same arguments) is.

    *feats* are the classified leaves of *leaves* (their tool-level paths are reused). *trusted*
    says *old_leaves* was accepted, not only flagged: a jump away from a doubtful reference is never
    decisive (the reference may be the fabrication).
    """
    if old_leaves == leaves:
        return 0.0, False, []  # the common case, compared in C
    chg: dict[str, Any] = ts["chg"]  # typed: see check_spc
    changed_tp: set[str] = set()
    present_tp: set[str] = set()
    diffs: list[tuple[str, str, Any, Any]] = []
    if feats is None:
        feats = tuple((path, tpath_of(path), v, "", None, False) for path, v in leaves.items())
    for path, tp, v, _, _, _ in feats:
        old = old_leaves.get(path, _ABSENT)
        if old is _ABSENT:
            continue
        present_tp.add(tp)
        if old != v:
            changed_tp.add(tp)
            diffs.append((path, tp, old, v))
    if not diffs:
        return 0.0, False, []  # only the set of fields differs: no value changed
    best = 0.0
    decisive = False
    details: list[str] = []
    repeats, result_changes, reverts = ts["same_args"]
    # A one-off wrong result that slipped through costs two changes (there and back); only changes
    # that were not undone show that the tool's results really move.
    persistent = max(0, result_changes - 2 * reverts)
    if diffs and pending is not None and all(pending.get(p) == v for p, _, _, v in diffs):
        # Two independent calls agree on the new values: a real change, not a one-off fabrication.
        return 0.0, False, []
    if diffs and not args_changed and repeats >= _MIN_REPEATS and persistent <= _DETERMINISTIC_RATE * repeats:
        # The tool behaves as a pure function: the same arguments have always given the same result.
        path, _, old, v = diffs[0]
        # ...unless the result itself says time has passed: a newer timestamp reports a new state.
        newer = any(
            is_timestamp(o) and is_timestamp(n) and len(o) == len(n) and n > o for _, _, o, n in diffs
        )
        return (
            0.5 if newer else 1.0,
            not newer,
            [
                f"{path} changed {old!r} -> {v!r}; the same arguments gave the same result in {repeats} "
                f"repeats except {result_changes} changes, {reverts} of them undone by the next call"
            ],
        )
    # Present fields that did not change, the only ones that can be "stuck" (computed when needed).
    unchanged: set[str] | None = None
    for path, tp, old, v in diffs:
        c = chg.get(tp)
        # How often this field changes when the tool's result for the same arguments changes.
        rate = c["chg"] / result_changes if c and result_changes else 1.0
        # Positions in a list shift when an item is added, so only named fields count as attributes.
        if (
            c is not None
            and "*" not in tp
            and result_changes >= _MIN_FIELD_OBS
            and rate <= _DETERMINISTIC_RATE
        ):
            best = 1.0
            details.append(
                f"{path} changed {old!r} -> {v!r}; it is a fixed attribute ({c['chg']} changes "
                f"in {result_changes} changed results)"
            )
            continue
        if c is not None and c["chg"] >= _MIN_CHANGES:
            if unchanged is None:
                unchanged = present_tp - changed_tp
            if unchanged and _any_stuck(c["co"], unchanged):
                stuck = [
                    q
                    for q, (together, seen) in c["co"].items()
                    if seen >= _MIN_CO_CHANGES
                    and together >= _CO_CHANGE_RATE * seen
                    and q in present_tp
                    and q not in changed_tp
                ]
                decisive, best = True, 1.0
                details.append(f"{path} changed but {stuck[:3]} did not, though they always change together")
                continue
        if type(old) is str and type(v) is str:
            # Two texts (no numbers): only a timestamp that went back or a stable named field that
            # flipped can count. The cheap comparisons go before the timestamp pattern.
            if (
                c is not None
                and len(old) == len(v)
                and v < old
                and c["tch"] >= _MIN_CHANGES
                and c["dec"] <= _DETERMINISTIC_RATE * c["tch"]
                and is_timestamp(old)
                and is_timestamp(v)
            ):
                decisive, best = True, 1.0
                details.append(f"{path} went back in time ({old} -> {v})")
            elif (
                "*" not in tp
                and result_changes >= _MIN_FIELD_OBS
                and rate <= _STABLE_RATE
                and not is_timestamp(v)
            ):
                best = max(best, 0.6)
                details.append(f"{path} flipped {old!r} -> {v!r}; it changes in {rate:.0%} of repeats")
            continue
        went_back = c is not None and is_timestamp(old) and is_timestamp(v) and len(old) == len(v) and v < old
        if (
            went_back
            and c is not None
            and c["tch"] >= _MIN_CHANGES
            and c["dec"] <= _DETERMINISTIC_RATE * c["tch"]
        ):
            decisive, best = True, 1.0
            details.append(f"{path} went back in time ({old} -> {v})")
            continue
        x, y = as_number(old), as_number(v)
        if x is not None and y is not None:
            ax, ay = abs(x), abs(y)
            lo, hi = (ax, ay) if ax <= ay else (ay, ax)
            ratio = hi / lo if lo > 0 and (x > 0) == (y > 0) else math.inf
            d = change_size(ts, tp, x, y)
            s = 0.0
            if within_session and ratio >= _SESSION_SWING:
                s = 1.0
            elif c is not None and len(c["d"]) >= 5:
                # One step is judged against steps that went the same way; a session compares results
                # several steps apart, where drains and restocks (or a daily cycle) mix both ways.
                q90 = quantile(c["d"], 0.9) if within_session else _typical_change(c, y > x)
                if d > _CHANGE_FACTOR * q90 > 0:
                    s = min(1.0, 0.3 + 0.7 * math.log10(d / (_CHANGE_FACTOR * q90)))
                    amounts = c.get("a")  # the amount scale is only needed for an unusual ratio
                    a90 = quantile(amounts, 0.9) if amounts and len(amounts) >= 5 else 0.0
                    if (
                        trusted
                        and not within_session
                        and x > 0
                        and y > 0
                        and ratio >= _UNLEARNED_RATIO
                        and _stable_jump(c, ratio, y > x)
                    ):
                        # An order-of-magnitude jump for the same arguments in a field whose real
                        # changes were all far smaller (in ratio: amounts pool arguments of every
                        # size): no real process moves like that in one step.
                        s, decisive = 1.0, True
                    elif abs(y - x) <= _CHANGE_FACTOR * a90:
                        s *= 0.5  # an ordinary amount, only an unusual ratio: weaker evidence
            elif ratio >= _UNLEARNED_RATIO:
                # No change scale learned yet: only an order-of-magnitude jump is evidence.
                s = 1.0 if not within_session else 0.8
            if s > 0:
                details.append(
                    f"{path}: {old} -> {v} (x{ratio:.1f})"
                    if math.isfinite(ratio)
                    else f"{path}: {old} -> {v}"
                )
                best = max(best, s)
        elif (
            "*" not in tp
            and result_changes >= _MIN_FIELD_OBS
            and rate <= _STABLE_RATE
            and not is_timestamp(v)
        ):
            best = max(best, 0.6)
            details.append(f"{path} flipped {old!r} -> {v!r}; it changes in {rate:.0%} of repeats")
    return best, decisive, details


def _typical_change(c: ChangeStats, rising: bool) -> float:
    """The 90th percentile of the field's real changes, of those that went the same way when at least
    five did (a counter drains by small steps and restocks by large ones: a drop is judged against
    drops), else of all of them.

    >>> _typical_change({"d": [0.1] * 6 + [2.3] * 4, "r": [-1] * 6 + [1] * 4}, False)
    0.1
    """
    d = c["d"]
    directions = c.get("r")
    if directions is not None and len(directions) == len(d):
        way = 1 if rising else -1
        same = [d[i] for i in range(len(d)) if directions[i] == way]
        if len(same) >= 5:
            return quantile(same, 0.9)
    return quantile(d, 0.9)


def _stable_jump(c: ChangeStats, ratio: float, rising: bool) -> bool:
    """True when a jump by *ratio* dwarfs every real change of the field in the same direction.

    Needs :data:`_MIN_STABLE_CHANGES` learned changes; the jump's log ratio must be at least
    :data:`_STABLE_JUMP` times the largest of them that went the same way (*rising* or not). A field
    that once rose 10x for real (a restocked counter) never qualifies for a 10x rise, but a field
    that only drained by small steps does for a 10x drop. Changes learned before directions were
    kept count in both directions.

    >>> _stable_jump({"d": [0.01] * 10, "r": [1] * 10}, 10.0, True)
    True
    >>> _stable_jump({"d": [0.01] * 9 + [2.5], "r": [1] * 10}, 10.0, True)
    False
    >>> _stable_jump({"d": [0.01] * 9 + [2.5], "r": [-1] * 9 + [1]}, 10.0, False)
    True
    """
    d = c["d"]
    if len(d) < _MIN_STABLE_CHANGES:
        return False
    directions = c.get("r")
    if directions is None or len(directions) != len(d):
        largest = max(d)
    else:
        way = 1 if rising else -1
        largest = 0.0
        for i in range(len(d)):
            if directions[i] == way and d[i] > largest:
                largest = d[i]
    return math.log(ratio) >= _STABLE_JUMP * largest


def check_history(
    ts: ToolState | None,
    args_state: ArgsState | None,
    ins: Inspected,
    lr: float,
    decisive_lr: float,
) -> Signal:
    """Compare with the last accepted result for the same arguments (from any session).

    >>> from verification.engine.tools.features import inspect_result
    >>> check_history(None, None, inspect_result({"p": 1}), 4.5, 40.0).fired
    False
    """
    if ts is None or args_state is None:
        return Signal("historical_inconsistency", False, 0.0, lr, "", 1)
    pending = args_state.get("pending")
    # These arguments already changed for real once: the tool is not a pure function for them.
    args_changed = args_state.get("changes", 0) > 0
    score, decisive, details = _change_evidence(
        ts,
        args_state["last"],
        ins.leaves,
        within_session=False,
        pending=pending,
        args_changed=args_changed,
        feats=ins.feats,
        trusted=args_state.get("ok", True),
    )
    if score > 0 and pending:
        # Close to the result held back last time (not only equal to it): two independent calls agree
        # on the new level, so the change was real (a restock, a split) and the values move on from it.
        agree, _, _ = _change_evidence(
            ts, pending, ins.leaves, within_session=False, args_changed=args_changed, feats=ins.feats
        )
        if agree == 0.0:
            score, decisive = 0.0, False
    previous = args_state.get("prev")
    if score > 0 and previous:
        # Consistent with the result before the last one: the last accepted result was the odd one out.
        score2, _, _ = _change_evidence(
            ts,
            previous,
            ins.leaves,
            within_session=False,
            pending=pending,
            args_changed=args_changed,
            feats=ins.feats,
        )
        if score2 == 0.0:
            score, decisive = 0.0, False
    if score > 0:
        return Signal(
            "historical_inconsistency",
            True,
            score,
            decisive_lr if decisive else lr,
            "; ".join(details),
            1,
            decisive,
        )
    return Signal("historical_inconsistency", False, 0.0, lr, "", 1)


def check_session(
    ts: ToolState | None,
    session_state: SessionState | None,
    tool: str,
    args_hash: str,
    ins: Inspected,
    lr: float,
) -> Signal:
    """Compare with earlier results for the same call among the session's last 10 results.

    >>> from verification.engine.tools.features import inspect_result
    >>> check_session(None, None, "t", "h", inspect_result({"p": 1}), 4.0).fired
    False
    """
    if ts is None or session_state is None:
        return Signal("session_inconsistency", False, 0.0, lr, "", 1)
    best = 0.0
    details: list[str] = []
    items: Any = session_state["items"]  # [tool, args hash, leaves] lists (JSON), unpacked generically
    for item_tool, item_hash, leaves in reversed(items):
        if item_tool != tool or item_hash != args_hash:
            continue
        score, _, found = _change_evidence(ts, leaves, ins.leaves, within_session=True, feats=ins.feats)
        if score > best:
            best, details = score, found
    if best > 0:
        return Signal("session_inconsistency", True, best, lr, "; ".join(details), 1)
    return Signal("session_inconsistency", False, 0.0, lr, "", 1)
