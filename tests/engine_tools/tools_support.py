"""Shared by the tool-verifier suites."""

from __future__ import annotations

from hypothesis import strategies as st


def json_values(*, max_items: int = 7, max_leaves: int = 60) -> st.SearchStrategy[object]:
    """Arbitrary JSON as Python values, with NaN, infinities and integers beyond 2**64 included."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(10**30), max_value=10**30)
        | st.floats(allow_nan=True, allow_infinity=True)
        | st.text(max_size=80),
        lambda children: (
            st.lists(children, max_size=max_items)
            | st.dictionaries(st.text(max_size=12), children, max_size=6)
        ),
        max_leaves=max_leaves,
    )
