"""The canonical JSON behind every inputs digest: the fast encoder is rfc8785, byte for byte."""

from __future__ import annotations

from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.digest import _dumps, canonical_json

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=-1e25, max_value=1e25)
    | st.sampled_from([0.0, -0.0, 1e-7, 1e-6, 1e-5, 1e-4, 1e15, 1e16, 1e20, 1e21, 5e-324, 1.7e308])
    | st.text()
    | st.text(alphabet=st.characters(max_codepoint=0x7F))
)
KEYS = st.text(max_size=4) | st.text(alphabet='abcXYZ_\x01"\\', max_size=4)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(KEYS, children, max_size=4)
    ),
    max_leaves=20,
)


def _reference(value: Any) -> bytes | type[BaseException]:
    try:
        return rfc8785.dumps(value)
    except Exception as exc:  # the error class is part of the behaviour compared
        return type(exc)


def _fast(value: Any) -> bytes | type[BaseException]:
    try:
        return _dumps(value)
    except Exception as exc:
        return type(exc)


@settings(max_examples=600, deadline=None)
@given(values)
def test_it_encodes_any_json_value_exactly_as_rfc8785(value: Any) -> None:
    assert _fast(value) == _reference(value)


@pytest.mark.parametrize(
    "value",
    ["\ud800", {"\ud800": 1}, {1: 2}, {"é": 1, "e": 2, "z": 0}, [2**53], 2**53 - 1, float("nan"), object()],
)
def test_it_refuses_or_encodes_the_edge_cases_as_rfc8785_does(value: Any) -> None:
    assert _fast(value) == _reference(value)


def test_it_splices_preserialised_members_into_the_same_bytes() -> None:
    obj: dict[str, Any] = {"b": [1.5, "x", None], "a": {"k": 1e-7}}
    assert canonical_json(obj, preserialised={"a": rfc8785.dumps(obj["a"])}) == rfc8785.dumps(obj)
