"""Writes and reads keep working while the shared cache (Redis) is unreachable (issue 15).

Found by bench/chaos.py: during a Redis restart, requests answered 500 before reaching any service,
because the API-key lookup cache (common/keycache.py) and the rate-limit counters
(common/throttling.py) read Redis on every request. The cache here is a real Redis client pointed at
a loopback port nothing listens on, which is what a restarting Redis looks like to the web process.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest
import redis.exceptions
from django.core.cache import cache
from django.test import override_settings
from rest_framework.test import APIClient

from common.throttling import _LOCAL_COUNTERS
from registry.models import Provider, ProviderApiKey, VerificationSummary
from registry.services.providers import api_key_cache_clear
from tests.registry.registry_support import summary_body


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again when the block ends: connections are refused


@pytest.fixture
def redis_down() -> Iterator[None]:
    location = f"redis://127.0.0.1:{_closed_port()}/0"
    with override_settings(
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": location}},
        AUTO_REGISTER_AGENTS=True,
    ):
        yield


def _post(client: APIClient, body: dict[str, Any]) -> Any:
    return client.post("/api/v1/summaries", body, format="json")


def test_it_accepts_a_summary_while_the_cache_is_down(
    provider_client: tuple[Provider, APIClient], redis_down: None
) -> None:
    provider, client = provider_client
    with pytest.raises(
        redis.exceptions.ConnectionError
    ):  # the outage is real: the cache itself cannot answer
        cache.get("anything")
    answer = _post(client, summary_body("agent-cache-down", updatedAt="2026-11-01T00:00:00Z"))
    assert answer.status_code == 201, answer.content
    stored = VerificationSummary.objects.filter(provider=provider, agent__subject_id="agent-cache-down")
    assert stored.count() == 1


def test_it_keeps_authenticating_from_the_database_when_the_cache_goes_down(
    provider_client: tuple[Provider, APIClient],
) -> None:
    provider, client = provider_client
    # A first request with the cache up keeps the key lookup in this process's cache...
    with override_settings(AUTO_REGISTER_AGENTS=True):
        first = _post(client, summary_body("agent-before", updatedAt="2026-11-01T00:00:00Z"))
    assert first.status_code == 201, first.content
    with override_settings(
        CACHES={
            "default": {
                "BACKEND": "django.core.cache.backends.redis.RedisCache",
                "LOCATION": f"redis://127.0.0.1:{_closed_port()}/0",
            }
        },
        AUTO_REGISTER_AGENTS=True,
    ):
        # ...which cannot be checked against the revocation token now: the database answers instead.
        answer = _post(client, summary_body("agent-during", updatedAt="2026-11-01T00:00:00Z"))
        assert answer.status_code == 201, answer.content
        ProviderApiKey.objects.filter(provider=provider).update(revoked_at="2026-11-01T00:00:00Z")
        refused = _post(client, summary_body("agent-after-revocation", updatedAt="2026-11-01T00:00:00Z"))
        assert refused.status_code == 401, refused.content
        assert refused["Content-Type"].startswith("application/problem+json")
    api_key_cache_clear()


def test_it_keeps_a_rate_limit_in_each_process_while_the_cache_is_down(
    provider_client: tuple[Provider, APIClient], redis_down: None, settings: Any
) -> None:
    """Letting everything through while Redis restarts would lift every cost bound: each process
    counts on its own instead, so the limit still holds per process."""
    rates = {"reads": "3/minute", "reads-authenticated": "3/minute", "writes": "3/minute"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    _LOCAL_COUNTERS.clear()
    try:
        anonymous = APIClient()
        answers = [anonymous.get("/api/v1/agents").status_code for _ in range(5)]
    finally:
        _LOCAL_COUNTERS.clear()
    assert answers == [200, 200, 200, 429, 429], answers
