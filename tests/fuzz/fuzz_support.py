"""Shared values and the problem-details check of the API fuzz suite."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from typing import Any

import hypothesis
import schemathesis
from hypothesis import HealthCheck
from schemathesis import Case, CheckContext, Response
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.specs.openapi.schemas import OpenApiSchema

AGENT_IDS = ("fuzz-agent-alpha", "fuzz-agent-beta")
PROVIDER_SLUG = "fuzz-provider"
TOOL_NAME = "weather_lookup"
SEED = 20260522
MAX_EXAMPLES = 15  # per operation and generation mode
PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_FIELDS = {"type": str, "title": str, "status": int, "detail": str}
# Documented error answers that are deliberately not problem details.
NOT_PROBLEMS = {
    # The OpenAI-compatible proxy blocks a hallucinated answer with an OpenAI-style error body.
    ("POST", "/v1/chat/completions", 422),
}


@dataclass(frozen=True)
class FuzzWorld:
    provider_key: str
    operator_key: str

    def headers_for(self, case: Case) -> dict[str, str]:
        """Valid credentials for the operation: the operator key where it is the scheme, else the
        provider key (public reads accept it too)."""
        schemes = {
            name for requirement in case.operation.definition.raw.get("security", []) for name in requirement
        }
        key = self.operator_key if "operatorKey" in schemes else self.provider_key
        return {"Authorization": f"Bearer {key}"}


class ProblemDetailsError(AssertionError):
    pass


def problem_details(ctx: CheckContext, response: Response, case: Case) -> bool | None:
    """Every error answer is RFC 9457 problem details: problem+json with type, title, status, detail."""
    if response.status_code < 400:
        return None
    if (case.method, case.path, response.status_code) in NOT_PROBLEMS:
        return None
    content_type = response.headers.get("content-type", [""])[0].split(";")[0].strip()
    where = f"{case.method} {case.formatted_path} -> {response.status_code}"
    if content_type != PROBLEM_CONTENT_TYPE:
        raise ProblemDetailsError(f"{where}: content type {content_type!r}, not {PROBLEM_CONTENT_TYPE}")
    try:
        body: Any = json.loads(response.content)
    except ValueError:
        raise ProblemDetailsError(f"{where}: the body is not JSON: {response.content[:200]!r}") from None
    if not isinstance(body, dict):
        raise ProblemDetailsError(f"{where}: the body is not an object: {body!r}")
    for name, kind in PROBLEM_FIELDS.items():
        if not isinstance(body.get(name), kind):
            raise ProblemDetailsError(f"{where}: `{name}` missing or not {kind.__name__}: {body!r}")
    if body["status"] != response.status_code:
        raise ProblemDetailsError(f"{where}: body status {body['status']} != {response.status_code}")
    return True


CHECKS = [
    not_a_server_error,
    problem_details,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@cache
def api_schema() -> OpenApiSchema:
    """The OpenAPI document as the app serves it, fuzzed through the WSGI handler (no server)."""
    from config.wsgi import application

    config = schemathesis.Config.from_dict(
        {
            "seed": SEED,
            "generation": {"mode": "all", "max-examples": MAX_EXAMPLES, "deterministic": True},
            "phases": {
                "examples": {"enabled": False},
                "coverage": {"enabled": False},
                "fuzzing": {"enabled": True},
            },
        }
    )
    return schemathesis.openapi.from_wsgi("/api/schema/?format=json", application, config=config)


def bounded(max_examples: int) -> hypothesis.settings:
    """Few examples, derandomized, no example database: the same requests on every CI run."""
    return hypothesis.settings(
        max_examples=max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
