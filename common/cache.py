"""Django's Redis cache with one redis-py client per connection pool, instead of one per operation.

django.core.cache.backends.redis builds a new `redis.Redis` for every get, set and delete. Each one
fills its table of ~170 response callbacks (a case-insensitive dict, one upper() per entry), which
cost more CPU than the round trip itself: on GET trust score, the busiest read, a cached answer
spent about a fifth of its CPU there (docs/benchmarks.md). A redis-py client over a pool is safe to
share between threads (its commands take a connection from the pool each time), so one per pool is
kept. Errors, timeouts and reconnects are the pool's and behave as before.
"""

from __future__ import annotations

from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class SharedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        base: Any = self  # the stubs leave out RedisCacheClient's private attributes
        pool = base._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            # Two threads may both build one on first use; either is fine to keep.
            client = self._clients[id(pool)] = base._client(connection_pool=pool)
        return client


class SharedClientRedisCache(RedisCache):
    """settings.CACHES BACKEND `common.cache.SharedClientRedisCache` (same LOCATION and OPTIONS)."""

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
