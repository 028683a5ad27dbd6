"""Project configuration: settings, root URLs, the Celery app, WSGI/ASGI entry points."""

import sys

# The interpreter's recursion limit before any library had a say: py_ecc (imported through the eth
# libraries) raises it to 100,000 at import, which lets a deeply nested input overflow the C stack and
# kill the process instead of raising RecursionError. common.apps and the Celery worker put it back
# (common.recursion). Captured here, first, because config is imported before any app code.
STARTUP_RECURSION_LIMIT = sys.getrecursionlimit()

from .celery import app as celery_app  # noqa: E402  (after the capture above, on purpose)

__all__ = ["STARTUP_RECURSION_LIMIT", "celery_app"]
