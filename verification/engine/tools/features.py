"""Bounded inspection of a tool result: parse, serialise, and flatten it into leaves.

Every result passes through :func:`inspect_result` before any check runs, so hostile input (huge,
deeply nested, non-JSON) is refused with :class:`ResultRejectedError` or inspected in bounded time and
memory: the walk stops at fixed node, depth and size limits, and only a bounded number of leaves is
kept for the statistical checks.
"""

from __future__ import annotations

import json
import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from verification.engine.tools.values import is_round, type_code

__all__ = ["Inspected", "Leaf", "Limits", "ResultRejectedError", "inspect_result", "tpath_of"]

#: One tracked leaf: path, tool-level path, value, JSON type code, numeric value or None, placeholder-round.
Leaf = tuple[str, str, Any, str, float | None, bool]

# Strings longer than this are compared by a stable digest (equal/not equal is all the checks need).
_SHORT_STRING = 64
# Items per list whose leaves are tracked; the rest only count towards size and the list length.
_LIST_ITEMS_TRACKED = 5


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


def inspect_result(result: Any, limits: Limits = Limits()) -> Inspected:
    """Parse and flatten *result* within *limits*.

    JSON text (``str`` or ``bytes``) is decoded; Python containers must hold JSON types only. Leaves
    are collected from the first items of each list only; the whole result is then serialised once
    by the C JSON encoder, which also rejects non-JSON values and runaway nesting.

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
    leaves: dict[str, Any] = {}
    key_names: set[str] = set()
    max_leaves = limits.max_leaves
    max_keys = 4 * max_leaves
    max_depth = limits.max_depth
    max_nodes = limits.max_nodes
    nodes = 0

    # Recursion is bounded by max_depth (checked before descending), and is faster than a manual stack.
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
                _walk(v, f"{path}/{k}", depth + 1)
        elif kind is list or kind is tuple:
            if depth >= max_depth:
                raise ResultRejectedError(f"result is nested deeper than {max_depth} levels at {path or '/'}")
            if len(leaves) < max_leaves:
                leaves[f"{path}/#"] = len(obj)
            # Only the first items are tracked; the rest are checked by the serialiser below.
            for i, item in enumerate(obj[:_LIST_ITEMS_TRACKED]):
                _walk(item, f"{path}/{i}", depth + 1)
        elif kind is str:
            if len(obj) > limits.max_chars:
                raise ResultRejectedError(f"result holds a string longer than the {limits.max_chars} limit")
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
    try:
        text = json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ResultRejectedError(f"result is not JSON-serialisable: {exc}") from exc
    except RecursionError as exc:
        raise ResultRejectedError("result is nested too deeply to serialise") from exc
    if len(text) > limits.max_chars:
        raise ResultRejectedError(f"result of {len(text)} characters exceeds the {limits.max_chars} limit")
    is_object = isinstance(value, dict)
    top_keys = tuple(str(k) for k in value) if is_object else ()
    # Classify every leaf once; every check and the learning step reuse this.
    feats = tuple(_leaf(p, v) for p, v in leaves.items())
    return Inspected(value, text, len(text), top_keys, frozenset(key_names), leaves, is_object, feats)
