"""The fixes behind the hostile-input suite, each on its own, through Django's test client.

The suite next door proves them against granian; these name the rule each one enforces and fail on
the code before it: bounded JSON depth, the recursion limit, NUL in URLs, overflowing dates and
counts, timestamps in the future, problem details for errors made outside the views, escaped logs.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.test import Client, RequestFactory
from rest_framework.test import APIClient

from common.logformat import ControlEscapingFormatter, escape_controls
from common.middleware import ProblemErrorsMiddleware
from common.recursion import SANE_RECURSION_LIMIT_MAX, recursion_limit_restore
from registry.services.agents import agent_register
from registry.services.providers import provider_create

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"
AGENT = "hostile-agent"


@pytest.fixture
def provider_api(db: None) -> APIClient:
    _, issued = provider_create(name="Hostile", slug="hostile")
    assert issued is not None
    agent_register(subject_id=AGENT)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {issued.plaintext}")
    return client


def summary(**fields: Any) -> dict[str, Any]:
    body = {"agent": AGENT, "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, "totalChecks": 10}
    return {**body, **fields}


def problem_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith(PROBLEM)
    body: dict[str, Any] = json.loads(response.content)
    assert body["status"] == status
    return body


def pointers(problem: dict[str, Any]) -> list[str]:
    return [error["pointer"] for error in problem.get("errors", [])]


# --- Depth ---------------------------------------------------------------------------------------------


@pytest.fixture
def raised_recursion_limit() -> Iterator[None]:
    """As in production before the fix: py_ecc had raised the limit, so only our bound stands."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


@pytest.mark.parametrize(
    "body",
    # Both under the verify endpoint's 64 KiB cap, so it is the depth that refuses them.
    [b"[" * 20_000 + b"]" * 20_000, b'{"":' * 13_000 + b"0" + b"}" * 13_000],
    ids=["arrays", "objects"],
)
def test_it_refuses_a_body_nested_20000_deep_before_decoding_it(
    db: None, raised_recursion_limit: None, body: bytes
) -> None:
    response = Client().post("/api/v1/attestations/verify", body, content_type="application/json")
    problem = problem_of(response, 400)
    assert problem["type"] == "/problems/too-deep"
    assert pointers(problem) == [""]
    assert "64 levels" in problem["detail"]


def test_it_follows_the_configured_depth(db: None, settings: Any) -> None:
    settings.JSON_MAX_DEPTH = 3
    nested = json.dumps({"attestation": [[["deep"]]]})
    response = Client().post("/api/v1/attestations/verify", nested, content_type="application/json")
    assert problem_of(response, 400)["type"] == "/problems/too-deep"
    settings.JSON_MAX_DEPTH = 4
    response = Client().post("/api/v1/attestations/verify", nested, content_type="application/json")
    assert response.json()["type"] != "/problems/too-deep"


def test_it_refuses_a_body_of_more_arrays_than_the_limit_with_413(
    provider_api: APIClient, settings: Any
) -> None:
    # Shallow enough for the depth bound, but every array is an object to build and collect.
    settings.JSON_MAX_CONTAINERS = 1_000
    body = json.dumps([[[0]]] * 600)  # 1 + 600 x 2 = 1,201 arrays
    response = provider_api.post("/api/v1/summaries/batch", body, content_type="application/json")
    problem = problem_of(response, 413)
    assert problem["type"] == "/problems/payload-too-large"
    assert "1201 arrays and objects" in problem["detail"]
    settings.JSON_MAX_CONTAINERS = 2_000
    response = provider_api.post("/api/v1/summaries/batch", body, content_type="application/json")
    assert response.status_code == 400  # through the bound, refused by the batch validation instead
    assert response.json()["type"] != "/problems/payload-too-large"


def test_it_caps_the_anonymous_attestation_check_far_below_the_body_limit(db: None) -> None:
    small = json.dumps({"typedData": {}, "signature": "0x" + "00" * 65})
    answer = Client().post("/api/v1/attestations/verify", small, content_type="application/json")
    assert answer.status_code != 413
    padded = json.dumps({"typedData": {"padding": "x" * 70_000}, "signature": "0x"})
    response = Client().post("/api/v1/attestations/verify", padded, content_type="application/json")
    assert "65536" in problem_of(response, 413)["detail"]


def test_it_treats_an_over_deep_tool_result_in_a_run_as_text() -> None:
    from verification.engine.runs.messages import _maybe_json

    deep = "[" * 20_000 + "]" * 20_000
    assert _maybe_json(deep) is None
    assert _maybe_json("[" + "9" * 5000 + "]") is None  # more digits than int() converts
    assert _maybe_json('{"temperature": 12}') == {"temperature": 12}


def test_it_treats_an_over_deep_tool_call_result_as_text() -> None:
    from verification.engine.tools.features import Limits, _parse

    deep = "[" * 20_000 + "]" * 20_000
    assert _parse(deep, Limits()) == deep


# --- Recursion limit -----------------------------------------------------------------------------------


def test_it_puts_the_recursion_limit_back_after_start_up() -> None:
    assert "py_ecc" in sys.modules  # imported by the app's start-up, so its raise happened before ours
    assert sys.getrecursionlimit() <= SANE_RECURSION_LIMIT_MAX
    sys.setrecursionlimit(100_000)
    try:
        assert recursion_limit_restore() <= SANE_RECURSION_LIMIT_MAX
        assert sys.getrecursionlimit() <= SANE_RECURSION_LIMIT_MAX
    finally:
        recursion_limit_restore()


@pytest.mark.parametrize(
    "entry", ["django.setup()", "import config.wsgi", "config.celery_app.loader.import_default_modules()"]
)
def test_it_runs_with_a_sane_recursion_limit_in_every_process(entry: str) -> None:
    script = (
        "import os, sys, django; os.environ['DJANGO_SETTINGS_MODULE'] = 'config.settings'; "
        f"import config; django.setup(); {entry}; "
        "from config.celery import _recursion_limit_restore; _recursion_limit_restore(); "
        "import web3, eth_account, py_ecc; print(sys.getrecursionlimit())"
    )
    env = {**os.environ, "SECRET_KEY": "x" * 50, "DEBUG": "0"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    assert int(out.stdout.strip().splitlines()[-1]) <= SANE_RECURSION_LIMIT_MAX


# --- NUL, dates, numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/agents/a%00b/trust-score",
        "/api/v1/agents/a%00b",
        "/v1/stats/a%00b",
        "/api/v1/agents?agent=a%00b",
    ],
)
def test_it_refuses_a_nul_in_the_url_of_an_api_path(db: None, path: str) -> None:
    problem = problem_of(Client().get(path), 400)
    assert "NUL" in problem["detail"]


def test_it_refuses_a_nul_in_the_url_of_a_page(db: None) -> None:
    response = Client().get("/agents/a%00b")
    assert response.status_code == 400
    assert not response["Content-Type"].startswith(PROBLEM)


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_it_refuses_a_date_that_overflows_in_utc(provider_api: APIClient, stamp: str) -> None:
    response = provider_api.post("/api/v1/summaries", summary(updatedAt=stamp), format="json")
    problem = problem_of(response, 400)
    assert pointers(problem) == ["/updatedAt"]
    assert "out of range" in problem["errors"][0]["detail"]


def outcomes(checked_at: str) -> dict[str, Any]:
    return {
        "agent": AGENT,
        "outcomes": [{"id": "o1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": checked_at}],
    }


@pytest.mark.parametrize("stamp", ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"])
def test_it_refuses_an_outcome_date_that_overflows(provider_api: APIClient, stamp: str) -> None:
    problem = problem_of(provider_api.post("/api/v1/outcomes", outcomes(stamp), format="json"), 400)
    assert pointers(problem) == ["/outcomes/0/checkedAt"]


def test_it_refuses_outcomes_checked_in_the_future(provider_api: APIClient, settings: Any) -> None:
    problem = problem_of(
        provider_api.post("/api/v1/outcomes", outcomes("9999-01-01T00:00:00Z"), format="json"), 400
    )
    assert pointers(problem) == ["/outcomes/0/checkedAt"]
    assert "future" in problem["errors"][0]["detail"]
    settings.MAX_CLOCK_SKEW_SECONDS = 600
    soon = (datetime.now(UTC) + timedelta(seconds=300)).isoformat()
    assert provider_api.post("/api/v1/outcomes", outcomes(soon), format="json").status_code == 201


@pytest.mark.parametrize(
    ("raw", "pointer"),
    [
        (b'"totalChecks": ' + b"1" * 5000, ""),  # more digits than Python converts: not JSON we accept
        (b'"totalChecks": 18446744073709551616', "/totalChecks"),  # 2**64: no column holds it
        (b'"totalChecks": 1e400', "/totalChecks"),  # infinity
    ],
    ids=["10^5000", "2^64", "1e400"],
)
def test_it_refuses_numbers_no_column_holds(provider_api: APIClient, raw: bytes, pointer: str) -> None:
    body = (
        b'{"agent": "hostile-agent", "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, ' + raw + b"}"
    )
    response = provider_api.post("/api/v1/summaries", body, content_type="application/json")
    problem = problem_of(response, 400)
    if pointer:
        assert pointer in pointers(problem)


def test_it_answers_a_value_no_database_column_holds_with_a_400(db: None) -> None:
    # schemathesis found it against the production server: maxResponseLength 2071581596994 passed
    # validation and PostgreSQL refused it ("integer out of range"), answered as a 500.
    from django.db import connection

    from verification.services.tools import operator_key_create

    if connection.vendor != "postgresql":
        pytest.skip("SQLite stores any integer; the range is PostgreSQL's")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {operator_key_create(name='o').plaintext}")
    body = {"stake": "high", "maxResponseLength": 2071581596994}
    problem = problem_of(client.put("/api/v1/tools/any_tool/profile", body, format="json"), 400)
    assert "2071581596994" not in json.dumps(problem)  # the database's message stays in the log


# --- Errors made outside the views -----------------------------------------------------------------------


def test_it_answers_a_disallowed_host_with_a_problem_on_api_paths(db: None) -> None:
    problem = problem_of(Client().get("/api/v1/providers", HTTP_HOST="evil.example"), 400)
    assert "evil.example" not in json.dumps(problem)  # the header is not echoed back
    page = Client().get("/agents/", HTTP_HOST="evil.example")
    assert page.status_code == 400
    assert not page["Content-Type"].startswith(PROBLEM)


def test_it_turns_a_bare_error_answer_on_an_api_path_into_a_problem() -> None:
    def bare(request: HttpRequest) -> HttpResponse:
        return HttpResponseNotAllowed(["GET"])

    response = ProblemErrorsMiddleware(bare)(RequestFactory().post("/api/v1/something"))
    problem = problem_of(response, 405)
    assert problem["type"] == "/problems/method-not-allowed"
    assert response["Allow"] == "GET"
    page = ProblemErrorsMiddleware(bare)(RequestFactory().post("/agents/"))
    assert page.status_code == 405 and not page["Content-Type"].startswith(PROBLEM)


def test_it_keeps_the_debug_error_page_for_developers(settings: Any) -> None:
    def technical(request: HttpRequest) -> HttpResponse:
        return HttpResponse(b"<html>traceback</html>", status=500)

    settings.DEBUG = False
    problem_of(ProblemErrorsMiddleware(technical)(RequestFactory().get("/api/v1/x")), 500)
    settings.DEBUG = True
    response = ProblemErrorsMiddleware(technical)(RequestFactory().get("/api/v1/x"))
    assert response.content == b"<html>traceback</html>"


def test_it_leaves_json_error_answers_alone() -> None:
    def openai_style(request: HttpRequest) -> HttpResponse:
        return HttpResponse(b'{"error": {}}', status=422, content_type="application/json")

    response = ProblemErrorsMiddleware(openai_style)(RequestFactory().post("/v1/chat/completions"))
    assert response.content == b'{"error": {}}'


# --- Logs ------------------------------------------------------------------------------------------------


def test_it_escapes_control_characters_in_log_messages_but_not_in_tracebacks() -> None:
    formatter = ControlEscapingFormatter("%(levelname)s %(message)s")
    try:
        raise ValueError("boom")
    except ValueError:
        record = logging.LogRecord(
            "x", logging.ERROR, __file__, 1, "Not Found: %s", ("/a\n[fake] line",), sys.exc_info()
        )
    text = formatter.format(record)
    first, *rest = text.splitlines()
    assert first == "ERROR Not Found: /a\\n[fake] line"
    assert rest[0].startswith("Traceback")
    assert escape_controls("\u2028\x85\x1b\r\t") == "\\u2028\\x85\\x1b\\r\\t"
