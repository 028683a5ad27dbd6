"""Bounded inspection of a tool result: parse, serialise, and flatten it into leaves.

Every result passes through :func:`inspect_result` before any check runs, so hostile input (huge,
deeply nested, non-JSON) is refused with :class:`ResultRejectedError` or inspected in bounded time and
memory: the walk stops at fixed node, depth and size limits, and only a bounded number of leaves is
kept for the statistical checks.
"""

from __future__ import annotations

import contextlib
import json
import json.encoder
import math
import re
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from untrusted.jsonbounds import loads as bounded_loads
from verification.engine.text import lower
from verification.engine.tools.values import is_round, type_code

__all__ = [
    "Inspected",
    "Leaf",
    "Limits",
    "ResultRejectedError",
    "canonical_dumps",
    "dumps",
    "has_field",
    "inspect_result",
    "tpath_of",
]

#: One tracked leaf: path, tool-level path, value, JSON type code, numeric value or None, placeholder-round.
Leaf = tuple[str, str, Any, str, float | None, bool]

# Strings longer than this are compared by a stable digest (equal/not equal is all the checks need).
_SHORT_STRING: Final = 64
# Items per list whose leaves are tracked; the rest only count towards size and the list length.
_LIST_ITEMS_TRACKED: Final = 5
# Results whose JSON text is at most this long are remembered by text (see inspect_result).
_CACHED_CHARS: Final = 4096
_CACHE_ENTRIES: Final = 2048


class ResultRejectedError(ValueError):
    """The result cannot be verified within the engine's bounds (too big, too deep, not JSON).

    >>> issubclass(ResultRejectedError, ValueError)
    True
    """


@dataclass(frozen=True)
class Limits:
    """Bounds on the work one verification may do.

    >>> Limits().max_depth
    32
    """

    max_chars: int = 4_000_000
    max_depth: int = 32
    max_nodes: int = 200_000
    max_leaves: int = 96
    max_pattern_chars: int = 262_144


class Inspected:
    """An inspected result: its JSON text, top-level keys, every key name and its tracked leaves.

    Read-only by convention (a cached inspection is shared by every verification of the same text). A
    plain class rather than a frozen dataclass: one is built per verification, and a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``.

    Cached inspections live long, so they hold only what the checks read, in containers the cyclic
    collector need not traverse: not the parsed value (its lists and dicts would be traversed by every
    full collection), and the key names as dicts of ``None`` (a dict of strings is left untracked, a
    frozenset never is; both answer ``in`` and set comparisons through ``.keys()``).

    >>> inspect_result('{"a": [1, 2]}').size
    13
    """

    __slots__ = (
        "error_keys",
        "failing_patterns",
        "feats",
        "is_object",
        "key_names",
        "leaves",
        "size",
        "stub_keys",
        "stub_values",
        "text",
        "top_keys",
        "top_set",
    )

    def __init__(
        self,
        text: str,
        size: int,
        top_keys: tuple[str, ...],
        key_names: dict[str, None],
        leaves: dict[str, Any],
        is_object: bool,
        feats: tuple[Leaf, ...] = (),
        top_set: dict[str, None] | None = None,
        stub_keys: tuple[str, ...] = (),
        stub_values: tuple[tuple[str, str], ...] = (),
        error_keys: tuple[str, ...] = (),
    ) -> None:
        self.text = text
        self.size = size
        self.top_keys = top_keys
        self.key_names = key_names
        self.leaves = leaves
        self.is_object = is_object
        self.feats = feats
        #: ``top_keys`` as a set (a dict of ``None``), and the key names that mark a test double (see
        #: tier0.check_schema).
        self.top_set: dict[str, None] = {} if top_set is None else top_set
        self.stub_keys = stub_keys
        #: (path, tool-level path) of string values that are a test double's placeholder word
        #: ("sample", "dummy", ...), and top-level error keys with a truthy value (see tier0.check_schema).
        self.stub_values = stub_values
        self.error_keys = error_keys
        #: Response patterns this text fails, per (patterns, max chars): a repeated result (the same
        #: Inspected from the cache) is searched once per profile (see tier0.check_pattern). Tuples, not
        #: lists: the cyclic collector stops tracking a tuple of strings (and then the dict holding it),
        #: while a list held by a cached inspection would be traversed by every full collection.
        self.failing_patterns: dict[tuple[tuple[str, ...], int], tuple[str, ...]] = {}


def _feats(leaves: dict[str, Any]) -> tuple[Leaf, ...]:
    """Classify every leaf of *leaves*, in order (the reference for the walk's inline classification).

    :func:`_flatten` classifies each leaf as it stores it; this is used when it cannot (two paths that
    collide, an integer too large for a float) and by the tests, which check that both agree.

    >>> _feats({"/a/0": 20, "/c": None})
    (('/a/0', '/a/*', 20, 'n', 20.0, True), ('/c', '/c', None, 'z', None, False))
    """
    out = []
    tp_cache = _TPATHS
    for path, v in leaves.items():
        tp = tp_cache.get(path)
        if tp is None:
            tp = tpath_of(path)
            if len(tp_cache) < _TPATHS_MAX:
                tp_cache[path] = tp
        kind = type(v)
        if kind is float:
            if v - v == 0.0:
                out.append((path, tp, v, "n", v, is_round(v)))
            else:
                out.append((path, tp, v, "n", None, False))
        elif kind is int:
            out.append((path, tp, v, "n", float(v), is_round(v)))
        elif kind is str:
            out.append((path, tp, v, "s", None, len(v) >= 19 and is_round(v)))
        else:
            out.append((path, tp, v, type_code(v), None, False))
    return tuple(out)


def _tpath(path: str) -> str:
    """Return ``tpath_of(path)`` through the module's bounded dict cache (cheaper than the lru_cache)."""
    tp = _TPATHS.get(path)
    if tp is None:
        tp = tpath_of(path)
        if len(_TPATHS) < _TPATHS_MAX:
            _TPATHS[path] = tp
    return tp


# path -> tool-level path, filled by _feats (a plain dict lookup is cheaper than an lru_cache call).
_TPATHS: Final[dict[str, str]] = {}
_TPATHS_MAX: Final = 65536
# Field names that mark test doubles; a result carrying one it never carried before is a stub.
_STUB_TOKENS: Final = frozenset(
    {
        "stub",
        "stubbed",
        "mock",
        "mocked",
        "fake",
        "faked",
        "dummy",
        "placeholder",
        "sample",
        "synthetic",
        "fixture",
    }
)
_TOKEN_SPLIT: Final = re.compile(r"[^a-z0-9]+")
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)
def _stub_marker(key: str) -> bool:
    """True for a field name whose tokens mark a test double (``_stub``, ``isMock``, ``fake_data``).

    >>> _stub_marker("is_mock"), _stub_marker("sampleData"), _stub_marker("samples")
    (True, True, False)
    """
    tokens = _TOKEN_SPLIT.split(lower(_CAMEL.sub("_", key)))
    return any(t in _STUB_TOKENS for t in tokens)


def has_field(leaves: dict[str, Any], key: str) -> bool:
    """Whether flattened *leaves* hold the top-level field *key* (a scalar, or anything under it).

    >>> has_field({"/a/b": 1}, "a"), has_field({"/ab": 1}, "a")
    (True, False)
    """
    path = "/" + key
    if path in leaves:
        return True
    prefix = path + "/"
    return any(p.startswith(prefix) for p in leaves)


@lru_cache(maxsize=8192)
def tpath_of(path: str) -> str:
    """Return the tool-level path: list indices replaced by ``*`` so rows pool together.

    >>> tpath_of("/rows/0/total")
    '/rows/*/total'
    """
    return "/".join("*" if seg.isdigit() else seg for seg in path.split("/"))


def _leaf_value(v: Any) -> Any:
    if isinstance(v, str) and len(v) > _SHORT_STRING:
        return f"#{zlib.crc32(v.encode('utf-8', 'surrogatepass')):08x}:{len(v)}"
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def _parse(result: Any, limits: Limits) -> Any:
    if isinstance(result, (bytes, bytearray)):  # a tuple: compiled, a union would be built per call
        if len(result) > limits.max_chars:
            raise ResultRejectedError(f"result of {len(result)} bytes exceeds the {limits.max_chars} limit")
        try:
            result = bytes(result).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ResultRejectedError(f"result bytes are not UTF-8: {exc}") from exc
    if isinstance(result, str):
        if len(result) > limits.max_chars:
            raise ResultRejectedError(
                f"result of {len(result)} characters exceeds the {limits.max_chars} limit"
            )
        head = result.lstrip()[:1]
        if head in ("{", "["):
            try:
                # Bounded nesting (untrusted.jsonbounds): a deep result never reaches the recursive decoder.
                return bounded_loads(result)
            except (ValueError, RecursionError):
                return result  # text that merely starts like JSON is verified as text
    return result


def inspect_result(
    result: Any, limits: Limits = Limits(), cache: dict[str, Inspected] | None = None
) -> Inspected:
    """Parse and flatten *result* within *limits*.

    JSON text (``str`` or ``bytes``) is decoded; Python containers must hold JSON types only. The
    whole result is serialised once by the C JSON encoder (which also rejects non-JSON values and
    runaway nesting); leaves are then collected from the first items of each list only.

    *cache* (a dict the caller owns) maps the JSON text of small results to their inspection: equal
    text means equal keys, values and JSON types, so a repeated result is flattened only once. The
    returned :class:`Inspected` and its ``leaves`` are shared and must not be mutated.

    >>> ins = inspect_result({"price": 1.5, "rows": [{"n": 2}]})
    >>> ins.leaves
    {'/price': 1.5, '/rows/#': 1, '/rows/0/n': 2}
    >>> try:
    ...     inspect_result({"x": {1, 2}})
    ... except ResultRejectedError as exc:
    ...     print(exc)
    result holds a set at /x, which is not JSON
    """
    value = _parse(result, limits)
    try:
        text = "".join(_ENCODE(value, 0))
    except (TypeError, ValueError, RecursionError) as exc:
        # The walk names the offending value and its path; it raises before the encoder's message.
        _flatten(value, limits)
        if isinstance(exc, RecursionError):
            raise ResultRejectedError("result is nested too deeply to serialise") from exc
        raise ResultRejectedError(f"result is not JSON-serialisable: {exc}") from exc
    # Only small results are cached, so only they are looked up (a lookup hashes the whole text).
    cacheable = cache is not None and len(text) <= _CACHED_CHARS
    if cacheable:
        hit = cache.get(text)  # type: ignore[union-attr]
        if hit is not None:
            return hit
    leaves, key_names, walked, plain_keys = _flatten(value, limits)
    if len(text) > limits.max_chars:
        raise ResultRejectedError(f"result of {len(text)} characters exceeds the {limits.max_chars} limit")
    is_object = isinstance(value, dict)
    if not is_object:
        top_keys: tuple[str, ...] = ()
    elif plain_keys:
        top_keys = tuple(value)
    else:
        top_keys = tuple(_key_name(k) for k in value)
    # Every leaf was classified by the walk as it was stored; every check and the learning step reuse
    # this. The walk leaves it to _feats when a path was stored twice or a number did not convert.
    feats = tuple(walked) if walked is not None else _feats(leaves)
    top_set = dict.fromkeys(top_keys)
    # A flat result's key names are its top-level keys: one dict serves as both (see Inspected).
    names = (
        top_set
        if len(key_names) == len(top_set) and top_set.keys() >= key_names
        else dict.fromkeys(key_names)
    )
    ins = Inspected(
        text=text,
        size=len(text),
        top_keys=top_keys,
        key_names=names,
        leaves=leaves,
        is_object=is_object,
        feats=feats,
        top_set=top_set,
        stub_keys=_stub_keys(key_names),
        stub_values=_stub_values(feats),
        error_keys=_error_keys(value) if is_object else (),
    )
    if cacheable:
        assert cache is not None
        if len(cache) >= _CACHE_ENTRIES:
            # Oldest first; another thread may change the cache meanwhile, which only skips this eviction.
            # An OrderedDict drops its oldest entry in O(1); a dict's first key is found by skipping
            # the holes that earlier evictions left at the front of its table.
            with contextlib.suppress(RuntimeError, StopIteration, KeyError):
                if isinstance(cache, OrderedDict):
                    cache.popitem(last=False)
                else:
                    cache.pop(next(iter(cache)), None)
        cache[text] = ins
    return ins


# json.dumps builds a new C encoder (and a JSONEncoder) on every call, which costs more than encoding
# a small result; calling the C encoder directly with dumps' default settings gives the same text.
_C_ENCODER: Final = getattr(json.encoder, "c_make_encoder", None)
_ENCODE_ASCII: Final = json.encoder.encode_basestring_ascii
_DEFAULT: Final = json.JSONEncoder().default


# One stateless encoder for inspect_result: without a markers dict (the cycle check) it holds no state, so
# it is built once and shared by threads. A cycle then ends in a RecursionError instead of a ValueError;
# inspect_result handles both alike (the walk reports the nesting). Same text as dumps().
_ENCODE: Final = (
    _C_ENCODER(None, _DEFAULT, _ENCODE_ASCII, None, ": ", ", ", False, False, True)
    if _C_ENCODER is not None
    else lambda value, _level: json.JSONEncoder(check_circular=False).iterencode(value)
)


def dumps(value: Any) -> str:
    """Return ``json.dumps(value)`` (default settings), faster for small values.

    >>> dumps({"a": [1, 2.5, None]}) == json.dumps({"a": [1, 2.5, None]})
    True
    """
    if _C_ENCODER is None:  # pragma: no cover - CPython always has the C encoder
        return json.dumps(value)
    return "".join(_C_ENCODER({}, _DEFAULT, _ENCODE_ASCII, None, ": ", ", ", False, False, True)(value, 0))


def canonical_dumps(value: Any) -> str:
    """Return ``json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)``, faster.

    >>> canonical_dumps({"b": 1, "a": {2, 3} - {2, 3}})
    '{"a":"set()","b":1}'
    """
    if _C_ENCODER is None:  # pragma: no cover
        return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)
    try:
        return "".join(_CANONICAL(value, 0))
    except (TypeError, ValueError, RecursionError):
        # The shared encoder has no cycle check (a cycle ends in a RecursionError): the checking encoder
        # raises what json.dumps would (a ValueError for a cycle).
        return "".join(_C_ENCODER({}, repr, _ENCODE_ASCII, None, ":", ",", True, False, True)(value, 0))


# canonical_dumps' settings in one stateless encoder, built once (see _ENCODE): building an encoder with
# its markers dict cost as much as encoding a small argument set.
_CANONICAL: Final[Any] = (
    _C_ENCODER(None, repr, _ENCODE_ASCII, None, ":", ",", True, False, True)
    if _C_ENCODER is not None
    else None
)


def _key_name(k: Any) -> str:
    # Keys as the JSON text names them (non-string keys are JSON-encoded, as the encoder does).
    if type(k) is str:
        return k
    return json.dumps(k) if isinstance(k, int | float | bool) or k is None else str(k)


def _flatten(value: Any, limits: Limits) -> tuple[dict[str, Any], set[str], list[Leaf] | None, bool]:
    """Walk *value* once (bounded); raise on non-JSON.

    Returns the tracked leaves, the key names, the leaves classified as :func:`_feats` would classify
    them (in the same order; ``None`` when a path was stored twice or an integer does not convert to a
    float, cases left to :func:`_feats`), and whether every key was a ``str``.
    """
    walk = _Walk(limits)
    walk.walk(value, "", 0)
    # A path stored twice (a key "a/#" beside a list "a", say) keeps one leaf but was classified twice.
    if walk.unconvertible or len(walk.feats) != len(walk.leaves):
        return walk.leaves, walk.key_names, None, walk.plain_keys
    return walk.leaves, walk.key_names, walk.feats, walk.plain_keys


class _Walk:
    """The state of one walk over a result (see :func:`_flatten`).

    An object rather than nested functions: closures that refer to each other (a recursive walk, a
    classifier sharing its cells) form a reference cycle on every call, which the cyclic collector
    then has to find (what that cost: docs/benchmarks.md, "The run and tool verifiers' machinery").
    """

    def __init__(self, limits: Limits) -> None:
        self.leaves: dict[str, Any] = {}
        self.key_names: set[str] = set()
        self.feats: list[Leaf] = []
        self.max_leaves = limits.max_leaves
        self.max_keys = 4 * limits.max_leaves
        self.max_depth = limits.max_depth
        self.max_nodes = limits.max_nodes
        self.max_chars = limits.max_chars
        self.nodes = 0
        self.plain_keys = True
        # An integer beyond the float range: _feats raises OverflowError for it, after the walk, as before.
        self.unconvertible = False

    def _count(self) -> None:
        self.nodes += 1
        if self.nodes > self.max_nodes:
            raise ResultRejectedError(f"result has more than {self.max_nodes} values")

    def classify(self, path: str, v: Any) -> None:
        """The classification of _feats for one stored leaf (used where the walk is not inlined)."""
        tp = _TPATHS.get(path)
        if tp is None:
            tp = _tpath(path)
        kind = type(v)
        if kind is int:
            try:
                self.feats.append((path, tp, v, "n", float(v), is_round(v)))
            except OverflowError:
                self.unconvertible = True
        elif kind is float:  # stored floats are finite (nan and inf are stored as their repr)
            self.feats.append((path, tp, v, "n", v, is_round(v)))
        elif kind is str:
            self.feats.append((path, tp, v, "s", None, len(v) >= 19 and is_round(v)))
        else:
            self.feats.append((path, tp, v, type_code(v), None, False))

    # Recursion is bounded by max_depth (checked before descending), and is faster than a manual stack.
    # Scalars inside a dict or list are stored and classified inline (no call per leaf); the order of
    # leaves is the walk's.
    def walk(self, obj: Any, path: str, depth: int) -> None:
        self._count()
        leaves = self.leaves
        feats = self.feats  # its append, called on the typed list, is a direct C call
        max_leaves = self.max_leaves
        kind = type(obj)
        if kind is dict:
            if depth >= self.max_depth:
                raise ResultRejectedError(
                    f"result is nested deeper than {self.max_depth} levels at {path or '/'}"
                )
            key_names = self.key_names
            for k, v in obj.items():
                if type(k) is not str:
                    self.plain_keys = False
                    if isinstance(k, int | float | bool) or k is None:
                        k = json.dumps(k)
                    else:
                        raise ResultRejectedError(f"result has a {type(k).__name__} key at {path or '/'}")
                if len(key_names) < self.max_keys:
                    key_names.add(k)
                vk = type(v)
                if vk is str:
                    if len(v) <= _SHORT_STRING:
                        self._count()
                        if len(leaves) < max_leaves:
                            p = f"{path}/{k}"
                            leaves[p] = v
                            tp = _TPATHS.get(p)
                            feats.append((p, tp or _tpath(p), v, "s", None, len(v) >= 19 and is_round(v)))
                    else:
                        self.walk(v, f"{path}/{k}", depth + 1)
                elif vk is int or vk is float:
                    self._count()
                    if len(leaves) < max_leaves:
                        p = f"{path}/{k}"
                        tp = _TPATHS.get(p)
                        if vk is int:
                            leaves[p] = v
                            try:
                                feats.append((p, tp or _tpath(p), v, "n", float(v), is_round(v)))
                            except OverflowError:
                                self.unconvertible = True
                        elif v - v == 0.0:
                            leaves[p] = v
                            feats.append((p, tp or _tpath(p), v, "n", v, is_round(v)))
                        else:  # nan and inf are kept as their repr, a short string
                            leaves[p] = r = repr(v)
                            feats.append((p, tp or _tpath(p), r, "s", None, False))
                elif vk is bool or v is None:
                    self._count()
                    if len(leaves) < max_leaves:
                        p = f"{path}/{k}"
                        leaves[p] = v
                        tp = _TPATHS.get(p)
                        feats.append((p, tp or _tpath(p), v, "z" if v is None else "b", None, False))
                else:
                    self.walk(v, f"{path}/{k}", depth + 1)
        elif kind is list or kind is tuple:
            if depth >= self.max_depth:
                raise ResultRejectedError(
                    f"result is nested deeper than {self.max_depth} levels at {path or '/'}"
                )
            if len(leaves) < max_leaves:
                p = f"{path}/#"
                leaves[p] = len(obj)
                self.classify(p, len(obj))
            # Only the first items are tracked; the rest are checked by the serialiser.
            for i, item in enumerate(obj[:_LIST_ITEMS_TRACKED]):
                ik = type(item)
                if (ik is str and len(item) <= _SHORT_STRING) or ik is int or ik is bool or item is None:
                    self._count()  # a scalar item, handled inline as in a dict
                    if len(leaves) < max_leaves:
                        p = f"{path}/{i}"
                        leaves[p] = item
                        self.classify(p, item)
                else:
                    self.walk(item, f"{path}/{i}", depth + 1)
        elif kind is str:
            if len(obj) > self.max_chars:
                raise ResultRejectedError(f"result holds a string longer than the {self.max_chars} limit")
            if len(leaves) < max_leaves:
                if len(obj) > _SHORT_STRING:
                    encoded = obj.encode("utf-8", "surrogatepass")
                    leaves[path] = digest = f"#{zlib.crc32(encoded):08x}:{len(obj)}"
                    self.classify(path, digest)
                    if depth == 1:
                        # A long text's byte length, so learned invariants can tie it to a size field.
                        p = f"{path}/#"
                        leaves[p] = len(encoded)
                        self.classify(p, len(encoded))
                else:
                    leaves[path] = obj
                    self.classify(path, obj)
        elif obj is None or kind is bool or kind is int or kind is float:
            if len(leaves) < max_leaves:
                leaves[path] = stored = _leaf_value(obj) if kind is float else obj
                self.classify(path, stored)
        elif isinstance(obj, dict | list | tuple | str | int | float):
            # Subclasses of JSON types (OrderedDict, IntEnum, ...) are verified as their base type.
            self.nodes -= 1
            plain: Any
            if isinstance(obj, dict):
                plain = dict(obj)
            elif isinstance(obj, list | tuple):
                plain = list(obj)
            elif isinstance(obj, str):
                plain = str(obj)
            elif isinstance(obj, int):
                plain = int(obj)
            else:
                plain = float(obj)
            self.walk(plain, path, depth)
        else:
            raise ResultRejectedError(f"result holds a {kind.__name__} at {path or '/'}, which is not JSON")


# Key names known not to mark a test double (most results repeat the same few names).
_PLAIN_NAMES: Final[set[str]] = set()
_PLAIN_NAMES_MAX: Final = 65536


def _stub_keys(key_names: set[str]) -> tuple[str, ...]:
    """Return the key names that mark a test double, sorted (see :func:`_stub_marker`).

    >>> _stub_keys({"price", "is_mock", "_stub"})
    ('_stub', 'is_mock')
    """
    found = [k for k in key_names - _PLAIN_NAMES if _stub_marker(k) or _note_plain(k)]
    return tuple(sorted(found)) if found else ()


# String values that are a test double's placeholder rather than data (compared lower-cased, stripped).
_STUB_VALUES: Final = frozenset(
    {
        "sample",
        "sample data",
        "mock",
        "mocked",
        "mock data",
        "fake",
        "fake data",
        "dummy",
        "dummy data",
        "placeholder",
        "stub",
        "stubbed",
        "lorem ipsum",
        "test data",
    }
)
# Top-level keys by which a result reports that the call failed.
_ERROR_KEYS: Final = frozenset({"error", "errors", "is_error", "iserror", "exception", "err"})


def _stub_values(feats: tuple[Leaf, ...]) -> tuple[tuple[str, str], ...]:
    """Return (path, tool-level path) of the string leaves that hold a placeholder word.

    >>> _stub_values((("/a", "/a", "Sample", "s", None, False), ("/b", "/b", "samples", "s", None, False)))
    (('/a', '/a'),)
    """
    found: list[tuple[str, str]] = []
    for path, tp, v, tc, _, _ in feats:
        if tc == "s" and len(v) <= 24 and lower(v.strip()) in _STUB_VALUES:
            found.append((path, tp))
    return tuple(found) if found else ()


def _error_keys(value: Any) -> tuple[str, ...]:
    """Return the top-level error keys of a result object whose value is truthy (an error was reported).

    >>> _error_keys({"error": True, "errors": [], "price": 1})
    ('error',)
    """
    found = [k for k in value if type(k) is str and lower(k) in _ERROR_KEYS and value[k]]
    return tuple(sorted(found)) if found else ()


def _note_plain(key: str) -> bool:
    # Remember a name that is no marker (bounded); always False, so the caller's filter drops it.
    if len(_PLAIN_NAMES) < _PLAIN_NAMES_MAX:
        _PLAIN_NAMES.add(key)
    return False
