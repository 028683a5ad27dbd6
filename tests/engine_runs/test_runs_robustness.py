import json

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(max_size=40),
    st.sampled_from(
        ["2024-03-04", "2024-03-04T10:15:00+02:00", "330 meters", "in_stock", "USD", "1887-1889"]
    ),
)
_json = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=5),
        st.dictionaries(st.text(min_size=1, max_size=12), children, max_size=5),
    ),
    max_leaves=30,
)
_words = st.sampled_from(
    ["It", "is", "about", "$1,200", "€5", "330 feet", "March 4", "10:15 AM", "rose", "fell", "Paris", "NYC",
     "in stock", "not archived", "3 items", "22%", "-2.3°F", "https://x.example/a", "ORD-1", "won", "4-1",
     "2024-03-04", "two", "half an hour", "(", ")", ".", ",", ";", "exactly 6 km", "Tuesday,"]
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(st.lists(_json, min_size=1, max_size=3), st.lists(_words, min_size=1, max_size=40))
def test_it_never_crashes_and_keeps_spans_inside_the_answer(results, words):
    answer = " ".join(words)
    report = verify_run(make_run("What do the results say?", results, answer))
    json.dumps(report.to_dict())
    for claim in report.claims:
        a, b = claim.span
        assert 0 <= a < b <= len(answer)
        assert answer[a:b] == claim.text
        assert claim.label in ("SUPPORTED", "CONTRADICTED", "UNSUPPORTED")
    assert report.action in ("emit", "revise", "block")
    assert 0.0 <= report.overall_score <= 1.0


def test_it_reads_a_number_padded_with_control_separators() -> None:
    from verification.engine.runs import verify_run

    messages = [
        {"role": "user", "content": "How many?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "count", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"n": "0\\u001f"}'},
        {"role": "assistant", "content": "There are 0 items."},
    ]  # fmt: skip
    report = verify_run(messages)
    assert report.run_id
