"""A per-request cost budget the engines check inside their loops.

A verification's cost grows with the sizes of what it is given (an answer's values times the values of
the tool results), so a size cap alone cannot promise a bounded request: a run under every cap can still
be slow in a shape nobody measured. The budget is the promise: the engine checks it at every step whose
count grows with the input, and gives up with :class:`BudgetExceeded` once the request has spent its
time, whatever the shape.

The clock is the CPU time of the calling thread (``time.thread_time``) by default: it counts what the
request itself costs, so a busy machine does not fail honest requests, and an idle wait (a network probe)
is bounded by its own timeout instead. ``clock="wall"`` uses ``time.perf_counter``.

Library use without a budget (``verify_run(messages)``) gets :data:`UNLIMITED`, which never fires.

>>> b = Budget(seconds=60.0)
>>> b.check("reading the run")
>>> b.remaining() > 59.0
True
>>> UNLIMITED.check("anything")
>>> Budget(seconds=0.0).check("matching")
Traceback (most recent call last):
...
verification.engine.budget.BudgetExceeded: the verification used up its 0 s CPU-time budget while matching
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Final

__all__ = ["UNLIMITED", "Budget", "BudgetExceeded"]

# ``step`` reads the clock once per this many steps: a thread CPU-time read is a system call (~0.3 us),
# a step is a few dozen bytecodes, so the check costs well under one per cent of the work it guards.
_STRIDE: Final = 256


class BudgetExceeded(Exception):
    """The request spent its budget; ``stage`` says where the engine was when it gave up.

    >>> e = BudgetExceeded("cpu-seconds", 2.0, "grounding the answer")
    >>> e.budget, e.limit, e.stage
    ('cpu-seconds', 2.0, 'grounding the answer')
    """

    def __init__(self, budget: str, limit: float, stage: str) -> None:
        self.budget = budget
        self.limit = limit
        self.stage = stage
        kind = "CPU-time" if budget == "cpu-seconds" else "time"
        super().__init__(f"the verification used up its {limit:g} s {kind} budget while {stage}")


class Budget:
    """Seconds a request may spend, counted from construction; ``None`` for no limit."""

    __slots__ = ("_clock", "_deadline", "_steps", "kind", "seconds")

    def __init__(self, seconds: float | None = None, *, clock: str = "thread") -> None:
        if seconds is not None and not seconds >= 0.0:
            raise ValueError(f"seconds must be >= 0 or None, got {seconds!r}")
        if clock not in ("thread", "wall"):
            raise ValueError(f"clock must be 'thread' or 'wall', got {clock!r}")
        self.seconds = seconds
        self.kind = "cpu-seconds" if clock == "thread" else "seconds"
        self._clock: Callable[[], float] = time.thread_time if clock == "thread" else time.perf_counter
        self._deadline = math.inf if seconds is None else self._clock() + seconds
        self._steps = 0

    def remaining(self) -> float:
        """Seconds left (``inf`` without a limit, never negative)."""
        if self.seconds is None:
            return math.inf
        return max(0.0, self._deadline - self._clock())

    def check(self, stage: str) -> None:
        """Raise :class:`BudgetExceeded` if the time is up; ``stage`` names the work under way."""
        if self.seconds is not None and self._clock() >= self._deadline:
            raise BudgetExceeded(self.kind, self.seconds, stage)

    def step(self, stage: str, n: int = 1) -> None:
        """Count ``n`` units of work and check the clock every few hundred units."""
        if self.seconds is None:
            return
        self._steps += n
        if self._steps >= _STRIDE:
            self._steps = 0
            self.check(stage)


#: The budget of library calls that pass none: it never runs out.
UNLIMITED: Final = Budget()
