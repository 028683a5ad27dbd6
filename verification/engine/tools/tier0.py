"""Tier 0: zero-cost checks of one result against its tool's profile (schema, pattern, latency, length)."""

from __future__ import annotations

import math
from typing import Any, Final

from verification.engine.tools.features import Inspected, has_field
from verification.engine.tools.profile import ToolProfile
from verification.engine.tools.result import Signal
from verification.engine.tools.state import ToolState
from verification.engine.tools.stats import quantile

__all__ = [
    "MARKER_MIN_RESULTS",
    "NETWORK_FLOOR_MS",
    "PRESENCE_MIN_RESULTS",
    "PRESENCE_RATE",
    "check_latency",
    "check_length",
    "check_pattern",
    "check_schema",
    "habitual_missing",
    "log_size",
    "vanished_any",
]

#: No real network round trip completes faster than this (the seed's "<2 ms" rule).
NETWORK_FLOOR_MS: Final = 2.0

#: A field present in at least this share of a tool's accepted results is part of its learned schema...
PRESENCE_RATE: Final = 0.99
#: ...once the tool has this many accepted results (fewer, and one optional field looks habitual).
PRESENCE_MIN_RESULTS: Final = 50
#: The warm-up rule (habitual_missing): a field in >= 90 % of >= 20 accepted results, held by the last
#: result for the same arguments, that vanished in <= 2 % of >= 10 learned same-argument repeats.
ARGS_PRESENCE_RATE: Final = 0.9
ARGS_PRESENCE_MIN_RESULTS: Final = 20
VANISH_RATE: Final = 0.05
VANISH_MIN_REPEATS: Final = 10
#: Placeholder values and error keys count once the tool has this many accepted results without them.
MARKER_MIN_RESULTS: Final = 20

# log10(5 ms): an unprofiled tool whose fastest tenth of calls is slower than this does network I/O.
_LOG_SLOW_DECILE: Final = math.log10(5.0)
# Outside the profile's length bounds by this factor is more than a real response ever does.
_ABSURD_FACTOR: Final = 2.0
# Without profile bounds: this many times beyond the largest (smallest) size seen is absurd.
_LEARNED_ABSURD_FACTOR: Final = 4.0


# check_pattern's memo keys, one object per (patterns, max chars). A cached inspection's memo dict lives
# long; inserting a key tuple built by this call would make the cyclic collector track (and traverse) it
# until the next full collection, while an older key tuple is already untracked, and so is the dict
# while its values are untracked too (the empty tuple of a result that matches every pattern).
_MEMO_KEYS: Final[dict[tuple[tuple[str, ...], int], tuple[tuple[str, ...], int]]] = {}


def vanished_any(tool_state: ToolState, ins: Inspected) -> bool:
    """Whether a top-level field this tool has returned is absent from *ins* (a cheap screen).

    >>> from verification.engine.tools.features import inspect_result
    >>> vanished_any({"keys": {"a": 1}}, inspect_result({"b": 2}))
    True
    """
    return ins.is_object and not ins.top_set.keys() >= tool_state["keys"].keys()


def habitual_missing(
    tool_state: ToolState | None, ins: Inspected, reference: dict[str, Any] | None = None
) -> list[str]:
    """Fields the tool's own traffic says it always returns, absent now.

    The tool's own traffic is its schema when no profile declares one, in two ways:

    - a top-level field present in at least 99 % of the tool's (at least 50) accepted results;
    - from 20 accepted results on (the warm-up): a field present in at least 90 % of them that the
      last accepted result for the *same arguments* (*reference*) held, if, over at least 10 learned
      repeats of the same arguments, the field almost never vanished between two of them (at most 2 %:
      optional fields come and go for the same arguments, required ones do not). Accepted results
      missing the field lower its presence, so a rule on presence alone is defeated by the first few
      fabrications that slipped through; the same arguments dropping a field they just returned is
      evidence that does not depend on them.

    >>> from verification.engine.tools.features import inspect_result
    >>> habitual_missing({"n": 60, "keys": {"price": 60, "note": 3}}, inspect_result({"note": "x"}))
    ['price']
    """
    if tool_state is None or not ins.is_object:
        return []
    n = tool_state["n"]
    if n < ARGS_PRESENCE_MIN_RESULTS:
        return []
    keys: dict[str, int] = tool_state["keys"]
    absent = keys.keys() - ins.top_set.keys()
    if not absent:
        return []
    found = [k for k in absent if keys[k] >= PRESENCE_RATE * n] if n >= PRESENCE_MIN_RESULTS else []
    if reference is not None and len(found) < len(absent):
        repeats: int = tool_state["same_args"][0]
        if repeats >= VANISH_MIN_REPEATS:
            gone: dict[str, int] = tool_state.get("gone") or {}
            limit = VANISH_RATE * repeats
            for k in absent:
                if (
                    keys[k] >= ARGS_PRESENCE_RATE * n
                    and gone.get(k, 0) <= limit
                    and k not in found
                    and has_field(reference, k)
                ):
                    found.append(k)
    return sorted(found)


def check_schema(
    profile: ToolProfile,
    ins: Inspected,
    tool_state: ToolState | None,
    lr: float,
    vanished: list[str] | None = None,
) -> Signal:
    """Missing required fields, forbidden fields anywhere, or test-double markers new to this tool.

    Test-double markers: field names (``_stub``, ``is_mock``, ...) this tool never returned; once the
    tool has :data:`MARKER_MIN_RESULTS` accepted results, also a placeholder word as a value
    (``"sample"``, ``"dummy"``) in a field that never held one, and a truthy top-level ``error`` key
    it never returned. *vanished* are habitual fields now missing (:func:`habitual_missing`).

    >>> from verification.engine.tools.features import inspect_result
    >>> p = ToolProfile("t", required_fields=("price",), forbidden_fields=("mock",))
    >>> check_schema(p, inspect_result({"price": 1, "mock": True}), None, 12.0).detail
    "forbidden field(s) present: ['mock']"
    """
    problems: list[str] = []
    if profile.required_fields:
        if not ins.is_object:
            problems.append("result is not a JSON object")
        else:
            top = ins.top_set
            missing = [f for f in profile.required_fields if f not in top]
            if missing:
                problems.append(f"required field(s) missing: {missing}")
    forbidden = [f for f in profile.forbidden_fields if f in ins.key_names]
    if forbidden:
        problems.append(f"forbidden field(s) present: {forbidden}")
    stubs: list[str] = []
    if ins.stub_keys:
        known = tool_state["keys"] if tool_state else {}
        stubs = sorted(k for k in ins.stub_keys if k not in forbidden and k not in known)
    if stubs:
        problems.append(f"test-double marker field(s) never seen from this tool: {stubs}")
    if vanished:
        problems.append(f"field(s) this tool habitually returns missing (learned schema): {vanished[:5]}")
    if tool_state is not None and tool_state["n"] >= MARKER_MIN_RESULTS:
        if ins.stub_values:
            held: dict[str, int] = tool_state.get("stubv") or {}
            placeholders = [path for path, tp in ins.stub_values if not held.get(tp)]
            if placeholders:
                problems.append(f"placeholder value(s) never returned before: {placeholders[:5]}")
        if ins.error_keys:
            known_keys = tool_state["keys"]
            errors = [k for k in ins.error_keys if k not in known_keys and k not in forbidden]
            if errors:
                problems.append(f"error field(s) this tool never returned: {errors}")
    if problems:
        return Signal("schema_mismatch", True, 1.0, lr, "; ".join(problems), 0)
    return Signal("schema_mismatch", False, 0.0, lr, "", 0)


def check_pattern(profile: ToolProfile, ins: Inspected, max_chars: int, lr: float) -> Signal:
    """The serialised result must match every response pattern of the profile.

    >>> from verification.engine.tools.features import inspect_result
    >>> p = ToolProfile("t", response_patterns=(r'"price"\\s*:\\s*\\d',))
    >>> check_pattern(p, inspect_result({"price": "$5"}), 10_000, 6.0).fired
    True
    """
    patterns = profile.response_patterns
    if not patterns:
        return Signal("pattern_mismatch", False, 0.0, lr, "", 0)
    # A repeated result (the same Inspected, see features.inspect_result) is searched once per profile.
    memo = ins.failing_patterns
    key = (profile.response_patterns, max_chars)
    failing = memo.get(key)
    if failing is None:
        text = ins.text if len(ins.text) <= max_chars else ins.text[:max_chars]
        # Stored under the interned key (see _MEMO_KEYS) as a tuple, () when every pattern matches.
        interned = _MEMO_KEYS.get(key)
        if interned is None:
            if len(_MEMO_KEYS) >= 1024:
                _MEMO_KEYS.clear()
            interned = _MEMO_KEYS[key] = key
        # Linear time in the text whatever the patterns (hyperscan; see patterns.py): a pattern that could
        # backtrack is refused when the profile is saved, and never run with a backtracking engine.
        failing = memo[interned] = profile.pattern_matcher.failing(text)
    if failing:
        return Signal(
            "pattern_mismatch", True, len(failing) / len(patterns), lr, f"no match for {list(failing)}", 0
        )
    return Signal("pattern_mismatch", False, 0.0, lr, "", 0)


def check_latency(
    profile: ToolProfile,
    ms: float,
    lr: float,
    decisive_lr: float,
    *,
    registered: bool = True,
    tool_state: ToolState | None = None,
) -> Signal:
    """Latency against the profile; ``has_network_io`` decides what "too fast" means.

    A network tool answering under 2 ms made no network call: decisive. For a tool without a
    registered profile, "network" is only the seed's default assumption, so it counts as decisive
    only once the tool's own latency baseline shows it never answers that fast. Below or above the
    profile's range is weak evidence only, because caches and slow upstreams produce both.

    >>> check_latency(ToolProfile("t"), 0.05, 3.5, 40.0).decisive
    True
    >>> check_latency(ToolProfile("t"), 0.05, 3.5, 40.0, registered=False).decisive
    False
    >>> local = ToolProfile("c", has_network_io=False, expected_latency_ms=(0.01, 50))
    >>> check_latency(local, 0.05, 3.5, 40.0).fired
    False
    """
    lo, hi = profile.expected_latency_ms
    network = profile.has_network_io
    if network and not registered and tool_state is not None:
        floor: Any = tool_state.get("floor", (0, 0))  # a JSON list, unpacked generically
        calls, fast = floor
        # Most of its calls beat the network floor: without a profile saying otherwise, a local tool.
        network = not (calls >= 20 and fast >= 0.5 * calls)
    if network and ms < NETWORK_FLOOR_MS:
        detail = f"{ms:.3f} ms is below the {NETWORK_FLOOR_MS:g} ms floor of any network round trip"
        decisive = registered
        if not registered:
            lat = tool_state["lat"] if tool_state else None
            # The tool's fast decile sits well above the floor: it does real I/O.
            decisive = bool(lat and lat["n"] >= 20 and quantile(lat["buf"], 0.1) >= _LOG_SLOW_DECILE)
            if not decisive:
                detail += " (assumed: no profile, and no latency baseline showing network I/O yet)"
        return Signal("latency_anomaly", True, 1.0, decisive_lr if decisive else lr, detail, 0, decisive)
    if ms < lo and network:
        score = 0.3 * (1.0 - ms / lo)
        return Signal(
            "latency_anomaly", score > 0, score, lr, f"{ms:.3f} ms is below the expected {lo:g} ms", 0
        )
    if ms > hi:
        return Signal("latency_anomaly", True, 0.3, lr, f"{ms:.1f} ms is above the expected {hi:g} ms", 0)
    return Signal("latency_anomaly", False, 0.0, lr, "", 0)


def check_length(
    profile: ToolProfile, size: int, tool_state: ToolState | None, lr: float, decisive_lr: float
) -> Signal:
    """Serialised length against the profile's bounds, or against sizes seen when it sets none.

    >>> check_length(ToolProfile("t", max_response_length=100), 500, None, 2.0, 40.0).decisive
    True
    """
    lo, hi = profile.min_response_length, profile.max_response_length
    if hi is not None and size > hi:
        absurd = size > _ABSURD_FACTOR * hi
        return Signal(
            "length_anomaly", True, 1.0, decisive_lr if absurd else lr, f"{size} chars > max {hi}", 0, absurd
        )
    if lo is not None and size < lo:
        absurd = size * _ABSURD_FACTOR < lo
        return Signal(
            "length_anomaly", True, 1.0, decisive_lr if absurd else lr, f"{size} chars < min {lo}", 0, absurd
        )
    if (hi is None or lo is None) and tool_state is not None and tool_state["size"]["n"] >= 20 and size > 0:
        buf = tool_state["size"]["buf"]
        logged = math.log10(size)
        limit = math.log10(_LEARNED_ABSURD_FACTOR)
        # The window's extremes bound its quantiles, so the sort is only paid for a suspect size.
        # Quantiles, not extremes, decide: one absurd result that slipped in must not widen the band.
        if hi is None and logged - limit > min(buf) and logged - limit > quantile(buf, 0.9):
            seen = 10 ** quantile(buf, 0.9)
            return Signal(
                "length_anomaly",
                True,
                1.0,
                decisive_lr,
                f"{size} chars, {size / seen:.1f}x the 90th percentile of sizes seen",
                0,
                True,
            )
        if lo is None and logged + limit < max(buf) and logged + limit < quantile(buf, 0.1):
            return Signal(
                "length_anomaly", True, 1.0, decisive_lr, f"{size} chars, far below the sizes seen", 0, True
            )
    return Signal("length_anomaly", False, 0.0, lr, "", 0)


def log_size(size: int) -> float:
    """Return the log10 size used by the size baseline (sizes are skewed, logs are not).

    >>> log_size(100)
    2.0
    """
    return math.log10(max(size, 1))
