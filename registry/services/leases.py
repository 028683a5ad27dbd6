"""Leases on claimed queue rows (recomputes, roll-ups), kept alive while the claim is worked on.

A drain claims rows by writing its token and ``claimed_until`` (SCORE_RECOMPUTE_LEASE_SECONDS from
now). The lease is short, a few seconds, so a killed worker's rows come back quickly; while a claim
is worked on, :func:`lease_kept` renews it from a thread every third of the lease. A worker killed
with SIGKILL takes the thread with it, so its rows lapse one lease after the last renewal.

The lease is only an optimisation against doing the same work twice: correctness rests on the
fencing token. A settle stores nothing for rows whose ``claim`` is no longer its token (another
drain took them after a lapse), and deletes a row only if its generation is the one it claimed.

The renewal never waits for a lock: it updates the rows of its claim that it can lock at once
(``FOR UPDATE SKIP LOCKED``) and leaves the others, which a writer or the settle itself holds, to
the next beat. So it cannot take part in a deadlock with writers or settles.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from collections.abc import Iterator
from datetime import datetime, timedelta

from django.conf import settings
from django.db import DatabaseError, connection, connections, models
from django.utils import timezone

logger = logging.getLogger(__name__)

_RENEW_SQL = (
    "UPDATE {table} SET claimed_until = GREATEST(claimed_until, %s) WHERE {pk} IN "
    "(SELECT {pk} FROM {table} WHERE claim = %s FOR UPDATE SKIP LOCKED)"
)


def lease_until() -> datetime:
    """When a claim taken (or renewed) now lapses."""
    return timezone.now() + timedelta(seconds=settings.SCORE_RECOMPUTE_LEASE_SECONDS)


def lease_renew(*, model: type[models.Model], token: uuid.UUID) -> int:
    """Extend the lease of `token`'s rows of `model` to one lease from now, skipping locked rows.

    Never shortens a lease (a failed row is held longer on purpose). Runs in autocommit on the
    calling thread's connection; returns the rows renewed.
    """
    meta = model._meta
    sql = _RENEW_SQL.format(table=connection.ops.quote_name(meta.db_table), pk=meta.pk.column)
    with connection.cursor() as cursor:
        cursor.execute(sql, [lease_until(), token])
        return cursor.rowcount


@contextlib.contextmanager
def lease_kept(*, model: type[models.Model], token: uuid.UUID) -> Iterator[None]:
    """Renew the lease of `token`'s rows every third of a lease until the block exits.

    A block that ends within a third of a lease (the usual batch) never renews and never opens a
    second connection. Only on PostgreSQL (SQLite has neither concurrent drains nor SKIP LOCKED).
    """
    if connection.vendor != "postgresql":
        yield
        return
    stop = threading.Event()
    interval = settings.SCORE_RECOMPUTE_LEASE_SECONDS / 3

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    lease_renew(model=model, token=token)
                except DatabaseError:
                    # The lease may lapse; another drain then takes the rows and this one's settle
                    # stores nothing for them (the fencing token), so only work is lost.
                    logger.warning("could not renew a %s lease", model.__name__, exc_info=True)
        finally:
            # This thread's connection is its own; close it rather than leak it.
            connections.close_all()

    thread = threading.Thread(target=beat, name=f"lease-{token}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
