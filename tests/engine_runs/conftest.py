"""Fixtures of the engine_runs tests."""

from __future__ import annotations

import pytest
from runs_helpers import make_run


@pytest.fixture
def run_of():
    return make_run
