import pytest

from verification.engine.runs import verify_run

EIFFEL = {"name": "Eiffel Tower", "built": "1887-1889", "height": "330 meters", "location": "Paris, France"}


def _flagged(report):
    return [(c.text, c.label) for c in report.flagged_claims]


def test_it_finds_the_seed_hallucinations_with_their_spans(run_of):
    answer = "The Eiffel Tower was built in 1950 and stands at 500 meters tall in Paris, France."
    r = verify_run(run_of("When was the Eiffel Tower built?", [EIFFEL], answer))
    spans = {c.text: c.span for c in r.flagged_claims}
    assert set(spans) == {"1950", "500 meters"}
    for text, (a, b) in spans.items():
        assert answer[a:b] == text
    assert all(c.label == "CONTRADICTED" and c.severity == 4 for c in r.flagged_claims)
    assert r.action == "block"
    assert r.run_id.startswith("run_")


def test_it_cites_evidence_spans_for_supported_claims(run_of):
    r = verify_run(run_of("How tall?", [EIFFEL], "The Eiffel Tower is 330 meters tall."))
    claim = next(c for c in r.claims if c.kind == "quantity")
    assert claim.label == "SUPPORTED"
    ev = claim.evidence_spans[0]
    tool_content = run_of("How tall?", [EIFFEL], "x")[2]["content"]
    assert tool_content[ev.start : ev.end] == "330 meters"


@pytest.mark.parametrize(
    ("result", "answer"),
    [
        ({"height_m": 330}, "It is about 1,083 feet tall."),
        ({"temperature_c": 18.4}, "It is about 18°C."),
        ({"temperature_c": 6.4}, "It is about 44°F."),
        ({"max_daily_dose_mg": 1200}, "Do not take more than 1.2 grams a day."),
        ({"revenue": 1230000000, "currency": "USD"}, "Revenue was $1.23 billion."),
        ({"date": "2024-03-04"}, "It happened on March 4."),
        ({"date": "2024-12-10"}, "It is on Tuesday, December 10."),
        ({"start": "2024-05-16T14:45:00"}, "It starts at 2:45 PM."),
        ({"items": [{"n": "a"}, {"n": "b"}, {"n": "c"}]}, "You have three items."),
        ({"start": "2024-05-16T11:15:00", "end": "2024-05-16T12:45:00"}, "It lasts an hour and a half."),
        ({"a": 159, "b": 2, "currency": "USD"}, "That comes to $318 in total."),
        ({"old": 1.99, "new": 2.43}, "Revenue grew about 22.1% year over year."),
        ({"attendance": 53412}, "More than 53,000 fans came."),
        ({"price": {"amount": 349.99, "currency": "USD"}}, "It costs just under $350."),
        ({"location": {"city": "New York City", "country": "United States"}}, "It is in NYC, USA."),
        (
            {"shipped_on": "2024-03-05", "estimated_delivery": "2024-03-08"},
            "It arrives 3 days after it shipped.",
        ),
    ],
)
def test_it_accepts_reasoned_inference(run_of, result, answer):
    r = verify_run(run_of("Tell me.", [result], answer))
    assert _flagged(r) == []
    assert r.action == "emit"


@pytest.mark.parametrize(
    ("result", "answer", "span"),
    [
        ({"height_m": 330}, "It is 330 feet tall.", "330 feet"),
        ({"temperature_c": -2.3}, "It is -2.3°F outside.", "-2.3°F"),
        ({"price": {"amount": 312.99, "currency": "USD"}}, "It sells for €312.99.", "€312.99"),
        (
            {"market_cap": 2350000000000, "currency": "USD"},
            "Its market cap is $2.35 billion.",
            "$2.35 billion",
        ),
        ({"date": "2024-12-10"}, "It is on Wednesday, December 10, 2024.", "Wednesday, December 10, 2024"),
        ({"city": "Cape Town", "temp_c": 25}, "In San Francisco it is 25°C.", "San Francisco"),
        ({"delay_minutes": 105}, "The delay is 105 hours.", "105 hours"),
    ],
)
def test_it_contradicts_changed_values(run_of, result, answer, span):
    r = verify_run(run_of("Tell me.", [result], answer))
    assert span in [c.text for c in r.flagged_claims]
    assert r.hallucination_detected


@pytest.mark.parametrize(
    ("result", "answer", "word"),
    [
        ({"quote": {"price": 65.72, "change": -1.64}}, "The stock rose $1.64 to $65.72.", "rose"),
        (
            {"revenue": 14.9, "prior_revenue": 11.7},
            "Revenue was 14.9, down from 11.7 a year earlier.",
            "down",
        ),
        ({"status": "delayed"}, "Your flight is on time.", "on time"),
        ({"availability": {"status": "in_stock"}}, "It is currently out of stock.", "out of stock"),
        ({"archived": False}, "The repository is archived.", "archived"),
        ({"otc": True}, "It is available only with a prescription.", "only with a prescription"),
        (
            {
                "home": {"team": "Westfield Wanderers", "score": 3},
                "away": {"team": "Kingsport City", "score": 0},
            },
            "Westfield Wanderers lost 3-0 against Kingsport City.",
            "lost",
        ),
    ],
)
def test_it_catches_negations(run_of, result, answer, word):
    r = verify_run(run_of("Tell me.", [result], answer))
    assert (word, "CONTRADICTED") in _flagged(r)


def test_it_accepts_correct_directions_and_states(run_of):
    result = {"quote": {"price": 65.72, "change": -1.64}, "status": "delayed", "archived": False}
    r = verify_run(
        run_of("Tell me.", [result], "It fell $1.64 to $65.72. It is delayed. It is not archived.")
    )
    assert _flagged(r) == []


def test_it_flags_a_value_of_another_item(run_of):
    result = {
        "results": [
            {"name": "Alpha Kettle", "price": {"amount": 40.5, "currency": "USD"}},
            {"name": "Beta Toaster", "price": {"amount": 25.0, "currency": "USD"}},
        ]
    }
    bad = verify_run(run_of("Prices?", [result], "The Alpha Kettle costs $25.00."))
    assert _flagged(bad) == [("$25.00", "CONTRADICTED")]
    good = verify_run(
        run_of("Prices?", [result], "The Alpha Kettle costs $40.50 and the Beta Toaster $25.00.")
    )
    assert _flagged(good) == []


def test_it_marks_values_no_result_gives_unsupported(run_of):
    answer = "The tower is 330 meters tall. Tickets are at https://tickets.example/buy."
    r = verify_run(run_of("How tall?", [EIFFEL], answer))
    assert _flagged(r) == [("https://tickets.example/buy", "UNSUPPORTED")]
    assert r.flagged_claims[0].severity == 2
    assert r.action == "revise"
    assert "https://tickets.example/buy" in r.revise_message


def test_it_accepts_restating_the_user(run_of):
    r = verify_run(
        run_of("Convert 1200 SGD for order ORD-555.", [{"rate": 0.66}], "Order ORD-555: 1200 SGD.")
    )
    assert _flagged(r) == []


def test_it_checks_likelihood_words_against_the_probability(run_of):
    result = {"daily": [{"date": "2025-01-24", "precip_chance_pct": 74}]}
    bad = verify_run(run_of("Rain?", [result], "Rain is unlikely on January 24 (74% chance)."))
    assert _flagged(bad) == [("unlikely", "CONTRADICTED")]
    good = verify_run(run_of("Rain?", [result], "Rain is likely on January 24 (74% chance)."))
    assert _flagged(good) == []


def test_it_flags_last_periods_value_told_as_this_periods(run_of):
    result = {"income_statement": {"net_income": 601000000}, "prior_year": {"net_income": 568000000},
              "currency": "USD"}  # fmt: skip
    bad = verify_run(run_of("Profit?", [result], "Net income was $568 million."))
    assert _flagged(bad) == [("$568 million", "CONTRADICTED")]
    good = verify_run(
        run_of("Profit?", [result], "Net income was $601 million, up from $568 million a year earlier.")
    )
    assert _flagged(good) == []
