"""Which records of a run's tool results are the same thing read twice (issue 14, h19b).

A customer-service run reads an order (``get_order_details``), then acts on it (``cancel_pending_order``),
and the action returns the order again with its new status. The two results are two records of the same
order: the answer after the action speaks of the order as it is now, the latest record. A record is known
by the identifiers at its own level (``order_id``, ``user_id``, ``reservation_id``): two records with the
same identifiers, all of them, are one thing (two orders of one user share ``user_id`` but not
``order_id``).
"""

from __future__ import annotations

from typing import Any

from .evidence import Evidence, Fact


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
    out: dict[Any, set[tuple[str, str]]] = {}
    for f in ev.strings:
        rec = f.record
        if rec is None or rec not in records or f.source != "tool" or not isinstance(f.path, tuple):
            continue
        if len(f.path) != len(rec[1]) + 1 or not _id_key(f.path[-1]):
            continue
        out.setdefault(rec, set()).add((f.path[-1], str(f.value)))
    return {r: frozenset(ids) for r, ids in out.items()}


def latest_of_same(ev: Evidence, scoped: list[Fact], cands: list[Fact]) -> list[Fact]:
    """Among ``cands``, the facts of the latest record that is the same thing as a record of ``scoped``
    (same identifiers), when that record comes after all of ``scoped``'s records; else empty.

    "Order #W1 ... has been cancelled" after ``cancel_pending_order`` returned #W1 as cancelled: the state
    is the one of the latest read of #W1, not of the ``get_order_details`` before the cancellation.
    """
    records = {f.record for f in scoped} | {f.record for f in cands}
    ids = identities(ev, records)
    mine = {ids[f.record] for f in scoped if f.record in ids}
    if not mine:
        return []
    last_scoped = max(f.message_index for f in scoped)
    same = [f for f in cands if f.record in ids and ids[f.record] in mine and f.message_index > last_scoped]
    if not same:
        return []
    latest = max(f.message_index for f in same)
    return [f for f in same if f.message_index == latest]
