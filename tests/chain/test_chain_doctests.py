"""The docstring examples of the pure chain modules run (they are the modules' first documentation)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "signing.chain.settings",
    "signing.chain.registration",
    "signing.canonical",
    "signing.chain.publish",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_runs_the_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
