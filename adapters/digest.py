"""Digest of scoring inputs, so anyone can recompute a score from what we stored.

The digest is SHA-256 over the RFC 8785 (JSON Canonicalization Scheme) encoding of the
inputs, which fixes key order, whitespace and number formatting across languages.
"""

from __future__ import annotations

import hashlib
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
            return rfc8785.dumps(obj)
        if not isinstance(obj, Mapping) or not all(isinstance(k, str) and k.isascii() for k in obj):
            raise ValueError("preserialised members need a dict with ASCII string keys")
        members = []
        for key in sorted(obj):
            value = preserialised[key] if key in preserialised else rfc8785.dumps(obj[key])
            members.append(rfc8785.dumps(key) + b":" + value)
        return b"{" + b",".join(members) + b"}"
    except (rfc8785.CanonicalizationError, TypeError) as exc:
        raise ValueError(f"canonical JSON needs plain JSON data: {exc}") from exc


def inputs_digest(obj: Any, *, preserialised: Mapping[str, bytes] | None = None) -> str:
    """Return ``"sha256:" + hex`` of the RFC 8785 canonical JSON of *obj*.

    Key order does not matter; NaN and Infinity are refused (JSON has no such numbers).

    >>> inputs_digest({"b": 1, "a": [0.5, "x"]}) == inputs_digest({"a": [0.5, "x"], "b": 1})
    True
    >>> inputs_digest({})
    'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'
    """
    return "sha256:" + hashlib.sha256(canonical_json(obj, preserialised=preserialised)).hexdigest()
