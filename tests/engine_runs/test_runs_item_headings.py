"""Issue 14, false alarms: a heading that introduces the lines after it is about them, not the line before.

"2. **Return Train on 2024-06-24:**" after "- LYS to MRS, Train Number: IC402": the date is the return
train's (on the next line), but the wide window of ``records.best_record`` took the sentence before, whose
identifier named the outbound train, and the date was "another item's" (``records.best_record``). The runs
are made up for these tests.
"""

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _leg(origin, destination, number, day, price):
    return {"origin": origin, "destination": destination, "train_number": number, "date": day, "price": price}


_BOOKING = {
    "reservation_id": "RT5K2W",
    "origin": "BRU",
    "destination": "MRS",
    "trip_type": "round_trip",
    "trains": [
        _leg("BRU", "LYS", "IC401", "2024-06-17", 63),
        _leg("LYS", "MRS", "IC402", "2024-06-17", 78),
        _leg("MRS", "BRU", "IC455", "2024-06-24", 53),
    ],
}

_ANSWER = (
    "Your reservation RT5K2W is a round trip from BRU to MRS:\n\n"
    "1. **Outbound Trains on 2024-06-17:**\n"
    "   - BRU to LYS, Train Number: IC401\n"
    "   - LYS to MRS, Train Number: IC402\n\n"
    "2. **Return Train on {day}:**\n"
    "   - MRS to BRU, Train Number: IC455\n\n"
    "Would you like to change anything?"
)


def _verify(answer):
    calls = [("get_reservation_details", {"reservation_id": "RT5K2W"}, _BOOKING)]
    return verify_run(_run("What is on my reservation RT5K2W?", calls, answer))


def test_it_reads_a_headings_date_as_the_item_below_it():
    assert _flagged(_verify(_ANSWER.format(day="2024-06-24"))) == []


def test_it_still_flags_a_headings_date_no_item_has():
    assert [text for text, _ in _flagged(_verify(_ANSWER.format(day="2024-06-26")))] == ["2024-06-26"]
