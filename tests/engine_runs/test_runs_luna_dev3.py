"""Issue 14, thirteenth round (h22a): false alarms of the luna dev3 runs, as general rules.

A time zone written out after a clock time ("9:30 AM (Pacific Time)") is the time's zone, as "PDT" is; a
dotted abbreviation ("U.S.") is the code the results write in capitals ("US"); a state in a guess about the
past ("it may now have been returned") is no claim; a write action's report in text ("action: cancel",
"modified: true") puts its record in the action's state; a URL the agent opened names its own page, whatever
item the sentence names; a phone number written with dots ("866.346.5800") is the same number written with
hyphens. The runs are made up for these tests; each positive has a negative that shows what must still be
flagged.
"""

from __future__ import annotations

import json
from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run

# Tool results: [(tool name, arguments, text)].
_Results = list[tuple[str, dict[str, Any], str]]


def _run(results: _Results, answer: str) -> list[dict[str, Any]]:
    """A one-request run whose tool results are raw YAML-like text: [(tool name, arguments, text)], all
    called in one assistant message."""
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
        for i, (n, a, _) in enumerate(results)
    ]
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "Please check and handle it for me."},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    msgs += [{"role": "tool", "tool_call_id": f"c{i}", "content": t} for i, (_, _, t) in enumerate(results)]
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def _flags(results: _Results, answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(results, answer)))]


_VISIT: _Results = [
    (
        "inspect_service_request",
        {},
        "current_appointment_time: '2026-07-09T09:30:00-07:00'\nrequest_id: SR-2026-0709-4821\n"
        "service_location: service_center_marina\nservice_status: scheduled",
    )
]


def test_it_reads_a_time_zone_written_out_after_a_time_as_the_times_zone() -> None:
    answer = (
        "Your service request is currently:\n\n- **Appointment:** July 9, 2026 at 9:30 AM (Pacific Time)\n"
        "- **Request ID:** SR-2026-0709-4821"
    )
    assert _flags(_VISIT, answer) == []
    # The same instant told in another zone written out: 09:30-07:00 is 12:30 on the east coast in July.
    assert _flags(_VISIT, "The appointment is on July 9, 2026 at 12:30 PM Eastern Daylight Time.") == []


def test_it_still_flags_a_time_in_a_zone_written_out_that_is_another_instant() -> None:
    answer = "The appointment is on July 9, 2026 at 10:30 AM Eastern Time."
    assert "10:30 AM Eastern Time" in _flags(_VISIT, answer)


_SHIPMENT: _Results = [
    (
        "get_shipment_details",
        {},
        "carrier: UPS\ndestination_country: US\norigin_country: US\nservice_type: UPS Ground\n"
        "shipment_id: SHP-UPS-71384\ntracking_number: 1Z84A7X20394471384",
    )
]


def test_it_reads_a_dotted_abbreviation_as_the_results_code() -> None:
    answer = "- **Tracking number:** 1Z84A7X20394471384\n- **Shipment:** UPS Ground, U.S. domestic"
    assert _flags(_SHIPMENT, answer) == []


def test_it_still_flags_a_dotted_abbreviation_the_results_do_not_write() -> None:
    answer = "- **Tracking number:** 1Z84A7X20394471384\n- **Shipment:** UPS Ground, U.K. domestic"
    assert "U.K" in _flags(_SHIPMENT, answer)
    # A pronoun "us" on a page is no country code.
    page: _Results = [
        ("open_webpage", {}, "content: 'Contact us about UPS Ground parcels.'\ntitle: Contact UPS")
    ]
    assert "U.K" not in _flags(page, "UPS Ground, U.S. domestic")
    assert "U.S" in _flags(page, "UPS Ground ships within the U.S. and Canada for tracking 1Z84A7X2.")


_PARCEL: _Results = [
    (
        "inspect_missed_delivery_case",
        {},
        "assigned_post_office: Richmond Post Shop\ndelivery_status: in_transit\nshipment_id: AUS-T14-784219",
    ),
    (
        "open_webpage",
        {},
        "content: '# Missed parcels\n\n  The parcel is held for 10 business days before it is returned\n"
        "  to the sender.\n  '\ntitle: Missed parcel deliveries",
    ),
]


def test_it_reads_a_state_in_a_guess_about_the_past_as_no_claim() -> None:
    answer = "It was assigned to Richmond Post Shop, so it may now have been returned to the sender."
    assert _flags(_PARCEL, answer) == []
    assert _flags(_PARCEL, "Parcel AUS-T14-784219 could already have been returned to the sender.") == []


def test_it_still_flags_a_state_told_as_a_fact() -> None:
    answer = "It was assigned to Richmond Post Shop, and it has now been returned to the sender."
    assert "returned" in _flags(_PARCEL, answer)


_RESERVATION = (
    "inspect_parking_reservation",
    {"reference_id": "SFO-PARK-4821"},
    "amount_paid: 168.0\ncurrency: USD\nreference_id: SFO-PARK-4821\nservice_type: parking\n"
    "status: confirmed",
)


def _cancelled(flag: str) -> tuple[str, dict[str, Any], str]:
    return (
        "modify_travel_service",
        {"action": "cancel", "reference_id": "SFO-PARK-4821"},
        f"action: cancel\nmodification_status: modified\nmodified: {flag}\nreference_id: SFO-PARK-4821\n"
        "service_type: parking",
    )


def test_it_reads_a_write_actions_report_as_the_records_new_state() -> None:
    answer = "Your parking reservation **SFO-PARK-4821** was canceled successfully. Refund: **$168.00 USD**."
    assert _flags([_RESERVATION, _cancelled("true")], answer) == []


def test_it_still_flags_a_state_the_action_did_not_bring_about() -> None:
    answer = "Your parking reservation **SFO-PARK-4821** was canceled successfully. Refund: **$168.00 USD**."
    failed = (
        "modify_travel_service",
        {"action": "cancel", "reference_id": "SFO-PARK-4821"},
        "action: cancel\nmodified: false\nreference_id: SFO-PARK-4821",
    )
    assert "canceled" in _flags([_RESERVATION, failed], answer)


_GUIDE = "https://help.venue.example/articles/204-Accessibility-at-The-Arena-Everything-you-need-to-know"
_AT_ARENA = "https://www.venue.example/accessibility/the-arena/"


def _pages() -> list[tuple[str, dict[str, Any], str]]:
    return [
        (
            "open_webpage",
            {"doc_id_or_url": _GUIDE},
            "content: '# Accessibility at The Arena\n\n  Email access@venue.example about changes.\n  '\n"
            f"title: Accessibility at The Arena - Everything you need to know\nurl: {_GUIDE}",
        ),
        (
            "open_webpage",
            {"doc_id_or_url": _AT_ARENA},
            "content: '# At The Arena\n\n  Lifts are on all levels.\n  '\n"
            f"title: At The Arena\nurl: {_AT_ARENA}",
        ),
    ]


def test_it_reads_an_opened_url_as_its_own_pages_whatever_the_sentence_names() -> None:
    answer = f"The Arena’s official guidance: [Accessibility at The Arena]({_GUIDE})."
    assert _flags(_pages(), answer) == []


def test_it_still_flags_a_url_no_result_gives() -> None:
    wrong = _GUIDE.replace("204", "205")
    assert wrong in _flags(_pages(), f"The Arena’s official guidance: [Accessibility at The Arena]({wrong}).")


_CONTACT: _Results = [
    (
        "open_webpage",
        {},
        "content: '# Contact for members\n\n  Member Services is available 24 hours a day.\n\n"
        "  - Phone: **866.346.5800**\n"
        "\n  - Online: **Submit a question**\n  '\n"
        "title: Contact for members",
    )
]


def test_it_reads_a_phone_number_written_with_dots_as_the_same_number_with_hyphens() -> None:
    assert _flags(_CONTACT, "Member Services is also available at **866-346-5800**.") == []


def test_it_still_flags_a_phone_number_with_another_group() -> None:
    assert "347" in _flags(_CONTACT, "Member Services is also available at **866-347-5800**.")


_HELD: _Results = [
    (
        "get_shipment_status",
        {},
        "delivery_status: on_hold\nshipment_id: SHP-RM-715204\ntracking_status: held_for_fee_processing",
    )
]


def test_it_reads_pending_before_a_noun_phrase_as_until() -> None:
    assert _flags(_HELD, "The parcel SHP-RM-715204 remains held pending a current fee assessment.") == []
    assert _flags(_HELD, "Parcel SHP-RM-715204 stays on hold pending the review of the fee.") == []


def test_it_still_flags_a_pending_status_the_record_does_not_have() -> None:
    assert "pending" in _flags(_HELD, "The delivery of parcel SHP-RM-715204 is pending.")


_PAYROLL: _Results = [
    (
        "inspect_payment_correction_case",
        {},
        "actual_payment_amount: 2840.0\ncurrency: USD\npayroll_id: pr_20260708_01\n"
        "target_payment_id: pay_20260708_E1042",
    )
]


def test_it_reads_a_snake_case_code_as_one_identifier() -> None:
    answer = (
        "Please authorize me to reverse **payment `pay_20260708_E1042` for $2,840.00** "
        "(payroll pr_20260708_01)."
    )
    assert _flags(_PAYROLL, answer) == []


def test_it_still_flags_a_snake_case_code_the_results_do_not_give() -> None:
    answer = "Please authorize me to reverse **payment `pay_20260708_E1043` for $2,840.00**."
    assert "pay_20260708_E1043" in _flags(_PAYROLL, answer)


_LEAVE: _Results = [
    (
        "inspect_active_medical_certification",
        {},
        "certification_case_id: MLC-2741\nform_name: WH-380-E\nleave_program: FMLA\n"
        "clarification_status: pending",
    )
]


def test_it_reads_a_code_spelled_out_as_the_results_code() -> None:
    answer = "Case **MLC-2741** (form WH-380-E) is under the Family and Medical Leave Act."
    assert _flags(_LEAVE, answer) == []


def test_it_still_flags_a_name_whose_initials_are_no_code_of_the_results() -> None:
    answer = "Case **MLC-2741** (form WH-380-E) is under the Federal Medical Absence Statute."
    assert "Federal Medical Absence Statute" in _flags(_LEAVE, answer)


def test_it_still_reads_pending_after_a_copula_as_a_status() -> None:
    # "is pending your review" says the status is pending; the record is on hold.
    assert "pending" in _flags(_HELD, "Parcel SHP-RM-715204 is pending your review of the fee.")
