"""Helpers shared by the suites that run against the local EVM node (tests/chain, tests/attestations)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def evm_snapshot(node: Any) -> Iterator[None]:
    """Undo everything a test did on the node: evm_snapshot before, evm_revert after."""
    snapshot = node.provider.make_request("evm_snapshot", [])["result"]
    try:
        yield
    finally:
        reverted = node.provider.make_request("evm_revert", [snapshot])
        assert reverted.get("result") is True, f"evm_revert failed: {reverted}"
