"""Hostile input against the production server: every class, every endpoint, never a 5xx or a dead worker.

The operations come from the OpenAPI document the server serves, so a new endpoint is covered without
touching this file. Each is called anonymously and with the key its scheme asks for (a provider key,
or an operator key). Bodies are a valid-looking example built from the operation's request schema,
then made hostile: nested 20,000 deep, 9 MiB, NUL (raw and escaped), lone surrogates, invalid UTF-8,
numbers no float or int holds, dates no calendar holds, internal addresses where URLs go. Errors must
be problem details (application/problem+json), and afterwards the same granian worker still answers.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest

from tests.hostile.hostile_support import AGENT, TOOL, Listener, Server

PROBLEM = "application/problem+json"
# Documented error answers that are deliberately not problem details (tests/fuzz/fuzz_support.py).
NOT_PROBLEMS = {("POST", "/v1/chat/completions", 422)}
TIMEOUT = 30.0

HUGE_FLOAT = "1e400"  # decodes to inf
HUGE_INT = "1" + "0" * 5000  # 10**5000: more digits than Python converts (4,300)
BIG_INT = str(2**64)  # decodes, but fits no database column
BAD_DATES = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "9999-01-01T00:00:00Z"]


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    secured_by: frozenset[str]
    body_schema: dict[str, Any] | None

    def path(self, value: str | None = None) -> str:
        """The path with every parameter filled in: a real value, or `value` (already URL-encoded)."""
        real = {"subject_id": AGENT, "agent_id": AGENT, "slug": "hostile-provider", "tool": TOOL}

        def fill(match: re.Match[str]) -> str:
            name = match.group(1)
            if value is not None:
                return value
            if name.endswith("_id") and name not in real:
                return "1"
            return real.get(name, "x")

        return re.sub(r"\{([^}]+)\}", fill, self.template)


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    body: bytes


def send(
    server: Server,
    method: str,
    path: str,
    body: bytes | Iterator[bytes] | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    host, port = server.base.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT)
    try:
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        chunked = body is not None and not isinstance(body, bytes)
        # Answered (413) and closed before the whole body was sent: the answer is still there to read.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            conn.request(method, path, body=body, headers=all_headers, encode_chunked=chunked)
        response = conn.getresponse()
        return Answer(response.status, response.getheader("Content-Type", ""), response.read())
    finally:
        conn.close()


def verdict(method: str, template: str, answer: Answer) -> str | None:
    """None when the answer is acceptable: below 500, and problem details when it is an error."""
    if answer.status >= 500:
        return f"{answer.status}: {answer.body[:300]!r}"
    if answer.status >= 400 and (method, template, answer.status) not in NOT_PROBLEMS:
        if answer.content_type.split(";")[0].strip() != PROBLEM:
            return f"{answer.status} as {answer.content_type!r}: {answer.body[:200]!r}"
        problem = json.loads(answer.body)
        if problem.get("status") != answer.status or not isinstance(problem.get("type"), str):
            return f"{answer.status}: not a problem document: {problem!r}"
    return None


# --- Building bodies --------------------------------------------------------------------------------


def _resolve(schema: dict[str, Any], spec: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        node: Any = spec
        for part in schema["$ref"].removeprefix("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def example(schema: dict[str, Any], spec: dict[str, Any], name: str = "", depth: int = 0) -> Any:
    """A plausible value for a schema: required properties, enums' first choice, formats honoured."""
    schema = _resolve(schema, spec)
    if depth > 6:
        return None
    for combinator in ("oneOf", "anyOf", "allOf"):
        if schema.get(combinator):
            return example(schema[combinator][0], spec, name, depth + 1)
    if "example" in schema:
        return schema["example"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        wanted = set(schema.get("required", [])) | {n for n in properties if n in ("updatedAt", "checkedAt")}
        return {key: example(properties[key], spec, key, depth + 1) for key in properties if key in wanted}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        return [example(schema.get("items", {}), spec, name, depth + 1) for _ in range(count)]
    if kind == "integer":
        return int(schema.get("minimum", 1)) or 1
    if kind == "number":
        return 0.5
    if kind == "boolean":
        return True
    if schema.get("format") == "date-time" or name.endswith("At"):
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3600))
    if schema.get("format") == "uri" or "url" in name.lower() or "endpoint" in name.lower():
        return "https://example.com/"
    if name in ("agent", "agentId", "subjectId", "subject_id"):
        return AGENT
    if name in ("tool", "toolName", "name"):
        return TOOL
    if name == "role":
        return "user"
    return "hello"


def _replace_leaves(value: Any, pick: Callable[[str, Any], bool], new: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _replace_leaves(v, pick, new, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_leaves(v, pick, new, key) for v in value]
    return new if pick(key, value) else value


RAW = "\x00RAW\x00"  # a marker: the leaf becomes the raw JSON text that follows it


def render(value: Any) -> bytes:
    """JSON text, where a string `RAW + text` is written as `text` itself (numbers no encoder writes)."""
    text = json.dumps(value)
    return re.sub(r'"\\u0000RAW\\u0000([^"]*)"', lambda m: m.group(1), text).encode()


def _is_number(key: str, value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_string(key: str, value: Any) -> bool:
    return isinstance(value, str)


def _is_date(key: str, value: Any) -> bool:
    return isinstance(value, str) and key.endswith("At")


def _is_url(key: str, value: Any) -> bool:
    return isinstance(value, str) and bool(re.search(r"url|uri|endpoint", key, re.I))


def hostile_bodies(base: Any, canary: Listener) -> dict[str, bytes]:
    """Every class of hostile body, derived from a plausible one where the class is about values."""
    deep = {"agent": AGENT, "messages": json.loads("[" * 60 + "]" * 60)}
    deep_text = render(deep).replace(b"[" * 60 + b"]" * 60, b"[" * 20_000 + b"]" * 20_000)
    bodies = {
        "20000-nested-arrays": b"[" * 20_000 + b"]" * 20_000,
        "20000-nested-objects": b'{"a":' * 20_000 + b"0" + b"}" * 20_000,
        "deep-inside-a-plausible-body": deep_text,
        "9-MiB-body": b'{"agent": "' + b"a" * (9 * 1024 * 1024) + b'"}',
        "raw-NUL-byte": render(_replace_leaves(base, _is_string, "hostile")).replace(b"hostile", b"ho\x00st"),
        "escaped-NUL": render(_replace_leaves(base, _is_string, "ho\x00st")),
        "lone-surrogate": render(_replace_leaves(base, _is_string, "hostile")).replace(
            b"hostile", b"\\ud800"
        ),
        "invalid-UTF-8": render(_replace_leaves(base, _is_string, "hostile")).replace(
            b"hostile", b"\xff\xfe\xc0"
        ),
        "number-1e400": render(_replace_leaves(base, _is_number, RAW + HUGE_FLOAT)),
        "number-10^5000": render(_replace_leaves(base, _is_number, RAW + HUGE_INT)),
        "number-2^64": render(_replace_leaves(base, _is_number, RAW + BIG_INT)),
        "SSRF-targets": render(_replace_leaves(base, _is_url, f"{canary.url}/v1")),
        "not-JSON": b"\x00\x01\x02{[",
        "empty": b"",
    }
    for index, date in enumerate(BAD_DATES):
        bodies[f"date-{index}-{date}"] = render(_replace_leaves(base, _is_date, date))
    return bodies


# --- The operations ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def spec(server: Server) -> dict[str, Any]:
    answer = send(server, "GET", "/api/schema/?format=json", headers={"Accept": "application/json"})
    assert answer.status == 200
    document: dict[str, Any] = json.loads(answer.body)
    return document


@pytest.fixture(scope="module")
def operations(spec: dict[str, Any]) -> list[Operation]:
    found = []
    for template, item in spec["paths"].items():
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            schemes = frozenset(name for requirement in op.get("security", []) for name in requirement)
            content = op.get("requestBody", {}).get("content", {})
            body = content.get("application/json", {}).get("schema")
            found.append(Operation(method.upper(), template, schemes, body))
    assert len(found) >= 20, found
    return found


@pytest.fixture(scope="module")
def workers(server: Server) -> set[int]:
    """granian's worker processes when the suite starts; a crashed worker would be replaced."""
    pids = server.worker_pids()
    assert pids
    return pids


def assert_alive(server: Server, workers: set[int]) -> None:
    answer = send(server, "GET", "/healthz")
    assert answer.status == 200
    assert server.worker_pids() == workers, f"a worker was replaced:\n{server.log.read_text()[-3000:]}"


def credentials(server: Server, operation: Operation) -> list[tuple[str, dict[str, str]]]:
    key = server.keys["operator"] if "operatorKey" in operation.secured_by else server.keys["provider"]
    return [("anonymous", {}), ("keyed", {"Authorization": f"Bearer {key}"})]


def report(failures: list[str]) -> str:
    return f"{len(failures)} bad answers:\n" + "\n".join(failures[:40])


# --- The tests ---------------------------------------------------------------------------------------


def test_it_refuses_a_catastrophic_response_pattern(server: Server, workers: set[int]) -> None:
    headers = {"Authorization": f"Bearer {server.keys['operator']}"}
    profile = json.dumps({"responsePatterns": ["(a+)+b"], "stake": "low"}).encode()
    # First in the module, on a tool nothing has called: profile edits do not reach a worker that has
    # already verified calls (a stale profile cache, reported separately), which would hide the pattern.
    tool = "hostile_regex_tool"
    answer = send(server, "PUT", f"/api/v1/tools/{tool}/profile", profile, headers)
    assert verdict("PUT", "/api/v1/tools/{tool}/profile", answer) is None
    if answer.status < 400:
        # Accepted: then it must run in linear time on the input that makes backtracking explode.
        # Python's re needs ~3 s here (2^25 paths, from two starting points); a linear engine, microseconds.
        call = {"agent": AGENT, "tool": tool, "args": {}, "result": "a" * 25 + "c", "executionTimeMs": 50}
        started = time.monotonic()
        answer = send(server, "POST", "/api/v1/verify/tool-call", json.dumps(call).encode(), headers)
        assert answer.status == 200, answer
        assert time.monotonic() - started < 1.0
    else:
        assert answer.status in (400, 422)
    assert_alive(server, workers)


def test_it_bounds_the_cost_of_a_hostile_run(server: Server, workers: set[int]) -> None:
    """The runs of the finding (10 K answer / 190 K of tool JSON took 92 s, 50 K / 1 MB ran for hours) and
    the most expensive run under the caps: answered (200, 413 before the work, or 422 when the CPU budget
    runs out), never a request that runs on; the client's timeout is only the harness's guard."""
    from tests.engine_runs.runs_helpers import hostile_run, names_run

    headers = {"Authorization": f"Bearer {server.keys['operator']}"}
    expected = {
        "10K/190K": (hostile_run(10_000, 190_000), {200}),
        "50K/1MB": (hostile_run(50_000, 1_000_000), {413}),
        "names at the caps": (names_run(2_000, 4_900), {200, 422}),
    }
    for name, (messages, statuses) in expected.items():
        body = json.dumps({"messages": messages}).encode()
        answer = send(server, "POST", "/api/v1/verify/run", body, headers)
        assert answer.status in statuses, (name, answer.status, answer.body[:300])
        assert verdict("POST", "/api/v1/verify/run", answer) is None, name
        if answer.status == 422:
            assert json.loads(answer.body)["type"] == "/problems/budget-exceeded"
    assert_alive(server, workers)


def test_it_answers_every_hostile_body_at_every_operation(
    server: Server, spec: dict[str, Any], operations: list[Operation], workers: set[int], canary: Listener
) -> None:
    failures = []
    sent = 0
    for operation in operations:
        base = example(operation.body_schema, spec) if operation.body_schema else {"agent": AGENT}
        for name, body in hostile_bodies(base, canary).items():
            for who, headers in credentials(server, operation):
                if name == "9-MiB-body" and who == "keyed":
                    continue  # refused on its Content-Length alone; once per operation is enough
                answer = send(server, operation.method, operation.path(), body, headers)
                sent += 1
                problem = verdict(operation.method, operation.template, answer)
                if problem:
                    failures.append(f"{operation.method} {operation.template} [{name}, {who}] -> {problem}")
    assert sent > 500
    assert not failures, report(failures)
    assert canary.hits == [], f"the server called an internal address: {canary.hits}"
    assert_alive(server, workers)


HOSTILE_SEGMENTS = {
    "NUL": "a%00b",
    "encoded-surrogate": "a%ED%A0%80b",
    "invalid-UTF-8": "a%FF%FEb",
    "newline": "a%0Ab",
    "long": "a" * 3000,
    "dot-dot": "..%2F..%2Fetc%2Fpasswd",
}
HOSTILE_QUERIES = {
    "huge-limit": f"limit={HUGE_INT}&offset={HUGE_INT}",
    "float-limit": "limit=1e400&offset=-1",
    "NUL": "agent=a%00b&window=%00&status=%00&ordering=%00",
    "invalid-UTF-8": "agent=%FF%FE&window=%C0",
    "window": f"window={HUGE_INT}d",
}


def test_it_answers_hostile_path_segments_and_queries(
    server: Server, operations: list[Operation], workers: set[int]
) -> None:
    failures = []
    for operation in operations:
        body = b'{"agent": "hostile-agent"}' if operation.method != "GET" else None
        tries = [(f"query {n}", f"{operation.path()}?{q}") for n, q in HOSTILE_QUERIES.items()]
        if "{" in operation.template:
            tries += [(f"segment {n}", operation.path(s)) for n, s in HOSTILE_SEGMENTS.items()]
        for name, path in tries:
            for who, headers in credentials(server, operation):
                answer = send(server, operation.method, path, body, headers)
                problem = verdict(operation.method, operation.template, answer)
                if problem:
                    failures.append(f"{operation.method} {operation.template} [{name}, {who}] -> {problem}")
    assert not failures, report(failures)
    assert_alive(server, workers)


@pytest.mark.parametrize("segment", list(HOSTILE_SEGMENTS.values()), ids=list(HOSTILE_SEGMENTS))
def test_it_answers_hostile_segments_of_html_pages_without_failing(
    server: Server, workers: set[int], segment: str
) -> None:
    answer = send(server, "GET", f"/agents/{segment}")
    assert answer.status in (400, 404), answer
    answer = send(server, "GET", f"/api/v1/agents/{segment}/trust-score")
    assert verdict("GET", "/api/v1/agents/{subject_id}/trust-score", answer) is None
    assert answer.status in (400, 404)
    assert_alive(server, workers)


def test_it_answers_errors_outside_the_views_as_problems(server: Server, workers: set[int]) -> None:
    cases = {
        "disallowed Host": ("GET", "/api/v1/providers", None, {"Host": "evil.example"}, 400),
        "unknown path": ("GET", "/api/v1/no-such-thing", None, {}, 404),
        "method not allowed": ("DELETE", "/api/v1/providers", None, {}, 405),
        "announced too large": ("POST", "/api/v1/summaries", b"x" * (9 * 1024 * 1024), {}, 413),
        # No Content-Length: 9 chunks of 1 MiB.
        "chunked too large": ("POST", "/api/v1/summaries", iter([b" " * (1024 * 1024)] * 9), {}, 413),
    }
    failures = []
    for name, (method, path, body, headers, status) in cases.items():
        answer = send(server, method, path, body, headers)
        problem = verdict(method, path, answer)
        if answer.status != status or problem or not answer.content_type.startswith(PROBLEM):
            failures.append(f"{name}: {answer.status} {answer.content_type} {answer.body[:200]!r} {problem}")
    assert not failures, report(failures)
    assert_alive(server, workers)


def test_it_reads_a_small_chunked_body(server: Server, workers: set[int]) -> None:
    # Without Content-Length Django would read nothing; the body is handed over whole.
    body = json.dumps({"agent": AGENT, "allowRate": 2}).encode()
    answer = send(
        server, "POST", "/api/v1/summaries", iter([body[:10], body[10:]]),
        {"Authorization": f"Bearer {server.keys['provider']}"},
    )  # fmt: skip
    assert answer.status == 400, answer
    assert "allowRate" in answer.body.decode()
    assert_alive(server, workers)


def test_it_refuses_a_signature_nonce_of_2_to_the_256(server: Server, workers: set[int]) -> None:
    body = json.dumps(
        {"agent": AGENT, "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, "totalChecks": 10}
    ).encode()
    headers = {
        "Authorization": f"Bearer {server.keys['signing']}",
        "X-Signature": "0x" + "11" * 65,
        "X-Signature-Nonce": str(2**256),
        "X-Signature-Deadline": str(int(time.time()) + 60),
    }
    answer = send(server, "POST", "/api/v1/summaries", body, headers)
    assert verdict("POST", "/api/v1/summaries", answer) is None
    assert 400 <= answer.status < 500
    assert_alive(server, workers)


def test_it_does_not_let_a_path_forge_access_log_lines(server: Server, workers: set[int]) -> None:
    forged = '[2026-01-01 00:00:00 +0000] 10.9.8.7 - "GET /admin/forged HTTP/1.1" 200 0.1'
    path = "/api/v1/agents/x" + quote("\n" + forged, safe="") + "/trust-score"
    send(server, "GET", path)
    time.sleep(0.5)  # the access log is written after the answer
    lines = server.log.read_text(errors="replace").splitlines()
    assert not any(line.startswith("[2026-01-01 00:00:00 +0000] 10.9.8.7") for line in lines)
    assert any("\\n[2026-01-01 00:00:00 +0000] 10.9.8.7" in line for line in lines), lines[-5:]
    assert_alive(server, workers)
