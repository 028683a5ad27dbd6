"""Long customer-service agent runs for the latency benchmark (issue 14), generated from a fixed seed.

Each run is a multi-turn conversation between a customer and a support agent that calls tools (orders,
flights, bookings, refunds, account lookups): 15 to 40 messages and 10 to 40 KB in all, like the real
transcripts of issue 14's set A. The agent's turns restate the tool results the way people write them:
12-hour times for 24-hour ones, "May 13" for 2024-05-13, sums and counts of the results, rounded amounts,
airport codes with their city, polite filler and headings. The final answer, the part that is verified,
draws on several of the results, and now and then (about one run in six) gets one value wrong.

    python bench/long_runs.py --count 200 --seed 14 > /tmp/long_runs.jsonl   # one labelled run per line
    python manage.py evaluate --task groundedness /tmp/long_runs.jsonl         # P/R/F1, clean-flag rate

Each line is in the groundedness format of ``evaluate``: ``{"id", "messages", "label"}`` with the label
``{"hallucinated", "spans": [{"start", "end", "text"}]}`` naming the planted wrong value in the final answer.

``bench/bench_runs.py`` imports ``make_long_run`` and times these runs next to its short synthetic ones.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import date, timedelta
from typing import Any

FIRST = ["Maria", "James", "Aiko", "Omar", "Lena", "Carlos", "Priya", "Tom", "Sofia", "Noah", "Fatima"]
LAST = ["Garcia", "Smith", "Tanaka", "Haddad", "Novak", "Silva", "Patel", "Brown", "Rossi", "Kim", "Ali"]
AIRPORTS = {
    "JFK": "New York",
    "LAX": "Los Angeles",
    "ORD": "Chicago",
    "SFO": "San Francisco",
    "LHR": "London",
    "CDG": "Paris",
    "NRT": "Tokyo",
    "SEA": "Seattle",
    "BOS": "Boston",
}
PRODUCTS = [
    "Wireless Earbuds",
    "Trail Backpack",
    "Espresso Maker",
    "Desk Lamp",
    "Yoga Mat",
    "Smart Watch",
    "Rain Jacket",
    "Blender",
    "Phone Case",
    "Running Shoes",
    "Air Purifier",
    "Water Bottle",
]
ORDER_STATUS = ["processing", "shipped", "delivered", "cancelled", "returned"]
FLIGHT_STATUS = ["on time", "delayed", "boarding", "cancelled"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
FILLER = [
    "Thanks for your patience while I looked into this.",
    "Please let me know if there is anything else I can help you with today.",
    "I completely understand how frustrating that must be.",
    "I'll be happy to take care of that for you.",
    "Is there anything else you would like me to check?",
]


def _day(rng: random.Random) -> date:
    return date(2024, 1, 1) + timedelta(days=rng.randrange(700))


def _time24(rng: random.Random) -> str:
    return f"{rng.randrange(5, 23):02d}:{rng.choice([0, 5, 15, 30, 45, 50]):02d}:00"


def _time12(t: str) -> str:
    h, m = int(t[:2]), int(t[3:5])
    return f"{(h - 1) % 12 + 1}:{m:02d} {'PM' if h >= 12 else 'AM'}"


def _say_date(d: str) -> str:
    day = date.fromisoformat(d)
    return f"{MONTHS[day.month - 1]} {day.day}"


def _item(rng: random.Random) -> dict[str, Any]:
    qty = rng.randrange(1, 4)
    return {
        "sku": f"SKU-{rng.randrange(10**6):06d}",
        "name": rng.choice(PRODUCTS),
        "quantity": qty,
        "unit_price": round(rng.uniform(8, 400), 2),
    }


def _order(rng: random.Random) -> dict[str, Any]:
    items = [_item(rng) for _ in range(rng.randrange(1, 5))]
    placed = _day(rng)
    return {
        "order_id": f"W{rng.randrange(10**7):07d}",
        "status": rng.choice(ORDER_STATUS),
        "placed": placed.isoformat(),
        "estimated_delivery": (placed + timedelta(days=rng.randrange(2, 9))).isoformat(),
        "items": items,
        "shipping": {
            "carrier": rng.choice(["UPS", "FedEx", "DHL"]),
            "tracking": f"1Z{rng.randrange(10**9)}",
            "cost": rng.choice([0.0, 4.99, 9.99]),
        },
        "total": round(sum(i["unit_price"] * i["quantity"] for i in items), 2),
        "currency": "USD",
    }


def _flight(rng: random.Random) -> dict[str, Any]:
    a, b = rng.sample(list(AIRPORTS), 2)
    return {
        "flight": f"{rng.choice(['UA', 'AA', 'DL', 'BA'])}{rng.randrange(100, 2999)}",
        "origin": a,
        "destination": b,
        "date": _day(rng).isoformat(),
        "departure": _time24(rng),
        "arrival": _time24(rng),
        "status": rng.choice(FLIGHT_STATUS),
        "gate": f"{rng.choice('ABCDE')}{rng.randrange(1, 40)}",
        "seats_left": rng.randrange(0, 60),
        "fare": {"economy": round(rng.uniform(90, 700), 2), "business": round(rng.uniform(800, 4000), 2)},
    }


def _customer(rng: random.Random) -> dict[str, Any]:
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "customer_id": f"C-{rng.randrange(10**6):06d}",
        "name": f"{first} {last}",
        "email": f"{first.lower()}.{last.lower()}{rng.randrange(100)}@example.com",
        "tier": rng.choice(["basic", "silver", "gold"]),
        "member_since": _day(rng).isoformat(),
        "loyalty_points": rng.randrange(0, 90000),
        "address": {"city": rng.choice(list(AIRPORTS.values())), "zip": f"{rng.randrange(10**5):05d}"},
    }


def _turn(rng: random.Random, k: int, wrong: bool) -> tuple[str, str, dict[str, Any], str, str]:
    """(user request, tool name, tool result, the agent's reply restating it, the wrong value) for one
    exchange; the wrong value is the text of the reply that disagrees with the result ("" when right).

    Planting an error draws no extra random numbers, so a run is the same text with or without it except
    for that value (the latency set stays comparable across versions)."""
    kind = rng.randrange(5)
    if kind == 0:
        c = _customer(rng)
        pts = c["loyalty_points"] + (1000 if wrong else 0)
        return (
            "Can you pull up my account?",
            "get_customer",
            c,
            f"I found your account, {c['name'].split()[0]}. You're a {c['tier']} member since "
            f"{_say_date(c['member_since'])} with {pts:,} loyalty points, and we have "
            f"{c['email']} on file.",
            f"{pts:,} loyalty points" if wrong else "",
        )
    if kind == 1:
        o = _order(rng)
        total = o["total"] * (1.5 if wrong else 1)
        return (
            f"Where is my order {o['order_id']}?",
            "get_order",
            o,
            f"Order {o['order_id']} is {o['status']}. It was placed on {_say_date(o['placed'])} and "
            f"should arrive by {_say_date(o['estimated_delivery'])} via {o['shipping']['carrier']}. "
            f"It has {len(o['items'])} item(s) totalling ${total:,.2f}.",
            f"${total:,.2f}" if wrong else "",
        )
    if kind == 2:
        orders = [_order(rng) for _ in range(rng.randrange(3, 8))]
        open_orders = [o for o in orders if o["status"] in ("processing", "shipped")]
        # A miscount of the orders on file is this exchange's error (the list itself stays right).
        on_file = len(orders) + (2 if wrong else 0)
        return (
            "Which of my orders are still open?",
            "list_orders",
            {"orders": orders, "count": len(orders)},
            f"You have {on_file} orders on file and {len(open_orders)} of them are still open: "
            + ", ".join(f"{o['order_id']} ({o['status']})" for o in open_orders[:4])
            + ".",
            f"{on_file} orders" if wrong else "",
        )
    if kind == 3:
        f = _flight(rng)
        dep = (
            _time12(f["departure"])
            if not wrong
            else _time12(f"{(int(f['departure'][:2]) + 3) % 24:02d}:00:00")
        )
        return (
            f"Is flight {f['flight']} on time?",
            "get_flight",
            f,
            f"Flight {f['flight']} from {AIRPORTS[f['origin']]} ({f['origin']}) to "
            f"{AIRPORTS[f['destination']]} ({f['destination']}) on {_say_date(f['date'])} is "
            f"{f['status']}. It departs at {dep} from gate {f['gate']}; economy is about "
            f"${round(f['fare']['economy']):,} and there are {f['seats_left']} seats left.",
            dep if wrong else "",
        )
    o = _order(rng)
    refund = round(o["total"] + o["shipping"]["cost"], 2)
    est = {
        "order_id": o["order_id"],
        "items_total": o["total"],
        "shipping_refund": o["shipping"]["cost"],
        "refund_total": refund,
        "method": "original payment",
        "days": rng.randrange(3, 11),
    }
    shown = refund + (20 if wrong else 0)
    return (
        f"How much would I get back if I return order {o['order_id']}?",
        "refund_estimate",
        est,
        f"If you return order {o['order_id']}, you'd get ${shown:,.2f} back to your original payment "
        f"method within {est['days']} business days.",
        f"${shown:,.2f}" if wrong else "",
    )


def make_long_run(
    rng: random.Random,
    *,
    min_messages: int = 15,
    max_messages: int = 40,
    min_bytes: int = 10_000,
    max_bytes: int = 40_000,
) -> list[dict[str, Any]]:
    """One customer-service run of 15-40 messages and 10-40 KB (as JSON) ending with the final answer."""
    return make_long_case(
        rng, min_messages=min_messages, max_messages=max_messages, min_bytes=min_bytes, max_bytes=max_bytes
    )[0]


def make_long_case(
    rng: random.Random,
    *,
    min_messages: int = 15,
    max_messages: int = 40,
    min_bytes: int = 10_000,
    max_bytes: int = 40_000,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One run (as :func:`make_long_run`) and its label in the groundedness format of ``evaluate``:
    ``{"hallucinated": bool, "spans": [{"start", "end", "text"}]}``, the span of the planted wrong value in
    the final answer (none when the run is right)."""
    while True:  # the padding aims at a size; the few runs that miss the range are drawn again
        run, label = _long_run(rng, min_messages, max_messages, min_bytes, max_bytes)
        if min_bytes <= len(json.dumps(run)) <= max_bytes:
            return run, label


def _long_run(
    rng: random.Random, min_messages: int, max_messages: int, min_bytes: int, max_bytes: int
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    target_msgs = rng.randrange(min_messages, max_messages + 1)
    # The padding lands within about 1.5 KB of its aim: aim inside the range by that much.
    target_bytes = rng.randrange(min_bytes + 1_500, max_bytes + 1)
    msgs: list[dict[str, Any]] = [
        {
            "role": "system",
            "content": "You are a customer support agent for an online store and airline "
            "partner. Use the tools to look things up; never guess order, flight or account details.",
        },
    ]
    replies: list[str] = []
    # One exchange is four messages (user, tool call, tool result, reply); the system prompt and the final
    # exchange add five: 4 * turns + 5 messages, 17 to 37.
    turns = min((max_messages - 5) // 4, max(3, -(-(target_msgs - 5) // 4)))
    share = (target_bytes - 1_500) // (turns + 1) - 250
    for k in range(turns):
        user, tool, result, reply, _ = _turn(rng, k, wrong=False)
        content = json.dumps(result)
        # Pad results with the long, irrelevant fields real APIs return until the run reaches its size.
        while len(content) + len(user) + len(reply) + 300 < share:
            result.setdefault("history", []).append(
                {
                    "event": rng.choice(["viewed", "updated", "emailed", "note"]),
                    "at": f"{_day(rng)}T{_time24(rng)}",
                    "by": rng.choice(["system", "agent", "customer"]),
                    "text": rng.choice(FILLER),
                }
            )
            content = json.dumps(result)
        call_id = f"call_{k}"
        msgs += [
            {"role": "user", "content": user},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps({"ref": k})},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": call_id, "content": content},
            {"role": "assistant", "content": f"{rng.choice(FILLER)} {reply}"},
        ]
        replies.append(reply)
    k = turns
    wrong = rng.random() < 1 / 6
    # The final answer sums up: the earlier replies' values again (the verified part), one maybe wrong.
    final_user, tool, result, reply, planted = _turn(rng, k, wrong=wrong)
    call_id = f"call_{k}"
    msgs += [
        {"role": "user", "content": final_user},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": tool, "arguments": json.dumps({"ref": k})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)},
    ]
    recap = " ".join(rng.sample(replies, min(3, len(replies))))
    head = "**Summary**\n\n"
    answer = f"{head}{reply} To recap: {recap} {rng.choice(FILLER)}"
    msgs.append({"role": "assistant", "content": answer})
    spans = []
    if planted:
        start = len(head) + reply.index(planted)
        spans.append({"start": start, "end": start + len(planted), "text": planted})
        assert answer[start : start + len(planted)] == planted
    return msgs, {"hallucinated": bool(planted), "fact_check_needed": True, "spans": spans}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    for i in range(args.count):
        messages, label = make_long_case(rng)
        line = {"id": f"long-{args.seed}-{i}", "messages": messages, "label": label}
        sys.stdout.write(json.dumps(line) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
