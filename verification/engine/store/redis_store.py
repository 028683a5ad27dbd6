"""Shared state in Redis, so several processes and machines see one set of baselines and history."""

from __future__ import annotations

import json
from typing import Any

import redis

from verification.engine.store.base import Updater

__all__ = ["RedisStore"]

# Optimistic transactions retry when another writer touched the key between our read and our write.
_MAX_RETRIES = 64


class RedisStore:
    """State in Redis under ``{namespace}:`` keys, updated with optimistic (WATCH/MULTI) transactions.

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
        """Return the decoded values under *keys* in one round trip.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").get_many(["a", "b"])  # doctest: +SKIP
        [None, None]
        """
        if not keys:
            return []
        raws = self._redis.mget([self._key(k) for k in keys])
        return [None if raw is None else json.loads(raw) for raw in raws]

    def update(self, key: str, fn: Updater) -> Any:
        """Apply *fn* to the value under *key* atomically across processes and return the new value.

        Raises ``RuntimeError`` when the key is contended so hard that no attempt commits.

        >>> store = RedisStore("redis://127.0.0.1:6379/0", "doc")  # doctest: +SKIP
        >>> store.update("n", lambda v: (v or 0) + 1)  # doctest: +SKIP
        1
        """
        full = self._key(key)
        for _ in range(_MAX_RETRIES):
            with self._redis.pipeline() as pipe:
                try:
                    pipe.watch(full)
                    raw = pipe.get(full)
                    value = fn(None if raw is None else json.loads(raw))
                    pipe.multi()
                    pipe.set(
                        full, json.dumps(value, separators=(",", ":"), allow_nan=False), ex=self.ttl_seconds
                    )
                    pipe.execute()
                    return value
                except redis.WatchError:
                    continue
        raise RuntimeError(f"could not update {full!r}: {_MAX_RETRIES} concurrent-write retries failed")

    def update_many(self, updates: dict[str, Updater]) -> list[Any]:
        """Apply every ``key: fn`` update in one optimistic transaction (three round trips in all).

        Raises ``RuntimeError`` when the keys are contended so hard that no attempt commits.

        >>> RedisStore("redis://127.0.0.1:6379/0", "doc").update_many({"a": lambda v: 1})  # doctest: +SKIP
        [1]
        """
        keys = list(updates)
        full = [self._key(k) for k in keys]
        for _ in range(_MAX_RETRIES):
            with self._redis.pipeline() as pipe:
                try:
                    pipe.watch(*full)
                    raws = pipe.mget(full)
                    values = [
                        updates[k](None if raw is None else json.loads(raw))
                        for k, raw in zip(keys, raws, strict=True)
                    ]
                    pipe.multi()
                    for name, value in zip(full, values, strict=True):
                        pipe.set(
                            name,
                            json.dumps(value, separators=(",", ":"), allow_nan=False),
                            ex=self.ttl_seconds,
                        )
                    pipe.execute()
                    return values
                except redis.WatchError:
                    continue
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
