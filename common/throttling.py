"""Rate limits that hold, and the one rule for a client's address.

Every request is counted against one bucket:

- anonymous requests (any method) per client address, at READ_RATE_LIMIT (scope `reads`);
- requests made with a key (provider `trk_…` or operator `tro_…`) per key, not per address: reads at
  READ_RATE_LIMIT_AUTHENTICATED (scope `reads-authenticated`), writes at WRITE_RATE_LIMIT (`writes`).

A key holder cannot escape its limit by spreading requests over addresses, and an anonymous client
cannot escape its limit by rotating `X-Forwarded-For`: that header is believed only as far as the
configured number of trusted proxies (TRUSTED_PROXY_COUNT) says.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest, HttpResponse
from rest_framework import exceptions
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from .errors import ApplicationError, problem_response
from .keycache import CACHE_ERRORS

logger = logging.getLogger(__name__)

# Where the counters go while the shared cache cannot be reached (RequestThrottle.allow_in_bucket).
_LOCAL_COUNTERS = LocMemCache("throttle-fallback", {"OPTIONS": {"MAX_ENTRIES": 100_000}})

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def client_address(request: HttpRequest) -> str:
    """The client's address: REMOTE_ADDR, or with N trusted proxies the N-th `X-Forwarded-For` entry
    from the right.

    Each proxy appends the address it received the request from, so with N proxies in front of the
    service the right-most N-1 entries are proxies and the N-th from the right is the client as seen
    by the outermost trusted proxy. Everything further left was written by the client and is ignored.
    Used by the API throttles, the HTML page throttle and the admin lockout (django-axes) alike.
    """
    remote = str(request.META.get("REMOTE_ADDR") or "")
    proxies: int = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR") or "")
    entries = [entry.strip() for entry in forwarded.split(",") if entry.strip()]
    if not entries:
        return remote
    # Fewer entries than proxies: the request skipped a proxy; the left-most is the best we have.
    candidate = entries[-min(proxies, len(entries))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        # A proxy that forwards garbage must not give the client a fresh bucket per garbage value.
        return remote


def _key_identity(request: Any) -> str | None:
    """A digest of the API key the request was authenticated with (never the key itself in the cache)."""
    key = getattr(request, "auth", None)
    if isinstance(key, str) and key:
        return hashlib.sha256(key.encode()).hexdigest()[:32]
    return None


class RequestThrottle(SimpleRateThrottle):
    """One throttle for every API view: picks the bucket (scope and identity) per request."""

    scope = "reads"

    def __init__(self) -> None:
        # The rate depends on the request (anonymous or keyed, read or write); chosen in allow_request.
        self.ident = ""

    def get_rate(self) -> str | None:
        # Read live (not SimpleRateThrottle's class attribute frozen at import), so settings overrides
        # in tests and the start-up validated values are what counts.
        rate: Any = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)
        return None if rate is None else str(rate)

    def choose_bucket(self, request: Any) -> None:
        key = _key_identity(request)
        if key is None:
            self.scope, self.ident = "reads", f"ip:{client_address(_django_request(request))}"
        elif request.method in SAFE_METHODS:
            self.scope, self.ident = "reads-authenticated", f"key:{key}"
        else:
            self.scope, self.ident = "writes", f"key:{key}"

    def allow_request(self, request: Any, view: Any) -> bool:
        self.choose_bucket(request)
        return self.allow_in_bucket(request, view)

    def allow_in_bucket(self, request: Any, view: Any) -> bool:
        """Count the request in the bucket chosen (scope and ident set) and say whether it may pass."""
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        self.num_requests, self.duration = self.parse_rate(self.rate)
        try:
            return bool(super().allow_request(request, view))
        except CACHE_ERRORS:
            # The counters live in the shared cache. While it is unreachable, refusing everything would
            # turn a Redis restart into an outage of the whole API (issue 15's chaos run: every request
            # answered 500), and letting everything through would lift every cost bound. So each process
            # counts on its own until the cache is back: the limit holds per process (at most
            # WEB_CONCURRENCY times looser in all), never off.
            logger.warning("rate-limit counters unreachable; counting %s in this process", self.scope)
            self.cache = _LOCAL_COUNTERS
            return bool(super().allow_request(request, view))

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}

    def retry_after(self) -> int:
        """Whole seconds until a request would be allowed again (never 0: clients would hammer)."""
        wait = self.wait()
        if wait is None:
            wait = float(self.duration or 1)
        return max(1, math.ceil(wait))


def failed_authentication_charge(request: Any) -> None:
    """Count a request whose key was refused against its address's anonymous bucket.

    DRF authenticates before it throttles, so without this a client sending made-up keys would get
    unlimited 401s (each one a key lookup). Raises Throttled (a 429 problem) once the bucket is full.
    """
    throttle = RequestThrottle()
    throttle.scope, throttle.ident = "reads", f"ip:{client_address(_django_request(request))}"
    if not throttle.allow_in_bucket(request, None):
        raise exceptions.Throttled(wait=throttle.retry_after())


# The name the API modules import; it is the same throttle (anonymous reads are one of its buckets).
ReadThrottle = RequestThrottle


def _django_request(request: Any) -> HttpRequest:
    inner = getattr(request, "_request", None)  # a DRF Request wraps Django's
    return inner if isinstance(inner, HttpRequest) else request


def throttle_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The API's throttle for plain Django views (the public HTML pages), answering 429 problems."""

    @wraps(view)
    def throttled(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle = RequestThrottle()
        if not throttle.allow_request(request, None):
            error = ApplicationError(
                "Too many requests; retry later.",
                status=429,
                problem="rate-limited",
                headers={"Retry-After": str(throttle.retry_after())},
            )
            return problem_response(error, request)
        return view(request, *args, **kwargs)

    return throttled


def admin_lockout_response(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """django-axes' answer to a locked-out admin login: a 429 problem like every other rate limit.

    The lock lasts AXES_COOLOFF_TIME from the last failure, so that is the honest Retry-After.
    """
    seconds = max(1, math.ceil(settings.AXES_COOLOFF_TIME.total_seconds()))
    error = ApplicationError(
        f"Too many failed logins for this account from this address; try again in {seconds} seconds.",
        status=429,
        problem="rate-limited",
        headers={"Retry-After": str(seconds)},
    )
    return problem_response(error, request)
