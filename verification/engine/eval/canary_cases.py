"""Labelled canary cases: agent runs whose final answer is known to be faithful or known to be fabricated.

The registry sends these to verification providers that register a check endpoint, unannounced, and
measures how often each provider blocks a faithful answer (a false positive) or lets a fabricated one
through (a false negative). A case is one short tool-using run in the OpenAI chat format: the user asks,
the assistant calls one tool, the tool answers with a JSON record, and the assistant's final answer
restates two or three of the record's values. In a *faithful* case every restated value is the tool's
(sometimes in another format: 19:05 as "7:05 PM", 2026-05-13 as "May 13, 2026"). In a *fabricated* case
exactly one restated value differs from the tool's: a number moved well outside rounding, another time or
date, another status from the same vocabulary, another place.

Every case is drawn from a fresh random stream (`random.Random(seed)`); callers pass a seed from
`secrets` so that no two cases repeat and a provider cannot learn the set. The same seed gives the same
case, which is what the tests rely on.

>>> case = canary_case(seed=7, fabricated=True)
>>> case.label, case.expected_verdict
('fabricated', 'BLOCK')
>>> [m["role"] for m in case.messages]
['user', 'assistant', 'tool', 'assistant']
"""

from __future__ import annotations

import json
import random

# English month names: Python starts in the C locale, and nothing here calls setlocale.
from calendar import month_name
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

__all__ = ["DOMAINS", "CanaryCase", "canary_case"]

_CITIES = [
    ("Lisbon", "Portugal"),
    ("Osaka", "Japan"),
    ("Porto Alegre", "Brazil"),
    ("Tallinn", "Estonia"),
    ("Nairobi", "Kenya"),
    ("Winnipeg", "Canada"),
    ("Adelaide", "Australia"),
    ("Gdansk", "Poland"),
    ("Valparaiso", "Chile"),
    ("Leeds", "United Kingdom"),
    ("Bergen", "Norway"),
    ("Izmir", "Turkey"),
]
_CONDITIONS = ["sunny", "light rain", "overcast", "snow showers", "thunderstorms", "fog", "partly cloudy"]
_FLIGHT_STATUS = ["on time", "delayed", "cancelled", "boarding", "diverted"]
_ORDER_STATUS = ["shipped", "processing", "delivered", "returned", "on hold"]
_CARRIERS = ["QX", "LM", "TV", "RB", "KZ", "FN"]
_HOTELS = ["Harbour View Inn", "Maple Court Hotel", "The Linden", "Casa Alta", "Northgate Suites"]


@dataclass(frozen=True)
class CanaryCase:
    """One labelled run: `messages` and `tools` in the chat format, and what a good verifier answers."""

    domain: str
    label: str  # "faithful" or "fabricated"
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    #: The edited value in a fabricated case ({"field", "tool", "answer"}); empty when faithful.
    edit: dict[str, str] = field(default_factory=dict)

    @property
    def expected_verdict(self) -> str:
        """BLOCK for a fabricated answer, ALLOW for a faithful one."""
        return "BLOCK" if self.label == "fabricated" else "ALLOW"

    def request_body(self) -> dict[str, Any]:
        """What is sent to a check endpoint: the run, nothing that says it is a canary."""
        return {"messages": self.messages, "tools": self.tools}


@dataclass
class _Slot:
    """A value the answer restates: the tool's value, how the answer writes it, and a wrong version."""

    field: str
    tool_value: Any
    spoken: str
    wrong: Callable[[random.Random], str]


def _clock(rng: random.Random) -> tuple[str, str, Callable[[random.Random], str]]:
    hour, minute = rng.randrange(5, 23), rng.choice([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55])
    iso = f"{hour:02d}:{minute:02d}"
    if rng.random() < 0.5:
        spoken = iso
    else:
        spoken = f"{(hour - 1) % 12 + 1}:{minute:02d} {'AM' if hour < 12 else 'PM'}"

    def wrong(r: random.Random) -> str:
        shifted = (hour + r.choice([-3, -2, 2, 3, 4])) % 24
        return f"{shifted:02d}:{minute:02d}"

    return iso, spoken, wrong


def _day(rng: random.Random) -> tuple[str, str, Callable[[random.Random], str]]:
    when = date(2026, 1, 1) + timedelta(days=rng.randrange(0, 700))
    spoken = when.isoformat() if rng.random() < 0.4 else f"{month_name[when.month]} {when.day}, {when.year}"

    def wrong(r: random.Random) -> str:
        other = when + timedelta(days=r.choice([-9, -5, -3, 3, 6, 11]))
        return f"{month_name[other.month]} {other.day}, {other.year}"

    return when.isoformat(), spoken, wrong


def _money(rng: random.Random, low: float, high: float) -> tuple[float, str, Callable[[random.Random], str]]:
    value = round(rng.uniform(low, high), 2)

    def wrong(r: random.Random) -> str:
        factor = r.choice([0.55, 0.7, 1.4, 1.8, 2.5])
        return f"${value * factor:,.2f}"

    return value, f"${value:,.2f}", wrong


def _count(
    rng: random.Random, low: int, high: int, unit: str
) -> tuple[int, str, Callable[[random.Random], str]]:
    value = rng.randrange(low, high)

    def wrong(r: random.Random) -> str:
        return f"{value + r.choice([-4, -3, 3, 5, 7]) if value > 5 else value + r.choice([3, 5, 7])} {unit}"

    return value, f"{value} {unit}", wrong


def _choice(rng: random.Random, options: list[str]) -> tuple[str, str, Callable[[random.Random], str]]:
    value = rng.choice(options)

    def wrong(r: random.Random) -> str:
        return r.choice([o for o in options if o != value])

    return value, value, wrong


def _weather(rng: random.Random) -> tuple[str, str, dict[str, Any], dict[str, Any], list[_Slot], str]:
    city, country = rng.choice(_CITIES)
    temp = rng.randrange(-8, 36)
    condition, condition_spoken, condition_wrong = _choice(rng, _CONDITIONS)
    wind = rng.randrange(3, 60)
    record = {
        "city": city,
        "country": country,
        "temperature_c": temp,
        "condition": condition,
        "wind_kmh": wind,
    }
    slots = [
        _Slot("temperature_c", temp, f"{temp}°C", lambda r: f"{temp + r.choice([-9, -7, 7, 9, 12])}°C"),
        _Slot("condition", condition, condition_spoken, condition_wrong),
        _Slot("wind_kmh", wind, f"{wind} km/h", lambda r: f"{wind + r.choice([15, 20, 25])} km/h"),
    ]
    template = "Right now in {city} it is {temperature_c} with {condition}, and the wind is at {wind_kmh}."
    question = rng.choice(["What's the weather like in {city} right now?", "Current conditions in {city}?"])
    return "get_current_weather", question.format(city=city), {"city": city}, record, slots, template


def _flight(rng: random.Random) -> tuple[str, str, dict[str, Any], dict[str, Any], list[_Slot], str]:
    code = f"{rng.choice(_CARRIERS)}{rng.randrange(100, 9999)}"
    departs, departs_spoken, departs_wrong = _clock(rng)
    status, status_spoken, status_wrong = _choice(rng, _FLIGHT_STATUS)
    gate = f"{rng.choice('ABCDEF')}{rng.randrange(1, 40)}"
    record = {"flight": code, "scheduled_departure": departs, "status": status, "gate": gate}
    slots = [
        _Slot("scheduled_departure", departs, departs_spoken, departs_wrong),
        _Slot("status", status, status_spoken, status_wrong),
        _Slot("gate", gate, gate, lambda r: f"{r.choice('GHJK')}{r.randrange(41, 80)}"),
    ]
    template = (
        "Flight {flight} is {status}; it is scheduled to leave at {scheduled_departure} from gate {gate}."
    )
    question = rng.choice(["Is flight {code} on time?", "What's the status of {code}?"])
    return "get_flight_status", question.format(code=code), {"flight": code}, record, slots, template


def _order(rng: random.Random) -> tuple[str, str, dict[str, Any], dict[str, Any], list[_Slot], str]:
    order_id = f"ORD-{rng.randrange(100000, 999999)}"
    total, total_spoken, total_wrong = _money(rng, 12, 900)
    items, items_spoken, items_wrong = _count(rng, 1, 14, "items")
    status, status_spoken, status_wrong = _choice(rng, _ORDER_STATUS)
    eta, eta_spoken, eta_wrong = _day(rng)
    record = {"order_id": order_id, "total_usd": total, "item_count": items, "status": status, "eta": eta}
    slots = [
        _Slot("total_usd", total, total_spoken, total_wrong),
        _Slot("item_count", items, items_spoken, items_wrong),
        _Slot("status", status, status_spoken, status_wrong),
        _Slot("eta", eta, eta_spoken, eta_wrong),
    ]
    template = "Order {order_id} is {status}: {item_count} for a total of {total_usd}, expected on {eta}."
    question = rng.choice(["Where is my order {oid}?", "Can you check order {oid} for me?"])
    return "lookup_order", question.format(oid=order_id), {"order_id": order_id}, record, slots, template


def _booking(rng: random.Random) -> tuple[str, str, dict[str, Any], dict[str, Any], list[_Slot], str]:
    hotel = rng.choice(_HOTELS)
    city, _ = rng.choice(_CITIES)
    nights, nights_spoken, nights_wrong = _count(rng, 1, 12, "nights")
    rate, rate_spoken, rate_wrong = _money(rng, 60, 480)
    check_in, check_in_spoken, check_in_wrong = _day(rng)
    reference = f"BK{rng.randrange(10000, 99999)}"
    record = {
        "reference": reference,
        "hotel": hotel,
        "city": city,
        "nights": nights,
        "nightly_rate_usd": rate,
        "check_in": check_in,
    }
    slots = [
        _Slot("nights", nights, nights_spoken, nights_wrong),
        _Slot("nightly_rate_usd", rate, rate_spoken, rate_wrong),
        _Slot("check_in", check_in, check_in_spoken, check_in_wrong),
        _Slot("city", city, city, lambda r: r.choice([c for c, _ in _CITIES if c != city])),
    ]
    template = (
        "Booking {reference} at "
        + hotel
        + " in {city} is for {nights} from {check_in}, at {nightly_rate_usd} a night."
    )
    question = rng.choice(["What are the details of booking {ref}?", "Remind me what booking {ref} covers."])
    return "get_booking", question.format(ref=reference), {"reference": reference}, record, slots, template


#: The domains a case is drawn from, by name.
DOMAINS: dict[
    str, Callable[[random.Random], tuple[str, str, dict[str, Any], dict[str, Any], list[_Slot], str]]
] = {
    "weather": _weather,
    "flight": _flight,
    "order": _order,
    "booking": _booking,
}


def _tool_schema(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    properties = {key: {"type": "string"} for key in arguments}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": f"Look up {name.removeprefix('get_').replace('_', ' ')}.",
            "parameters": {"type": "object", "properties": properties, "required": sorted(properties)},
        },
    }


def canary_case(*, seed: int, fabricated: bool, domain: str | None = None) -> CanaryCase:
    """A case drawn from `random.Random(seed)`: fabricated (one restated value edited) or faithful.

    >>> canary_case(seed=1, fabricated=False).edit
    {}
    >>> canary_case(seed=1, fabricated=True, domain="order").domain
    'order'
    >>> canary_case(seed=1, fabricated=True, domain="stocks")
    Traceback (most recent call last):
      ...
    ValueError: unknown canary domain 'stocks'; one of ['booking', 'flight', 'order', 'weather']
    """
    rng = random.Random(seed)
    if domain is None:
        domain = rng.choice(sorted(DOMAINS))
    elif domain not in DOMAINS:
        raise ValueError(f"unknown canary domain {domain!r}; one of {sorted(DOMAINS)}")
    tool, question, arguments, record, slots, template = DOMAINS[domain](rng)
    spoken = {slot.field: slot.spoken for slot in slots}
    edit: dict[str, str] = {}
    if fabricated:
        slot = rng.choice(slots)
        wrong = slot.wrong(rng)
        spoken[slot.field] = wrong
        edit = {"field": slot.field, "tool": str(slot.tool_value), "answer": wrong}
    answer = template.format(**{**{k: v for k, v in record.items()}, **spoken})
    call_id = "call_" + "".join(
        rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(12)
    )
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": question},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": tool, "arguments": json.dumps(arguments)},
                }
            ],
        },
        {"role": "tool", "tool_call_id": call_id, "content": json.dumps(record)},
        {"role": "assistant", "content": answer},
    ]
    return CanaryCase(
        domain=domain,
        label="fabricated" if fabricated else "faithful",
        messages=messages,
        tools=[_tool_schema(tool, arguments)],
        edit=edit,
    )
