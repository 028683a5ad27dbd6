"""Issue 14, fourteenth round (h23i): the false alarms of tau2-bench airline runs of grok-4, as general rules.

Another model's answers to the airline tasks show classes the gpt-4o dev sets no longer do: a date restated
in ISO form from the customer's "May 20" (told without a year), a per-passenger sum read against the policy's
insurance rate because the words of an earlier rate in the sentence were taken for its own, "As confirmed
earlier" read as a reservation's status, examples closed by "etc." and a parenthesis of what an amount leaves
out ("(excluding any baggage or insurance, which ...)") read as the list a count announces. And a recall
class (h23a's telecom edit): a rate per thing that only prose numbers support while a record prices that
thing otherwise. Each positive has a negative. The corpus files are checked to be what the committed
transcription builds.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_runs.runs_helpers import RUNS_DIR as _RUNS
from tests.engine_runs.runs_helpers import flagged, load_bench_module, run_with_calls
from verification.engine.runs import verify_run

_POLICY = (
    "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST.\n\n"
    "Travel insurance: \n- The travel insurance is 30 dollars per passenger and enables full refund if the "
    "user needs to cancel the flight given health or weather reasons.\n\n"
    "Refund:\n- The refund will go to original payment methods within 5 to 7 business days.\n"
)
_GV1N64 = {
    "reservation_id": "GV1N64",
    "origin": "LAS",
    "destination": "DEN",
    "flight_type": "round_trip",
    "cabin": "business",
    "flights": [
        {
            "flight_number": "HAT003",
            "origin": "LAS",
            "destination": "DEN",
            "date": "2024-05-19",
            "price": 561,
        },
        {
            "flight_number": "HAT290",
            "origin": "DEN",
            "destination": "LAS",
            "date": "2024-05-20",
            "price": 1339,
        },
    ],
    "passengers": [
        {"first_name": "James", "last_name": "Patel", "dob": "1995-04-07"},
        {"first_name": "James", "last_name": "Sanchez", "dob": "1956-08-18"},
        {"first_name": "Sophia", "last_name": "Johansson", "dob": "1993-07-11"},
    ],
    "payment_history": [{"payment_id": "gift_card_1642017", "amount": 5700}],
    "created_at": "2024-05-03T05:35:00",
    "insurance": "no",
    "status": None,
}


def _flight(number: str, origin: str, dest: str, prices: tuple[int, int, int]) -> dict[str, Any]:
    return {
        "flight_number": number,
        "origin": origin,
        "destination": dest,
        "status": "available",
        "prices": dict(zip(("basic_economy", "economy", "business"), prices, strict=True)),
    }


_SEARCHES = [
    ("search_direct_flight", {"origin": "LAS", "destination": "DEN", "date": "2024-05-19"},
     [_flight("HAT003", "LAS", "DEN", (53, 106, 246)), _flight("HAT162", "LAS", "DEN", (77, 195, 340))]),
    ("search_direct_flight", {"origin": "DEN", "destination": "LAS", "date": "2024-05-20"},
     [_flight("HAT229", "DEN", "LAS", (95, 142, 303)), _flight("HAT290", "DEN", "LAS", (99, 134, 411))]),
]  # fmt: skip


def _run(user: str, calls: list[tuple[str, Any, Any]], answer: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": _POLICY}, *run_with_calls(user, calls, answer)]


def _flags(user: str, calls: list[tuple[str, Any, Any]], answer: str) -> list[tuple[str, str]]:
    return flagged(verify_run(_run(user, calls, answer)))


_RES = [("get_reservation_details", {"reservation_id": "GV1N64"}, _GV1N64), *_SEARCHES]
_DOWNGRADE = (
    "- **New pricing**: $53 per passenger for the outbound flight + $99 per passenger for the return "
    "flight = $152 per passenger. For 3 passengers, total new cost: $456."
)


def test_a_sum_per_passenger_is_not_read_against_the_insurance_rate() -> None:
    assert _flags("Downgrade GV1N64 to basic economy.", _RES, _DOWNGRADE) == []


def test_an_insurance_rate_the_policy_sets_otherwise_is_still_contradicted() -> None:
    answer = "Would you like travel insurance for $36 per passenger? It enables a full refund."
    assert ("$36", "CONTRADICTED") in _flags("Downgrade GV1N64 to basic economy.", _RES, answer)


def test_as_confirmed_earlier_is_no_status() -> None:
    cancelled = dict(_GV1N64, status="cancelled")
    calls = [("cancel_reservation", {"reservation_id": "GV1N64"}, cancelled)]
    answer = (
        "Reservation GV1N64 has been successfully cancelled. As confirmed earlier, the full $5,700 refund "
        "will be processed back to your original payment method (gift_card_1642017) within 5-7 business days."
    )
    assert _flags("Cancel GV1N64.", calls, answer) == []
    wrong = "Reservation GV1N64 is confirmed. The $5,700 refund will be processed within 5-7 business days."
    assert ("confirmed", "CONTRADICTED") in _flags("Cancel GV1N64.", calls, wrong)


def test_a_date_the_customer_told_without_a_year_is_the_runs_year() -> None:
    user = "I want the cheapest direct round trip from JFK, departing on May 20 and returning on May 25."
    legs = [
        {
            "flight_number": "HAT192",
            "origin": "MIA",
            "destination": "EWR",
            "date": "2024-05-24",
            "price": 174,
        },
        {
            "flight_number": "HAT166",
            "origin": "EWR",
            "destination": "IAH",
            "date": "2024-05-25",
            "price": 125,
        },
    ]
    h9zu1c = dict(_GV1N64, reservation_id="H9ZU1C", origin="MIA", destination="IAH", flights=legs)
    calls = [("get_reservation_details", {"reservation_id": "H9ZU1C"}, h9zu1c)]
    answer = "I understand: departing on 2024-05-22 and returning on 2024-05-25, for 1 passenger."
    assert ("2024-05-22", "CONTRADICTED") in _flags(user, calls, answer)
    ok = answer.replace("2024-05-22", "2024-05-20")
    assert not [f for f in _flags(user, calls, ok) if f[0] == "2024-05-20"]
    # A year the run dates nothing in stays the answer's own.
    other = answer.replace("2024-05-22", "2023-05-20")
    assert ("2023-05-20", "CONTRADICTED") in _flags(user, calls, other)


def test_examples_closed_by_etc_are_no_claims() -> None:
    calls = [("get_reservation_details", {"reservation_id": "GV1N64"}, _GV1N64)]
    answer = (
        '"West Coast" could include cities like Los Angeles (LAX), San Francisco (SFO), Seattle (SEA), '
        "Portland (PDX), San Diego (SAN), etc. Do you have a preferred destination?"
    )
    assert _flags("Book me something on the West Coast.", calls, answer) == []
    told = "Your reservation GV1N64 flies to Seattle (SEA). Do you have a preferred destination?"
    assert ("Seattle", "UNSUPPORTED") in _flags("Book me something on the West Coast.", calls, told)


def test_a_parenthesis_of_what_an_amount_leaves_out_is_no_list_of_the_counted() -> None:
    answer = (
        "Based on current pricing, that would total $304 for 2 passengers (excluding any baggage or "
        "insurance add-ons, which we can confirm during rebooking)."
    )
    assert not [f for f in _flags("Rebook HAT003 and HAT290 for two.", _RES, answer) if f[0] == "2"]
    listed = "That is the 2 passengers (James Patel, James Sanchez, Sophia Johansson)."
    assert ("2", "CONTRADICTED") in _flags("Rebook HAT003 and HAT290 for two.", _RES, listed)


def test_it_builds_the_committed_airline_files_from_the_transcription(tmp_path: Path) -> None:
    condense, make = load_bench_module("tau2_telecom_condense"), load_bench_module("make_tau_airline")
    source = _RUNS / "tau2x_airline_dev"
    for raw in sorted((source / "raw").glob("s*.jsonl")):
        run = condense.condense(raw)
        committed = json.loads((source / f"traj_{run['task_id']:03d}.json").read_text(encoding="utf-8"))
        assert committed == run, raw.name
    policy = json.loads((source / "raw" / "policy.json").read_text(encoding="utf-8"))
    assert (source / "policy.md").read_text(encoding="utf-8") == policy
    argv = [str(source), "--condensed", "--perturbed", "--all-dev", "dev", "--name", "tau2x_airline"]
    assert make.main([*argv, "--id-prefix", "tau2-airline-grok4", "--out", str(tmp_path)]) == 0
    for kind in ("clean", "perturbed"):
        for suffix in (".jsonl", ".meta.jsonl"):
            name = f"tau2x_airline_{kind}_dev{suffix}"
            assert (tmp_path / name).read_bytes() == (_RUNS / name).read_bytes(), name


def test_a_rate_only_prose_numbers_support_is_read_against_the_records_rate() -> None:
    plan = {"plan_id": "P1002", "name": "Premium Plan", "data_refueling_price_per_gb": 2.0}
    calls = [("get_details_by_id", {"id": "P1002"}, plan)]
    user = "I only get 3 bars of signal. Please add 2 GB of data."
    wrong = "For the Premium Plan, the cost for refueling data is $3.00 per GB."
    assert ("$3.00", "CONTRADICTED") in _flags(user, calls, wrong)
    right = "For the Premium Plan, the cost for refueling data is $2.00 per GB."
    assert _flags(user, calls, right) == []
    # A rate of something the record does not price is left to the other rules.
    other = "Roaming abroad costs about $3 per day on most carriers."
    assert ("$3", "CONTRADICTED") not in _flags(user, calls, other)


@settings(max_examples=15, deadline=None)
@given(st.integers(min_value=1, max_value=26).filter(lambda d: d + 2 != 15))
def test_any_day_the_customer_told_is_that_day_of_the_runs_year(day: int) -> None:
    # (the policy's current time is 2024-05-15: that day is in the evidence whatever the customer says)
    user = f"I want to fly on May {day}, please."
    rec = dict(_GV1N64, created_at="2024-04-03T05:35:00", flights=[])
    calls = [("get_reservation_details", {"reservation_id": "GV1N64"}, rec)]
    told = _flags(user, calls, f"You want to fly on 2024-05-{day:02d}.")
    assert not [f for f in told if f[0].startswith("2024-05")]
    moved = _flags(user, calls, f"You want to fly on 2024-05-{day + 2:02d}.")
    assert (f"2024-05-{day + 2:02d}", "CONTRADICTED") in moved
