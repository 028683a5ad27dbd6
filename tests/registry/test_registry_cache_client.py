"""The Redis cache backend (common/cache.py) keeps one redis-py client per pool and still behaves as
Django's: values round-trip through a real Redis, and an unreachable Redis raises as before."""

from __future__ import annotations

import os
import socket

import pytest
import redis.exceptions

from common.cache import SharedClientRedisCache

REDIS_URL = os.environ.get("REDIS_URL", "")
pytestmark = pytest.mark.skipif(not REDIS_URL.startswith("redis://"), reason="needs a real Redis")


def _backend(location: str) -> SharedClientRedisCache:
    return SharedClientRedisCache(location, {"KEY_PREFIX": "cache-client-test"})


def test_it_reuses_one_client_for_every_operation() -> None:
    cache = _backend(REDIS_URL)
    first = cache._cache.get_client("a")
    assert cache._cache.get_client("b") is first
    assert cache._cache.get_client("c", write=True) is first  # one server: reads and writes share it


def test_it_round_trips_values_through_redis() -> None:
    cache = _backend(REDIS_URL)
    cache.set("score", (b'"etag"', b'{"trustScore":71.5}'), timeout=30)
    assert cache.get("score") == (b'"etag"', b'{"trustScore":71.5}')
    assert cache.add("score", "other", timeout=30) is False
    cache.delete("score")
    assert cache.get("score") is None
    assert cache.add("score", "fresh", timeout=30) is True
    assert cache.get_many(["score", "missing"]) == {"score": "fresh"}
    cache.delete_many(["score"])


def test_it_raises_connection_errors_while_redis_is_unreachable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cache = _backend(f"redis://127.0.0.1:{port}/0")
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.get("anything")
    with pytest.raises(redis.exceptions.ConnectionError):
        cache.set("anything", 1)
