"""Streamed answers through the verifying proxy (`stream: true`): server-sent events in, events out.

The upstream's `chat.completion.chunk` events are read as they come (bounded by
RUN_PROXY_STREAM_MAX_BYTES and RUN_PROXY_TIMEOUT_SECONDS); the text of choice 0 is collected, verified
when the stream ends, and the verdict is sent as one more event before `data: [DONE]`:

    event: vsr.verification
    data: {"verified": true, "run_id": "...", "action": "revise", "headers": {"x-vsr-...": "..."}, ...}

Two ways to stream, by action:

* `header` and `none` (and every action in shadow mode): **live**. Each event is passed on as soon as it
  arrives; the verdict can only come at the end. (HTTP trailers would carry it too, but WSGI has no way
  to send them, so the final event is the one channel.)
* `block` and `body`: **held**. Nothing is sent until the whole answer is read and verified, since a
  sent token cannot be taken back: a flagged answer under `block` is the usual 422 (as the upstream's own
  errors are for a streamed request), under `body` the events are replayed with the warning as one more
  content delta; the `x-vsr-*` verdict is in the response headers as well as in the final event.

`revise` cannot stream (400 naming `/stream`): it re-asks the model before answering.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.conf import settings

from common.errors import ApplicationError
from registry.models import Agent
from untrusted.jsonbounds import loads as bounded_json

from ..engine.runs import HallucinationReport, apply_action, report_headers
from ..models import OperatorApiKey, ShadowCount
from .runs import (
    ProxyAnswer,
    ProxyStream,
    _store,
    _verify,
    proxy_would,
    upstream_client,
    upstream_target,
)
from .shadow import shadow_count

VERDICT_EVENT = "vsr.verification"
DONE = b"data: [DONE]\n\n"
# Chat-completion chunks come as unnamed events ("message", the default type, named or not).
_CHUNK_EVENTS = (None, "message")


@dataclass(frozen=True)
class SseEvent:
    """One server-sent event: its bytes (line ends normalised to \\n, ending in a blank line), its
    `event` field and its data (the `data` lines joined by \\n; None when it has none)."""

    raw: bytes
    event: str | None
    data: str | None


class SseReader:
    """An incremental parser of a `text/event-stream` body (the WHATWG event stream format).

    >>> reader = SseReader()
    >>> reader.feed(b"data: {\\"a\\": 1}\\r\\n\\r")
    []
    >>> [event.data for event in reader.feed(b"\\n: a comment\\n\\ndata: [DONE]\\n\\n")]
    ['{"a": 1}', None, '[DONE]']
    """

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        text = self._buffer + chunk
        # A \r at the end may be the first half of a \r\n split across two chunks: keep it for later.
        pending = b"\r" if text.endswith(b"\r") else b""
        text = text[: len(text) - len(pending)].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        events = []
        while (end := text.find(b"\n\n")) >= 0:
            block, text = text[:end], text[end + 2 :]
            events.append(self._parse(block))
        self._buffer = text + pending
        return events

    @staticmethod
    def _parse(block: bytes) -> SseEvent:
        name: str | None = None
        data: list[str] = []
        for line in block.split(b"\n"):
            if not line or line.startswith(b":"):
                continue
            key, _, value = line.partition(b":")
            value = value.removeprefix(b" ")
            if key == b"data":
                data.append(value.decode("utf-8", "replace"))
            elif key == b"event":
                name = value.decode("utf-8", "replace")
        return SseEvent(block + b"\n\n", name, "\n".join(data) if data else None)


def sse_event(name: str | None, data: Any) -> bytes:
    """One event with a JSON data line (and an `event:` line when named).

    >>> sse_event("x", {"a": 1})
    b'event: x\\ndata: {"a":1}\\n\\n'
    """
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@dataclass
class _Answer:
    """What the chunks of choice 0 say: its text so far, whether it asked for a tool, how it ended."""

    parts: list[str] = field(default_factory=list)
    tool_call: bool = False
    error: bool = False
    template: dict[str, Any] = field(default_factory=dict)

    def take(self, data: str) -> bool:
        """Read one chunk's data; True when it is the one that finishes choice 0."""
        try:
            chunk = bounded_json(data, max_depth=settings.JSON_MAX_DEPTH)
        except ValueError:
            return False
        if not isinstance(chunk, dict):
            return False
        if "error" in chunk:
            self.error = True
        self.template = {k: chunk[k] for k in ("id", "object", "created", "model") if k in chunk}
        finished = False
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                if delta.get("tool_calls") or delta.get("function_call"):
                    self.tool_call = True
                if isinstance(delta.get("content"), str):
                    self.parts.append(delta["content"])
            finished = finished or bool(choice.get("finish_reason"))
        return finished

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _open(body: dict[str, Any]) -> httpx.Response:
    """Send the request upstream and return the open streamed response; 502 when it does not answer."""
    url, headers = upstream_target()
    client = upstream_client()
    request = client.build_request(
        "POST", url, json=body, headers=headers, timeout=settings.RUN_PROXY_TIMEOUT_SECONDS
    )
    try:
        response = client.send(request, stream=True)
    except httpx.HTTPError as exc:
        raise ApplicationError(
            f"The upstream model did not answer: {type(exc).__name__}.", status=502, problem="server-error"
        ) from None
    if response.status_code >= 400:
        response.close()
        raise ApplicationError(
            f"The upstream model answered {response.status_code}.",
            status=502,
            problem="server-error",
            extra={"upstreamStatus": response.status_code},
        )
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != "text/event-stream":
        # An upstream that ignores `stream: true` would otherwise reach the client as an empty stream.
        response.close()
        raise ApplicationError(
            f"The upstream model did not stream its answer (content type {kind[:60]!r}).",
            status=502,
            problem="server-error",
        )
    return response


class _StreamFailed(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _events(response: httpx.Response) -> Iterator[SseEvent]:
    """The upstream's events up to (not including) `[DONE]`, within the byte cap and the deadline."""
    deadline = time.monotonic() + settings.RUN_PROXY_TIMEOUT_SECONDS
    reader = SseReader()
    size = 0
    try:
        chunks = response.iter_bytes()
        for chunk in chunks:
            size += len(chunk)
            if size > settings.RUN_PROXY_STREAM_MAX_BYTES:
                raise _StreamFailed(
                    "stream_too_large",
                    f"The upstream stream exceeds {settings.RUN_PROXY_STREAM_MAX_BYTES} bytes.",
                )
            if time.monotonic() > deadline:
                raise _StreamFailed("upstream_timeout", "The upstream stream outlasted the proxy timeout.")
            for event in reader.feed(chunk):
                if event.data == "[DONE]":
                    # Read the end of the response (within the same bounds), so its connection goes back
                    # to the pool instead of being cut.
                    for rest in chunks:
                        size += len(rest)
                        if size > settings.RUN_PROXY_STREAM_MAX_BYTES or time.monotonic() > deadline:
                            break
                    return
                yield event
    except httpx.HTTPError as exc:
        message = f"The upstream stream broke off: {type(exc).__name__}."
        raise _StreamFailed("upstream_failed", message) from None
    finally:
        response.close()


@dataclass(frozen=True)
class _Verdict:
    report: HallucinationReport | None
    event: dict[str, Any]
    headers: dict[str, str]


def _verdict(
    answer: _Answer,
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    body: dict[str, Any],
    action: str,
    shadow: bool,
    held: bool = False,
) -> _Verdict:
    """Verify the collected answer (stored and counted as a proxied run) and describe the verdict.

    An answer over a size cap or the run budget is described as not verified in a live stream (its
    events are already sent); a held one is the usual 413 / 422, as for a non-streamed request."""
    if answer.tool_call or answer.error or not answer.text.strip():
        reason = "no-answer" if not answer.error else "upstream-error"
        return _Verdict(None, {"verified": False, "reason": reason}, {})
    messages = [*body["messages"], {"role": "assistant", "content": answer.text}]
    try:
        report = _verify(messages, body.get("tools"), None)
    except ApplicationError as exc:
        if held:
            raise
        return _Verdict(None, {"verified": False, "reason": exc.problem, "detail": exc.detail}, {})
    _store(report, operator=operator, agent=agent, source="proxy", shadow=shadow)
    headers = {**report_headers(report), "x-vsr-run-id": report.run_id}
    event: dict[str, Any] = {
        "verified": True,
        "run_id": report.run_id,
        "action": report.action,
        "hallucination_detected": report.hallucination_detected,
        "overall_score": report.overall_score,
        "flagged": [claim.text for claim in report.flagged_claims],
    }
    if shadow:
        would = proxy_would(report, _as_completion(answer), action)
        shadow_count(operator=operator, endpoint=ShadowCount.Endpoint.PROXY, would=[would])
        headers |= {"x-vsr-shadow": "true", "x-vsr-shadow-would": would}
        event["shadow"] = {"would": would}
    event["headers"] = headers
    return _Verdict(report, event, headers)


def _as_completion(answer: _Answer) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": answer.text}}]}


def proxy_stream(
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    body: dict[str, Any],
    action: str,
    shadow: bool,
) -> ProxyAnswer | ProxyStream:
    """Stream a chat completion through the proxy: live for header/none/shadow, held for block/body."""
    response = _open(body)
    if action in ("block", "body") and not shadow:
        return _held(response, operator=operator, agent=agent, body=body, action=action)
    return ProxyStream(
        headers={"x-vsr-shadow": "true"} if shadow else {},
        events=_live(response, operator=operator, agent=agent, body=body, action=action, shadow=shadow),
    )


def _live(
    response: httpx.Response,
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    body: dict[str, Any],
    action: str,
    shadow: bool,
) -> Iterator[bytes]:
    answer = _Answer()
    try:
        for event in _events(response):
            if event.data is not None and event.event in _CHUNK_EVENTS:
                answer.take(event.data)
            yield event.raw
    except _StreamFailed as failed:
        yield sse_event(None, {"error": {"type": "proxy_error", "code": failed.code, "message": str(failed)}})
        return
    verdict = _verdict(answer, operator=operator, agent=agent, body=body, action=action, shadow=shadow)
    if action != "none" or shadow:  # `none` leaves the answer untouched: the report is only stored
        yield sse_event(VERDICT_EVENT, verdict.event)
    yield DONE


def _held(
    response: httpx.Response,
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    body: dict[str, Any],
    action: str,
) -> ProxyAnswer | ProxyStream:
    answer = _Answer()
    held: list[bytes] = []
    finish_at: int | None = None
    try:
        for event in _events(response):
            if event.data is not None and event.event in _CHUNK_EVENTS and answer.take(event.data):
                finish_at = len(held) if finish_at is None else finish_at
            held.append(event.raw)
    except _StreamFailed as failed:
        raise ApplicationError(str(failed), status=502, problem="server-error") from None
    verdict = _verdict(
        answer, operator=operator, agent=agent, body=body, action=action, shadow=False, held=True
    )
    report = verdict.report
    if report is not None:
        headers, out, status = apply_action(report, _as_completion(answer), action)
        if status == 422:
            return ProxyAnswer(422, out, {**headers, "x-vsr-run-id": report.run_id})
        added = out["choices"][0]["message"]["content"][len(answer.text) :]
        if added:
            note = {
                **answer.template,
                "choices": [{"index": 0, "delta": {"content": added}, "finish_reason": None}],
            }
            held.insert(len(held) if finish_at is None else finish_at, sse_event(None, note))
    return ProxyStream(headers=verdict.headers, events=_replay(held, verdict))


def _replay(held: list[bytes], verdict: _Verdict) -> Iterator[bytes]:
    yield from held
    yield sse_event(VERDICT_EVENT, verdict.event)
    yield DONE
