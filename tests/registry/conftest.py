"""Fixtures for the registry's end-to-end tests: providers with keys, an API client."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from config.celery import app as celery_app
from registry.models import Provider
from registry.services.providers import provider_create


@pytest.fixture(autouse=True)
def _eager_celery() -> Iterator[None]:
    """Tasks run in-process unless a test starts a real worker (which turns this off itself)."""
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = before


@pytest.fixture
def api() -> APIClient:
    return APIClient()


@pytest.fixture
def make_provider(db: None) -> Callable[..., tuple[Provider, str]]:
    counter = {"n": 0}

    def make(slug: str | None = None, **fields: Any) -> tuple[Provider, str]:
        counter["n"] += 1
        slug = slug or f"provider-{counter['n']}"
        provider, issued = provider_create(name=slug.title(), slug=slug, **fields)
        assert issued is not None
        return provider, issued.plaintext

    return make


@pytest.fixture
def provider_client(make_provider: Callable[..., tuple[Provider, str]]) -> tuple[Provider, APIClient]:
    provider, key = make_provider("thoughtproof")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return provider, client


@pytest.fixture
def keyed_client() -> Callable[[str], APIClient]:
    """An API client that sends the given provider key."""

    def make(key: str) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        return client

    return make


@pytest.fixture
def auto_register(settings: Any) -> None:
    settings.AUTO_REGISTER_AGENTS = True


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run `action` and then its on-commit callbacks (the recompute tasks), as a real commit would."""

    def run(action: Callable[[], Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return action()

    return run


@pytest.fixture
def admin_client_logged_in(db: None) -> tuple[Client, Any]:
    user = get_user_model().objects.create_superuser("auditor", "auditor@example.com", "pw-not-secret-123")
    client = Client()
    client.force_login(user)
    return client, user
