"""Shared state in Redis, so several processes and machines see one set of baselines and history."""

from __future__ import annotations

import hashlib
import json
import random
import threading
import time
from typing import Any

import redis

from verification.engine.store.base import Updater

__all__ = ["RedisStore"]

# Optimistic transactions retry when another writer touched the key between our read and our write.
_MAX_RETRIES = 64

# Compare-and-set of several keys in one round trip: KEYS are the keys, ARGV the SHA-1 of the bytes the
# caller read under each ("" for a missing key), then the new values, then a TTL in seconds (0: none).
# Scripts run atomically, so either every key is written or, when one changed meanwhile, none is.
_CAS_SCRIPT = """
local n = #KEYS
for i = 1, n do
  local current = redis.call('GET', KEYS[i])
  local digest = ''
  if current then digest = redis.sha1hex(current) end
  if digest ~= ARGV[i] then return 0 end
end
local ttl = tonumber(ARGV[2 * n + 1])
for i = 1, n do
  if ttl > 0 then
    redis.call('SET', KEYS[i], ARGV[n + i], 'EX', ttl)
  else
    redis.call('SET', KEYS[i], ARGV[n + i])
  end
end
return 1
"""


def _digest(raw: bytes | str | None) -> str:
    """SHA-1 of a stored value as the script computes it ("" for a missing key)."""
    if raw is None:
        return ""
    # A client built with decode_responses=True hands out str: its UTF-8 bytes are what Redis holds.
    return hashlib.sha1(raw.encode("utf-8") if isinstance(raw, str) else raw).hexdigest()


class RedisStore:
    """State in Redis under ``{namespace}:`` keys, updated by optimistic compare-and-set scripts.

    *url_or_client* is a ``redis://`` URL or a ready ``redis.Redis`` client. Values are stored as compact
    JSON, so they survive restarts of every engine process that uses the same namespace. With
    *ttl_seconds*, a key not written for that long expires (idle argument sets and sessions; the
    per-tool baselines are rewritten by every verification).

    >>> store = RedisStore("redis://127.0.0.1:6379/0", namespace="doctest-store")  # doctest: +SKIP
    >>> store.update("n", lambda v: (v or 0) + 1)  # doctest: +SKIP
    1
    """

    def __init__(
        self,
        url_or_client: str | redis.Redis,
        namespace: str = "trust-registry:tools",
        ttl_seconds: int | None = None,
    ) -> None:
        if ttl_seconds is not None and ttl_seconds <= 0:
            raise ValueError(f"ttl_seconds must be positive or None, got {ttl_seconds}")
        self.ttl_seconds = ttl_seconds
        if not namespace or any(c in namespace for c in " *?[]"):
            raise ValueError(
                f"namespace must be non-empty without spaces or glob characters, got {namespace!r}"
            )
        if isinstance(url_or_client, str):
            self._redis: redis.Redis = redis.Redis.from_url(url_or_client)
        else:
            self._redis = url_or_client
        self.namespace = namespace
        self._cas = self._redis.register_script(_CAS_SCRIPT)
        self._local = threading.local()

    def _key(self, key: str) -> str:
        return f"{self.namespace}:{key}"

    def get(self, key: str) -> Any:
        """Return the decoded value under *key* or ``None``.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").get("missing") is None  # doctest: +SKIP
        True
        """
        raw = self._redis.get(self._key(key))
        return None if raw is None else json.loads(raw)

    def get_many(self, keys: list[str]) -> list[Any]:
        """Return the decoded values under *keys* in one round trip (one MGET).

        The bytes read are remembered (per thread) so that a following :meth:`update` or
        :meth:`update_many` of these keys can commit with one compare-and-set against exactly what was
        read, instead of reading again. The values returned are the ones its updaters then receive:
        treat them as read-only until then.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").get_many(["a", "b"])  # doctest: +SKIP
        [None, None]
        """
        if not keys:
            return []
        raws = self._redis.mget([self._key(k) for k in keys])
        values = [None if raw is None else json.loads(raw) for raw in raws]
        self._local.read = dict(zip(keys, zip(raws, values, strict=True), strict=True))
        return values

    def update(self, key: str, fn: Updater) -> Any:
        """Apply *fn* to the value under *key* atomically across processes and return the new value.

        Raises ``RuntimeError`` when the key is contended so hard that no attempt commits.

        >>> store = RedisStore("redis://127.0.0.1:6379/0", "doc")  # doctest: +SKIP
        >>> store.update("n", lambda v: (v or 0) + 1)  # doctest: +SKIP
        1
        """
        return self.update_many({key: fn})[0]

    def update_many(self, updates: dict[str, Updater]) -> list[Any]:
        """Apply every ``key: fn`` update as one atomic compare-and-set (a server-side script).

        The script writes the new values only if every key still holds the bytes the updaters saw
        (compared by SHA-1), else nothing is written and the updates are retried on a fresh read. Keys
        just read by :meth:`get_many` in this thread are not read again, so a verification costs two
        round trips in all (its MGET and this script); otherwise one MGET more.

        Raises ``RuntimeError`` when the keys are contended so hard that no attempt commits.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").update_many({"a": lambda v: 1})  # doctest: +SKIP
        [1]
        """
        keys = list(updates)
        if not keys:
            return []
        full = [self._key(k) for k in keys]
        read: dict[str, tuple[Any, Any]] | None = getattr(self._local, "read", None)
        self._local.read = None  # what was read is used once: after this write it is stale
        raws: list[Any]
        if read is not None and all(k in read for k in keys):
            raws = [read[k][0] for k in keys]
            currents = [read[k][1] for k in keys]
        else:
            raws = self._redis.mget(full)
            currents = [None if raw is None else json.loads(raw) for raw in raws]
        ttl = self.ttl_seconds or 0
        for attempt in range(_MAX_RETRIES):
            digests = [_digest(raw) for raw in raws]
            values = [updates[k](cur) for k, cur in zip(keys, currents, strict=True)]
            payload = [json.dumps(v, separators=(",", ":"), allow_nan=False) for v in values]
            if self._cas(keys=full, args=[*digests, *payload, ttl]):
                return values
            # Another writer got in between: read again and recompute. After a few lost races, wait a
            # random, growing while first: writers that retry in lock-step can starve one of them
            # (seen on a loaded 2-core machine: one thread lost 64 races in a row).
            if attempt >= 2:
                time.sleep(random.uniform(0, min(0.0005 * 2**attempt, 0.02)))
            raws = self._redis.mget(full)
            currents = [None if raw is None else json.loads(raw) for raw in raws]
        raise RuntimeError(f"could not update {keys!r}: {_MAX_RETRIES} concurrent-write retries failed")

    def clear(self) -> None:
        """Delete every key under this store's namespace.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").clear()  # doctest: +SKIP
        """
        batch: list[Any] = []
        for k in self._redis.scan_iter(match=f"{self.namespace}:*", count=500):
            batch.append(k)
            if len(batch) >= 500:
                self._redis.delete(*batch)
                batch = []
        if batch:
            self._redis.delete(*batch)
