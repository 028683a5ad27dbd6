"""Fixtures of the engine_tools tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


# The engine is pure Python: the suite-wide autouse fixtures of tests/conftest.py reset Django and registry
# caches. Overriding them here (same names) lets these tests run without Django (``-p no:django``).
@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    yield


@pytest.fixture(autouse=True)
def _fresh_key_lookups() -> Iterator[None]:
    yield
