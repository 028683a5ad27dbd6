"""Issue 14, hostile input: patterns that read a long run of one kind of character from every start in it.

The ``email`` and ``id`` mention patterns failed at the start of a run for a reason that holds for every later
start in the same run (no "@" and domain after it; no digit or no letter left in it), yet each word boundary
was tried, each try reading to the run's end: "a." 12,000 times after an answer took seconds. They now take
the rest of such a run in one ``skip`` match that the caller drops. ``grounding._LINE_LABEL`` let its list
markers and its emphasis run share "*", so a line of asterisks was quadratic at every line start; its runs
are possessive now. The matches are the same as before: checked here against the old patterns.
"""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import grounding, mentions, verify_run
from verification.engine.runs.config import RunVerifierConfig
from verification.engine.runs.errors import RunTooLargeError

# The patterns as they were before the change (mentions.py and grounding.py at 2d89aa4).
_OLD = {
    "email": re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b"),
    "id": re.compile(r"\b(?=[A-Za-z0-9.-]*\d)(?=[A-Za-z0-9.-]*[A-Za-z])[A-Za-z0-9]+(?:[.-][A-Za-z0-9]+)*\b"),
}
_OLD_LINE_LABEL = re.compile(
    r"[ \t]*(?:[-+•>*#][ \t]*)*(?:\d{1,2}[.)][ \t]*)?[*_]*([A-Za-z][A-Za-z ]{1,40}?)[*_]*:[*_ \t]*"
)
# The quantity pattern after the digit-run guard (mentions.py at 2d89aa4), before the number-shape look-ahead.
_OLD["quantity"] = re.compile(
    rf"(?P<num>[-\d](?<!\d\d)(?=[\d.,]*+{mentions._UNIT_AFTER}){mentions._NUM_TAIL})(?P<mag>{mentions._MAG})?"
    rf"(?:\s?-?\s?)(?P<unit>{mentions._UNIT_RE}|(?:{mentions._SHORT_UNITS})\b)(?![\w²])"
)
_NEW = {kind: pattern for kind, pattern in mentions._PATTERNS if kind in _OLD}

_RUN_TOKENS = [
    "a", "b7", "x1", ".", "-", "+", "_", "@", "shop.com", "mail-1.org", " ", "é", "1", "42", "q", "\n",
    "a." * 40, "a-" * 33, "1." * 40, "9-" * 35, "b" * 70, "7" * 70, "a1." * 25, "z" * 64 + "1", "x_" * 40,
    ",", "1,234", ",567" * 9, ".5", " km", "km", " hours", " million", "k", "-", "1.2." * 20, "1," * 30,
]  # fmt: skip


def _kept(pattern: re.Pattern[str], text: str) -> list[tuple[int, int, tuple[str | None, ...]]]:
    return [
        (*m.span(), tuple(v for k, v in sorted(m.groupdict().items()) if k != mentions._SKIP_RUN))
        for m in pattern.finditer(text)
        if m.lastgroup != mentions._SKIP_RUN
    ]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(_OLD)), st.lists(st.sampled_from(_RUN_TOKENS), max_size=12))
def test_it_finds_the_same_emails_ids_and_quantities_as_before(kind: str, tokens: list[str]) -> None:
    text = "".join(tokens)
    assert _kept(_NEW[kind], text) == _kept(_OLD[kind], text), (kind, text)


def test_it_skips_a_long_run_in_one_step() -> None:
    # Where the old patterns were tried at each of the run's word boundaries, one skip match takes it.
    for kind, run in (("email", "a." * 500), ("id", "a." * 500), ("id", "1-" * 500)):
        found = list(_NEW[kind].finditer("see " + run + " end"))
        assert [m.lastgroup for m in found] == [mentions._SKIP_RUN], kind
        assert found[0].span() == (4, 4 + len(run)), kind


def test_it_still_reads_emails_and_ids_next_to_long_runs() -> None:
    text = "a." * 100 + " write to ann.lee@shop-1.com about order W2378156 or " + "b-" * 50 + "x9"
    assert [text[a:b] for a, b, _ in _kept(_NEW["email"], text)] == ["ann.lee@shop-1.com"]
    ids = [text[a:b] for a, b, _ in _kept(_NEW["id"], text)]
    assert "W2378156" in ids and "shop-1.com" in ids
    assert _kept(_NEW["id"], text) == _kept(_OLD["id"], text)


def test_it_reads_quantities_after_long_runs_of_numbers() -> None:
    # A long chain of thousands with no unit is skipped whole; one with a unit, and short numbers in a run
    # that a unit ends, are still read.
    text = "1,111" + ",111" * 20 + " items, then " + "1.2." * 30 + "5 km and 2" + ",000" * 10 + " km"
    kept = [text[a:b] for a, b, _ in _kept(_NEW["quantity"], text)]
    assert kept == ["2.5 km", "2" + ",000" * 10 + " km"]
    assert _kept(_NEW["quantity"], text) == _kept(_OLD["quantity"], text)
    assert next(m.lastgroup for m in _NEW["quantity"].finditer(text)) == mentions._SKIP_RUN


_LABEL_TOKENS = [
    "*", "**", "_", "-", "+", "•", ">", "#", " ", "\t", "1", "12", ".", ")", "Total", " Bags", "a", "B", ":",
    "x", "*" * 30, "- " * 10,
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LABEL_TOKENS), max_size=12))
def test_it_reads_the_same_line_labels_as_before(tokens: list[str]) -> None:
    line = "".join(tokens)
    old, new = _OLD_LINE_LABEL.match(line), grounding._LINE_LABEL.match(line)
    assert (old and (old.span(), old.group(1))) == (new and (new.span(), new.group(1))), line


def test_it_reports_on_answers_made_of_long_runs() -> None:
    # With the service's work caps (config/settings.py), as the API runs it: a report, or the 4xx error for
    # an answer with too many checkable values; the patterns above are run before the caps are checked.
    config = RunVerifierConfig(max_claims=2_000, max_comparisons=20_000_000)
    outcomes = []
    for answer in (
        "Bags: 2\n" + "*" * 20_000 + "\n" + "*" * 20_000 + " 3 bags",
        "Your order has 3 items. " + "a." * 12_000,
        "Mail " + "a." * 12_000 + "@x",
        "Walk " + "1.2." * 12_000 + " km",
        "Walk " + "1,111" * 9_000 + " km",
    ):
        try:
            report = verify_run(make_run("How many?", [{"count": 3, "bags": 2}], answer), config=config)
        except RunTooLargeError:
            outcomes.append("too large")
        else:
            outcomes.append(report.action)
    assert all(o in _OUTCOMES for o in outcomes[:3]), outcomes
    assert outcomes[3:] == ["too large", "too large"]


_OUTCOMES = frozenset({"emit", "annotate", "revise", "refuse", "block"})
