"""Streamed answers through the verifying proxy, end to end against a local upstream that streams
server-sent events as the OpenAI API does (chunked HTTP/1.1, `chat.completion.chunk` events, `[DONE]`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.verification.test_verification_runs_api import QUESTION, RIGHT, TOOLS, WRONG
from verification.models import RunVerification
from verification.services.streaming import SseReader


class StreamingUpstream(BaseHTTPRequestHandler):
    """Streams `answer` in word-sized deltas; `tool_call` streams a tool call instead. When `hold` is
    set, it sends the first content event and waits for `release` before the rest."""

    protocol_version = "HTTP/1.1"
    answer = RIGHT
    tool_call = False
    plain = False
    hold = False
    release = threading.Event()
    finished = threading.Event()
    seen: list[dict[str, Any]] = []

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _event(self, delta: dict[str, Any], finish: str | None = None) -> bytes:
        chunk = {
            "id": "chatcmpl-s1",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        StreamingUpstream.seen.append(body)
        if StreamingUpstream.plain:  # an upstream that ignores stream: true
            payload = json.dumps({"choices": [{"index": 0, "message": {"content": RIGHT}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._chunk(self._event({"role": "assistant", "content": ""}))
        if StreamingUpstream.tool_call:
            call = {"index": 0, "id": "c2", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            self._chunk(self._event({"tool_calls": [call]}, None))
            self._chunk(self._event({}, "tool_calls"))
        else:
            words = StreamingUpstream.answer.split(" ")
            for number, word in enumerate(words):
                event = self._event({"content": word if number == 0 else " " + word})
                if number == 1:
                    # One event split across two chunks, with CRLF line ends: the proxy must reassemble it.
                    event = event.replace(b"\n", b"\r\n")
                    self._chunk(event[:7])
                    self._chunk(event[7:])
                else:
                    self._chunk(event)
                if number == 0 and StreamingUpstream.hold:
                    StreamingUpstream.release.wait(timeout=10)
            self._chunk(b": keep-alive comment\n\n")
            self._chunk(self._event({}, "stop"))
        self._chunk(b"data: [DONE]\n\n")
        self._chunk(b"")
        StreamingUpstream.finished.set()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), StreamingUpstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    StreamingUpstream.seen, StreamingUpstream.tool_call, StreamingUpstream.hold = [], False, False
    StreamingUpstream.plain = False
    StreamingUpstream.release, StreamingUpstream.finished = threading.Event(), threading.Event()
    try:
        with override_settings(RUN_PROXY_UPSTREAM_URL=f"http://127.0.0.1:{server.server_address[1]}/v1"):
            yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        StreamingUpstream.release.set()
        server.shutdown()
        server.server_close()


def _stream(operator: APIClient, answer: str, action: str, **headers: str) -> Any:
    StreamingUpstream.answer = answer
    return operator.post(
        "/v1/chat/completions",
        {"model": "m", "messages": QUESTION, "tools": TOOLS, "stream": True},
        format="json",
        headers={"x-hallucination-action": action, **headers},
    )


def _events(response: Any) -> list[tuple[str | None, Any]]:
    """The response's events as (event name, parsed data), `[DONE]` as (None, "[DONE]")."""
    assert response["Content-Type"].startswith("text/event-stream")
    events = SseReader().feed(b"".join(response.streaming_content))
    return [(e.event, e.data if e.data == "[DONE]" else json.loads(e.data or "null")) for e in events]


def _content(events: list[tuple[str | None, Any]]) -> str:
    return "".join(
        choice["delta"].get("content") or ""
        for name, data in events
        if name is None and isinstance(data, dict) and "choices" in data
        for choice in data["choices"]
    )


def test_it_passes_a_stream_through_and_sends_the_verdict_as_the_last_event(
    operator: APIClient, upstream: str
) -> None:
    events = _events(_stream(operator, WRONG, "header"))
    assert _content(events) == WRONG
    assert StreamingUpstream.seen[0]["stream"] is True
    (name, verdict), done = events[-2], events[-1]
    assert (name, done) == ("vsr.verification", (None, "[DONE]"))
    assert verdict["verified"] is True and verdict["hallucination_detected"] is True
    assert any("1950" in flagged for flagged in verdict["flagged"])
    assert verdict["headers"]["x-vsr-hallucination-detected"] == "true"
    stored = RunVerification.objects.get(run_id=verdict["run_id"])
    assert (stored.source, stored.hallucination_detected, stored.shadow) == ("proxy", True, False)

    events = _events(_stream(operator, RIGHT, "header"))
    assert _content(events) == RIGHT and events[-2][1]["hallucination_detected"] is False


def test_it_sends_each_event_before_the_upstream_has_finished(operator: APIClient, upstream: str) -> None:
    StreamingUpstream.hold = True
    response = _stream(operator, RIGHT, "header")
    received = iter(response.streaming_content)
    first_two = next(received) + next(received)  # the role event and the first word
    assert b'"content": "The"' in first_two
    assert not StreamingUpstream.finished.is_set()  # the upstream is still waiting to send the rest
    StreamingUpstream.release.set()
    rest = b"".join(received)
    assert b"vsr.verification" in rest and rest.endswith(b"data: [DONE]\n\n")


def test_it_blocks_a_streamed_hallucination_before_sending_a_token(
    operator: APIClient, upstream: str
) -> None:
    blocked = _stream(operator, WRONG, "block")
    assert blocked.status_code == 422
    assert blocked.json()["error"]["code"] == "hallucination_blocked"
    assert "1950" in blocked.json()["error"]["spans"]

    passed = _stream(operator, RIGHT, "block")
    assert passed.status_code == 200 and passed["x-vsr-hallucination-detected"] == "false"
    events = _events(passed)
    assert _content(events) == RIGHT and events[-2][0] == "vsr.verification"


def test_it_appends_the_warning_as_one_more_delta_in_body_mode(operator: APIClient, upstream: str) -> None:
    response = _stream(operator, WRONG, "body")
    assert response.status_code == 200 and response["x-vsr-hallucination-detected"] == "true"
    events = _events(response)
    content = _content(events)
    assert content.startswith(WRONG) and "1950" in content[len(WRONG) :]
    finish = [i for i, (_, data) in enumerate(events) if isinstance(data, dict) and "choices" in data][-1]
    assert events[finish][1]["choices"][0]["finish_reason"] == "stop"  # the warning comes before it
    assert _content(_events(_stream(operator, RIGHT, "body"))) == RIGHT


def test_it_bounds_what_it_reads_of_a_stream(operator: APIClient, upstream: str) -> None:
    long_answer = " ".join(["word"] * 600)
    with override_settings(RUN_PROXY_STREAM_MAX_BYTES=4096):
        events = _events(_stream(operator, long_answer, "header"))
        assert events[-1][1]["error"]["code"] == "stream_too_large"
        assert all(name != "vsr.verification" for name, _ in events)
        held = _stream(operator, long_answer, "block")
        assert held.status_code == 502 and "4096" in held.json()["detail"]
    assert RunVerification.objects.count() == 0


def test_it_says_nothing_was_verified_when_the_stream_asks_for_a_tool(
    operator: APIClient, upstream: str
) -> None:
    StreamingUpstream.tool_call = True
    events = _events(_stream(operator, RIGHT, "header"))
    assert events[-2] == ("vsr.verification", {"verified": False, "reason": "no-answer"})
    assert RunVerification.objects.count() == 0


def test_it_refuses_to_stream_a_revise_and_a_stream_flag_that_is_not_a_boolean(
    operator: APIClient, upstream: str
) -> None:
    revise = _stream(operator, RIGHT, "revise")
    assert revise.status_code == 400 and revise.json()["errors"][0]["field"] == "stream"
    odd = operator.post("/v1/chat/completions", {"messages": QUESTION, "stream": "yes"}, format="json")
    assert odd.status_code == 400 and odd.json()["errors"][0]["field"] == "stream"
    assert StreamingUpstream.seen == []


def test_it_streams_live_in_shadow_mode_and_says_what_block_would_have_done(
    operator: APIClient, upstream: str
) -> None:
    response = _stream(operator, WRONG, "block", **{"x-vsr-shadow": "true"})
    assert response.status_code == 200 and response["x-vsr-shadow"] == "true"
    events = _events(response)
    assert _content(events) == WRONG
    verdict = events[-2][1]
    assert verdict["shadow"] == {"would": "block"} and verdict["headers"]["x-vsr-shadow-would"] == "block"
    assert RunVerification.objects.get(run_id=verdict["run_id"]).shadow is True
    counters = operator.get("/api/v1/operators/me").json()["shadow"]["endpoints"]["proxy"]
    assert counters == {"checks": 1, "wouldBlock": 1, "wouldWarn": 0}


def test_it_verifies_within_the_run_caps_live_and_refuses_a_held_answer_over_them(
    operator: APIClient, upstream: str
) -> None:
    with override_settings(RUN_MAX_ANSWER_CHARS=20):
        live = _events(_stream(operator, RIGHT, "header"))
        assert _content(live) == RIGHT
        assert live[-2][1]["verified"] is False and live[-2][1]["reason"] == "payload-too-large"
        held = _stream(operator, RIGHT, "block")
        assert held.status_code == 413 and held["Content-Type"].startswith("application/problem+json")
    assert RunVerification.objects.count() == 0


def test_it_answers_502_when_the_upstream_does_not_stream(operator: APIClient, upstream: str) -> None:
    StreamingUpstream.plain = True
    for action in ("header", "block"):
        response = _stream(operator, RIGHT, action)
        assert response.status_code == 502 and "did not stream" in response.json()["detail"]
