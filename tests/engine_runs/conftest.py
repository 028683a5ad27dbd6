"""Fixtures of the engine_runs tests."""

from __future__ import annotations

import pytest

from tests.engine_runs.runs_helpers import make_run


@pytest.fixture
def run_of():
    return make_run


# The engine is pure Python: the suite-wide autouse fixtures of tests/conftest.py reset Django and registry
# caches. Overriding them here (same names) lets these tests run without Django (``-p no:django``).
@pytest.fixture(autouse=True)
def _empty_cache():
    yield


@pytest.fixture(autouse=True)
def _fresh_key_lookups():
    yield
