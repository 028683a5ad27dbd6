"""Fixtures for the webhook tests: a real local HTTP receiver, an operator (marketplace), a provider."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from rest_framework.test import APIClient

from config.celery import app as celery_app
from registry.models import Provider
from registry.services.providers import provider_create
from verification.services.tools import operator_key_create


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A receiver on 127.0.0.1: records every request and answers `statuses` in turn (then 200)."""

    url: str
    requests: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    state = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length)
            with state.lock:
                state.requests.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
                code = state.statuses.pop(0) if state.statuses else 200
            self.send_response(code)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def _webhook_settings(settings: Any) -> None:
    settings.WEBHOOK_TEST_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_BACKOFF_BASE_SECONDS = 0.0
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    settings.AUTO_REGISTER_AGENTS = True


@pytest.fixture(autouse=True)
def _eager_celery() -> Iterator[None]:
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = before


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()


@pytest.fixture
def marketplace(db: None) -> APIClient:
    """An operator's client: marketplaces subscribe with an operator key."""
    return _client(operator_key_create(name="Marketplace").plaintext)


@pytest.fixture
def other_marketplace(db: None) -> APIClient:
    return _client(operator_key_create(name="Other marketplace").plaintext)


@pytest.fixture
def provider(db: None) -> tuple[Provider, APIClient]:
    made, issued = provider_create(name="Checker", slug="checker")
    assert issued is not None
    return made, _client(issued.plaintext)


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Callable[[Callable[[], Any]], Any]:
    """Run `action` and then its on-commit callbacks (recompute, then delivery tasks)."""

    def run(action: Callable[[], Any]) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            return action()

    return run
