"""Suite-wide fixtures."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """Each test starts with an empty cache: cached score documents and rate-limit counters from
    another test's database must not leak into this one."""
    from django.conf import settings

    if settings.configured:  # pure suites run with -p no:django have no cache to clear
        from django.core.cache import cache

        cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_key_lookups() -> Iterator[None]:
    """API-key lookups are cached per process for a few seconds; tests start without that cache."""
    from django.conf import settings

    if settings.configured:
        from registry.services.providers import api_key_cache_clear

        api_key_cache_clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_operator_lookups() -> Iterator[None]:
    """Operator-key lookups are cached per process too."""
    from django.conf import settings

    if settings.configured:
        from verification.services.tools import operator_key_cache_clear

        operator_key_cache_clear()
    yield


ANVIL_CHAIN_ID = 8453


@pytest.fixture(scope="session")
def anvil() -> Iterator[object]:
    """One local EVM node for the whole session (chain id 8453, a free port), stopped by its pid."""
    from attestations.chain.anvil import AnvilNotFound, start_anvil

    try:
        node = start_anvil(chain_id=ANVIL_CHAIN_ID)
    except AnvilNotFound as error:
        pytest.fail(
            f"{error} (the chain tests need the npm package @foundry-rs/anvil: run npm ci)", pytrace=False
        )
    try:
        yield node
    finally:
        node.stop()
