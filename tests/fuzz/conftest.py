"""Fixtures for the API fuzz suite: a populated registry and the credentials to call every endpoint."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import override_settings

from attestations.services.keys import service_key_reset
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest
from tests.fuzz.fuzz_support import AGENT_IDS, PROVIDER_SLUG, TOOL_NAME, FuzzWorld
from verification.services.operators import operator_agent_link_grant
from verification.services.tools import operator_key_create, tool_engine_reset, tool_profile_save

SIGNING_KEY = "0x" + "6b" * 32
UPSTREAM = "http://upstream.invalid/v1"


def _fake_upstream(url: str, **kwargs: Any) -> httpx.Response:
    """The proxy's upstream model: always answers with a short assistant message."""
    answer = {
        "id": "chatcmpl-fuzz",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is 12 degrees."}}],
    }
    return httpx.Response(200, json=answer)


@pytest.fixture
def _wsgi_keeps_test_connection() -> Iterator[None]:
    """Requests go straight to the WSGI handler, whose request signals would close the test's
    connection (and so roll back its transaction); Django's own test client disconnects them too."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


@pytest.fixture
def fuzz_world(
    db: None, monkeypatch: pytest.MonkeyPatch, _wsgi_keeps_test_connection: None
) -> Iterator[FuzzWorld]:
    """Two agents (one scored), a provider and an operator with keys, a tool profile, a signing key
    and a fake upstream model, so authenticated and chain-free endpoints all answer for real."""
    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", SIGNING_KEY)
    monkeypatch.setattr("verification.services.runs.httpx.post", _fake_upstream)
    service_key_reset()
    with override_settings(
        TOOL_ENGINE_NAMESPACE=f"fuzz-tools-{uuid.uuid4().hex}",
        RUN_PROXY_UPSTREAM_URL=UPSTREAM,
        RUN_PROBE_ENDPOINT="",
    ):
        tool_engine_reset()
        provider, issued = provider_create(name="Fuzz Provider", slug=PROVIDER_SLUG)
        assert issued is not None
        operator = operator_key_create(name="Fuzz operator")
        for subject_id in AGENT_IDS:
            agent = agent_register(subject_id=subject_id, name=f"Agent {subject_id}")
            # Linked, so the fuzzed verifications reach the engine instead of stopping at the 403.
            operator_agent_link_grant(operator=operator.record.owner, agent=agent, granted_by="fuzz")
        summaries_ingest(provider=provider, bodies=[_summary(AGENT_IDS[0])])
        tool_profile_save(
            tool_name=TOOL_NAME,
            data={"requiredFields": ["temperature"], "stake": "low"},
            actor="fuzz",
            operator=operator.record.owner,
        )
        yield FuzzWorld(provider_key=issued.plaintext, operator_key=operator.plaintext)
        tool_engine_reset(clear_state=True)
    service_key_reset()


def _summary(agent: str) -> dict[str, Any]:
    return {
        "agent": agent,
        "allowRate": 0.9,
        "blockRate": 0.1,
        "uncertainRate": 0.0,
        "avgConfidence": 0.8,
        "totalChecks": 10,
        "windowDays": 7,
        "stakeDistribution": {"low": {"checks": 8}, "medium": {"checks": 2}},
    }
