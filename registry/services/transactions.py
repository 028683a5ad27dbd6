"""Run a write as one transaction, and run it again when PostgreSQL aborts it to break a conflict.

Ingest takes its locks in one order (agents ascending), so concurrent batches should not deadlock;
this is the second line: a deadlock victim (SQLSTATE 40P01) or a serialization failure (40001) has
had its whole transaction rolled back, nothing of it is stored, so running the same function again
is safe and is what the client would have done after a 503. The attempts are bounded and spaced with
jittered exponential backoff so two victims do not meet again in lockstep.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from django.db import DatabaseError, connection, transaction

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: PostgreSQL's "try the transaction again" errors: deadlock victim, serialization failure.
RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
ATTEMPTS = 5
BACKOFF_SECONDS = 0.02
BACKOFF_MAX_SECONDS = 0.5


def transaction_conflict(exc: BaseException) -> bool:
    """Whether `exc` is PostgreSQL rolling back a transaction that may succeed when run again."""
    return getattr(exc.__cause__, "sqlstate", None) in RETRYABLE_SQLSTATES


def transaction_run_retrying(*, work: Callable[[], T], attempts: int = ATTEMPTS) -> T:
    """Run `work` in a transaction; on a deadlock or serialization failure roll back and rerun it.

    Inside a caller's transaction nothing can be retried (only the caller can roll back the rest of
    its work), so `work` then runs once. An error raised after the commit (an on-commit hook) is
    never retried: the data is stored, and running `work` again would answer a replay.
    """
    if connection.in_atomic_block:
        return work()
    for attempt in range(1, attempts + 1):
        committed: list[bool] = []
        try:
            with transaction.atomic():
                # Registered first, so it runs before any hook that could raise.
                transaction.on_commit(partial(committed.append, True))
                return work()
        except DatabaseError as exc:
            if committed or attempt == attempts or not transaction_conflict(exc):
                raise
            delay = min(BACKOFF_MAX_SECONDS, BACKOFF_SECONDS * 2 ** (attempt - 1))
            logger.info(
                "transaction rolled back by the database (%s); attempt %d of %d in %.3f s",
                getattr(exc.__cause__, "sqlstate", "?"),
                attempt + 1,
                attempts,
                delay,
            )
            # Full jitter: a random wait up to the cap, so the victims of one deadlock spread out.
            time.sleep(random.uniform(0, delay))
    raise AssertionError("unreachable")
