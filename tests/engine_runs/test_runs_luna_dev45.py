"""Issue 14, fifteenth round (h24k): false alarms of the luna dev4/dev5 runs, as general rules.

A YAML-like result names the unit of a number in its key, as a JSON result does: ``odometer_miles: 61200``
is miles, and the children of ``parcel_dimensions_cm:`` are centimetres. A process's completion flag in such
a result (``identity_check_complete: true``) is a completed step, as a later read of the record. A state
word in an indirect question ("ask the bank why the refund was declined") is no claim, and one after a modal
in a page ("a claim can be approved after ...") is no state of a record. The runs are made up for these
tests; each positive has a negative that shows what must still be flagged.
"""

from __future__ import annotations

import json
from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run

# Tool results: [(tool name, text)].
_Results = list[tuple[str, str]]


def _run(results: _Results, answer: str) -> list[dict[str, Any]]:
    calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps({})}}
        for i, (n, _) in enumerate(results)
    ]
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content": "Please check it for me."},
        {"role": "assistant", "content": None, "tool_calls": calls},
    ]
    msgs += [{"role": "tool", "tool_call_id": f"c{i}", "content": t} for i, (_, t) in enumerate(results)]
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def _flags(results: _Results, answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(results, answer)))]


_ODOMETER: _Results = [
    ("read_vehicle_record", "recorded_at: '2026-03-02T08:00:00Z'\nodometer_miles: 61200\nvehicle_id: V-77"),
    ("search_policy", "The powertrain plan covers 5 years or 60,000 miles, whichever comes first."),
]


def test_a_yaml_key_names_the_unit_of_its_number() -> None:
    assert _flags(_ODOMETER, "The odometer reads **61,200 miles**, past the plan's limit.") == []
    # Another number of miles is still contradicted by the miles the results give.
    wrong = "The odometer reads **64,200 miles**, past the plan's limit."
    assert _flags(_ODOMETER, wrong) == ["64,200 miles"]


_PARCEL: _Results = [
    (
        "inspect_parcel",
        "parcel_count: 1\nparcel_dimensions_cm:\n  depth: 18\n  height: 40\n  width: 25\nweight_kg: 3",
    ),
    ("search_rules", "A cabin item must not exceed 55 cm x 35 cm x 20 cm."),
]


def test_a_yaml_mapping_key_names_the_unit_of_its_children() -> None:
    assert _flags(_PARCEL, "Your parcel measures **40 × 25 × 18 cm**, so it fits the cabin limit.") == []
    wrong = "Your parcel measures **40 × 25 × 19 cm**, so it fits the cabin limit."
    assert _flags(_PARCEL, wrong) == ["19 cm"]


def test_a_sibling_after_the_mapping_has_no_unit_from_it() -> None:
    # ``parcel_count`` after the mapping closes is no length: "1 cm" has no evidence in centimetres.
    results: _Results = [("inspect_parcel", "parcel_dimensions_cm:\n  depth: 18\nshelf: 4\n")]
    assert _flags(results, "The parcel is 18 cm deep and sits 4 cm from the edge.") == ["4 cm"]


_CLAIM: _Results = [
    ("get_claim", "claim_id: CLM-4410\nstage: awaiting_site_visit\nreviewer: team_b"),
    ("search_help", "A claim can be approved only after the adjuster's site visit, usually within 10 days."),
]


def test_a_state_after_a_modal_in_a_page_is_no_records_state() -> None:
    assert _flags(_CLAIM, "Your claim CLM-4410 is still pending.") == []
    # The record's own state still contradicts another one, the page read as before.
    told: _Results = [("get_claim", "claim_id: CLM-4410\nclaim_status: approved_for_payment"), _CLAIM[1]]
    assert _flags(told, "Your claim CLM-4410 is still pending.") == ["still pending"]


_PAYMENT: _Results = [("get_payment", "payment_id: PM-2231\npayment_status: pending\namount_usd: 40")]


def test_a_state_in_an_indirect_question_is_no_claim() -> None:
    first = "Payment PM-2231 is pending. "
    assert _flags(_PAYMENT, first + "Check with your bank to determine why the payment was declined.") == []
    assert _flags(_PAYMENT, first + "Ask your bank whether the payment was declined.") == []
    # Told as a fact, it is still contradicted.
    assert _flags(_PAYMENT, first + "Your bank says the payment was declined.") == ["declined"]


def _identity(flag: str) -> _Results:
    return [
        ("get_identity_step", "identity_check:\n  status: pending\nsession_id: IDS-88"),
        ("confirm_step", f"session_id: IDS-88\nidentity_check_complete: {flag}\nsignup_status: open"),
    ]


def test_a_process_completion_flag_in_text_is_a_completed_step() -> None:
    assert _flags(_identity("true"), "Session IDS-88: the identity check is complete now.") == []
    assert _flags(_identity("false"), "Session IDS-88: the identity check is complete now.") == ["complete"]


def test_a_data_completion_flag_is_no_state() -> None:
    results: _Results = [
        ("get_identity_step", "identity_check:\n  status: pending\nsession_id: IDS-88"),
        ("get_profile", "session_id: IDS-88\nmailing_address_complete: true"),
    ]
    assert _flags(results, "Session IDS-88: the identity check is complete now.") == ["complete"]


_MODEM: _Results = [("get_service", "account_id: ACC-5512\nservice_type: internet\nmodem_model: XB7")]


def test_a_wait_in_a_device_step_is_advice_not_a_claim() -> None:
    answer = "Account ACC-5512: unplug your modem and router for 45 seconds, then plug the modem in first."
    assert _flags(_MODEM, answer) == []
    assert _flags(_MODEM, "Account ACC-5512: press and hold the reset button for about 15 seconds.") == []
    # A duration the answer tells of the account is still checked.
    assert _flags(_MODEM, "Account ACC-5512: your outage credit covers 45 minutes.") == ["45 minutes"]
