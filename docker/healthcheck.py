"""Container health checks: `web` (the default) and `beat`.

web: GET /healthz over plain HTTP, as one of the server's own hosts.

Django answers 400 to a Host that ALLOWED_HOSTS does not accept, and 127.0.0.1 is rarely in a
production list, so the request names the first allowed host instead (a `.example.com` wildcard
becomes `example.com`; `*` accepts anything). /healthz is exempt from the HTTPS redirect
(SECURE_REDIRECT_EXEMPT), so plain HTTP reaches it without a TLS proxy in front. Standard library
only: it runs every few seconds in the container, beside the server it checks.

beat: the scheduler has no port; it rewrites its schedule file (BEAT_SCHEDULE) at start and then at
least every three minutes while it sends tasks (the recompute drain goes out every minute), so a file
older than BEAT_STALE_SECONDS means a beat that stopped scheduling.
"""

from __future__ import annotations

import glob
import os
import sys
import time
import urllib.request

BEAT_SCHEDULE = "/tmp/celerybeat-schedule"
BEAT_STALE_SECONDS = 600


def health_host(allowed_hosts: str) -> str:
    """The Host header to send: the first entry of ALLOWED_HOSTS that names a host."""
    for entry in allowed_hosts.split(","):
        host = entry.strip().lstrip(".")
        if host and host != "*":
            return host
    return "localhost"


def beat_healthy() -> int:
    # The dbm module may add a suffix (celerybeat-schedule.db): any file of that stem counts.
    schedule = os.environ.get("BEAT_SCHEDULE", BEAT_SCHEDULE)
    ages = [time.time() - os.path.getmtime(path) for path in glob.glob(glob.escape(schedule) + "*")]
    if not ages:
        print(f"unhealthy: no schedule file {schedule}", file=sys.stderr)
        return 1
    if min(ages) > BEAT_STALE_SECONDS:
        print(f"unhealthy: {schedule} last written {min(ages):.0f} s ago", file=sys.stderr)
        return 1
    return 0


def web_healthy() -> int:
    host = health_host(os.environ.get("ALLOWED_HOSTS", "localhost"))
    url = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/healthz"
    request = urllib.request.Request(url, headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            status = answer.status
    except OSError as error:  # HTTPError (4xx/5xx) and connection errors alike
        print(f"unhealthy: {url} (Host: {host}): {error}", file=sys.stderr)
        return 1
    if status != 200:
        print(f"unhealthy: {url} (Host: {host}) answered {status}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(beat_healthy() if sys.argv[1:] == ["beat"] else web_healthy())
