"""Fixtures for the engine's Django side: an isolated engine state per test, operator keys."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from verification.services.tools import operator_key_create, tool_engine_reset


@pytest.fixture(autouse=True)
def isolated_engine() -> Iterator[None]:
    """Each test gets its own engine namespace (in Redis when REDIS_URL is set), cleared afterwards."""
    with override_settings(TOOL_ENGINE_NAMESPACE=f"test-tools-{uuid.uuid4().hex}"):
        tool_engine_reset()
        yield
        tool_engine_reset(clear_state=True)


@pytest.fixture
def operator(db: None) -> APIClient:
    issued = operator_key_create(name="Acme agents")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    return client
