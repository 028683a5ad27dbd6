"""JSON from untrusted sources, parsed only when its nesting is within a bound.

CPython's JSON decoder recurses once per nesting level. Its own guard is the interpreter's recursion
limit, which libraries may raise (py_ecc sets it to 100,000), and then a body of a few thousand `[`
overflows the C stack and kills the process. So the depth is measured *before* decoding, on the raw
text with strings blanked out, in time linear in the size of the text.

>>> loads('{"a": [1, 2, {"b": null}]}')
{'a': [1, 2, {'b': None}]}
>>> nesting_depth(b'[[["]]]]]"]]]')
3
>>> loads("[" * 100 + "]" * 100, max_depth=64)
Traceback (most recent call last):
  ...
untrusted.jsonbounds.TooDeep: JSON nests deeper than 64 levels (at character 64).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

__all__ = ["MAX_DEPTH", "TooDeep", "TooMany", "check_depth", "loads", "nesting_depth"]

#: Nesting depth accepted by default: far above any real document, far below any stack limit.
MAX_DEPTH = 64

_STEP = np.zeros(256, dtype=np.int8)
_STEP[ord("[")] = _STEP[ord("{")] = 1
_STEP[ord("]")] = _STEP[ord("}")] = -1
_QUOTE, _BACKSLASH = ord('"'), ord("\\")


class TooMany(ValueError):
    """The JSON text holds more arrays and objects than allowed.

    Decoding cost grows with the number of containers (each is a Python object the garbage collector
    then walks): 8 MiB of `[[...]]` nested 63 deep is four million lists and seconds of CPU, though
    within every depth and size bound.
    """

    def __init__(self, limit: int, count: int) -> None:
        self.limit = limit
        self.count = count
        super().__init__(f"JSON holds {count} arrays and objects; the limit is {limit}.")


class TooDeep(ValueError):
    """The JSON text nests deeper than allowed; `position` is where the limit was crossed."""

    def __init__(self, limit: int, position: int) -> None:
        self.limit = limit
        self.position = position
        super().__init__(f"JSON nests deeper than {limit} levels (at character {position}).")


def _as_bytes(text: str | bytes | bytearray | memoryview) -> bytes:
    if isinstance(text, str):
        # Brackets and quotes are ASCII; other characters only need to keep their count irrelevant.
        return text.encode("utf-8", "surrogatepass")
    return bytes(text)


def _steps(raw: bytes) -> np.ndarray:
    """+1 at every opening and -1 at every closing bracket outside strings, 0 elsewhere (int8).

    Vectorised, so an 8 MiB body costs tens of milliseconds: a quote opens or closes a string unless
    an odd run of backslashes stands before it; bytes after an odd number of such quotes are inside
    a string.
    """
    data = np.frombuffer(raw, dtype=np.uint8)
    steps = _STEP[data]
    quotes = data == _QUOTE
    if quotes.any():
        backslash = data == _BACKSLASH
        if backslash.any():
            # Length of the run of backslashes ending at each byte (0 where the byte is not one).
            seen = np.cumsum(backslash.view(np.uint8), dtype=np.int32)
            run = seen - np.maximum.accumulate(np.where(backslash, 0, seen))
            quotes[1:] &= run[:-1] % 2 == 0
        inside = np.bitwise_xor.accumulate(quotes.view(np.uint8)).view(bool)
        steps = np.where(inside, 0, steps)
    return steps


def _depth_profile(raw: bytes) -> np.ndarray:
    """The nesting depth after every byte, with brackets inside strings not counted."""
    return np.cumsum(_steps(raw), dtype=np.int32)


def nesting_depth(text: str | bytes | bytearray | memoryview) -> int:
    """The deepest nesting of arrays and objects in a JSON text (brackets in strings don't count).

    The text need not be valid JSON: this only counts.

    >>> nesting_depth('{"a": [[1], {"b": "[[[["}]}')
    3
    >>> nesting_depth("42")
    0
    """
    raw = _as_bytes(text)
    if raw.count(b"[") + raw.count(b"{") == 0:
        return 0
    return int(_depth_profile(raw).max(initial=0))


def check_depth(
    text: str | bytes | bytearray | memoryview,
    max_depth: int = MAX_DEPTH,
    *,
    max_containers: int | None = None,
) -> None:
    """Raise TooDeep when the text nests arrays and objects deeper than `max_depth`, and TooMany
    when it holds more than `max_containers` of them (no limit when None).

    >>> check_depth("[[1]]", max_depth=2)
    >>> check_depth("[[[1]]]", max_depth=2)
    Traceback (most recent call last):
      ...
    untrusted.jsonbounds.TooDeep: JSON nests deeper than 2 levels (at character 2).
    >>> check_depth('[[1], [2], ["[[[["]]', max_containers=3)
    Traceback (most recent call last):
      ...
    untrusted.jsonbounds.TooMany: JSON holds 4 arrays and objects; the limit is 3.
    """
    if max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth}")
    if max_containers is not None and max_containers < 1:
        raise ValueError(f"max_containers must be at least 1, not {max_containers}")
    raw = _as_bytes(text)
    # Cheap exit: opening brackets (in strings or not) bound both the depth and the container count.
    brackets = raw.count(b"[") + raw.count(b"{")
    if brackets <= max_depth and (max_containers is None or brackets <= max_containers):
        return
    steps = _steps(raw)
    if brackets > max_depth:
        over = np.flatnonzero(np.cumsum(steps, dtype=np.int32) > max_depth)
        if over.size:
            raise TooDeep(max_depth, int(over[0]))
    if max_containers is not None and brackets > max_containers:
        count = int(np.count_nonzero(steps == 1))
        if count > max_containers:
            raise TooMany(max_containers, count)


def loads(
    text: str | bytes | bytearray,
    *,
    max_depth: int = MAX_DEPTH,
    max_containers: int | None = None,
    **kwargs: Any,
) -> Any:
    """`json.loads`, after refusing texts nested deeper than `max_depth` (TooDeep, a ValueError) or
    holding more than `max_containers` arrays and objects (TooMany, a ValueError).

    Everything else is `json.loads`: invalid JSON raises json.JSONDecodeError (also a ValueError).

    >>> loads(b'[1, "two", {"three": 3.0}]')
    [1, 'two', {'three': 3.0}]
    """
    check_depth(text, max_depth, max_containers=max_containers)
    return json.loads(text, **kwargs)
