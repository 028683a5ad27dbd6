"""Review findings of h22k on the issue 14/16 diff (pii_names)."""

from __future__ import annotations

import time

from verification.engine.safety.pii import detect_pii


def test_it_reads_many_labelled_addressees_in_linear_time() -> None:
    # Each "Ship to:" label adds an addressee in ``_line_people``; the overlap test of every match found
    # before against all of them was quadratic (about 7 s here before the fix, well under 1 s after).
    text = ("Ship to: Aa Bb\n1\n" * 20000)[:240_000]
    start = time.perf_counter()
    found = detect_pii(text)
    assert time.perf_counter() - start < 3.0
    assert sum(m.check == "addressee" for m in found) == 14_117
