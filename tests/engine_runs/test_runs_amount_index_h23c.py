"""Issue 14, h23c: the arithmetic look-ups of an answer's amounts read an index built once per answer.

``own_lists.told_sum`` / ``told_gap`` / ``listed_total`` / ``listed_changes`` / ``rounded_difference`` and
``grounding._context_facts`` / ``_earlier_supported`` / ``_item_start`` listed every finding (or every
sentence) again for each unsupported amount: an answer of 4,000 amounts took ~20 s. They now read
``own_lists.AnswerAmounts``. Checked here against their old forms (kept below as the oracle, as they were at
e80a642) on random answers, with labels turned supported one by one as ``ground_answer`` does, and the work
counted (findings read, not time) on answers of growing size.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import combinations, pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import grounding, own_lists
from verification.engine.runs.evidence import build_evidence
from verification.engine.runs.findings import Finding
from verification.engine.runs.grounding import ground_answer
from verification.engine.runs.mentions import Mention
from verification.engine.runs.messages import parse_run
from verification.engine.runs.numeric import accepts
from verification.engine.runs.own_lists import AnswerAmounts
from verification.engine.runs.records import MAX_OPERANDS
from verification.engine.text import lower

_MAX = 40
_TERMS = 12


# The old forms (own_lists.py and grounding.py at e80a642).
def _old_top_level_list_above(f: Finding, amounts: list[Finding], answer: str) -> bool:
    m = f.mention
    ordered = sorted(amounts, key=lambda g: g.mention.start)
    starts = [g.mention.start for g in ordered]

    def first_on(start: int, stop: int) -> Finding | None:
        i = bisect_left(starts, start)
        return ordered[i] if i < len(starts) and starts[i] < stop else None

    end = answer.rfind("\n", 0, m.start)
    items: list[tuple[int, int, bool, int]] = []
    while end > 0 and len(items) <= 4 * _TERMS:
        start = answer.rfind("\n", 0, end) + 1
        line = answer[start:end]
        stop, end = end, start - 1
        if not line.strip():
            continue
        mark = own_lists._MARKED.match(line)
        if mark is None:
            if items and own_lists._GROUP_HEADING.fullmatch(line) and first_on(start, stop) is None:
                continue
            break
        body = line[mark.end(1) :].lstrip("*")
        items.append((len(mark.group(1).expandtabs(4)), start, body[:1].isdigit(), stop))
    if len(items) < 3:
        return False
    top = min(width for width, _, _, _ in items)
    tops = [(start, numbered, stop) for width, start, numbered, stop in items if width == top]
    if len(tops) == len(items):
        return False
    total, lines = 0.0, 0
    for start, numbered, stop in tops:
        if numbered != tops[0][1]:
            break
        first = first_on(start, stop)
        if first is None or first.label != "SUPPORTED":
            return False
        total += abs(first.mention.value or 0.0)
        lines += 1
        if lines > _TERMS:
            return False
    return lines >= 2 and accepts(m, total)


def _old_listed_total(f: Finding, findings: list[Finding], answer: str) -> bool:
    m = f.mention
    sentence = lower(answer[f.sentence[0] : f.sentence[1]])
    if m.kind != "money" or m.value is None or not own_lists._TOTAL_WORDS.search(sentence):
        return False
    amounts = [
        g
        for g in findings
        if g is not f and g.mention.kind == "money" and g.label == "SUPPORTED" and g.mention.value is not None
    ][:_MAX]
    before = [g for g in amounts if g.mention.end <= m.start]
    after = [g for g in amounts if g.mention.start >= m.end]
    for run in (before[::-1], after):
        total = 0.0
        for n, g in enumerate(run[:_TERMS]):
            total += abs(g.mention.value or 0.0)
            if n >= 1 and accepts(m, total):
                return True
    money = [g for g in findings if g is not f and g.mention.kind == "money" and g.mention.value is not None]
    if own_lists._priced_list_above(f, money[:_MAX], answer) or _old_top_level_list_above(f, money, answer):
        return True
    noun = own_lists._TOTAL_OF.search(sentence)
    if noun is None:
        return False
    stem = noun.group(1)
    last_of: dict[tuple[int, int], float] = {}
    for g in before:
        if g.sentence != f.sentence and stem in lower(answer[g.sentence[0] : g.sentence[1]]):
            last_of[g.sentence] = abs(g.mention.value or 0.0)
    return 2 <= len(last_of) <= _TERMS and accepts(m, sum(last_of.values()))


def _old_listed_changes(f: Finding, findings: list[Finding], answer: str) -> str:
    m = f.mention
    if m.kind != "money" or m.value is None or ("→" not in answer and ">" not in answer):
        return ""
    amounts = [
        g for g in findings if g.mention.kind == "money" and g.mention.value is not None and g is not f
    ][:_MAX]
    change, pairs = 0.0, 0
    for a, b in pairwise(amounts):
        if a.label != "SUPPORTED" or b.label != "SUPPORTED":
            continue
        if own_lists._ARROW.fullmatch(answer, a.mention.end, b.mention.start):
            change += (b.mention.value or 0.0) - (a.mention.value or 0.0)
            pairs += 1
    if not pairs:
        return ""
    line = own_lists._line_of(answer, m.start)
    if (
        pairs >= 2
        and own_lists._CHANGE_WORDS.search(lower(answer[f.sentence[0] : f.sentence[1]]))
        and accepts(m, abs(change))
    ):
        return "the sum of the changes the answer lists"
    if not own_lists._NEW_TOTAL.search(line):
        return ""
    for g in amounts:
        if g.mention.end > m.start:
            break
        told = g.label == "SUPPORTED" and own_lists._TOTAL_WORDS.search(
            own_lists._line_of(answer, g.mention.start)
        )
        if told and accepts(m, abs(g.mention.value or 0.0) + change):
            return "the told total plus the changes the answer lists"
    return ""


def _old_sentence_amounts(f: Finding, findings: list[Finding]) -> list[Finding]:
    return [
        g
        for g in findings
        if g is not f
        and g.mention.kind == "money"
        and g.label == "SUPPORTED"
        and g.mention.value is not None
        and g.sentence == f.sentence
    ]


def _old_told_gap(f: Finding, findings: list[Finding], answer: str) -> bool:
    m = f.mention
    if m.kind != "money" or m.value is None:
        return False
    same = _old_sentence_amounts(f, findings)
    limit = next((g for g in same if g.mention.start >= m.end), None)
    if limit is None or not own_lists._GAP_TO.fullmatch(lower(answer[m.end : limit.mention.start])):
        return False
    bound = abs(limit.mention.value or 0.0)
    return any(accepts(m, abs(abs(g.mention.value or 0.0) - bound)) for g in same if g is not limit)


def _old_told_sum(f: Finding, findings: list[Finding], answer: str) -> bool:
    m = f.mention
    if m.kind != "money" or m.value is None:
        return False
    terms = _old_sentence_amounts(f, findings)[:_MAX]
    for i, first in enumerate(terms):
        total = abs(first.mention.value or 0.0)
        for prev, g in pairwise(terms[i : i + _TERMS]):
            if prev.mention.end <= m.start < g.mention.start:
                break
            gap = lower(answer[prev.mention.end : g.mention.start])
            if own_lists._PLUS.fullmatch(gap):
                total += abs(g.mention.value or 0.0)
            elif own_lists._MINUS.fullmatch(gap):
                total -= abs(g.mention.value or 0.0)
            else:
                break
            if accepts(m, abs(total)):
                return True
    return False


def _old_rounded_difference(f: Finding, findings: list[Finding]) -> bool:
    m = f.mention
    if m.kind != "money" or m.value is None or m.hedge != "about" or m.decimals:
        return False
    told = [
        abs(g.mention.value or 0.0)
        for g in findings
        if g.mention.kind == "money"
        and g.label == "SUPPORTED"
        and g.mention.value is not None
        and g.mention.end <= m.start
    ][:_MAX]
    target = abs(m.value)
    return any(abs(abs(a - b) - target) <= 0.5 for a, b in combinations(told, 2))


def _old_item_start(answer: str, pos: int) -> int:
    start = 0
    for m in grounding._ITEM_HEAD.finditer(answer, 0, pos):
        start = m.start()
    return start


# Random answers: amounts, the words the look-ups read, list lines, headings, sentence ends.
_TOKENS = [
    "$10.00", "$4.50", "$5.50", "$14.50", "$20", "$5", "$2.50", "$1,130.85", "$950", "$180.85", "7",
    " ", " ", ", ", ". ", "\n", "\n", "\n\n", "\n- ", "\n1. ", "\n2. ", "\n   - ", "**Total:** ",
    "Total refund: ", "total ", "refund ", " plus ", " + ", " minus ", " over your ", " → ", " -> ",
    "difference ", "new total ",
    "about ", "around ", "**To return:**", "saves ", "in all ", "Refund: ", "(", ")",
]  # fmt: skip
_MONEY = re.compile(r"(about |around )?\$(\d[\d,]*)(\.\d\d)?")


def _findings(text: str, labels: list[str], cuts: list[int]) -> list[Finding]:
    """Findings of the text's amounts (and of its bare numbers), in answer order, with sentences cut at
    the given places (and at the sentence ends the text has)."""
    ends = sorted({*(c % (len(text) + 1) for c in cuts), *(m.end() for m in re.finditer(r"[.\n]", text))})
    bounds = [0, *ends, len(text)]
    sentences = [(a, b) for a, b in pairwise(bounds) if a < b] or [(0, len(text))]

    def sentence_of(pos: int) -> tuple[int, int]:
        return next((s for s in sentences if s[0] <= pos < s[1]), sentences[-1])

    found: list[Finding] = []
    spans: list[tuple[int, int, Mention]] = []
    for m in _MONEY.finditer(text):
        value = float(m.group(2).replace(",", "") + (m.group(3) or ""))
        hedge = "about" if m.group(1) else None
        start = m.start(2) - 1
        spans.append(
            (start, m.end(), Mention("money", start, m.end(), text[start : m.end()], value=value,
                                     currency="$", decimals=2 if m.group(3) else 0, hedge=hedge))
        )  # fmt: skip
    for m in re.finditer(r"(?<![\d$,.])\d+(?![\d,.])", text):
        spans.append(
            (m.start(), m.end(), Mention("number", m.start(), m.end(), m.group(), value=float(m.group())))
        )
    spans.sort(key=lambda s: s[0])
    for i, (start, _, mention) in enumerate(spans):
        found.append(Finding(mention, labels[i % len(labels)], sentence_of(start)))
    return found


_CHECKS = [
    ("listed_total", own_lists.listed_total, _old_listed_total),
    ("listed_changes", own_lists.listed_changes, _old_listed_changes),
    ("told_gap", own_lists.told_gap, _old_told_gap),
    ("told_sum", own_lists.told_sum, _old_told_sum),
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), max_size=40),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=7),
    st.lists(st.integers(0, 400), max_size=4),
    st.lists(st.booleans(), min_size=1, max_size=9),
)
def test_the_indexed_look_ups_give_the_old_answers(
    tokens: list[str], labels: list[str], cuts: list[int], turns: list[bool]
) -> None:
    text = "".join(tokens)
    findings = _findings(text, labels, cuts)
    index = AnswerAmounts(text, findings)
    # As ground_answer does: read each finding in turn, turn some supported, add them before the next read.
    for at, f in enumerate(findings):
        if at:
            index.supported(at - 1)
        for name, new, old in _CHECKS:
            assert new(f, findings, text, index) == old(f, findings, text), (name, text, at)
            assert new(f, findings, text) == old(f, findings, text), (name, text, at)
        assert own_lists.rounded_difference(f, findings, index) == _old_rounded_difference(f, findings), text
        before = f.mention.start
        starts = [g.mention.start for g in findings]
        assert grounding._earlier_supported(findings, before, starts, index) == grounding._earlier_supported(
            findings, before, starts
        )
        if f.label != "SUPPORTED" and turns[at % len(turns)]:
            f.label = "SUPPORTED"


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["\n", " ", "\t", "1", "12", "123", ".", ")", "a", "- ", "\n\n"]), max_size=30)
)
def test_the_item_heads_give_the_old_item_starts(tokens: list[str]) -> None:
    text = "".join(tokens)
    heads = grounding._item_heads(text)
    for pos in range(len(text) + 1):
        assert grounding._item_start_of(heads, pos) == _old_item_start(text, pos), (text, pos)


def _run_of(answer: str) -> list[dict[str, object]]:
    results = [{"orders": [{"id": f"W{i:05d}", "price": 10.0 + i, "fee": 2.5 * i} for i in range(12)]}]
    return make_run("What do I owe in total?", results, answer)


def test_the_context_facts_are_read_from_the_records_of_supported_values() -> None:
    # The findings of a real grounding (records behind the supported prices), each read both ways.
    answer = "".join(
        f"Order W{i:05d} costs ${10.0 + i:.2f} and a fee of ${2.5 * i:.2f}, ${13.0 + 3.5 * i:.2f} in total. "
        for i in range(1, 12)
    )
    run = parse_run(_run_of(answer))
    ev = build_evidence(run)
    findings = ground_answer(run.answer, ev)
    starts = [g.mention.start for g in findings]
    index = AnswerAmounts(run.answer, findings)
    sentences = sorted({f.sentence for f in findings})
    assert index.recorded_before(len(run.answer))
    for f in findings:
        for item in (None, 0, f.mention.start // 2):
            new = grounding._context_facts(findings, f, sentences, ev, item, starts, index)
            assert new == grounding._context_facts(findings, f, sentences, ev, item, starts), f.mention.text


def _work(n: int, shape: str) -> int:
    parts = []
    for i in range(n):
        price = f"${(i * 37) % 4999 + 1.25:.2f}"
        parts.append(
            f"- Item {i}: {price} in total\n" if shape == "lines" else f"Item {i} costs {price} in total. "
        )
    answer = "".join(parts)
    if shape == "one":
        answer = "Prices: " + ", ".join(f"${(i * 37) % 4999 + 1.25:.2f} total" for i in range(n)) + "."
    run = parse_run(_run_of(answer))
    work: list[int] = []
    ground_answer(run.answer, build_evidence(run), work=work)
    assert len(work) == 1
    return work[0]


def test_the_work_grows_linearly_with_the_amounts() -> None:
    # Four times the amounts, about four times the findings read (the old forms read 16 times as many).
    for shape in ("sentences", "lines", "one"):
        small, large = _work(150, shape), _work(600, shape)
        assert large <= 5 * max(small, 1), (shape, small, large)


def test_the_index_counts_the_findings_its_look_ups_read() -> None:
    text = "Total: $5.00 plus $3.00. New total: $8.00"
    found = _findings(text, ["SUPPORTED"], [])
    index = AnswerAmounts(text, found)
    assert index.reads == 0
    assert len(index.first_supported_money(found[0], 1)) == 1
    assert index.reads == 1
    assert MAX_OPERANDS > 2
