"""The examples in the safety engines' docstrings are true.

Compiled modules (setup.py may build some with mypyc) keep no docstrings, so their examples are run
against the source file, loaded as a module of its own beside the compiled one.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

# Modules without examples (limits, pii_types: constants and tables) are left out.
MODULES = [
    "verification.engine.safety.deobfuscate",
    "verification.engine.safety.fastpath",
    "verification.engine.safety.health",
    "verification.engine.safety.injection",
    "verification.engine.safety.injection_rules",
    "verification.engine.safety.pii",
    "verification.engine.safety.prefilter",
    "verification.engine.safety.risk",
    "verification.engine.safety.scan",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_keeps_its_docstring_examples_true(name: str) -> None:
    result = doctest.testmod(_with_docstrings(importlib.import_module(name)))
    assert result.failed == 0
    assert result.attempted > 0


def _with_docstrings(module: ModuleType) -> ModuleType:
    """The module itself, or for a compiled one its source loaded as a separate module."""
    path = Path(module.__file__ or "")
    if path.suffix == ".py":
        return module
    source = path.with_name(path.name.split(".")[0] + ".py")
    # The source's relative imports (``from .fastpath import ...``) resolve in the real package.
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_source", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    loaded.__package__ = module.__package__
    sys.modules[spec.name] = loaded  # dataclasses look their module up while the class is built
    spec.loader.exec_module(loaded)
    return loaded
