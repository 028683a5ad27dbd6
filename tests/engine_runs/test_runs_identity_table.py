"""``identity.identities`` reads the records' identifiers from the evidence once, not once per call.

The rules that tie a state to the latest (or an earlier) read of the same thing ask for the identifiers of
the records they weigh once per state word: an answer that names a thousand orders scanned every string of
the results a thousand times (h23r, review of the fourteenth round). The table is built on the first call;
the answers are those of the scan it replaces, for any set of records asked.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.runs.evidence import Evidence, build_evidence
from verification.engine.runs.identity import identities
from verification.engine.runs.messages import parse_run


def _scan(ev: Evidence, records: set[Any]) -> dict[Any, frozenset[tuple[str, str]]]:
    """The scan of every string the table replaces (the form before h23r), for the records of JSON results."""
    out: dict[Any, set[tuple[str, str]]] = {}
    for f in ev.strings:
        rec = f.record
        if rec is None or rec not in records or f.source != "tool" or not isinstance(f.path, tuple):
            continue
        if len(f.path) != len(rec[1]) + 1 or not isinstance(f.path[-1], str):
            continue
        if f.path[-1] == "id" or f.path[-1].endswith("_id"):
            out.setdefault(rec, set()).add((f.path[-1], str(f.value)))
    return {r: frozenset(ids) for r, ids in out.items()}


def _evidence(orders: int) -> Evidence:
    results = [
        {"order_id": f"#W{i}", "user_id": f"u_{i % 3}", "status": "pending", "items": [{"item_id": str(i)}]}
        for i in range(orders)
    ]
    msgs = [{"role": "tool", "content": json.dumps(r)} for r in results]
    return build_evidence(parse_run([*msgs, {"role": "assistant", "content": "ok"}]))


_EV = _evidence(12)
_RECORDS = sorted({f.record for f in _EV.strings if f.record is not None})


@settings(max_examples=200, deadline=None)
@given(st.sets(st.sampled_from(_RECORDS)))
def test_identities_are_those_of_the_scan(records: set[Any]) -> None:
    ev = _evidence(12)
    assert identities(ev, records) == _scan(ev, records)
    assert identities(ev, records) == _scan(ev, records)  # the second call reads the table


def test_the_table_is_built_once() -> None:
    ev = _evidence(5)
    assert ev.record_ids is None
    identities(ev, {_RECORDS[0]})
    table = ev.record_ids
    assert table is not None and len(table) == 10  # each order and its item
    identities(ev, set(_RECORDS[:4]))
    assert ev.record_ids is table
