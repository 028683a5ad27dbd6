"""The examples in the engine's docstrings are true.

Compiled modules (setup.py builds some with mypyc) keep no docstrings, so their examples are run against
the source file, loaded as a module of its own beside the compiled one.
"""

import doctest
import importlib
import importlib.util

import pytest

from tests.compiled_support import with_docstrings

MODULES = [
    "verification.engine.store.base",
    "verification.engine.store.memory",
    "verification.engine.tools",
    "verification.engine.tools.adaptive",
    "verification.engine.tools.baseline",
    "verification.engine.tools.calibration",
    "verification.engine.tools.engine",
    "verification.engine.tools.features",
    "verification.engine.tools.fusion",
    "verification.engine.tools.patterns",
    "verification.engine.tools.profile",
    "verification.engine.tools.result",
    "verification.engine.tools.stats",
    "verification.engine.tools.tier0",
    "verification.engine.tools.tier1",
    "verification.engine.tools.values",
    "verification.engine.eval.tool_results",
    "verification.engine.budget",
    "verification.engine.runs.schemas",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_keeps_its_docstring_examples_true(name):
    result = doctest.testmod(with_docstrings(importlib.import_module(name)))
    assert result.failed == 0
    assert result.attempted > 0 or name.endswith(".base")
