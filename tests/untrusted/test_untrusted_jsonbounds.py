"""untrusted.jsonbounds: nesting measured on the raw text equals the nesting of the decoded value."""

from __future__ import annotations

import doctest
import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import untrusted.jsonbounds
from untrusted.jsonbounds import MAX_DEPTH, TooDeep, TooMany, check_depth, loads, nesting_depth

# Strings made to confuse a bracket counter: brackets, quotes, runs of backslashes, and some non-ASCII.
TRICKY = st.text(alphabet=st.sampled_from('[]{}"\\\\/ :,abé€\U0001f600\n\t'), max_size=12)
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), TRICKY
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(TRICKY, children, max_size=4)),
    max_leaves=40,
)


def depth_of(value: Any) -> int:
    """The nesting depth of a decoded value: each array or object is one level."""
    if isinstance(value, list):
        return 1 + max((depth_of(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(item) for item in value.values()), default=0)
    return 0


@given(JSON_VALUES, st.booleans(), st.sampled_from([None, 0, 2]))
@settings(max_examples=400, deadline=None)
def test_it_measures_the_depth_the_decoder_would_build(
    value: Any, ascii_only: bool, indent: int | None
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    expected = depth_of(json.loads(text))
    assert nesting_depth(text) == expected
    assert nesting_depth(text.encode("utf-8")) == expected


@given(JSON_VALUES, st.integers(1, 8))
@settings(max_examples=200, deadline=None)
def test_it_refuses_exactly_the_texts_deeper_than_the_limit(value: Any, limit: int) -> None:
    text = json.dumps(value)
    if depth_of(value) > limit:
        with pytest.raises(TooDeep):
            check_depth(text, limit)
    else:
        check_depth(text, limit)
        assert loads(text, max_depth=limit) == json.loads(text)


def containers_of(value: Any) -> int:
    """How many arrays and objects a decoded value holds."""
    if isinstance(value, list):
        return 1 + sum(containers_of(item) for item in value)
    if isinstance(value, dict):
        return 1 + sum(containers_of(item) for item in value.values())
    return 0


@given(JSON_VALUES, st.integers(1, 12), st.booleans())
@settings(max_examples=300, deadline=None)
def test_it_refuses_exactly_the_texts_with_more_containers_than_the_limit(
    value: Any, limit: int, ascii_only: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    count = containers_of(value)
    if count > limit:
        with pytest.raises(TooMany) as refused:
            check_depth(text, 64, max_containers=limit)
        assert refused.value.count == count
    else:
        check_depth(text, 64, max_containers=limit)
        assert loads(text, max_containers=limit) == json.loads(text)


def test_it_refuses_millions_of_shallow_arrays_that_no_depth_bound_stops() -> None:
    # The benchmark's worst anonymous body: 8 MB of arrays nested 63 deep, within MAX_DEPTH.
    nest = b"[" * 63 + b"]" * 63
    text = b"[" + b",".join([nest] * 60_000) + b"]"
    check_depth(text, MAX_DEPTH)
    with pytest.raises(TooMany) as refused:
        check_depth(text, MAX_DEPTH, max_containers=100_000)
    assert refused.value.count == 63 * 60_000 + 1


@pytest.fixture
def raised_recursion_limit() -> Iterator[None]:
    """The situation of issue 13: py_ecc has raised the limit, so the decoder's own guard is gone."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def test_it_refuses_20000_nested_brackets_before_decoding(raised_recursion_limit: None) -> None:
    body = "[" * 20_000  # ~20 KB here; the issue's ~40 KB body also closes them, which changes nothing
    with pytest.raises(TooDeep) as refused:
        loads(body)
    assert refused.value.limit == MAX_DEPTH
    assert refused.value.position == MAX_DEPTH  # the first bracket over the limit, zero-based
    with pytest.raises(TooDeep):
        loads(("[" * 20_000 + "]" * 20_000).encode())


def test_it_does_not_count_brackets_inside_strings() -> None:
    body = json.dumps({"text": "[" * 20_000, "escaped": '\\"[[[[' * 100})
    assert nesting_depth(body) == 1
    assert loads(body)["text"] == "[" * 20_000


def test_it_refuses_a_limit_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        check_depth("[]", 0)


def test_it_runs_the_docstring_examples() -> None:
    result = doctest.testmod(untrusted.jsonbounds, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0
