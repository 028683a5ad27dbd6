"""The examples in the engine's docstrings are true.

Compiled modules (setup.py builds some with mypyc) keep no docstrings, so their examples are run against
the source file, loaded as a module of its own beside the compiled one.
"""

import doctest
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

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
    "verification.engine.tools.profile",
    "verification.engine.tools.result",
    "verification.engine.tools.stats",
    "verification.engine.tools.tier0",
    "verification.engine.tools.tier1",
    "verification.engine.tools.values",
    "verification.engine.eval.tool_results",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_keeps_its_docstring_examples_true(name):
    result = doctest.testmod(_with_docstrings(importlib.import_module(name)))
    assert result.failed == 0
    assert result.attempted > 0 or name.endswith(".base")


def _with_docstrings(module: ModuleType) -> ModuleType:
    """The module itself, or for a compiled one its source loaded as a separate module."""
    path = Path(module.__file__ or "")
    if path.suffix == ".py":
        return module
    source = path.with_name(path.name.split(".")[0] + ".py")
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_source", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = loaded  # dataclasses look their module up while the class is built
    spec.loader.exec_module(loaded)
    return loaded
