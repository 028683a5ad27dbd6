"""Bounded cost over REST (issue 13): a run over a size cap is a 413 naming the part that is too large,
a run that uses up its CPU budget a 422 `budget-exceeded`, and the proxy's upstream exchange has an
overall deadline. Assertions are on statuses and problems, never on durations."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.engine_runs.runs_helpers import hostile_run
from verification.models import RunVerification

PROBLEM = "application/problem+json"


def post_run(client: APIClient, messages: list[dict[str, Any]]) -> Any:
    return client.post("/api/v1/verify/run", {"messages": messages}, format="json")


def test_it_answers_413_naming_an_answer_over_the_cap(operator: APIClient) -> None:
    with override_settings(RUN_MAX_ANSWER_CHARS=500):
        response = post_run(operator, hostile_run(2_000, 5_000))
    assert response.status_code == 413, response.content
    assert response["Content-Type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == "/problems/payload-too-large"
    assert [e["pointer"] for e in problem["errors"]] == ["/messages/3/content"]
    assert not RunVerification.objects.exists()


def test_it_answers_413_for_a_run_over_the_context_cap(operator: APIClient) -> None:
    with override_settings(RUN_MAX_CONTEXT_CHARS=1_000):
        response = post_run(operator, hostile_run(200, 5_000))
    assert response.status_code == 413, response.content
    assert response.json()["errors"][0]["field"] == "messages[2].content"


def test_it_answers_413_for_the_50k_answer_against_1mb_of_json(operator: APIClient) -> None:
    # The finding that ran for hours, with the default caps.
    response = post_run(operator, hostile_run(50_000, 1_000_000))
    assert response.status_code == 413, response.content
    assert response.json()["errors"][0]["pointer"] == "/messages/3/content"


def test_it_answers_413_when_the_comparisons_cap_is_exceeded(operator: APIClient) -> None:
    with override_settings(RUN_MAX_COMPARISONS=10_000):
        response = post_run(operator, hostile_run(2_000, 20_000))
    assert response.status_code == 413, response.content
    assert "comparisons" in response.json()["errors"][0]["detail"]


def test_it_answers_422_when_the_10k_190k_run_uses_up_its_budget(operator: APIClient) -> None:
    # Reading 190 K of tool JSON alone takes more than 10 ms of CPU: the budget fires inside the engine.
    with override_settings(RUN_BUDGET_SECONDS=0.01):
        response = post_run(operator, hostile_run(10_000, 190_000))
    assert response.status_code == 422, response.content
    problem = response.json()
    assert response["Content-Type"] == PROBLEM
    assert problem["type"] == "/problems/budget-exceeded"
    assert problem["budget"] == "cpu-seconds" and problem["limit"] == 0.01 and problem["stage"]
    assert not RunVerification.objects.exists()


def test_it_still_verifies_a_normal_run_under_the_default_budget(operator: APIClient) -> None:
    response = post_run(operator, hostile_run(600, 3_000))
    assert response.status_code == 200, response.content
    assert response.json()["claims"]


class Dripping(BaseHTTPRequestHandler):
    """An upstream that answers at once, then sends its body one byte every 0.2 s (each read is quick,
    so only an overall deadline stops it)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": "x" * 200}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            for byte in body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:  # the proxy hung up: what it should do
            pass

    def log_message(self, *args: Any) -> None:
        pass


class Long(BaseHTTPRequestHandler):
    """An upstream whose answer is long and full of values."""

    answer = ""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": Long.answer}}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def serve(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def dripping() -> Iterator[str]:
    yield from serve(Dripping)


@pytest.fixture
def long_upstream() -> Iterator[str]:
    yield from serve(Long)


def test_it_gives_up_on_an_upstream_that_drips_its_answer(operator: APIClient, dripping: str) -> None:
    with override_settings(RUN_PROXY_UPSTREAM_URL=dripping, RUN_PROXY_TIMEOUT_SECONDS=1.0):
        response = operator.post(
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            format="json",
        )
    assert response.status_code == 502, response.content
    assert "ReadTimeout" in response.json()["detail"]


def test_it_answers_422_when_verifying_the_proxied_answer_uses_up_the_budget(
    operator: APIClient, long_upstream: str
) -> None:
    run = hostile_run(10_000, 190_000)
    Long.answer = run[-1]["content"]
    with override_settings(RUN_PROXY_UPSTREAM_URL=long_upstream, RUN_BUDGET_SECONDS=0.01):
        response = operator.post("/v1/chat/completions", {"model": "m", "messages": run[:-1]}, format="json")
    assert response.status_code == 422, response.content
    assert response.json()["type"] == "/problems/budget-exceeded"
