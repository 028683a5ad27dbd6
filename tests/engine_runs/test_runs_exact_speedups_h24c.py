"""Cheaper steps of the run verifier that must answer exactly as the code they replace (issue 14, h24c:
short-run latency, exact savings only). Each test compares the new code with the old one on made-up inputs
and pins what the new code no longer does."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import untrusted.jsonbounds as jsonbounds
from untrusted.jsonbounds import loads as bounded_loads
from verification.engine.runs import messages
from verification.engine.runs.messages import _containers_within, _maybe_json, _python_literal, parse_run


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
