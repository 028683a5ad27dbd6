"""Issue 14, sixteenth round (h25e): false-alarm classes of gpt-oss-120b's answers on tau2-bench airline runs
(``bench/corpora/runs/tau2o_airline_*_dev.jsonl``), each with a negative that stays flagged.

The runs are written for these tests (made-up reservations and searches in the shape of the airline tools'
results).
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_NOW = "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST."
_SYSTEM = {"role": "system", "content": _NOW}


def _flight(number: str, origin: str, destination: str, prices: tuple[int, int, int]) -> dict:
    return {
        "flight_number": number,
        "origin": origin,
        "destination": destination,
        "status": "available",
        "scheduled_departure_time_est": "07:00:00",
        "scheduled_arrival_time_est": "09:00:00",
        "date": None,
        "available_seats": {"basic_economy": 9, "economy": 9, "business": 9},
        "prices": {"basic_economy": prices[0], "economy": prices[1], "business": prices[2]},
    }


_RESERVATION = {
    "reservation_id": "ZX81QP",
    "user_id": "lena_ortiz_1234",
    "origin": "SEA",
    "destination": "BOS",
    "flight_type": "round_trip",
    "cabin": "business",
    "flights": [
        {"flight_number": "HAT311", "origin": "SEA", "destination": "BOS", "date": "2024-05-22", "price": 70},
        {"flight_number": "HAT318", "origin": "BOS", "destination": "SEA", "date": "2024-05-26", "price": 65},
    ],
    "passengers": [{"first_name": "Lena", "last_name": "Ortiz", "dob": "1988-02-03"}],
    "payment_history": [{"payment_id": "credit_card_1111111", "amount": 135}],
    "created_at": "2024-05-02T10:00:00",
    "total_baggages": 0,
    "nonfree_baggages": 0,
    "insurance": "no",
    "status": None,
}
_CALLS = [
    ("get_reservation_details", {"reservation_id": "ZX81QP"}, _RESERVATION),
    (
        "search_direct_flight",
        {"origin": "SEA", "destination": "BOS", "date": "2024-05-22"},
        [_flight("HAT311", "SEA", "BOS", (61, 128, 402))],
    ),
    (
        "search_direct_flight",
        {"origin": "BOS", "destination": "SEA", "date": "2024-05-26"},
        [_flight("HAT318", "BOS", "SEA", (57, 119, 377))],
    ),
]


def _verify(answer: str):
    return verify_run([_SYSTEM, *_run("Can I downgrade ZX81QP to economy?", _CALLS, answer)])


# "based on today's fares": the prices in force now, no date of an item.
@pytest.mark.parametrize(
    "answer,bad",
    [
        ("- Economy total for ZX81QP (based on today\u2019s fares): **$247**", None),
        ("The economy fares of HAT311 and HAT318 at today's prices are $128 and $119.", None),
        # "today" as the day of a flight is still read: HAT311 flies on 2024-05-22.
        ("Your flight HAT311 departs today.", "today"),
    ],
)
def test_it_reads_todays_fares_as_no_date(answer, bad):
    assert [text for text, _ in _flagged(_verify(answer))] == ([] if bad is None else [bad])


# A table of costs closing with the amount of its one non-zero row: the total repeats that row's value.
_POLICY = {
    "role": "system",
    "content": "# Airline Agent Policy\n\nThe current time is 2024-05-15 15:00:00 EST.\n\n"
    "- Each extra baggage is 50 dollars.\n- The travel insurance is 30 dollars per passenger.",
}
_SEARCH = [
    (
        "get_reservation_details",
        {"reservation_id": "ZX81QP"},
        {
            **_RESERVATION,
            "passengers": [
                {"first_name": "Lena", "last_name": "Ortiz", "dob": "1988-02-03"},
                {"first_name": "Omar", "last_name": "Ortiz", "dob": "1986-07-19"},
                {"first_name": "Ines", "last_name": "Ortiz", "dob": "2012-11-30"},
            ],
        },
    ),
    (
        "search_direct_flight",
        {"origin": "SEA", "destination": "BOS", "date": "2024-05-22"},
        [_flight("HAT041", "SEA", "BOS", (53, 136, 458))],
    ),
]


def _table(fare: str, total: str) -> str:
    return (
        "Here is the cost for a **new reservation** in economy on **HAT041**:\n\n"
        "| Item | Details | Cost |\n|------|---------|------|\n"
        f"| **Economy fare** | $136 per passenger \u00d7 3 passengers | **{fare}** |\n"
        "| **Travel insurance** (optional) | $30 per passenger \u00d7 3 = $90 \u2013 *not selected* | $0 |\n"
        f"| **Total** |  | **{total}** |"
    )


@pytest.mark.parametrize(
    "fare,total,bad",
    [
        ("$408", "$408", []),
        # An edited total repeats nothing the table gave: still flagged.
        ("$408", "$418", ["$418"]),
    ],
)
def test_it_reads_a_total_repeating_its_row_as_supported(fare, total, bad):
    report = verify_run([_POLICY, *_run("What would a new booking cost?", _SEARCH, _table(fare, total))])
    assert [text for text, _ in _flagged(report)] == bad


# The narrow no-break space U+202F between words is a space: "Option\u202fB" is one label, as "Option B" is.
@pytest.mark.parametrize(
    "text,names",
    [
        ("**Option\u202fB \u2013 Upgrade the whole reservation**", ["Option\u202fB", "Upgrade"]),
        ("1. Lena\u202fOrtiz \u2013 DOB 1988-02-03", ["Lena\u202fOrtiz", "DOB"]),
        # A line break still ends a name.
        ("Option\nB", ["Option", "B"]),
    ],
)
def test_it_reads_a_narrow_no_break_space_inside_a_name(text, names):
    from verification.engine.runs.mentions import extract_mentions

    assert [m.text for m in extract_mentions(text) if m.kind == "entity"] == names


def test_it_flags_a_narrow_spaced_answer_as_its_blank_spaced_form():
    # Before, "Option\u202fB" was two names and the letter "B" was contradicted ("appears nowhere").
    answer = (
        "**Option A \u2013 Keep economy**: HAT311 at $128.\n"
        "**Option B \u2013 Business**: HAT311 at $402.\n\nReply with Option A or Option B."
    )
    narrow = answer.replace("Option ", "Option\u202f")
    plain = [(text, label) for text, label in _flagged(_verify(answer))]
    assert [(text.replace("\u202f", " "), label) for text, label in _flagged(_verify(narrow))] == plain


# "flight HAT072, and return SFO → IAH on May 23, flight HAT278": the route after "and" is the next item's.
_TWO_LEGS = [
    (
        "search_direct_flight",
        {"origin": "SEA", "destination": "BOS", "date": "2024-05-22"},
        [_flight("HAT402", "SEA", "BOS", (61, 128, 402))],
    ),
    (
        "search_direct_flight",
        {"origin": "BOS", "destination": "SEA", "date": "2024-05-26"},
        [_flight("HAT407", "BOS", "SEA", (57, 119, 377))],
    ),
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        (
            "Shall I make the changes (outbound SEA \u2192 BOS on May 22, flight HAT402, and return "
            "BOS \u2192 SEA on May 26, flight HAT407)?",
            [],
        ),
        # A route told right after the identifier is still that identifier's own.
        ("Shall I book flight HAT402 BOS \u2192 SEA on May 26?", ["HAT402"]),
    ],
)
def test_it_reads_a_route_after_and_as_the_next_items(answer, bad):
    report = verify_run([_SYSTEM, *_run("Can I move both legs?", _TWO_LEGS, answer)])
    assert [text for text, _ in _flagged(report)] == bad


# LaTeX working: "{,}" is a thousands comma and the words of "\text{...}" are labels of the formula.
@pytest.mark.parametrize(
    "text,found",
    [
        ("= \\$5{,}700 - \\$456", [("money", "$5{,}700", 5700.0), ("money", "$456", 456.0)]),
        ("\\text{Refund} = \\text{New amount due}", []),
        # Outside LaTeX a name is read as before, and a plain thousands comma too.
        ("New York costs $1,234 and Paris", [("entity", "New York", None), ("money", "$1,234", 1234.0)]),
    ],
)
def test_it_reads_latex_working(text, found):
    from verification.engine.runs.mentions import extract_mentions

    got = [(m.kind, m.text, m.value) for m in extract_mentions(text) if m.kind in ("money", "entity")]
    assert got[: len(found)] == found and (found or not got)


def test_it_supports_a_latex_refund_of_the_update():
    history = [
        {"payment_id": "credit_card_1111111", "amount": 1357},
        {"payment_id": "credit_card_1111111", "amount": -1110},
    ]
    update = {**_RESERVATION, "payment_history": history}
    calls = [("update_reservation_flights", {"reservation_id": "ZX81QP", "cabin": "economy"}, update)]
    answer = (
        "\\[\n\\text{Refund} = \\text{Original amount paid} - \\text{New amount due} = \\$1{,}357 - \\$247 "
        "= \\mathbf{\\$1{,}110}\n\\]"
    )
    assert _flagged(verify_run([_SYSTEM, *_run("Downgrade it.", calls, answer)])) == []
    # An edited refund is still a value nothing gives.
    wrong = answer.replace("1{,}110", "1{,}210")
    assert [text for text, _ in _flagged(verify_run([_SYSTEM, *_run("Downgrade it.", calls, wrong)]))]
