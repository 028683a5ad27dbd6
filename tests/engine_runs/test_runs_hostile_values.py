"""``verify_run`` returns a report for any run made of hostile values, never an exception.

Dates no calendar has ("2024-02-30", "May 32"), the calendar's ends (9999-12-31, 0001-01-01), overflowing
and non-finite numbers, and the phrases the later checks look for (relative days, totals, ratings, route
changes, added bags, policy windows) are mixed into tool results, the system prompt and the answer. A
fuzzing of ``verify_run`` with these values found three crashes that reached the API as a 500 (a
relative day past 9999-12-31, days counted from 2024-02-30, the weekday of February 30); they are kept
as explicit examples, since random draws meet them only now and then. A fourth came from fuzzing real runs
of other models with hostile strings: a numeral too long for a float became infinity.
"""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import run_with_calls
from verification.engine.runs import verify_run

VALUES = [
    "9999-12-31", "0001-01-01", "2024-02-30", "99:99", "1e308", "-1e308", "NaN", "Infinity", "$1e999",
    "HAT001", "JFK", "LAX", "0", "-0", "１２３", "2024-05-13T25:61:00", "12/31/9999", "May 32, 2024",
    "24:00:00", "+99999999999999999999", "\u0000", "𝟗𝟗", "9999-12-31T23:59:59", "December 31, 9999",
    "Friday, February 30, 2024", "Jan 1, 1", "1" * 400, "2026-07-12T09:10:00+99:99", "9:10 AM PDT",
    "0000-00-00T00:00:00Z", "June 31–33, 2026", "ending 0000000000000000000000000001",
]  # fmt: skip
PHRASES = [
    "Tomorrow", "Yesterday", "Next Monday", "in 99 days", "Total:", "Flight", "from", "to", "on", "$",
    "per passenger", "within 24 hours", "rated", "change the destination from JFK to LAX",
    "add 2 checked bags", "Maria:", "HAT001 & HAT002", "**Total Price:**", "- ", "\n", "How many",
    "more than 48 hours ago", "4.5", "(rated 4.9", "lasts 12 days",
]  # fmt: skip
KEYS = ["date", "price", "origin", "destination", "flight_number", "rating", "total", "name", "count"]

_value = st.one_of(st.sampled_from(VALUES), st.integers(-(10**20), 10**20), st.floats(allow_nan=True))
_record = st.dictionaries(st.sampled_from(KEYS), _value, min_size=1, max_size=6)
_result = st.one_of(
    _record,
    st.lists(_record, min_size=1, max_size=3),
    st.builds(lambda r: {"flights": [r]}, _record),
    st.builds(lambda v: "name,score,note\nAnna," + v + ",x", st.sampled_from(VALUES)),
)
_answer = st.lists(st.sampled_from(PHRASES + VALUES), min_size=1, max_size=30).map(" ".join)
_today = st.sampled_from(["9999-12-31 23:59:59", "0001-01-01 00:00:00", "2024-05-15 15:00:00"])


@settings(max_examples=500, deadline=None)
# The three crashes it was written for, kept as examples so that each run asks them.
@example(
    today="2024-05-15 15:00:00",
    result={"start": "2024-02-30", "end": "2024-03-01", "checkout": "2024-03-13"},
    answer="The stay lasts 19 days.",
    ask="JFK",
)
@example(
    today="2024-05-15 15:00:00",
    result={"flight_number": "HAT001", "date": "2024-02-30"},
    answer="Flight HAT001 leaves on Friday, February 30, 2024.",
    ask="JFK",
)
@example(today="9999-12-31 23:59:59", result={"date": "9999-12-31"}, answer="Tomorrow it leaves.", ask="JFK")
# A fourth, found by fuzzing real runs with hostile strings (2026-11-27): a numeral too long for a float is
# infinity, and the labelled-count check took int() of it.
@example(
    today="2024-05-15 15:00:00",
    result={"flight_number": "HAT001", "total_baggages": 1, "count": 2},
    answer="Flight HAT001:\n- **Checked bags:** " + "1" * 400,
    ask="JFK",
)
@given(today=_today, result=_result, answer=_answer, ask=st.sampled_from(VALUES))
def test_it_reports_on_any_run_of_hostile_values(today: str, result: Any, answer: str, ask: str) -> None:
    policy = f"timestamp: {today}. Travel insurance is $30 per passenger. Refunds within 24 hours."
    call = ("search_direct_flight", {"date": ask}, result)
    msgs = run_with_calls("How many flights, best rated?", [call], answer)
    report = verify_run([{"role": "system", "content": policy}, *msgs])
    assert 0.0 <= report.overall_score <= 1.0
    assert report.action in ("emit", "annotate", "revise", "refuse", "block")
