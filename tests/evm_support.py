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


def local_chain_settings(w3: Any, rpc_url: str, deployed: Any) -> Any:
    """ChainSettings for registries `deployed` on a local node: enabled, final at once, scanned from
    the block after the deployment."""
    from signing.chain.settings import ChainSettings

    return ChainSettings.for_network(
        "local",
        enabled=True,
        chain_id=int(w3.eth.chain_id),
        rpc_url=rpc_url,
        identity_registry=deployed.identity,
        reputation_registry=deployed.reputation,
        validation_registry=deployed.validation,
        confirmations=0,
        start_block=deployed.block_number + 1,
        max_block_range=1000,
    )


def index_with_tasks(chain: Any, w3: Any, capture: Any, **kwargs: Any) -> Any:
    """One indexer run (attestations.services.indexer.chain_index_run) with the tasks it queues on
    commit (score recomputes, registration fetches) run too: Celery is eager in the tests, and `capture`
    is pytest-django's django_capture_on_commit_callbacks."""
    from attestations.services.indexer import chain_index_run

    with capture(execute=True):
        return chain_index_run(chain=chain, w3=w3, **kwargs)
