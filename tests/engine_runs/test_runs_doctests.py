"""The examples in the run verifier's docstrings are true.

Every module of ``verification.engine.runs`` with examples is run, found by walking the package (a new
module is covered without editing a list: a wrong example in h24d's ``records.identifier_told_after``
went unnoticed because nothing ran this package's examples). Compiled modules keep no docstrings, so
their examples run against the source file (``with_docstrings``).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import verification.engine.runs as runs_package
from tests.compiled_support import with_docstrings

MODULES = sorted(
    info.name for info in pkgutil.walk_packages(runs_package.__path__, runs_package.__name__ + ".")
)


def _examples(name: str) -> int:
    module = with_docstrings(importlib.import_module(name))
    return sum(len(test.examples) for test in doctest.DocTestFinder().find(module))


def test_it_finds_the_modules_with_examples() -> None:
    with_examples = [name for name in MODULES if _examples(name)]
    # Most of the package documents itself by example; a walk that finds none is broken, not clean.
    assert len(with_examples) >= 20
    assert "verification.engine.runs.records" in with_examples


@pytest.mark.parametrize("name", MODULES)
def test_it_keeps_its_docstring_examples_true(name: str) -> None:
    result = doctest.testmod(with_docstrings(importlib.import_module(name)))
    assert result.failed == 0
