"""Issue 14, fifteenth round (h24k): false alarms of the luna dev4/dev5 runs, as general rules.

A YAML-like result names the unit of a number in its key, as a JSON result does: ``odometer_miles: 61200``
is miles, and the children of ``parcel_dimensions_cm:`` are centimetres. The runs are made up for these
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
