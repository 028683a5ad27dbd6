"""Fixtures for the canary tests: real local check endpoints that answer like providers of each kind."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

# How a provider answers one run: the response status and body it sends (or sleeps past the timeout).
Answer = Callable[[dict[str, Any]], tuple[int, bytes]]


@dataclass
class CheckEndpoint:
    """A check endpoint on 127.0.0.1: records every request and answers with `answer`."""

    url: str
    answer: Answer
    requests: list[tuple[dict[str, str], bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


@pytest.fixture
def check_endpoint() -> Iterator[Callable[[Answer], CheckEndpoint]]:
    servers: list[tuple[ThreadingHTTPServer, threading.Thread]] = []

    def start(answer: Answer) -> CheckEndpoint:
        state = CheckEndpoint(url="", answer=answer)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with state.lock:
                    state.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                status, content = state.answer(json.loads(body))
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))
        state.url = f"http://127.0.0.1:{server.server_address[1]}/v1/check"
        return state

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(autouse=True)
def _canary_settings(settings: Any) -> None:
    # The check endpoints here are plain http on loopback, which production refuses.
    settings.OUTBOUND_ALLOW_HTTP = True
    settings.OUTBOUND_ALLOW_PRIVATE = True
    settings.CANARY_TIMEOUT_SECONDS = 2.0
    settings.CANARY_WINDOW_DAYS = 30
