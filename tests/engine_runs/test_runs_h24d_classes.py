"""Issue 14, fifteenth round (h24d): false-alarm classes of gemini-2.5-flash's answers on tau2-bench airline
runs (``bench/corpora/runs/tau2g_airline_*_dev.jsonl``), each with a negative that stays flagged.

The runs are written for these tests (made-up reservations in the shape of the airline tools' results).
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _reservation(rid: str, dates: list[str], status: str | None) -> dict:
    return {
        "reservation_id": rid,
        "origin": "SFO",
        "destination": "SFO",
        "flight_type": "round_trip",
        "cabin": "basic_economy",
        "flights": [
            {"flight_number": f"HAT{100 + i}", "origin": "SFO", "destination": "PHX", "date": d, "price": 60}
            for i, d in enumerate(dates)
        ],
        "created_at": "2024-05-09T11:34:16",
        "insurance": "no",
        "status": status,
    }


# Two days of one month joined by "and" or "or": the second day takes the month (and the year) of the first.
_TRIP = [
    (
        "get_reservation_details",
        {"reservation_id": "QW12ER"},
        _reservation("QW12ER", ["2024-05-28", "2024-05-29"], None),
    )
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Reservation QW12ER is a round trip from San Francisco (SFO) for May 28 and 29, 2024.", None),
        ("Your flights in QW12ER are on May 28 or 29, 2024, both in basic economy.", None),
        ("Reservation QW12ER flies on May 28 & 29.", None),
        # A wrong second day is still a date nothing gives.
        ("Reservation QW12ER is a round trip from San Francisco (SFO) for May 28 and 30, 2024.", "30, 2024"),
    ],
)
def test_two_days_joined_by_and_share_the_month(answer, bad):
    report = verify_run(_run("What are my dates?", _TRIP, answer))
    assert [text for text, _ in _flagged(report)] == ([] if bad is None else [bad])


def test_a_count_after_and_is_not_a_second_day():
    from verification.engine.runs.mentions import extract_mentions

    kinds = [(m.kind, m.text) for m in extract_mentions("We fly on May 2 and 3 passengers travel with me.")]
    assert ("date", "May 2") in kinds
    assert all(not (kind == "date" and "3" in text) for kind, text in kinds)


# A negated state of the record the answer names, when only another record of the run has that state.
_CALLS = [
    (
        "cancel_reservation",
        {"reservation_id": "AB12CD"},
        _reservation("AB12CD", ["2024-05-24"], "cancelled"),
    ),
    (
        "get_reservation_details",
        {"reservation_id": "QW12ER"},
        _reservation("QW12ER", ["2024-05-28", "2024-05-29"], None),
    ),
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        (
            "I have checked reservation QW12ER. It was booked on May 9, 2024, and the flight status is not "
            "cancelled by the airline, so I cannot cancel it.",
            None,
        ),
        # Said of the record that was cancelled, the negation is still against its status.
        ("Reservation AB12CD is not cancelled, so it is still active.", "cancelled"),
    ],
)
def test_a_negated_state_speaks_of_the_record_named(answer, bad):
    report = verify_run(_run("Please cancel both.", _CALLS, answer))
    assert [text for text, _ in _flagged(report)] == ([] if bad is None else [bad])


# A value of the named record's own nested items (a reservation's flights' dates) is the record's own, even
# when another reservation read in the run holds the same value at its top (a booking date).
def _booked(rid: str, flight_date: str, created: str) -> dict:
    res = _reservation(rid, [flight_date], None)
    res["created_at"] = created
    return res


_TWO = [
    (
        "get_reservation_details",
        {"reservation_id": "QW12ER"},
        _booked("QW12ER", "2024-05-28", "2024-05-09T11:34:16"),
    ),
    (
        "get_reservation_details",
        {"reservation_id": "AB34DE"},
        _booked("AB34DE", "2024-05-30", "2024-05-06T09:12:00"),
    ),
    (
        "get_reservation_details",
        {"reservation_id": "ZX98CV"},
        _booked("ZX98CV", "2024-05-09", "2024-05-08T14:58:17"),
    ),
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("I see that reservation ZX98CV had flights on 2024-05-09, which has already passed.", None),
        # Another reservation's booking date told of this one is still another item's value.
        # (the name told with it is the one flagged, as the engine does for a value list of another item)
        ("I see that reservation ZX98CV had flights on 2024-05-06, which has already passed.", "ZX98CV"),
    ],
)
def test_a_value_of_the_named_records_own_items(answer, bad):
    report = verify_run(_run("Which of my trips already flew?", _TWO, answer))
    assert [text for text, _ in _flagged(report)] == ([] if bad is None else [bad])


def test_it_builds_the_committed_gemini_airline_files_from_the_transcription(tmp_path):
    import json

    from tests.engine_runs.runs_helpers import RUNS_DIR, load_bench_module

    condense, make = load_bench_module("tau2_telecom_condense"), load_bench_module("make_tau_airline")
    source = RUNS_DIR / "tau2g_airline_dev"
    for raw in sorted((source / "raw").glob("s*.jsonl")):
        run = condense.condense(raw)
        committed = json.loads((source / f"traj_{run['task_id']:03d}.json").read_text(encoding="utf-8"))
        assert committed == run, raw.name
    argv = [str(source), "--condensed", "--perturbed", "--all-dev", "dev", "--name", "tau2g_airline"]
    assert make.main([*argv, "--id-prefix", "tau2-airline-gemini25flash", "--out", str(tmp_path)]) == 0
    for kind in ("clean", "perturbed"):
        for suffix in (".jsonl", ".meta.jsonl"):
            name = f"tau2g_airline_{kind}_dev{suffix}"
            assert (tmp_path / name).read_bytes() == (RUNS_DIR / name).read_bytes(), name


def test_no_correct_gemini_answer_of_the_dev_set_is_flagged():
    import json

    from tests.engine_runs.runs_helpers import RUNS_DIR

    lines = (RUNS_DIR / "tau2g_airline_clean_dev.jsonl").read_text(encoding="utf-8").splitlines()
    flagged_ids = [
        item["id"]
        for item in map(json.loads, lines)
        if not item["label"]["hallucinated"]
        and verify_run(item["messages"], item.get("tools")).hallucination_detected
    ]
    assert flagged_ids == []


# An amount told before the identifier, in brackets, of the item it belongs to ("$1859 for the first flight
# (HAT028)"): that item's value, though a search of the run lists the same flight at another fare.
def _leg(no: str, o: str, d: str, price: int) -> dict:
    return {"flight_number": no, "origin": o, "destination": d, "date": "2024-05-21", "price": price}


def _offer(no: str, o: str, d: str, economy: int, business: int) -> dict:
    return {
        "flight_number": no,
        "origin": o,
        "destination": d,
        "status": "available",
        "date": "2024-05-21",
        "prices": {"basic_economy": 80, "economy": economy, "business": business},
    }


_BOOKED = {
    "reservation_id": "JG7FMM",
    "origin": "MCO",
    "destination": "CLT",
    "cabin": "business",
    "flights": [_leg("HAT028", "MCO", "BOS", 1859), _leg("HAT277", "BOS", "CLT", 1679)],
    "passengers": [{"first_name": "Omar", "last_name": "Davis"}],
}
_LEGS = [
    ("get_reservation_details", {"reservation_id": "JG7FMM"}, _BOOKED),
    (
        "search_onestop_flight",
        {"origin": "MCO", "destination": "CLT", "date": "2024-05-21"},
        [[_offer("HAT028", "MCO", "BOS", 140, 274), _offer("HAT277", "BOS", "CLT", 101, 365)]],
    ),
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        (
            "The business class price of reservation JG7FMM was $1859 for the first flight (HAT028) "
            "and $1679 for the second flight (HAT277), totaling $3538.",
            [],
        ),
        # The other leg's fare told with this leg's identifier is still flagged (the name told with it).
        (
            "The business class price of reservation JG7FMM was $1859 for the first flight (HAT028) "
            "and $1859 for the second flight (HAT277).",
            ["HAT277"],
        ),
    ],
)
def test_an_amount_told_before_its_items_identifier_in_brackets(answer, bad):
    report = verify_run(_run("What did I pay?", _LEGS, answer))
    assert [text for text, _ in _flagged(report)] == bad
