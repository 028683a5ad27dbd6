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
