"""Issue 14, twelfth round, second pass (h21a): false alarms of the luna dev2 runs, as general rules.

Weekday abbreviations of opening hours ("Mon–Fri") are the results' weekdays, not names; a state word
after "no" ("No pending credit found", "no active outage") qualifies a thing said not to exist, not a
record's state, so it is no claim; a name of the results with a lower-case word joined by a hyphen
("DHL-calculable") is that name. The runs
are made up for these tests; each positive has a negative that shows what must still be flagged.
"""

from __future__ import annotations

from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run


def _run(results: list[tuple[str, str]], answer: str) -> list[dict[str, Any]]:
    """A one-request run whose tool results are raw YAML-like text: [(tool name, text)]."""
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, (n, _) in enumerate(results)
    ]
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "Please check and tell me what to do."},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    msgs += [{"role": "tool", "tool_call_id": f"c{i}", "content": t} for i, (_, t) in enumerate(results)]
    msgs.append({"role": "assistant", "content": answer})
    return msgs


_HOURS = (
    "content: '# Help desk\n\n  Call 1-800-555-0199.\n\n  Phone support hours:\n\n"
    "  - Monday through Friday: 8 a.m. to 6 p.m. CST.\n\n  - Saturday: 10 a.m. to 2 p.m. CST.\n  '\n"
    "title: Contact the help desk\n"
)


def _flags(results: list[tuple[str, str]], answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(results, answer)))]


def test_it_reads_weekday_abbreviations_of_opening_hours_as_the_results_weekdays() -> None:
    answer = "Call **1-800-555-0199**:\n- Mon–Fri: 8 a.m.–6 p.m. CST\n- Sat: 10 a.m.–2 p.m. CST"
    assert _flags([("open_webpage", _HOURS)], answer) == []


def test_it_still_flags_a_weekday_abbreviation_the_results_do_not_have() -> None:
    # The page's weekday hours end on Thursday: "Fri" is a day the agent made up.
    hours = _HOURS.replace("Friday", "Thursday")
    answer = "Call **1-800-555-0199**:\n- Mon–Fri: 8 a.m.–6 p.m. CST"
    assert "Fri" in _flags([("open_webpage", hours)], answer)


_TRANSFER = (
    "bank_check_status: no_pending_credit_found\n"
    "handoff_status: successfully_sent\n"
    "transfer_reference: TRF-5521\n"
)
_NOTES = (
    "- content: 'A statement by itself does not prove when a bank\n\n    posted the funds.\n\n    '\n"
    "  metadata: {}\n  rank: 1\n  title: Transfer notes\n  url: null"
)


def test_it_reads_a_state_after_no_as_nothing_in_that_state() -> None:
    # Nothing is said to be pending, so the notes' "posted" contradicts nothing.
    results = [("get_transfer", _TRANSFER), ("retrieve_internal_doc", _NOTES)]
    assert _flags(results, "- **Bank check:** No pending credit found") == []
    assert _flags(results, "The bank check found no pending credit.") == []


def test_it_still_flags_a_state_said_without_no() -> None:
    # Without "no" the answer says a credit is pending, and the run's only such state is "posted".
    results = [("get_transfer", _TRANSFER), ("retrieve_internal_doc", _NOTES)]
    assert "pending" in _flags(results, "The bank check found a pending credit.")
    record = "transfer_reference: TRF-5521\ntransfer_status: cancelled\n"
    assert "pending" in _flags([("get_transfer", record)], "Transfer TRF-5521 is pending.")


_CHARGE = "carrier: Parcelo Express\ncharge_origin: customs_assessment\ncorrectable_by_courier: false\n"


def test_it_reads_a_known_name_with_a_lower_case_suffix_as_that_name() -> None:
    answer = "The charge is a customs assessment, not a Parcelo-calculable fee, so Parcelo cannot amend it."
    assert _flags([("get_charge", _CHARGE)], answer) == []


def test_it_still_flags_an_unknown_name_with_a_lower_case_suffix() -> None:
    answer = "The charge is a customs assessment, not a Shipzen-calculable fee."
    assert "Shipzen-calculable" in _flags([("get_charge", _CHARGE)], answer)
