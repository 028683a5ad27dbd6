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
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from verification.engine.tools.values import is_round, type_code

__all__ = [
    "Inspected",
    "Leaf",
    "Limits",
    "ResultRejectedError",
    "canonical_dumps",
    "dumps",
    "inspect_result",
    "tpath_of",
]

#: One tracked leaf: path, tool-level path, value, JSON type code, numeric value or None, placeholder-round.
Leaf = tuple[str, str, Any, str, float | None, bool]

# Strings longer than this are compared by a stable digest (equal/not equal is all the checks need).
_SHORT_STRING = 64
# Items per list whose leaves are tracked; the rest only count towards size and the list length.
_LIST_ITEMS_TRACKED = 5
# Results whose JSON text is at most this long are remembered by text (see inspect_result).
_CACHED_CHARS = 4096
_CACHE_ENTRIES = 2048


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


@dataclass(frozen=True)
class Inspected:
    """A parsed result: its JSON text, top-level keys, every key name and its tracked leaves.

    >>> inspect_result('{"a": [1, 2]}').size
    13
    """

    value: Any
    text: str
    size: int
    top_keys: tuple[str, ...]
    key_names: frozenset[str]
    leaves: dict[str, Any]
    is_object: bool
    feats: tuple[Leaf, ...] = ()
    #: ``top_keys`` as a set, and the key names that mark a test double (see tier0.check_schema).
    top_set: frozenset[str] = frozenset()
    stub_keys: tuple[str, ...] = ()


def _feats(leaves: dict[str, Any]) -> tuple[Leaf, ...]:
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


def _leaf(path: str, v: Any) -> Leaf:
    kind = type(v)
    if kind is float or kind is int:
        x = float(v)
        if x != x or x in (math.inf, -math.inf):
            return (path, tpath_of(path), v, "n", None, False)
        return (path, tpath_of(path), v, "n", x, is_round(v))
    if kind is str:
        return (path, tpath_of(path), v, "s", None, is_round(v))
    return (path, tpath_of(path), v, type_code(v), None, False)


# path -> tool-level path, filled by _feats (a plain dict lookup is cheaper than an lru_cache call).
_TPATHS: dict[str, str] = {}
_TPATHS_MAX = 65536
# Field names that mark test doubles; a result carrying one it never carried before is a stub.
_STUB_TOKENS = frozenset(
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
_TOKEN_SPLIT = re.compile(r"[^a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=4096)
def _stub_marker(key: str) -> bool:
    """True for a field name whose tokens mark a test double (``_stub``, ``isMock``, ``fake_data``).

    >>> _stub_marker("is_mock"), _stub_marker("sampleData"), _stub_marker("samples")
    (True, True, False)
    """
    tokens = _TOKEN_SPLIT.split(_CAMEL.sub("_", key).lower())
    return any(t in _STUB_TOKENS for t in tokens)


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
    if isinstance(result, bytes | bytearray):
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
                return json.loads(result)
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
        text = dumps(value)
    except (TypeError, ValueError, RecursionError) as exc:
        # The walk names the offending value and its path; it raises before the encoder's message.
        _flatten(value, limits)
        if isinstance(exc, RecursionError):
            raise ResultRejectedError("result is nested too deeply to serialise") from exc
        raise ResultRejectedError(f"result is not JSON-serialisable: {exc}") from exc
    if cache is not None:
        hit = cache.get(text)
        if hit is not None:
            return hit
    leaves, key_names = _flatten(value, limits)
    if len(text) > limits.max_chars:
        raise ResultRejectedError(f"result of {len(text)} characters exceeds the {limits.max_chars} limit")
    is_object = isinstance(value, dict)
    top_keys = tuple(_key_name(k) for k in value) if is_object else ()
    # Classify every leaf once; every check and the learning step reuse this.
    feats = _feats(leaves)
    # Built without the frozen dataclass's per-field __setattr__ (same attributes as Inspected(...)).
    ins = object.__new__(Inspected)
    ins.__dict__.update(
        value=value,
        text=text,
        size=len(text),
        top_keys=top_keys,
        key_names=frozenset(key_names),
        leaves=leaves,
        is_object=is_object,
        feats=feats,
        top_set=frozenset(top_keys),
        stub_keys=tuple(k for k in key_names if _stub_marker(k)),
    )
    if cache is not None and len(text) <= _CACHED_CHARS:
        if len(cache) >= _CACHE_ENTRIES:
            # Oldest first; another thread may change the cache meanwhile, which only skips this eviction.
            with contextlib.suppress(RuntimeError, StopIteration):
                cache.pop(next(iter(cache)), None)
        cache[text] = ins
    return ins


# json.dumps builds a new C encoder (and a JSONEncoder) on every call, which costs more than encoding
# a small result; calling the C encoder directly with dumps' default settings gives the same text.
_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)
_ENCODE_ASCII = json.encoder.encode_basestring_ascii
_DEFAULT = json.JSONEncoder().default


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
    return "".join(_C_ENCODER({}, repr, _ENCODE_ASCII, None, ":", ",", True, False, True)(value, 0))


def _key_name(k: Any) -> str:
    # Keys as the JSON text names them (non-string keys are JSON-encoded, as the encoder does).
    if type(k) is str:
        return k
    return json.dumps(k) if isinstance(k, int | float | bool) or k is None else str(k)


def _flatten(value: Any, limits: Limits) -> tuple[dict[str, Any], set[str]]:
    """Walk *value* (bounded) and return its tracked leaves and key names; raise on non-JSON."""
    leaves: dict[str, Any] = {}
    key_names: set[str] = set()
    max_leaves = limits.max_leaves
    max_keys = 4 * max_leaves
    max_depth = limits.max_depth
    max_nodes = limits.max_nodes
    max_chars = limits.max_chars
    nodes = 0

    # Recursion is bounded by max_depth (checked before descending), and is faster than a manual stack.
    # Scalars inside a dict are handled inline (no call per leaf); the order of leaves is the walk's.
    def _walk(obj: Any, path: str, depth: int) -> None:
        nonlocal nodes
        nodes += 1
        if nodes > max_nodes:
            raise ResultRejectedError(f"result has more than {max_nodes} values")
        kind = type(obj)
        if kind is dict:
            if depth >= max_depth:
                raise ResultRejectedError(f"result is nested deeper than {max_depth} levels at {path or '/'}")
            for k, v in obj.items():
                if type(k) is not str:
                    if isinstance(k, int | float | bool) or k is None:
                        k = json.dumps(k)
                    else:
                        raise ResultRejectedError(f"result has a {type(k).__name__} key at {path or '/'}")
                if len(key_names) < max_keys:
                    key_names.add(k)
                vk = type(v)
                if (vk is str and len(v) <= _SHORT_STRING) or vk is int or vk is bool or v is None:
                    nodes += 1
                    if nodes > max_nodes:
                        raise ResultRejectedError(f"result has more than {max_nodes} values")
                    if len(leaves) < max_leaves:
                        leaves[f"{path}/{k}"] = v
                elif vk is float:
                    nodes += 1
                    if nodes > max_nodes:
                        raise ResultRejectedError(f"result has more than {max_nodes} values")
                    if len(leaves) < max_leaves:
                        leaves[f"{path}/{k}"] = v if v - v == 0.0 else repr(v)  # repr for nan/inf
                else:
                    _walk(v, f"{path}/{k}", depth + 1)
        elif kind is list or kind is tuple:
            if depth >= max_depth:
                raise ResultRejectedError(f"result is nested deeper than {max_depth} levels at {path or '/'}")
            if len(leaves) < max_leaves:
                leaves[f"{path}/#"] = len(obj)
            # Only the first items are tracked; the rest are checked by the serialiser.
            for i, item in enumerate(obj[:_LIST_ITEMS_TRACKED]):
                ik = type(item)
                if (ik is str and len(item) <= _SHORT_STRING) or ik is int or ik is bool or item is None:
                    nodes += 1  # a scalar item, handled inline as in a dict
                    if nodes > max_nodes:
                        raise ResultRejectedError(f"result has more than {max_nodes} values")
                    if len(leaves) < max_leaves:
                        leaves[f"{path}/{i}"] = item
                else:
                    _walk(item, f"{path}/{i}", depth + 1)
        elif kind is str:
            if len(obj) > max_chars:
                raise ResultRejectedError(f"result holds a string longer than the {max_chars} limit")
            if len(leaves) < max_leaves:
                if len(obj) > _SHORT_STRING:
                    encoded = obj.encode("utf-8", "surrogatepass")
                    leaves[path] = f"#{zlib.crc32(encoded):08x}:{len(obj)}"
                    if depth == 1:
                        # A long text's byte length, so learned invariants can tie it to a size field.
                        leaves[f"{path}/#"] = len(encoded)
                else:
                    leaves[path] = obj
        elif obj is None or kind is bool or kind is int or kind is float:
            if len(leaves) < max_leaves:
                leaves[path] = _leaf_value(obj) if kind is float else obj
        elif isinstance(obj, dict | list | tuple | str | int | float):
            # Subclasses of JSON types (OrderedDict, IntEnum, ...) are verified as their base type.
            nodes -= 1
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
            _walk(plain, path, depth)
        else:
            raise ResultRejectedError(f"result holds a {kind.__name__} at {path or '/'}, which is not JSON")

    _walk(value, "", 0)
    return leaves, key_names
