"""Issue 14, fourteenth round (h23b): a clock time worked out from advice ("arrive 3.5 hours before the
02:00 flight, around 22:30") is a result's time less a duration its sentence states; a decimal count of
hours ("3.5 hours") is read whole, not as its last digit. Each positive has a negative that shows what
must still be flagged."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import flagged, text_result_run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

_BOOKING = (
    "flight_number: KL888\ndeparture_airport: HKG\ndeparture_time: '2026-07-12T02:00:00+08:00'\n"
    "airline_advice: Arrive at least 3.5 hours before an intercontinental flight when assistance is needed."
)


def _flags(answer: str) -> list[str]:
    run = text_result_run("When should I get to the airport?", _BOOKING, answer, "get_booking")
    return [t for t, _ in flagged(verify_run(run))]


def test_a_time_counted_back_from_a_result_time_by_the_sentences_duration_is_supported() -> None:
    answer = "Flight KL888 leaves HKG at 02:00. Arrive at least 3.5 hours before it, around 22:30."
    assert _flags(answer) == []


def test_a_time_no_such_count_gives_is_still_checked() -> None:
    assert "21:30" in _flags(
        "Flight KL888 leaves HKG at 02:00. Arrive at least 3.5 hours before it, around 21:30."
    )
    # Without a direction the duration counts nothing: the time stays a claim.
    assert "22:30" in _flags("Flight KL888 leaves HKG at 02:00. Allow 3.5 hours, so come at 22:30.")


@given(st.integers(1, 23), st.sampled_from([0, 15, 30, 45]))
def test_a_decimal_count_of_hours_is_read_whole(hours: int, minutes: int) -> None:
    text = f"Arrive {hours}.{minutes // 15 * 25:02d} hours before departure."
    found = [m for m in extract_mentions(text) if m.kind == "quantity"]
    assert len(found) == 1
    assert found[0].value == hours * 60 + minutes


def test_a_decimals_fraction_is_no_count_of_hours() -> None:
    # ".25 hours" is no "25 hours" nor "5 hours": no count starts inside a decimal.
    assert not [m for m in extract_mentions("Allow .25 hours.") if m.value in (1500.0, 300.0)]
