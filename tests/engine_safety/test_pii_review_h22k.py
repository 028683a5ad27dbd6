"""Review findings of h22k on the issue 14/16 diff (pii_names).

Each "Ship to:" label adds an addressee in ``_line_people``, and the overlap test of every match found before
against all of them was quadratic (240,000 characters of labelled blocks: about 7 s). It is one bisection
per match now (``_spans_index``/``_meets``); these tests check that the bisection answers as the pairwise test
did and that every addressee is still found.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.safety.pii import detect_pii
from verification.engine.safety.pii_names import NameMatch, _meets, _spans_index

_SPAN = st.tuples(st.integers(0, 60), st.integers(0, 12)).map(lambda p: (p[0], p[0] + p[1]))


@settings(max_examples=400, deadline=None)
@given(st.lists(_SPAN, max_size=12), st.lists(_SPAN, max_size=12))
def test_it_finds_the_same_overlaps_as_the_pairwise_test(
    added: list[tuple[int, int]], out: list[tuple[int, int]]
) -> None:
    index = _spans_index([NameMatch("person", a, b, "x" * (b - a), 0.75, "addressee") for a, b in added])
    for start, end in out:
        pairwise = any(start < b and a < end for a, b in added)
        assert _meets(index, start, end) == pairwise, (start, end, added)


def test_it_reads_every_labelled_addressee() -> None:
    found = detect_pii("Ship to: Aa Bb\n1\n" * 2_000)
    assert sum(m.check == "addressee" for m in found) == 2_000
