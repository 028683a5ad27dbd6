"""Issue 14 (h23d): classes found on tau_retail_dev7 and tau_airline_dev5 (real runs, read as dev sets).

- A count with the results' value as the word before its noun ("three pending orders" after four orders,
  three of them ``"status": "pending"``) or after it ("3 orders that are still pending") counts the results
  with that value, as "three orders in pending status" does (``grounding._filtered_count``).
- A count broken down by kind after a colon ("four orders in total: three pending and one delivered") is
  checked against the sum of its parts, not against the number of parts (``grounding._check_enumerations``).
- An amount its sentence calls a total, after a count of a kind of item ("2 grills with a total price of
  $1,939.05"), is the sum of the prices of the items of that kind in one result; after a count of results
  with a value ("your three pending orders total $7,620.39"), the sum of the one amount each of those results
  holds (``grounding._kind_total``).
- A list item's label of the service's words ("- Refund Timeline: 5-7 business days") and the verbs of a
  flight's times ("Departs at 22:00, Arrives at 01:00") are no names (``lexicon.SERVICE_WORDS``, the -s forms
  in ``grounding._service_word``).
- An amount in a sentence about a refund may be the sum of the refunds the results record, each once
  (``grounding._refunds_total``); a state told as the one before a change ("CANCELLED (previously
  PENDING)") is read against the earlier read of the record (``identity.earlier_of_same``); the progress
  of a refund ("Refund Status: Processing") is no status of the orders (``polarity._REFUND_SUBJECT``).
- A length of time is the time from a departure to its arrival ("a 2.5-hour flight") or from one flight's
  arrival to the next's departure ("a layover of 9.5 hours"), times of day of the records in context
  (``grounding._clock_span``); "9.5 hours" is one duration, no longer "5 hours" (``mentions`` duration).

The runs are written for these tests (a made-up shop and a made-up rail operator), not copied from the sets.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


def _order(order_id, status, items):
    return {
        "order_id": order_id,
        "user_id": "lena_park_4410",
        "items": [
            {"name": name, "product_id": f"P{i}", "item_id": f"{order_id[2:]}{i}", "price": price}
            for i, (name, price) in enumerate(items)
        ],
        "status": status,
        "payment_history": [
            {
                "transaction_type": "payment",
                "amount": round(sum(p for _, p in items), 2),
                "payment_method_id": "paypal_1",
            }
        ],
    }


# More prices than the pairwise sums of one key read (``aggregates.MAX_GROUP``), as in a real account.
_ORDERS = [
    _order(
        "#W1001", "pending", [("Desk Lamp", 88.10), ("Yoga Mat", 31.50), ("Tent", 241.30), ("Mug", 12.40)]
    ),
    _order(
        "#W1002",
        "delivered",
        [("Grill", 612.40), ("Water Bottle", 22.75), ("Camera", 1510.0), ("Grill", 540.05)],
    ),
    _order("#W1003", "pending", [("Kettle", 64.99), ("Blender", 99.95), ("Toaster", 45.10)]),
    _order(
        "#W1004", "pending", [("Backpack", 120.00), ("Jacket", 149.48), ("Boots", 251.82), ("Scarf", 19.99)]
    ),
]


_USER = {"user_id": "lena_park_4410", "orders": [o["order_id"] for o in _ORDERS]}


def _orders_run(answer):
    calls = [("get_user_details", {"user_id": "lena_park_4410"}, _USER)]
    calls += [("get_order_details", {"order_id": o["order_id"]}, o) for o in _ORDERS]
    return _run("Which of my orders can I still change? And what did I pay for grills?", calls, answer)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("I can see you have three pending orders: #W1001, #W1003 and #W1004.", None),
        ("You have one delivered order, #W1002.", None),
        ("You have 3 orders that are still pending.", None),
        ("You have four orders in total: three pending and one delivered.", None),
        # Another count of the same kind stays a claim to check, and parts that do not add up to the count.
        ("I can see you have two pending orders.", "two"),
        ("You have 2 orders that are still pending.", "2"),
        ("You have four orders in total: three pending and two delivered.", "four"),
    ],
)
def test_a_count_with_the_value_before_its_noun_counts_the_results_with_that_value(answer, bad):
    report = verify_run(_orders_run(answer))
    got = [t for t, _ in _flagged(report)]
    assert got == ([] if bad is None else [bad])


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Order #W1002 contained 2 grills with a total price of $1,152.45.", None),
        ("Your grill purchases: 2 grills in order #W1002, $1,152.45 in total.", None),
        # The results with a value the count names, added up by the one amount each has (its payment).
        ("Your three pending orders total $1,124.63.", None),
        ("Your three pending orders total $1,124.36.", "$1,124.36"),
        # Not the sum of the two grills' prices.
        ("Order #W1002 contained 2 grills with a total price of $1,163.45.", "$1,163.45"),
        # Not as many grills as the order holds: the count is flagged, and the total is no sum of 3 grills.
        ("Order #W1002 contained 3 grills with a total price of $1,152.45.", ["3", "$1,152.45"]),
    ],
)
def test_a_total_of_the_items_of_a_counted_kind_is_their_sum(answer, bad):
    report = verify_run(_orders_run(answer))
    got = [t for t, _ in _flagged(report)]
    assert got == ([] if bad is None else bad if isinstance(bad, list) else [bad])


def test_a_refund_timeline_label_is_no_name():
    order = _order("#W2001", "cancelled", [("Kettle", 64.99)])
    answer = (
        "**Order #W2001 - CANCELLED**\n"
        "- Refund Amount: $64.99\n"
        "- Refund Method: PayPal\n"
        "- Refund Timeline: 5-7 business days\n"
    )
    policy = {"role": "system", "content": "Refunds reach the original payment method in 5-7 business days."}
    run = _run("Cancel #W2001.", [("cancel_pending_order", {"order_id": "#W2001"}, order)], answer)
    assert _flagged(verify_run([policy, *run])) == []
    # A label of other words is still read as a name the run does not have.
    other = answer.replace("Refund Timeline", "Zephyr Timeline")
    assert [
        t for t, _ in _flagged(verify_run([policy, *run[:-1], {"role": "assistant", "content": other}]))
    ] == ["Zephyr Timeline"]


def _flight(number, departs, arrives, economy, business):
    return {
        "flight_number": number,
        "origin": "OAK",
        "destination": "BOI",
        "scheduled_departure_time_est": departs,
        "scheduled_arrival_time_est": arrives,
        "status": "available",
        "available_seats": {"economy": 9, "business": 12},
        "prices": {"economy": economy, "business": business},
    }


_FLIGHTS = [
    _flight("ZX112", "22:00:00", "01:00:00+1", 135, 404),
    _flight("ZX131", "18:00:00", "21:00:00", 184, 228),
]


def _flights_run(answer):
    question = "I need to move my OAK to BOI flight to May 24 and upgrade to business class."
    return _run(
        question, [("search_direct_flight", {"origin": "OAK", "date": "2024-05-24"}, _FLIGHTS)], answer
    )


def test_the_verbs_of_a_flights_times_are_no_names_but_a_wrong_time_is_flagged():
    good = (
        "Here are the flights on May 24:\n"
        "- **Flight ZX112:** Departs at 22:00, Arrives at 01:00+1, Business Class Price: $404\n"
        "- **Flight ZX131:** Departs at 18:00, Arrives at 21:00, Business Class Price: $228\n"
    )
    assert _flagged(verify_run(_flights_run(good))) == []
    bad = good.replace("Arrives at 21:00", "Arrives at 23:00")
    assert [t for t, _ in _flagged(verify_run(_flights_run(bad)))] == ["23:00"]


def _cancelled(order):
    done = dict(order, status="cancelled")
    paid = order["payment_history"][0]["amount"]
    done["payment_history"] = [
        *order["payment_history"],
        {"transaction_type": "refund", "amount": paid, "payment_method_id": "paypal_1"},
    ]
    return done


def _cancel_run(answer):
    w1, w3 = _ORDERS[0], _ORDERS[2]
    calls = [
        ("get_order_details", {"order_id": "#W1001"}, w1),
        ("get_order_details", {"order_id": "#W1003"}, w3),
        ("cancel_pending_order", {"order_id": "#W1001"}, _cancelled(w1)),
        ("cancel_pending_order", {"order_id": "#W1003"}, _cancelled(w3)),
    ]
    return _run("Please cancel #W1001 and #W1003.", calls, answer)


@pytest.mark.parametrize(
    "answer,bad",
    [
        # 373.30 + 210.04: the two refunds the cancellations record, added up.
        ("Both orders are cancelled. Your refund of $583.34 is on its way to PayPal.", None),
        ("Both orders are cancelled. Your refund of $538.34 is on its way to PayPal.", "$538.34"),
        # The state of the order before the cancellation, told as such.
        ("Order #W1001: CANCELLED (previously PENDING).", None),
        ("Order #W1001: CANCELLED (previously DELIVERED).", "DELIVERED"),
        # The progress of the refund is no status of the orders; the orders' status still is.
        ("Refund Status: Processing", None),
        ("Order #W1001 status: Processing", "Processing"),
    ],
)
def test_refunds_added_up_a_past_state_and_a_refunds_progress(answer, bad):
    got = [t for t, _ in _flagged(verify_run(_cancel_run(answer)))]
    assert got == ([] if bad is None else [bad])


def _legs_run(answer):
    legs = [
        {
            "flight_number": "ZX268",
            "origin": "OAK",
            "destination": "SLC",
            "scheduled_departure_time_est": "07:00:00",
            "scheduled_arrival_time_est": "09:30:00",
            "status": "available",
            "prices": {"economy": 119, "business": 430},
        },
        {
            "flight_number": "ZX010",
            "origin": "SLC",
            "destination": "BOI",
            "scheduled_departure_time_est": "19:00:00",
            "scheduled_arrival_time_est": "20:30:00",
            "status": "available",
            "prices": {"economy": 121, "business": 412},
        },
    ]
    calls = [
        ("search_direct_flight", {"origin": "OAK", "destination": "SLC"}, [legs[0]]),
        ("search_direct_flight", {"origin": "SLC", "destination": "BOI"}, [legs[1]]),
    ]
    return _run("How long are the flights OAK to SLC and SLC to BOI on May 22?", calls, answer)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("ZX268 departs OAK at 7:00 AM and arrives in SLC at 9:30 AM, a 2.5-hour flight.", None),
        ("ZX268 departs at 07:00 and lands at 09:30 (2 hours 30 minutes).", None),
        ("You would have a layover of about 9.5 hours in SLC before ZX010 departs at 7:00 PM.", None),
        ("ZX010 is a 1.5-hour flight.", None),
        # A decimal number of hours is read whole ("9.5 hours" was read as "5 hours"), and checked.
        ("ZX268 departs OAK at 7:00 AM and arrives in SLC at 9:30 AM, a 3.5-hour flight.", "3.5-hour"),
        ("You would have a layover of about 7.5 hours in SLC before ZX010 departs at 7:00 PM.", "7.5 hours"),
        ("ZX010 is a 2-hour flight.", "2-hour"),
    ],
)
def test_a_flights_length_and_a_layover_are_the_times_between_its_departures_and_arrivals(answer, bad):
    got = [t for t, _ in _flagged(verify_run(_legs_run(answer)))]
    assert got == ([] if bad is None else [bad])
