"""Digest of scoring inputs, so anyone can recompute a score from what we stored.

The digest is SHA-256 over the RFC 8785 (JSON Canonicalization Scheme) encoding of the
inputs, which fixes key order, whitespace and number formatting across languages.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

import rfc8785

__all__ = ["canonical_json", "inputs_digest"]


def canonical_json(obj: Any, *, preserialised: Mapping[str, bytes] | None = None) -> bytes:
    """Return the RFC 8785 canonical JSON of *obj*.

    *preserialised* maps top-level keys of a dict *obj* to their values' canonical
    bytes, already computed (e.g. a scoring configuration shared by many subjects).
    RFC 8785 serialises an object as its members in sorted key order, each as
    ``canonical(key):canonical(value)``, so splicing cached member values gives the
    same bytes as serialising the whole.  Keys must be ASCII, where UTF-16 code-unit
    order (what RFC 8785 sorts by) equals Python's string order.

    >>> canonical_json({"b": 1, "a": [0.5, "x"]})
    b'{"a":[0.5,"x"],"b":1}'
    >>> canonical_json({"b": 1, "a": None}, preserialised={"a": b'{"z":1}'})
    b'{"a":{"z":1},"b":1}'
    """
    try:
        if not preserialised:
            return _dumps(obj)
        if not isinstance(obj, Mapping) or not all(isinstance(k, str) and k.isascii() for k in obj):
            raise ValueError("preserialised members need a dict with ASCII string keys")
        members = []
        for key in sorted(obj):
            value = preserialised[key] if key in preserialised else _dumps(obj[key])
            members.append(rfc8785.dumps(key) + b":" + value)
        return b"{" + b",".join(members) + b"}"
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"canonical JSON needs plain JSON data: {exc}") from exc


_INT_LIMIT = 2**53 - 1


def _dumps(obj: Any) -> bytes:
    """``rfc8785.dumps(obj)``, byte for byte, several times faster on the shapes scores are made of.

    Every subject's score digests its inputs, and the pure-Python rfc8785 encoder was half of the
    cost of scoring one. The common cases are written here with the C json encoder: strings
    (json.dumps without ASCII escaping escapes exactly what RFC 8785 escapes: quote, backslash and
    control characters, with the same short forms and lowercase \\u00XX), integers within
    +/-(2**53 - 1), floats whose repr has no exponent (RFC 8785 then writes the repr without a
    trailing ".0"), and objects with ASCII keys (sorted by UTF-16 code units, which for ASCII is
    Python's order). Anything else (exponents, non-ASCII keys, values rfc8785 refuses) is handed
    to rfc8785 itself, so the output and the errors are its own. A property test compares the two.
    """
    parts: list[str] = []
    _encode(obj, parts)
    try:
        return "".join(parts).encode("utf-8")
    except UnicodeEncodeError:
        return rfc8785.dumps(obj)  # lone surrogates: rfc8785 raises its own error


def _encode(obj: Any, parts: list[str]) -> None:
    if obj is None:
        parts.append("null")
    elif obj is True:
        parts.append("true")
    elif obj is False:
        parts.append("false")
    elif isinstance(obj, str):
        parts.append(json.dumps(obj, ensure_ascii=False))
    elif isinstance(obj, int) and not isinstance(obj, bool) and -_INT_LIMIT <= obj <= _INT_LIMIT:
        parts.append(str(int(obj)))
    elif isinstance(obj, float) and math.isfinite(obj):
        if obj == 0:
            parts.append("0")  # -0.0 too
            return
        text = repr(float(obj))
        if "e" in text:
            parts.append(rfc8785.dumps(obj).decode())
        else:
            parts.append(text[:-2] if text.endswith(".0") else text)
    elif isinstance(obj, list | tuple):
        parts.append("[")
        for index, item in enumerate(obj):
            if index:
                parts.append(",")
            _encode(item, parts)
        parts.append("]")
    elif isinstance(obj, dict) and all(type(key) is str and key.isascii() for key in obj):
        parts.append("{")
        for index, key in enumerate(sorted(obj)):
            if index:
                parts.append(",")
            parts.append(json.dumps(key))
            parts.append(":")
            _encode(obj[key], parts)
        parts.append("}")
    else:
        parts.append(rfc8785.dumps(obj).decode())


def inputs_digest(obj: Any, *, preserialised: Mapping[str, bytes] | None = None) -> str:
    """Return ``"sha256:" + hex`` of the RFC 8785 canonical JSON of *obj*.

    Key order does not matter; NaN and Infinity are refused (JSON has no such numbers).

    >>> inputs_digest({"b": 1, "a": [0.5, "x"]}) == inputs_digest({"a": [0.5, "x"], "b": 1})
    True
    >>> inputs_digest({})
    'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
    """
    return "sha256:" + hashlib.sha256(canonical_json(obj, preserialised=preserialised)).hexdigest()
