"""RFC 8785 (JCS) canonical JSON and the two digests taken of it.

One canonicalisation, two hashes, because each digest is read by a different party:

- :func:`canonical_digest` ("sha256:" + hex) is what the registry stores and compares for a body
  (summaries, outcomes, the collector's "unchanged since last time" check, the indexer's feedback files);
- :func:`canonical_keccak` (32 raw bytes) is what EIP-712 structs carry (``bodyDigest``,
  ``trustScoresDigest``), because Solidity checks keccak256 natively.

Both raise ValueError for what RFC 8785 cannot represent: NaN, infinities, integers beyond 2**53.

>>> canonical_json({"b": 1, "a": [0.5, "x"]})
b'{"a":[0.5,"x"],"b":1}'
>>> canonical_digest({"b": 1, "a": 2}) == canonical_digest({"a": 2, "b": 1})
True
>>> canonical_keccak({"b": 1, "a": 2}) == canonical_keccak({"a": 2, "b": 1})
True
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785
from eth_utils import keccak

__all__ = ["canonical_digest", "canonical_json", "canonical_keccak"]


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 canonical JSON of ``value``: key order and spacing do not matter."""
    try:
        return rfc8785.dumps(value)
    except rfc8785.CanonicalizationError as error:
        raise ValueError(f"the body has no RFC 8785 canonical form: {error}") from None


def canonical_digest(value: Any) -> str:
    """ "sha256:" + hex SHA-256 of the canonical JSON of ``value``, the registry's stored body digest."""
    return "sha256:" + hashlib.sha256(canonical_json(value)).hexdigest()


def canonical_keccak(value: Any) -> bytes:
    """keccak256 of the canonical JSON of ``value``, the bytes32 digest EIP-712 structs carry."""
    return bytes(keccak(canonical_json(value)))
