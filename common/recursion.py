"""The interpreter's recursion limit, put back after libraries that raise it have been imported.

py_ecc (pulled in by eth-account/web3) calls `sys.setrecursionlimit(100000)` when imported. With that
limit Python's own guard never fires before the C stack overflows, so a deeply nested input kills
the worker (issue 13). The limit is restored once the application has loaded; py_ecc is imported
first so its side effect cannot come later, when a view or task first imports the eth libraries.
"""

from __future__ import annotations

import contextlib
import importlib
import sys

#: Above this the limit no longer protects the C stack of a worker thread; CPython's default is 1000.
SANE_RECURSION_LIMIT_MAX = 3000
DEFAULT_RECURSION_LIMIT = 1000


def recursion_limit_sane() -> int:
    """The limit to run with: the interpreter's own at start-up, unless something had already raised it."""
    from config import STARTUP_RECURSION_LIMIT

    if STARTUP_RECURSION_LIMIT > SANE_RECURSION_LIMIT_MAX:
        return DEFAULT_RECURSION_LIMIT
    return STARTUP_RECURSION_LIMIT


def recursion_limit_restore() -> int:
    """Import the libraries known to raise the limit, then set it back; returns the limit now in force."""
    # Not installed: then nothing raises the limit behind our back.
    with contextlib.suppress(ImportError):
        importlib.import_module("py_ecc")
    limit = recursion_limit_sane()
    sys.setrecursionlimit(limit)
    return limit
