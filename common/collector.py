"""Pausing Python's cyclic garbage collector around a burst of short-lived allocations."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for the block; it resumes afterwards only if it was on.

    A recompute batch allocates hundreds of thousands of small containers (inputs, records, their
    JSON) that reference counting frees when the batch ends. With the collector on, those allocations
    set off collections that walk the same live objects again and again, and full collections of the
    whole process heap: about a third of a drain's CPU. Pausing skips that work rather than postponing
    it; the few cycles a batch leaves (a model instance and its cached relations) are collected by the
    next collection after it.
    """
    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
