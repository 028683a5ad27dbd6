"""The examples in the adapters' docstrings run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "adapters.numbers",
    "adapters.params",
    "adapters.core",
    "adapters.output_verification",
    "adapters.erc8004_feedback",
    "adapters.digest",
    "adapters.scoring",
    "adapters.vectorised",
    "adapters.intervals",
    "adapters.graph",
    "adapters.sybil",
]


@pytest.mark.parametrize("name", MODULES)
def test_it_runs_the_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_it_exports_a_sorted_public_api() -> None:
    import adapters

    assert adapters.__all__ == sorted(adapters.__all__)
    for name in adapters.__all__:
        assert getattr(adapters, name) is not None
