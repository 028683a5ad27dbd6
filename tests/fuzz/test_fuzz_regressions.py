"""What the API fuzzer found, pinned as plain examples (each was a 500 or a schema that lied)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.fuzz.fuzz_support import AGENT_IDS, PROBLEM_CONTENT_TYPE, TOOL_NAME, FuzzWorld

pytestmark = pytest.mark.django_db


def _client(key: str | None = None) -> APIClient:
    client = APIClient()
    if key is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def _problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body: dict[str, Any] = response.json()
    assert {"type", "title", "status", "detail"} <= body.keys()
    return body


def _pointers(body: dict[str, Any]) -> list[str]:
    return [error["pointer"] for error in body.get("errors", [])]


def test_it_refuses_a_chain_id_beyond_the_column_instead_of_failing(fuzz_world: FuzzWorld) -> None:
    response = _client(fuzz_world.provider_key).post(
        "/api/v1/agents", {"subjectId": "big-chain", "chainId": 2**70}, format="json"
    )

    assert _pointers(_problem(response, 400)) == ["/chainId"]


def test_it_refuses_outcomes_whose_numbers_cannot_be_canonicalised(fuzz_world: FuzzWorld) -> None:
    body = {
        "agent": AGENT_IDS[0],
        "outcomes": [
            {"id": "o-1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-11-20T00:00:00Z"}
        ],
        "context": {"runs": [2**60]},
    }

    response = _client(fuzz_world.provider_key).post("/api/v1/outcomes", body, format="json")

    assert _pointers(_problem(response, 400)) == ["/context/runs/0"]


def test_it_refuses_nul_characters_that_postgresql_cannot_store(fuzz_world: FuzzWorld) -> None:
    response = _client(fuzz_world.operator_key).put(
        f"/api/v1/tools/{TOOL_NAME}/profile", {"requiredFields": ["ok", "bad\u0000"]}, format="json"
    )

    assert _pointers(_problem(response, 400)) == ["/requiredFields/1"]


def test_it_refuses_unpaired_surrogates(fuzz_world: FuzzWorld) -> None:
    response = _client(fuzz_world.provider_key).post(
        "/api/v1/agents", '{"subjectId": "s", "name": "\\ud800"}', content_type="application/json"
    )

    assert _pointers(_problem(response, 400)) == ["/name"]


@pytest.mark.parametrize(
    "query", ["limit=abc", "limit=0", "limit=", "offset=-1", "offset=null", "limit=100000"]
)
def test_it_refuses_bad_pagination_instead_of_ignoring_it(fuzz_world: FuzzWorld, query: str) -> None:
    response = _client().get(f"/api/v1/providers?{query}")

    assert _pointers(_problem(response, 400)) == ["/" + query.split("=")[0]]


def test_it_documents_errors_as_problem_details_and_public_reads_as_anonymous(fuzz_world: FuzzWorld) -> None:
    schema = json.loads(_client().get("/api/schema/?format=json").content)

    agents = schema["paths"]["/api/v1/agents"]
    assert {} in agents["get"]["security"]
    assert {} not in agents["post"]["security"]
    assert list(agents["post"]["responses"]["400"]["content"]) == [PROBLEM_CONTENT_TYPE]
    assert list(agents["get"]["responses"]["200"]["content"]) == ["application/json"]
    limit = next(p for p in agents["get"]["parameters"] if p["name"] == "limit")
    assert (limit["schema"]["minimum"], limit["schema"]["maximum"]) == (1, 1000)
    provider = schema["components"]["schemas"]["Provider"]["properties"]
    assert "format" not in provider["methodologyUrl"]


@pytest.mark.parametrize(
    ("body", "pointers"),
    [
        (b'{"subjectId": "s", "name": "a\x00b"}', []),  # a raw NUL byte: not JSON at all
        ('{"subjectId": "s", "name": "a\x00b"}'.encode("utf-16"), []),  # not UTF-8
        (b'{"subjectId": "s", "name": "a\\u0000b"}', ["/name"]),
        (b'{"subjectId": "s", "name": "ok", "tags": {"k": ["\\u0000"]}}', ["/tags/k/0"]),
    ],
)
def test_it_refuses_nul_however_the_body_spells_it(
    fuzz_world: FuzzWorld, body: bytes, pointers: list[str]
) -> None:
    # The parser only walks bodies that could hold a NUL or a surrogate: every spelling must be refused.
    response = _client(fuzz_world.provider_key).post("/api/v1/agents", body, content_type="application/json")

    assert _pointers(_problem(response, 400)) == pointers
