"""Cheaper steps of the run verifier that must answer exactly as the code they replace (issue 14, h24c:
short-run latency, exact savings only). Each test compares the new code with the old one on made-up inputs
and pins what the new code no longer does."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import untrusted.jsonbounds as jsonbounds
from untrusted.jsonbounds import loads as bounded_loads
from verification.engine.runs import mentions, messages, table_rows, turns
from verification.engine.runs.messages import _containers_within, _maybe_json, _python_literal, parse_run
from verification.engine.text import lower


def _old_maybe_json(text: str) -> Any:
    # ``_maybe_json`` as it stood: the nesting measured before every parse.
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            return bounded_loads(text)
        except ValueError:
            return _python_literal(stripped)
    return None


def _same(a: Any, b: Any) -> bool:
    # NaN is not equal to itself: compare the dumps, which also tell 1 from 1.0 and keep the key order.
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)


_LEAVES = st.one_of(
    st.integers(-5, 5),
    st.floats(allow_nan=False),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "[", "]", "{", "}", "[[{", '"', "\\", '\\"[', "a]b", "x"]),
    st.text(max_size=6),
)
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=3), inner, max_size=5)
    ),
    max_leaves=120,
)


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


@settings(max_examples=200, deadline=None)
@given(_VALUES, st.integers(0, 80), st.sampled_from(["", " ", "\n"]))
def test_it_reads_a_json_text_as_the_measure_then_parse_did(value: Any, depth: int, pad: str) -> None:
    # Wide values (many brackets) nested to past MAX_DEPTH, brackets in strings, both kinds of container.
    text = pad + json.dumps(_nested(depth, [value, value, {"v": value}]))
    assert _same(_maybe_json(text), _old_maybe_json(text))


def test_it_reads_the_texts_the_parse_alone_would_misjudge_as_before() -> None:
    wide = ", ".join(["[1]"] * 70)
    deep = "[" * 66 + "1" + "]" * 66
    cases = [
        # A repeated key drops a deep value: the parsed value is shallow, the text is not (refused as JSON,
        # then read as a Python literal, which fails on ``true``).
        '{"a": ' + deep + ', "a": true, "b": [' + wide + "]}",
        '{"a": ' + deep + ', "a": 1, "b": [' + wide + "]}",
        # Brackets inside strings make the count larger than the containers, in either direction of depth.
        '{"s": "' + "[" * 80 + '", "t": [' + wide + "]}",
        '{"s": "' + "]" * 80 + '", "t": ' + deep + "}",
        # Deeper than MAX_DEPTH, valid and invalid; a Python literal; a top-level string of brackets.
        deep,
        deep[:-1],
        "[" + "[" * 70 + "'a'" + "]" * 70 + "]",
        "{'a': [" + wide + "]}",
        '["' + "[" * 90 + '"]',
        "[" + wide + "]",
        "[" + wide + ",]",
        "[" + wide + "] trailing",
        # Past the parse-first bound: measured first, as before.
        "[" + ", ".join(["[1]"] * 1200) + "]",
        "[" * 1200 + "]" * 1200,
    ]
    rng = random.Random(24)
    for _ in range(300):
        # Random texts of brackets, quotes, backslashes and values: mostly invalid, sometimes deep.
        cases.append("[" + "".join(rng.choice('[]{}"\\,1:a ') for _ in range(rng.randrange(60, 400))))
    for text in cases:
        assert _same(_maybe_json(text), _old_maybe_json(text)), text[:80]


def test_it_falls_back_to_the_measure_when_the_parser_runs_out_of_recursion(monkeypatch: Any) -> None:
    # The first parse runs out of recursion (a host deep in its own stack): the text is measured, then
    # parsed again, as before.
    text = "[" + ", ".join(["[1]"] * 70) + "]"
    real = json.loads
    calls: list[str] = []

    def short_of_stack(t: str, **kwargs: Any) -> Any:
        calls.append(t)
        if len(calls) == 1:
            raise RecursionError
        return real(t, **kwargs)

    monkeypatch.setattr(json, "loads", short_of_stack)
    assert messages._parsed_first(text, text, 71) == [[1]] * 70
    assert calls == [text, text]


def test_it_does_not_measure_the_nesting_of_a_shallow_result(monkeypatch: Any) -> None:
    # Before, every result of more than MAX_DEPTH brackets went through the vectorised measure first.
    measured: list[int] = []
    real = jsonbounds.check_depth

    def counting(text: Any, *args: Any, **kwargs: Any) -> None:
        measured.append(len(text))
        real(text, *args, **kwargs)

    monkeypatch.setattr(jsonbounds, "check_depth", counting)
    rows = [{"id": i, "name": f"Item {i}", "tags": ["a", "b"]} for i in range(60)]
    run = [
        {"role": "user", "content": "List the items."},
        {"role": "tool", "tool_call_id": "c", "content": json.dumps({"items": rows})},
        {"role": "assistant", "content": "There are 60 items."},
    ]
    parsed = parse_run(run)
    assert parsed.results[0].data == {"items": rows}
    assert measured == []
    # A deep result is still measured before any parse.
    deep = "[" * 200 + "]" * 200
    parse_run([*run[:1], {**run[1], "content": deep}, run[2]])
    assert measured == [len(deep)]


def test_it_counts_containers_and_refuses_depth() -> None:
    assert _containers_within([], 1) == 1
    assert _containers_within([[]], 1) == -1
    assert _containers_within(_nested(64, 1), 64) == 64
    assert _containers_within(_nested(65, 1), 64) == -1
    assert _containers_within("[[[", 64) == 0
    assert _containers_within({"a": {"b": [1, [2]]}, "c": [{}]}, 64) == 6


_STATE_PIECES = [
    *sorted(
        {*mentions.STATE_PHRASES, *mentions._COPULAS, *list(mentions.STATUS_WORDS), *mentions._STATE_WORDS}
    ),
    *["not", "now", "is", "x", "é", "_", "1", "ab", "in", "on", "s", " ", "  ", "\n", "-", ":", ".", ","],
    *["I", "Is", "Status:", "ōn"],
]


def _scan(text: str) -> tuple[str, set[str]]:
    # What ``extract_mentions`` passes: the lower-cased text (or the text itself when lowering changes its
    # length) and its words.
    low = lower(text)
    if len(low) != len(text):
        low = text
    return low, set(mentions._LETTERS.findall(low))


def _spans(found: Any) -> list[tuple[int, int, str | None]]:
    return [(m.start(), m.end(), m.lastgroup) for m in found]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_STATE_PIECES), max_size=16), st.text(max_size=3))
def test_it_finds_states_and_statuses_as_finditer_does(pieces: list[str], noise: str) -> None:
    text = noise.join(pieces)
    low, words = _scan(text)
    state = mentions._word_led_matches(mentions._STATE_RE, low, words & mentions._STATE_WORDS)
    assert _spans(state) == _spans(mentions._STATE_RE.finditer(low))
    status = mentions._word_led_matches(mentions._STATUS_RE, low, words & mentions._COPULA_FIRST)
    assert [(m.span(), m.span("w")) for m in status] == [
        (m.span(), m.span("w")) for m in mentions._STATUS_RE.finditer(low)
    ]


def test_it_finds_states_and_statuses_in_random_texts_as_finditer_does() -> None:
    rng = random.Random(24)
    alphabet = "abcdeilnorstuvwy -:.\n_1é"
    for _ in range(3000):
        if rng.random() < 0.5:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        else:
            text = rng.choice(" -.\n").join(rng.choice(_STATE_PIECES) for _ in range(rng.randrange(1, 12)))
        low, words = _scan(text)
        state = mentions._word_led_matches(mentions._STATE_RE, low, words & mentions._STATE_WORDS)
        assert _spans(state) == _spans(mentions._STATE_RE.finditer(low)), text
        status = mentions._word_led_matches(mentions._STATUS_RE, low, words & mentions._COPULA_FIRST)
        assert _spans(status) == _spans(mentions._STATUS_RE.finditer(low)), text


def test_every_state_and_copula_opens_with_a_whole_word_of_letters() -> None:
    # What ``_word_led_matches`` needs of the patterns: a match opens with one of the first words, a run of
    # a-z that no letter a-z follows. A later edit that adds a phrase of another shape fails here.
    for phrase in mentions.STATE_PHRASES:
        assert re.fullmatch(r"[a-z]+(?:[\s-][a-z]+)*", phrase), phrase
        assert re.split(r"[\s-]", phrase)[0] in mentions._STATE_WORDS
    for copula in mentions._COPULAS:
        assert re.fullmatch(r"[a-z]+(?: [a-z]+)*:?", copula), copula
        assert copula.split()[0].rstrip(":") in mentions._COPULA_FIRST
    assert mentions._STATE_RE.pattern.startswith("(?:(?:a(?<!\\w.)")
    assert mentions._STATUS_RE.pattern.startswith("(?:(?:a(?<!\\w.)")


_GATE_PIECES = [
    *["works", "work", "worked", "still works", "succeeded", "was successful", "were successful"],
    *["now works"],
    *["is still valid", "is still working", "has been successful", "have been successful", "works fine"],
    *["Ana Ruiz", "Li", "- ", "* ", "• ", ":", ": ", " 4", "-4", "4.5", "12", "\n", " ", "\t", "x", "A"],
    *["866", "346", "5800", ".", "1.", "a.", "866.346.5800", "٣", "12.345.6789", "succes", "valid"],
]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_GATE_PIECES), max_size=14))
def test_the_gates_never_hide_a_match(pieces: list[str]) -> None:
    text = "".join(pieces)
    if turns._WORKED.search(text):
        assert turns._may_say_it_worked(text)
    if table_rows._NAMED_VALUE.search(text):
        assert table_rows._NAMED_VALUE_TAIL.search(text)
    if mentions._DOTTED_PHONE.search(text):
        assert mentions._DOTTED_TAIL.search(text)


def test_the_gates_pass_what_they_guard_and_stop_the_rest() -> None:
    assert turns._may_say_it_worked("Your old password still works.")
    assert not turns._may_say_it_worked("Your password was reset.")
    assert table_rows._NAMED_VALUE_TAIL.search("Ana Ruiz: 4\nLi Wei: 5")
    assert not table_rows._NAMED_VALUE_TAIL.search("Ana Ruiz: four, at 10:30 AM")
    assert mentions._DOTTED_TAIL.search("Phone: 866.346.5800.")
    assert not mentions._DOTTED_TAIL.search("It costs 12.50 and 3.4 kg.")
    rng = random.Random(24)
    alphabet = "0123456789.:- \n\tAaRz٣"
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 40)))
        if table_rows._NAMED_VALUE.search(text):
            assert table_rows._NAMED_VALUE_TAIL.search(text), text
        if mentions._DOTTED_PHONE.search(text):
            assert mentions._DOTTED_TAIL.search(text), text


_DATE_PIECES = [
    *["may", "mayor", "mar", "march", "market", "sept", "sep", "tue", "tues", "tuesday", "mon", "monday"],
    *["sat", "saturn", "jun", "june", "dec", "decade", "wed", "wednesday", "thu", "thurs", "fri", "apr"],
    *["2024-05-13", "9/15", "15", "3rd", "of", "1st", "13th", "2026", " ", "  ", "\n", ",", ".", "-", "/"],
    *["–", "to", "a", "x", "é", "_", "٣", "May", "Mar", "on", "ōn", "amay", "may2", "2may", "12:30"],
]


def _old_date_starts(low: str) -> list[int]:
    # Every position where ``_DATE_START`` matches (the scan's candidates before h24c).
    return [i for i in range(len(low)) if mentions._DATE_START.match(low, i)]


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(_DATE_PIECES), max_size=16), st.sampled_from(["", " ", "-", "\n"]))
def test_it_finds_dates_from_digit_and_name_starts_as_finditer_does(pieces: list[str], glue: str) -> None:
    text = glue.join(pieces)
    low, words = _scan(text)
    found = mentions._date_matches(low, words)
    assert [(m.span(), m.groupdict()) for m in found] == [
        (m.span(), m.groupdict()) for m in mentions._DATE_PATTERN.finditer(low)
    ]
    # The candidates hold every start of the old pattern.
    digits = [i for i in range(len(low)) if mentions._DIGIT_DATE_START.match(low, i)]
    assert set(_old_date_starts(low)) <= set(digits) | set(mentions._name_starts(low, words))


def test_the_name_heads_are_every_name_branch_of_the_start_pattern() -> None:
    for name in (*mentions.MONTHS, *mentions.WEEKDAYS):
        assert re.fullmatch("[a-z]{3,}", name)
        assert name[:3] in mentions._NAME_HEADS
        assert mentions._DATE_START.match(name) and not mentions._DIGIT_DATE_START.match(name)
    for text in ("2024-05-13", "9/15", "15 march", "3rd of may", "1 jan"):
        assert mentions._DIGIT_DATE_START.match(text)
    assert mentions._name_starts("in may, mayor of mar-a-lago; amay", {"may", "mayor", "mar", "amay"}) == [
        3,
        8,
        17,
    ]
