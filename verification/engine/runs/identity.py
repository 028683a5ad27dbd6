"""Which records of a run's tool results are the same thing read twice (issue 14, h19b).

A customer-service run reads an order (``get_order_details``), then acts on it (``cancel_pending_order``),
and the action returns the order again with its new status. The two results are two records of the same
order: the answer after the action speaks of the order as it is now, the latest record. A record is known
by the identifiers at its own level (``order_id``, ``user_id``, ``reservation_id``): two records with the
same identifiers, all of them, are one thing (two orders of one user share ``user_id`` but not
``order_id``).
"""

from __future__ import annotations

import re
from typing import Any

from .evidence import Evidence, Fact, normalize_text


def _id_key(key: Any) -> bool:
    return isinstance(key, str) and (key == "id" or key.endswith("_id"))


def identities(ev: Evidence, records: set[Any]) -> dict[Any, frozenset[tuple[str, str]]]:
    """The identifiers of each of ``records`` at its own level, as (key, value) pairs; records without any
    are left out.

    >>> import json
    >>> from verification.engine.runs.messages import parse_run
    >>> from verification.engine.runs.evidence import build_evidence
    >>> order = {"order_id": "#W1", "user_id": "u_1", "items": [{"name": "Lamp", "item_id": "55"}]}
    >>> msgs = [{"role": "tool", "content": json.dumps(order)}, {"role": "assistant", "content": "ok"}]
    >>> ev = build_evidence(parse_run(msgs))
    >>> ids = identities(ev, {(0, ()), (0, ("items", 0))})
    >>> sorted(ids[(0, ())]), sorted(ids[(0, ("items", 0))])
    ([('order_id', 'w1'), ('user_id', 'u 1')], [('item_id', '55')])
    """
    table = _record_ids(ev)
    out: dict[Any, set[tuple[str, str]]] = {rec: table[rec] for rec in records if rec in table}
    for rec in records:
        if rec in out or not isinstance(rec, tuple) or len(rec) != 2 or rec[1] != ():
            continue
        ids = _text_ids(ev.contents.get(rec[0]))
        if ids:
            out[rec] = ids
    return {r: frozenset(ids) for r, ids in out.items()}


def _record_ids(ev: Evidence) -> dict[Any, set[tuple[str, str]]]:
    """The identifiers of every record of a tool result at its own level, read once per evidence."""
    if ev.record_ids is None:
        table: dict[Any, set[tuple[str, str]]] = {}
        for f in ev.strings:
            rec = f.record
            if rec is None or f.source != "tool" or not isinstance(f.path, tuple):
                continue
            if len(f.path) != len(rec[1]) + 1 or not _id_key(f.path[-1]):
                continue
            table.setdefault(rec, set()).add((f.path[-1], str(f.value)))
        ev.record_ids = table
    return ev.record_ids


# A top-level identifier line of a YAML-like text result ("reference_id: SFO-PARK-4821").
_TEXT_ID = re.compile(r"^((?:[a-z0-9_]*_)?id):[ \t]*'?([^'\s][^'\n]*?)'?[ \t]*$", re.M)


def _text_ids(content: Any) -> set[tuple[str, str]]:
    """The identifiers at the top level of a text result (YAML-like ``key: value`` lines), normalised as the
    strings of a JSON result are: a record read as text is known by them too (issue 14, h22a).

    >>> sorted(_text_ids("action: cancel\\nreference_id: SFO-PARK-4821\\nitems:\\n  item_id: 7"))
    [('reference_id', 'sfo-park-4821')]
    >>> _text_ids('{"order_id": "W1"}'), _text_ids(None)
    (set(), set())
    """
    if not isinstance(content, str) or content.lstrip()[:1] in ("{", "["):
        return set()
    return {(m.group(1), normalize_text(m.group(2))) for m in _TEXT_ID.finditer(content)}


def latest_of_same(ev: Evidence, scoped: list[Fact], cands: list[Fact]) -> list[Fact]:
    """Among ``cands``, the facts of the latest record that is the same thing as a record of ``scoped``
    (same identifiers), when that record comes after all of ``scoped``'s records; else empty.

    "Order #W1 ... has been cancelled" after ``cancel_pending_order`` returned #W1 as cancelled: the state
    is the one of the latest read of #W1, not of the ``get_order_details`` before the cancellation.
    """
    last_scoped = max((f.message_index for f in scoped), default=-1)
    same = [f for f in _same_things(ev, scoped, cands) if f.message_index > last_scoped]
    if not same:
        return []
    latest = max(f.message_index for f in same)
    return [f for f in same if f.message_index == latest]


def earlier_of_same(ev: Evidence, scoped: list[Fact], cands: list[Fact]) -> list[Fact]:
    """Among ``cands``, the facts of the records read before ``scoped``'s that are the same thing as a
    record of ``scoped`` (same identifiers): "Order #W1: CANCELLED (previously PENDING)" speaks of the read
    of #W1 before ``cancel_pending_order`` returned it cancelled (issue 14, h23d).
    """
    first_scoped = min((f.message_index for f in scoped), default=-1)
    return [f for f in _same_things(ev, scoped, cands) if f.message_index < first_scoped]


def _same_things(ev: Evidence, scoped: list[Fact], cands: list[Fact]) -> list[Fact]:
    """The facts of ``cands`` whose record is the same thing as a record of ``scoped`` (same identifiers)."""
    records = {f.record for f in scoped} | {f.record for f in cands}
    ids = identities(ev, records)
    mine = {ids[f.record] for f in scoped if f.record in ids}
    if not mine:
        return []
    return [f for f in cands if f.record in ids and ids[f.record] in mine]
