"""Per-process caches of API-key lookups that a revocation anywhere empties everywhere at once.

Key lookups are on every authenticated request, so each process keeps the answer for a few seconds.
A revocation (or a suspension) must not wait for that: it writes a new token under a shared cache key
(Redis in production), and every process compares its entries' token with the shared one before
trusting them. One cache read per hit replaces the database query; a changed token drops the entry.
While the shared cache is unreachable (Redis restarting), lookups go to the database: a cache outage
must neither fail the request (issue 15: it answered 500) nor let an entry outlive a revocation.
"""

from __future__ import annotations

import secrets
import time
from typing import Generic, TypeVar

import redis.exceptions
from django.core.cache import cache

T = TypeVar("T")

_MAX_ENTRIES = 10_000
# What an unreachable or restarting Redis raises from the cache backend.
CACHE_ERRORS: tuple[type[BaseException], ...] = (redis.exceptions.RedisError, OSError)


class KeyLookupCache(Generic[T]):
    def __init__(self, *, name: str, seconds: float) -> None:
        self._token_key = f"api-keys:{name}:token"
        self._seconds = seconds
        self._entries: dict[str, tuple[float, str | None, T]] = {}

    def _shared_token(self) -> str | None:
        token = cache.get(self._token_key)
        return token if isinstance(token, str) else None

    def get(self, digest: str) -> T | None:
        hit = self._entries.get(digest)
        if hit is None:
            return None
        expires, token, value = hit
        try:
            shared = self._shared_token()
        except CACHE_ERRORS:
            # Unverifiable: the caller looks the key up in the database instead.
            self._entries.pop(digest, None)
            return None
        if expires <= time.monotonic() or token != shared:
            self._entries.pop(digest, None)
            return None
        return value

    def put(self, digest: str, value: T) -> None:
        try:
            token = self._shared_token()
        except CACHE_ERRORS:
            return  # not kept: without the token, a revocation could not reach this entry
        if len(self._entries) >= _MAX_ENTRIES:
            self._entries.clear()
        self._entries[digest] = (time.monotonic() + self._seconds, token, value)

    def clear_local(self) -> None:
        """Forget this process's entries (tests; other processes keep theirs)."""
        self._entries.clear()

    def invalidate(self) -> None:
        """Forget every process's entries: the next lookup anywhere goes to the database."""
        self._entries.clear()
        # A fresh random token, not a counter: a cache flush followed by bumps cannot recreate an old value.
        cache.set(self._token_key, secrets.token_hex(16), timeout=None)
