"""Issue 14, sixteenth round (h25f): numbers of YAML-like records the answer tells in its own words.

Three readings made a record's number into another quantity, or none:
- "1,568 hours" was read from its last group as "568 hours" (the duration pattern started after the comma):
  a correct count of hours was a contradicted quantity of 34,080 minutes.
- A key that opens with its unit (``days_since_mailing: 20``, ``hours_in_measurement_period: 1568``) and
  one that ends in ``_months`` or ``_weeks`` (``service_months: 29``) gave their numbers no unit, so "20 days"
  or "29 months of service" met only a page's "60 days" or "12-month" (contradicted).
- A value ending one line and the first word of the next line's key ("LEAVE-2026-0417\\nhours_in_...") were
  read as a quantity of "417 hours" that contradicted the answer's real hours.
The runs are made up for these tests; each positive has a negative that must stay flagged.
"""

from __future__ import annotations

import json
from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

_RECORD = (
    "case_id: LEAVE-2026-0417\n"
    "hours_in_measurement_period: 1568\n"
    "service_months: 29\n"
    "record_status: verified\n"
    "days_since_mailing: 20"
)
_PAGE = (
    "content: '# Eligibility\n\n  An employee is eligible after working for the employer for at least\n"
    "  12 months and at least 1,250 hours during the 12-month period before the leave. Claims must be filed\n"
    "  within 60 days.'\nurl: https://leave.example/eligibility"
)


def _run(answer: str) -> list[dict[str, Any]]:
    calls = [
        {"id": "c0", "type": "function", "function": {"name": "get_case", "arguments": json.dumps({})}},
        {"id": "c1", "type": "function", "function": {"name": "open_webpage", "arguments": json.dumps({})}},
    ]
    return [
        {"role": "user", "content": "Am I eligible for protected leave?"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        {"role": "tool", "tool_call_id": "c0", "content": _RECORD},
        {"role": "tool", "tool_call_id": "c1", "content": _PAGE},
        {"role": "assistant", "content": answer},
    ]


def _flags(answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(answer)))]


def test_it_reads_an_hour_count_with_a_thousands_separator_whole() -> None:
    found = [(m.kind, m.text, m.value, m.unit) for m in extract_mentions("You have 1,568 hours.")]
    assert found == [("quantity", "1,568 hours", 1568.0, "hour")]
    # Durations of hours and minutes are read as before.
    both = [(m.text, m.value) for m in extract_mentions("It takes 2 hours and 30 minutes.")]
    assert both == [("2 hours and 30 minutes", 150.0)]


def test_it_takes_the_hours_of_a_key_that_opens_with_its_unit() -> None:
    assert _flags("You have worked **1,568 hours** in the period, above the 1,250-hour minimum.") == []
    assert _flags("You have about 1,600 hours in the period.") == []
    # Another count of hours is still contradicted by the record's.
    assert _flags("You have worked **1,658 hours** in the period.") == ["1,658 hours"]


def test_it_takes_months_and_days_the_keys_name() -> None:
    assert _flags("You have **29 months of service**, more than the 12 months required.") == []
    assert _flags("It has been 20 days since mailing.") == []
    assert _flags("You have about 2.4 years of service.") == []
    assert _flags("It has been 25 days since mailing.") == ["25 days"]
    assert _flags("You have about 3.5 years of service.") == ["3.5 years"]


def test_a_key_after_a_line_that_ends_in_a_number_makes_no_quantity() -> None:
    # "0417\nhours" of the record is no "417 hours": a wrong count of hours is judged by the real one.
    report = verify_run(_run("You have 417 hours in the period."))
    claims = [c for c in report.flagged_claims if c.text == "417 hours"]
    assert claims and all("0417" not in s.text for c in claims for s in c.evidence_spans)


def test_a_rate_key_is_no_distance() -> None:
    from verification.engine.runs.evidence import _key_unit

    assert _key_unit("miles_per_gallon") is None
    assert _key_unit("days_remaining") == "day"
    assert _key_unit("term_months") == "month"


_DATES = "case_id: LEAVE-2026-0417\nexpected_absence_start: '2026-07-20'\nexpected_absence_end: '2026-08-21'"


def _span_flags(answer: str) -> list[str]:
    call = {"id": "c0", "type": "function", "function": {"name": "get_case", "arguments": "{}"}}
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "How long will I be out?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": _DATES},
        {"role": "assistant", "content": answer},
    ]
    return [t for t, _ in flagged(verify_run(msgs))]


def test_it_takes_weeks_between_two_dates_to_the_stated_week() -> None:
    # 32 days between the two dates: "roughly 5 weeks" is told to the week, as "about 4.5 weeks" was.
    assert _span_flags("Your absence is expected to last roughly 5 weeks.") == []
    assert _span_flags("Your absence is expected to last about 4.5 weeks.") == []
    assert _span_flags("Your absence is expected to last roughly 7 weeks.") == ["7 weeks"]
    assert _span_flags("Your absence is expected to last 34 days.") == ["34 days"]
