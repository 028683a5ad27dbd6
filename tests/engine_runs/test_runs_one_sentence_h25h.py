"""One long sentence of amounts (issue 14, h25h): ``own_lists.told_gap`` ("$20.00 over your $100.00 limit")
read every supported amount of the sentence for each gap, and ``grounding._kind_total`` ("2 grills with a
total price of $x") every count of the sentence before each total: both quadratic in one sentence. Now
``told_gap`` reads the amounts whose size its windows hold (``AnswerAmounts.sized_between``) and
``_kind_total`` the distinct totals of the counts before the amount, kept per sentence. Checked against
the old forms (kept here) on random sentences, with labels turned either way as the passes do, and by the
work counted (findings and totals read, not time) at two sizes.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from tests.engine_runs.test_runs_totals_index_h24b import _results, context_facts_both_ways
from verification.engine.runs import grounding
from verification.engine.runs.evidence import Evidence, Fact, build_evidence
from verification.engine.runs.findings import Finding
from verification.engine.runs.grounding import ground_answer
from verification.engine.runs.mentions import Mention
from verification.engine.runs.messages import parse_run
from verification.engine.runs.numeric import accepts
from verification.engine.runs.own_lists import _GAP_TO, AnswerAmounts, told_gap
from verification.engine.text import lower


def _old_told_gap(f: Finding, answer: str, index: AnswerAmounts) -> bool:
    """``told_gap`` as it was before h25h: every other supported amount of the sentence read."""
    m = f.mention
    if m.kind != "money" or m.value is None:
        return False
    limit = index.next_sentence_amount(f, m.end)
    if limit is None or not _GAP_TO.fullmatch(lower(answer[m.end : limit.mention.start])):
        return False
    bound = abs(limit.mention.value or 0.0)
    same = index.sentence_amounts(f)
    return any(accepts(m, abs(abs(g.mention.value or 0.0) - bound)) for g in same if g is not limit)


def _money(text: str, at: int, value: float, decimals: int = 2, hedge: str | None = None) -> Mention:
    shown = f"${value:,.{decimals}f}"
    return Mention("money", at, at + len(shown), shown, value=value, decimals=decimals, hedge=hedge)


def _sentence(parts: list[tuple[float, int, str | None, str, str]]) -> tuple[str, list[Finding]]:
    """One sentence of amounts: (value, decimals, hedge, label, the words after it)."""
    text, mentions, labels = "Prices: ", [], []
    for value, decimals, hedge, label, after in parts:
        m = _money(text, len(text), value, decimals, hedge)
        text += m.text + after
        mentions.append(m)
        labels.append(label)
    text += "."
    return text, [Finding(m, label, (0, len(text))) for m, label in zip(mentions, labels, strict=True)]


_VALUES = [0.0, 0.25, 1.0, 9.75, 10.0, 10.004, 10.006, 20.0, 100.0, 120.0, 1_130.85, 950.0, 180.85, 1e6]
_AFTER = [", which is ", " over your ", " under the ", " short of the ", " beyond ", ", ", " and "]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_VALUES),
            st.sampled_from([0, 2]),
            st.sampled_from([None, None, "about", "more", "less", "under", "exact"]),
            st.sampled_from(["SUPPORTED", "SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]),
            st.sampled_from(_AFTER),
        ),
        min_size=2,
        max_size=14,
    ),
    st.lists(st.sampled_from(["keep", "support", "contradict"]), min_size=1, max_size=9),
)
def test_it_tells_gaps_as_the_old_form_did(
    parts: list[tuple[float, int, str | None, str, str]], changes: list[str]
) -> None:
    # As ground_answer does: one index, each amount checked in order, labels turned supported (noted with
    # ``supported``) or contradicted (noted with ``relabelled``) as the walk goes.
    text, findings = _sentence(parts)
    index = AnswerAmounts(text, findings)
    fresh_reads = 0
    for i, f in enumerate(findings):
        old = AnswerAmounts(text, findings)
        assert told_gap(f, findings, text, index) == _old_told_gap(f, text, old), (text, i)
        assert told_gap(f, findings, text) == _old_told_gap(f, text, old), (text, i)
        fresh_reads += old.reads
        change = changes[i % len(changes)]
        if change == "support" and f.label != "SUPPORTED":
            f.label = "SUPPORTED"
            index.supported(i)
        elif change == "contradict" and f.label == "SUPPORTED":
            f.label = "CONTRADICTED"
            index.relabelled(i)


def _gaps(n: int) -> tuple[str, list[Finding]]:
    parts: list[tuple[float, int, str | None, str, str]] = []
    for i in range(n):
        parts.append((10.0 + i, 2, None, "SUPPORTED", ", which is "))
        parts.append((9.75 + i, 2, None, "UNSUPPORTED", " over your "))
        parts.append((0.25, 2, None, "SUPPORTED", " budget, "))
    return _sentence(parts)


def _gap_work(n: int) -> int:
    text, findings = _gaps(n)
    index = AnswerAmounts(text, findings)
    for i, f in enumerate(findings):
        if f.label == "UNSUPPORTED":
            assert told_gap(f, findings, text, index)
            f.label = "SUPPORTED"
            index.supported(i)
    return index.reads


def test_it_reads_one_long_sentence_of_gaps_linearly() -> None:
    # Four times the gaps, about four times the amounts read (the old form read ~16 times as many).
    small, large = _gap_work(150), _gap_work(600)
    assert large <= 5 * small, (small, large)


def _items_evidence() -> Evidence:
    strings, numbers = [], []
    for i, (name, price) in enumerate([("Grill", 985.66), ("Kettle", 48.02), ("Grill", 953.39)]):
        rec = (2, ("items", i))
        strings.append(Fact("string", name, 2, ("items", i, "name"), rec, (2, ("items",))))
        numbers.append(Fact("number", price, 2, ("items", i, "price"), rec, (2, ("items",))))
    return Evidence(strings=strings, numbers=numbers)


def _counts_and_totals(parts: list[tuple[str, float]]) -> tuple[str, list[Finding]]:
    """One sentence of counts and totals: ("2 grills" or "3 kettles", the total's value) each."""
    text, mentions = "In all, ", []
    for counted, total in parts:
        text += "order W1 had "
        number, noun = counted.split(" ")
        mentions.append(Mention("number", len(text), len(text) + 1, number, value=float(number), noun=noun))
        text += counted + " with a total price of "
        mentions.append(_money(text, len(text), total))
        text += mentions[-1].text + ", "
    text = text[:-2] + "."
    found = [
        Finding(m, "UNSUPPORTED" if m.kind == "money" else "SUPPORTED", (0, len(text))) for m in mentions
    ]
    return text, found


_COUNTED = ["2 grills", "3 grills", "2 kettles", "1 grill"]
_TOTALS = [1_939.05, 1_939.06, 1_939.5, 48.02, 1_033.68, 1_001.41, 0.0]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["2 grills", "3 grills", "2 kettles", "1 grill"]), st.sampled_from(_TOTALS)
        ),
        min_size=1,
        max_size=10,
    )
)
def test_it_finds_kind_totals_as_the_old_form_did(parts: list[tuple[str, float]]) -> None:
    # The form without an index is the old one (h24b kept it): every count of the sentence read again.
    text, findings = _counts_and_totals(parts)
    ev = _items_evidence()
    index = AnswerAmounts(text, findings)
    for f in findings:
        if f.mention.kind == "money":
            assert grounding._kind_total(text, findings, f, ev, index) == grounding._kind_total(
                text, findings, f, ev
            ), (text, f.mention.text)


def test_it_keeps_the_totals_of_counts_out_of_order() -> None:
    # A count whose end is past a later count's (overlapping mentions) leaves no prefix to keep: the counts
    # are read one by one, as before. The first count reaches past the first total, not the second.
    text, findings = _counts_and_totals([("2 grills", 1_939.05), ("3 grills", 1_939.05)])
    first = findings[0].mention
    late = Mention("number", first.start, findings[3].mention.start - 1, "2", value=2.0, noun="grills")
    findings[0] = Finding(late, "SUPPORTED", findings[0].sentence)
    ev = _items_evidence()
    told = []
    for f in findings:
        if f.mention.kind == "money":
            got = grounding._kind_total(text, findings, f, ev, AnswerAmounts(text, findings))
            assert got == grounding._kind_total(text, findings, f, ev)
            told.append(bool(got))
    assert told == [False, True]


def _kind_work(n: int) -> int:
    parts = [("2 grills", 1_939.05 if i % 7 == 0 else 100.0 + i) for i in range(n)]
    text, findings = _counts_and_totals(parts)
    ev = _items_evidence()
    index = AnswerAmounts(text, findings)
    told: list[Any] = []
    for f in findings:
        if f.mention.kind == "money":
            told.append(grounding._kind_total(text, findings, f, ev, index))
    assert told.count("the total of the items of the kind its sentence counts") == (n + 6) // 7
    return index.reads


def test_it_reads_one_long_sentence_of_counts_and_totals_linearly() -> None:
    # Four times the counts and totals, about four times the read (the old form read ~16 times as many).
    small, large = _kind_work(150), _kind_work(600)
    assert large <= 5 * small, (small, large)


_CLAUSES = [
    "order W00003 costs $13.00 and a fee of $7.50, $20.50 in total",
    "order W00005 costs $15.00 in total",
    "it contained 2 grills with a total price of $110.00",
    "order W00002 is $12.00",
    "the fee is $9.99",
    "order W00004 is $14.00 and W00006 is $16.00, so $30.00 together",
    "$13.00, which is $12.75 over your $0.25 budget",
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, len(_CLAUSES) - 1), min_size=1, max_size=12),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=5),
)
def test_it_gathers_the_facts_of_one_long_sentence_as_the_walk_of_findings_does(
    parts: list[int], labels: list[str]
) -> None:
    # _context_facts' tier 0 (the target's sentence) from the records kept per sentence, against the walk
    # over the findings (no index), labels turned supported one by one as pass 2 does.
    answer = "So " + ", and ".join(_CLAUSES[p] for p in parts) + "."
    run = parse_run(make_run("What is the total?", _results(), answer))
    ev = build_evidence(run)
    findings = ground_answer(run.answer, ev, question="What is the total?")
    assert AnswerAmounts(run.answer, findings).sentence_records((0, 1), 0) == []  # the per-sentence path
    context_facts_both_ways(run.answer, findings, ev, labels, [True])


def _priced_gaps_work(n: int) -> int:
    orders = [{"id": f"W{i:05d}", "price": 10.0 + i} for i in range(200)]
    parts = [f"${10 + i % 200:.2f}, which is ${9.75 + i % 200:.2f} over your $0.25 budget" for i in range(n)]
    answer = "Prices: " + ", ".join(parts) + "."
    run = parse_run(make_run("What do I owe?", [{"orders": orders}, {"budget": 0.25}], answer))
    work: list[int] = []
    findings = ground_answer(run.answer, build_evidence(run), work=work)
    assert sum(f.reason == "the gap between an amount and a limit it names" for f in findings) == n
    return work[0]


def test_it_reads_one_long_sentence_of_priced_gaps_linearly() -> None:
    # The whole grounding of one sentence of gaps: told_gap and _context_facts' tier 0 read per amount what
    # the results bound (here their 200 orders, each once), not the sentence (12.9x the findings read for
    # four times the gaps before h25h, 9.4x with told_gap alone fixed, 4.0x now).
    small, large = _priced_gaps_work(200), _priced_gaps_work(800)
    assert large <= 5 * small, (small, large)
