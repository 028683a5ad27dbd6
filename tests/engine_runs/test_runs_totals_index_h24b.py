"""Issue 14, h24b: the checks of totals read indexes built once per answer, with the same answers.

``grounding._named_total`` searched the line before each amount and summed the findings before it,
``_kind_total`` lowered the whole answer and read the results for each amount, ``_refunds_total`` read the
results for each amount, ``_context_facts`` read every supported finding before the amount's sentence,
``_restated_amounts`` compared each unsupported amount with every computed one, ``_cite_rivals`` gathered a
sentence's records for each contradicted value and ``_computed_total`` checked the whole answer again for
each bare number: each is quadratic in the amounts of a long answer. Checked here against their old forms
(kept below as the oracle, as they were at b33025d) on random answers, with labels turned supported one
by one as ``ground_answer`` does, and the work counted (findings read, not time) on answers of growing size.
"""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from tests.engine_runs.test_runs_amount_index_h23c import _findings
from verification.engine.runs import grounding
from verification.engine.runs.evidence import Evidence, build_evidence
from verification.engine.runs.findings import Finding
from verification.engine.runs.grounding import ground_answer
from verification.engine.runs.messages import parse_run
from verification.engine.runs.numeric import accepts
from verification.engine.runs.own_lists import AnswerAmounts, listed_total
from verification.engine.text import lower


# The old forms (grounding.py at b33025d).
def _old_named_total(answer: str, findings: list[Finding], f: Finding) -> str:
    m = f.mention
    assert m.value is not None
    line_start = answer.rfind("\n", 0, m.start) + 1
    named = grounding._TOTAL_OF.search(lower(answer[line_start : m.start]))
    if named is None:
        return ""
    kind = named.group(1)
    total, n = 0.0, 0
    for g in findings:
        if g.mention.end > line_start:
            break
        if g.label != "SUPPORTED" or g.mention.kind != "money" or g.mention.value is None:
            continue
        before = lower(answer[max(0, g.mention.start - 24) : g.mention.start])
        if re.search(rf"\b{re.escape(kind)}s?\b\W*(?:of\W*)?$", before):
            total += abs(g.mention.value)
            n += 1
    if n >= 2 and abs(total - abs(m.value)) < 0.005:
        return f"the total of the amounts the answer gives as {kind}"
    return ""


def _old_records_total(m: Any, records: dict[Any, None], ev: Evidence) -> bool:
    by_message: dict[int, list[tuple[Any, ...]]] = {}
    for rec in records:
        by_message.setdefault(rec[0], []).append(rec[1])
    sums: dict[tuple[Any, ...], dict[Any, list[float]]] = {}
    for x in ev.numbers:
        where = by_message.get(x.message_index)
        if where is None or x.source != "tool" or not isinstance(x.path, tuple):
            continue
        for path in where:
            if x.path[: len(path)] == path and len(x.path) > len(path):
                key = tuple(k for k in x.path[len(path) :] if isinstance(k, str))
                sums.setdefault(key, {}).setdefault((x.message_index, path), []).append(x.value)
    for per_record in sums.values():
        once = len(per_record) == len(records) and all(len(v) == 1 for v in per_record.values())
        if once and accepts(m, sum(v[0] for v in per_record.values())):
            return True
    return False


def _old_kind_total(answer: str, findings: list[Finding], f: Finding, ev: Evidence) -> str:
    m = f.mention
    if m.value is None:
        return ""
    s0, s1 = f.sentence
    if grounding._KIND_TOTAL.search(lower(answer[s0:s1])) is None:
        return ""
    counts = [
        g.mention
        for g in findings
        if g.sentence == f.sentence
        and g.mention.end <= m.start
        and g.mention.kind in ("number", "count")
        and g.mention.noun
        and g.mention.value is not None
        and 2 <= g.mention.value <= 12
    ]
    low = lower(answer)
    for c in counts:
        noun = lower(c.noun or "")
        kinds = {noun, *grounding._singular_tokens([noun])}
        if noun.endswith("es"):
            kinds.add(noun[:-2])
        before = grounding._STATE_BEFORE_NOUN.match(low, c.end) if len(low) == len(answer) else None
        if before is not None and before.group(2) == noun and before.group(1) not in grounding.FUNCTION_WORDS:
            kinds.add(before.group(1))
        groups: dict[Any, dict[Any, None]] = {}
        for s in ev.strings:
            if (
                s.source == "tool"
                and s.record is not None
                and isinstance(s.value, str)
                and isinstance(s.path, tuple)
                and lower(s.value) in kinds
            ):
                where = (
                    s.list_path if s.list_path is not None else tuple(k for k in s.path if isinstance(k, str))
                )
                groups.setdefault(where, {})[s.record] = None
        for records in groups.values():
            if len(records) != c.value:
                continue
            if _old_records_total(m, records, ev):
                return "the total of the items of the kind its sentence counts"
    return ""


def _old_refunds_total(answer: str, f: Finding, ev: Evidence) -> str:
    m = f.mention
    if m.value is None or grounding._REFUND_WORD.search(lower(answer[f.sentence[0] : f.sentence[1]])) is None:
        return ""
    records = {
        s.record
        for s in ev.strings
        if s.source == "tool"
        and s.record is not None
        and isinstance(s.value, str)
        and lower(s.value) == "refund"
    }
    if len(records) < 2:
        return ""
    amounts: dict[Any, list[float]] = {}
    for x in ev.numbers:
        if x.record in records and x.source == "tool" and isinstance(x.path, tuple):
            amounts.setdefault(x.record, []).append(x.value)
    seen: set[tuple[Any, float]] = set()
    total, n = 0.0, 0
    for rec, values in amounts.items():
        if len(values) != 1:
            continue
        key = (rec[1], values[0])
        if key not in seen:
            seen.add(key)
            total += abs(values[0])
            n += 1
    if n >= 2 and accepts(m, total):
        return "the sum of the refunds the results record"
    return ""


def _old_restated_amounts(findings: list[Finding]) -> None:
    computed = [
        g
        for g in findings
        if g.label == "SUPPORTED" and g.derived and g.mention.kind == "money" and g.mention.value is not None
    ]
    if not computed:
        return
    for f in findings:
        m = f.mention
        if f.label != "UNSUPPORTED" or m.kind != "money" or m.value is None:
            continue
        for g in computed:
            value = g.mention.value
            assert value is not None
            if g is not f and g.mention.currency == m.currency and abs(value - m.value) < 0.005:
                f.label, f.facts, f.derived = "SUPPORTED", g.facts, True
                f.reason = "the amount the answer computes, restated"
                break


def _old_cite_rivals(findings: list[Finding], ev: Evidence, matcher: Any = None) -> None:
    for f in findings:
        if f.label != "CONTRADICTED" or f.facts:
            continue
        m = f.mention
        if m.kind == "time":
            pool = ev.times
        elif m.kind == "year" and not ev.dates:
            # The years the run states as numbers (a founding year, a season).
            pool = [
                x
                for x in ev.numbers
                if x.unit == "year_of_date" or (x.unit is None and 1500 <= x.value <= 2100)
            ]
        elif m.kind in ("date", "year"):
            pool = ev.dates
        elif m.kind == "id":
            shape = grounding._shape(m.text)
            pool = [x for x in ev.strings if grounding._shape(x.text) == shape]
        elif m.kind in grounding._NUMERIC:
            pool = [x for x in ev.numbers if x.unit == m.unit and x.unit != "year_of_date"]
            if not pool and m.noun:
                # "5 events" against the events list, "3-star" against ``stars``: the counted noun's values.
                nouns = grounding._noun_key(m.noun)
                pool = [x for n in nouns for x in ev.numbers_keyed(n)] + [
                    x for x in ev.counts if x.key_tokens & nouns
                ]
            if not pool and m.unit and matcher is not None:
                # "9 km" against figures in miles: the evidence of the same dimension.
                units = set(matcher._units_like(m.unit))
                pool = [x for x in ev.numbers if x.unit in units]
        elif m.kind == "entity":
            pool = ev.strings
        else:
            continue
        records = {
            r for g in findings if g.sentence == f.sentence and g.label == "SUPPORTED" for _, r in g.records
        }
        near = [x for x in pool if x.record is not None and x.record in records]
        if m.kind == "entity":
            # A swapped name: the strings of the item its sentence is about; without items (free text), the
            # evidence the rest of its sentence rests on, which names something else.
            near = near or [
                x
                for g in findings
                if g.sentence == f.sentence and g.label == "SUPPORTED" and g is not f
                for x in g.facts
                if x.kind == "string"
            ]
            pool = near
        f.facts = (near or list(pool))[: grounding._RIVAL_CITES]


# Lines that hold "total"s of every shape the search may meet at a cut: spaces, letters, digits after it.
_LINE_TOKENS = [
    "total",
    "Total",
    "TOTAL",
    " ",
    "  ",
    "\t",
    "refund",
    "s",
    "fee",
    "1",
    "_",
    ",",
    ":",
    "$5",
    "é",
    "\n",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_LINE_TOKENS), max_size=30))
def test_the_line_search_gives_the_search_of_the_cut_line(tokens: list[str]) -> None:
    text = "".join(tokens)
    index = AnswerAmounts(text, [])
    for cut in range(len(text) + 1):
        start = index.line_start(cut)
        assert start == text.rfind("\n", 0, cut) + 1
        old = grounding._TOTAL_OF.search(lower(text[start:cut]))
        new = grounding._total_of_before(index, start, cut)
        assert (old and (old.span(), old.group(1))) == (new and (new.span(), new.group(1))), (text, cut)


_TOKENS = [
    "Refund of ", "refund: ", "Total refunds: ", "total refund ", "total fees: ", "Fee ", "fees of ",
    "total\n",
    "$10.00", "$5.50", "$15.50", "$4.50", "$20.00", "$25.50", " ", ", ", ". ", "\n", "- ", "é ", "2 ",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_TOKENS), max_size=40),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=7),
    st.lists(st.integers(0, 400), max_size=4),
    st.lists(st.booleans(), min_size=1, max_size=9),
)
def test_the_named_totals_give_the_old_answers(
    tokens: list[str], labels: list[str], cuts: list[int], turns: list[bool]
) -> None:
    text = "".join(tokens)
    findings = _findings(text, labels, cuts)
    index = AnswerAmounts(text, findings)
    # As ground_answer does: read each amount in turn, some turned supported after their reading.
    for at, f in enumerate(findings):
        if at:
            index.supported(at - 1)
        if f.mention.value is not None:
            old = _old_named_total(text, findings, f)
            assert grounding._named_total(text, findings, f, index) == old, (text, at)
            assert grounding._named_total(text, findings, f) == old, (text, at)
        if f.label != "SUPPORTED" and turns[at % len(turns)]:
            f.label = "SUPPORTED"


def _results() -> list[dict[str, Any]]:
    items = [{"name": "Grill" if k % 2 else "Kettle", "price": 40.0 + 7 * k} for k in range(6)]
    history = [{"transaction_type": "refund" if k % 3 else "payment", "amount": 100.0 + k} for k in range(6)]
    orders = [{"id": f"W{i:05d}", "price": 10.0 + i, "fee": 2.5 * i} for i in range(8)]
    return [{"orders": orders}, {"order_id": "W00001", "items": items}, {"payment_history": history}]


_SENTENCES = [
    "Order W00003 costs $13.00 and a fee of $7.50, $20.50 in total.",
    "Order W00005 costs $15.00 in total.",
    "It contained 2 grills with a total price of $110.00.",
    "It contained 3 grills with a total price of $174.00.",
    "It contained 2 kettles with a total price of $94.00.",
    "Your refund of $510.00 is on its way.",
    "Your refund of $511.00 is on its way.",
    "Total refunds: $30.00.",
    "\n1. Order W00002: $12.00\n",
    "\n\n",
    "The fee is $9.99.",
    "You owe 27.5 in all.",
    "Order W00004 is $14.00 and W00006 is $16.00, so $30.00 together.",
]


def _grounded(parts: list[int]) -> tuple[str, list[Finding], Evidence]:
    answer = " ".join(_SENTENCES[p] for p in parts)
    run = parse_run(make_run("What is the total?", _results(), answer))
    ev = build_evidence(run)
    return run.answer, ground_answer(run.answer, ev, question="What is the total?"), ev


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, len(_SENTENCES) - 1), min_size=1, max_size=10))
def test_the_kind_and_refund_totals_and_context_facts_give_the_old_answers(parts: list[int]) -> None:
    answer, findings, ev = _grounded(parts)
    starts = [g.mention.start for g in findings]
    assert starts == sorted(starts)
    index = AnswerAmounts(answer, findings, starts)
    sentences = sorted({f.sentence for f in findings})
    heads = grounding._item_heads(answer)
    for f in findings:
        if f.mention.value is None:
            continue
        assert grounding._kind_total(answer, findings, f, ev, index) == _old_kind_total(
            answer, findings, f, ev
        )
        assert grounding._refunds_total(answer, f, ev, index) == _old_refunds_total(answer, f, ev)
        for item in (None, 0, grounding._item_start_of(heads, f.mention.start)):
            old = grounding._context_facts(findings, f, sentences, ev, item)
            assert grounding._context_facts(findings, f, sentences, ev, item, starts, index) == old
        if f.label == "SUPPORTED":
            continue
        known = grounding._records_known(findings)
        old_total = grounding._computed_total(f, findings, sentences, ev)
        assert (
            grounding._computed_total(f, findings, sentences, ev, known, AnswerAmounts(answer, findings))
            == old_total
        )


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, len(_SENTENCES) - 1), min_size=1, max_size=10),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=5),
    st.lists(st.booleans(), min_size=1, max_size=5),
)
def test_the_context_facts_follow_findings_turned_supported(
    parts: list[int], labels: list[str], turns: list[bool]
) -> None:
    # Labels turned supported one by one (the recorded list grows in its middle), each read both ways.
    answer, findings, ev = _grounded(parts)
    context_facts_both_ways(answer, findings, ev, labels, turns)


def context_facts_both_ways(
    answer: str, findings: list[Finding], ev: Evidence, labels: list[str], turns: list[bool]
) -> None:
    """``_context_facts`` with one index against the walk of findings, for each finding (items none, 0 and
    half its start), the labels set from ``labels`` and turned supported one by one as ``turns`` says."""
    for i, f in enumerate(findings):
        f.label = labels[i % len(labels)]
    starts = [g.mention.start for g in findings]
    index = AnswerAmounts(answer, findings, starts)
    sentences = sorted({f.sentence for f in findings})
    for at, f in enumerate(findings):
        if at:
            index.supported(at - 1)
        for item in (None, 0, f.mention.start // 2):
            old = grounding._context_facts(findings, f, sentences, ev, item)
            assert grounding._context_facts(findings, f, sentences, ev, item, starts, index) == old
        if f.label != "SUPPORTED" and turns[at % len(turns)] and f.facts:
            f.label = "SUPPORTED"


def _clone(f: Finding) -> Finding:
    # A copy the functions under test change apart from ``f`` (its own list of facts; the mention and the
    # facts themselves are shared: neither function changes them). ``copy.copy`` cannot copy a compiled
    # class (mypyc), so the copy is built.
    return Finding(f.mention, f.label, f.sentence, list(f.facts), f.reason, f.derived, f._records)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["$10.00", "$5.50", "$5.504", "$5.496", "$15.50", " ", ". ", "€5.50", "$0.00"]),
        max_size=30,
    ),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=7),
    st.lists(st.booleans(), min_size=1, max_size=7),
)
def test_the_restated_amounts_give_the_old_labels(
    tokens: list[str], labels: list[str], derived: list[bool]
) -> None:
    text = "".join(tokens).replace("€", "$")
    findings = _findings(text, labels, [])
    for i, f in enumerate(findings):
        f.derived = derived[i % len(derived)]
        if tokens and "€" in "".join(tokens) and i % 2:
            f.mention.currency = "€"
    old = [_clone(f) for f in findings]
    _old_restated_amounts(old)
    grounding._restated_amounts(findings)
    assert [(f.label, f.derived, f.reason, f.facts) for f in findings] == [
        (f.label, f.derived, f.reason, f.facts) for f in old
    ]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, len(_SENTENCES) - 1), min_size=1, max_size=10),
    st.lists(st.booleans(), min_size=1, max_size=5),
)
def test_the_rivals_are_cited_as_before(parts: list[int], flips: list[bool]) -> None:
    _, findings, ev = _grounded(parts)
    for i, f in enumerate(findings):
        if flips[i % len(flips)] and f.label != "SUPPORTED":
            f.label, f.facts = "CONTRADICTED", []
    old = [_clone(f) for f in findings]
    _old_cite_rivals(old, ev)
    grounding._cite_rivals(findings, ev)
    assert [f.facts for f in findings] == [f.facts for f in old]


def _work(n: int, shape: str) -> int:
    if shape == "kinds":
        answer = "".join(
            f"Order W{i:05d} contained 2 grills with a total price of ${i + 0.25:.2f}. " for i in range(n)
        )
    elif shape == "named":
        answer = "".join(
            f"- Refund of ${2 * i + 1.25:.2f}\n- Total refunds for order {i}: ${i + 0.5:.2f}\n"
            for i in range(n // 2)
        )
    else:  # many amounts from few records, each sentence with a total
        answer = "".join(
            f"Order W{i % 8:05d} costs ${10.0 + i % 8:.2f} and a fee of ${2.5 * (i % 8):.2f}, "
            f"${i + 0.75:.2f} in total. "
            for i in range(n // 3)
        )
    run = parse_run(make_run("What do I owe?", _results(), answer))
    work: list[int] = []
    ground_answer(run.answer, build_evidence(run), work=work)
    return work[0]


def test_the_work_grows_linearly_with_the_amounts() -> None:
    # Four times the amounts, about four times the findings read (the old forms read ~16 times as many).
    for shape in ("kinds", "named", "records"):
        small, large = _work(150, shape), _work(600, shape)
        assert large <= 5 * max(small, 1), (shape, small, large)


_LIST_TOKENS = [
    "Total: ", "total ", "Total refunds: ", "Refund: ", "- ", "1. ", "  - ", "**To return:**\n", "$10.00",
    "$5.50", "$15.50", "$4.50", "$20.00", " → ", " ", ", ", ". ", "\n", "\n\n",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_LIST_TOKENS), max_size=40),
    st.lists(st.sampled_from(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), min_size=1, max_size=7),
    st.lists(st.sampled_from(["SUPPORTED", "CONTRADICTED", "facts"]), min_size=1, max_size=9),
)
def test_the_listed_totals_follow_values_relabelled_either_way(
    tokens: list[str], labels: list[str], changes: list[str]
) -> None:
    # As records.check_records does: one index for the answer, supported values turned contradicted (or
    # left supported without facts) one by one, each noted; every look-up as a fresh index would read it.
    text = "".join(tokens)
    findings = _findings(text, labels, [])
    index = AnswerAmounts(text, findings)
    for at, f in enumerate(findings):
        assert listed_total(f, findings, text, index) == listed_total(f, findings, text), (text, at)
        change = changes[at % len(changes)]
        if change == "facts":
            f.facts = []
        else:
            f.label = change
        index.relabelled(at)
