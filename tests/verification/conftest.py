"""Fixtures for the engine's Django side: an isolated engine state per test, operator keys."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from registry.models import Agent
from registry.services.agents import agent_register
from verification.services.operators import operator_agent_link_grant
from verification.services.tools import IssuedOperatorKey, operator_key_create, tool_engine_reset


@pytest.fixture(autouse=True)
def isolated_engine() -> Iterator[None]:
    """Each test gets its own engine namespace (in Redis when REDIS_URL is set), cleared afterwards."""
    with override_settings(TOOL_ENGINE_NAMESPACE=f"test-tools-{uuid.uuid4().hex}"):
        tool_engine_reset()
        yield
        tool_engine_reset(clear_state=True)


@pytest.fixture
def operator_key(db: None) -> IssuedOperatorKey:
    return operator_key_create(name="Acme agents")


@pytest.fixture
def operator(operator_key: IssuedOperatorKey) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {operator_key.plaintext}")
    return client


@pytest.fixture
def linked_agent(operator_key: IssuedOperatorKey) -> Callable[..., Agent]:
    """Register an agent and link the `operator` fixture's operator to it (its runs then count)."""

    def make(subject_id: str, **fields: Any) -> Agent:
        agent = agent_register(subject_id=subject_id, **fields)
        operator_agent_link_grant(operator=operator_key.record.owner, agent=agent, granted_by="test")
        return agent

    return make
