"""The examples in the safety engines' docstrings are true.

Compiled modules (setup.py may build some with mypyc) keep no docstrings, so their examples are run
against the source file, loaded as a module of its own beside the compiled one.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util

import pytest

from tests.compiled_support import with_docstrings

# Modules without examples (limits, pii_types: constants and tables) are left out.
MODULES = [
    "verification.engine.safety.deobfuscate",
    "verification.engine.safety.fastpath",
    "verification.engine.safety.health",
    "verification.engine.safety.injection",
    "verification.engine.safety.injection_rules",
    "verification.engine.safety.pii",
    "verification.engine.safety.pii_names",
    "verification.engine.safety.prefilter",
    "verification.engine.safety.risk",
    "verification.engine.safety.scan",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_keeps_its_docstring_examples_true(name: str) -> None:
    result = doctest.testmod(with_docstrings(importlib.import_module(name)))
    assert result.failed == 0
    assert result.attempted > 0
