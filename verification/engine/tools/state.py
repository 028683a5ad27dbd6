"""The shapes of what the tool verifier keeps in its store, one TypedDict per store key.

The state stays plain JSON-compatible dicts (a ``RedisStore`` holds it as JSON, a ``MemoryStore`` as
live objects), so these types name the keys and what they hold without changing what is stored: the
key names are short because every tool's state is written on every accepted call. Lists of two or
three counters are ``[hits, seen]`` (or, for ``same_args``, ``[repeats, changed, undone]``).

``baseline.py`` writes these, ``tier0.py``/``tier1.py`` read them, and :class:`ToolBaseline` is the
read-only summary ``ToolVerifier.baseline(tool)`` gives callers outside the engine, so that nothing
outside reads the short keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from verification.engine.tools.stats import RunningStats

__all__ = [
    "ArgsState",
    "ChangeStats",
    "FeedbackState",
    "NumericStats",
    "SessionState",
    "ToolBaseline",
    "ToolState",
]


class NumericStats(TypedDict):
    """One numeric field's baselines: raw values, logs of the positive ones, and sign counts."""

    raw: RunningStats
    log: RunningStats
    nonpos: int  # values <= 0 seen (the field is judged in log space only while this is 0)
    neg: int  # values < 0 seen


class ChangeStats(TypedDict, total=False):
    """How one field changed between two accepted results for the same arguments."""

    rep: int  # repeats where the field was present in both
    chg: int  # ... and changed
    d: list[float]  # the last sizes of its nonzero changes on its natural scale (baseline.change_size)
    a: list[float]  # ... and their absolute amounts
    r: list[int]  # ... and their directions (1 up, -1 down)
    tch: int  # timestamp changes
    dec: int  # ... that went back in time
    co: dict[str, list[int]]  # other field -> [changed together, both present] when this one changed


class ToolState(TypedDict, total=False):
    """Everything learned tool-wide (store key ``tool:<name>``)."""

    n: int  # accepted results learned
    lat: RunningStats  # log10 latency (ms)
    size: RunningStats  # log10-ish response size (tier0.log_size)
    keys: dict[str, int]  # top-level field -> results holding it
    types: dict[str, dict[str, int]]  # field path -> JSON type code -> count
    num: dict[str, NumericStats]
    rnd: dict[str, list[int]]  # field path -> [placeholder-round values, values]
    inv: dict[str, list[int]]  # "count|list/#" -> [equal, seen]
    chg: dict[str, ChangeStats]
    same_args: list[int]  # [repeats, repeats that changed, changes undone by the next call]
    ints: dict[str, list[int]]  # field path -> [whole numbers, numbers]
    stubv: dict[str, int]  # placeholder words the tool really returns, per field path
    gone: dict[str, int]  # top-level field -> times the same arguments dropped it
    floor: list[int]  # unprofiled tools: [calls, calls under the network floor]
    echo: dict[str, dict[str, list[int]]]  # argument -> top-level field -> [repeated it, present]
    echov: dict[str, list[Any]]  # argument -> the first different values a field repeated


class ArgsState(TypedDict, total=False):
    """The history of one argument set (store key ``args:<tool>:<hash>``)."""

    n: int
    last: dict[str, Any]  # the last learned result's leaves (accepted, or flagged when learn_flagged allows)
    prev: dict[str, Any] | None  # the one before
    pending: dict[str, Any] | None  # a result held back by history, awaiting confirmation
    changes: int  # accepted results that differed from the one before
    ok: bool  # the last one was accepted, not only flagged
    good: dict[str, Any]  # through flagged results: the last accepted one


class SessionState(TypedDict):
    """A session's window of recent results (store key ``sess:<id>``): ``[tool, args hash, leaves]``."""

    items: list[list[Any]]


class FeedbackState(TypedDict):
    """Labelled feedback for one tool (store key ``fb:<name>``, see adaptive.py)."""

    n: int
    rate: float  # EMA of the hallucination label
    conf: float  # EMA of the confidence reported for those calls
    hallucinations: int


@dataclass(frozen=True)
class ToolBaseline:
    """What the engine has learned about a tool, for callers outside the engine.

    Latency and size windows are on their natural scale (ms, bytes of JSON text), not the log scale
    the baselines keep; numeric windows are the raw values.
    """

    tool: str
    observations: int
    latency_ms: list[float]
    latency_total: int
    response_bytes: list[float]
    response_total: int
    field_counts: dict[str, int]
    numeric: dict[str, tuple[list[float], int]]  # field path -> (recent window, values ever seen)
