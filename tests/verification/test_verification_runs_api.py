"""Agent-run verification over REST, and the verifying chat-completions proxy against a real
local upstream that speaks the OpenAI protocol."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from registry.models import Agent, CheckOutcome
from verification.models import RunVerification
from verification.services.engine_provider import ENGINE_SLUG

TOOL_RESULT = {"name": "Eiffel Tower", "built": "1887-1889", "height": "330 m", "city": "Paris"}
QUESTION: list[dict[str, Any]] = [
    {"role": "user", "content": "When was the Eiffel Tower built and how tall is it?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_landmark_info", "arguments": json.dumps({"name": "Eiffel Tower"})},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(TOOL_RESULT)},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_landmark_info",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    }
]
WRONG = "The Eiffel Tower was built in 1950 and is 330 meters tall."
RIGHT = "The Eiffel Tower was built between 1887 and 1889 and is 330 meters tall."


def run(answer: str) -> list[dict[str, Any]]:
    return [*QUESTION, {"role": "assistant", "content": answer}]


def test_it_reports_a_contradicted_claim_with_its_span(operator: APIClient) -> None:
    response = operator.post("/api/v1/verify/run", {"messages": run(WRONG), "tools": TOOLS}, format="json")
    assert response.status_code == 200, response.content
    report = response.json()
    flagged = [c for c in report["claims"] if c["label"] != "SUPPORTED"]
    assert [c["text"] for c in flagged] == ["1950"]
    start, end = flagged[0]["span"]
    assert WRONG[start:end] == "1950"
    assert response["x-vsr-hallucination-detected"] == "true"
    assert RunVerification.objects.get(run_id=report["runId"]).hallucination_detected is True


def test_it_passes_a_grounded_answer(operator: APIClient) -> None:
    report = operator.post(
        "/api/v1/verify/run", {"messages": run(RIGHT), "tools": TOOLS}, format="json"
    ).json()
    assert report["hallucinationDetected"] is False and report["action"] == "emit"


def test_it_verifies_a_run_whose_results_hold_a_date_no_calendar_has(operator: APIClient) -> None:
    # "2024-02-30" in a tool result and February 30's weekday in the answer raised ValueError inside the
    # engine: a 500 before, a report now.
    result = {"name": "Eiffel Tower", "opened": "2024-02-30", "closed": "2024-03-13"}
    messages = [
        *QUESTION[:2],
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(result)},
        {"role": "assistant", "content": "It opened on Friday, February 30, 2024, and closed 19 days later."},
    ]
    response = operator.post("/api/v1/verify/run", {"messages": messages, "tools": TOOLS}, format="json")
    assert response.status_code == 200, response.content
    assert "claims" in response.json()


def test_it_names_the_json_path_of_a_malformed_message(operator: APIClient) -> None:
    messages = run(RIGHT)
    messages[1] = {
        **messages[1],
        "tool_calls": [{"id": "c", "type": "function", "function": {"name": "x", "arguments": "{not json"}}],
    }
    response = operator.post("/api/v1/verify/run", {"messages": messages}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"].startswith("messages[1].tool_calls[0]")


def test_it_counts_a_checked_run_for_the_agent(
    operator: APIClient, django_capture_on_commit_callbacks: Any, linked_agent: Callable[..., Agent]
) -> None:
    linked_agent("agent-run")
    with django_capture_on_commit_callbacks(execute=True):
        operator.post("/api/v1/verify/run", {"messages": run(WRONG), "agent": "agent-run"}, format="json")
        operator.post(
            "/api/v1/verify/run",
            {
                "messages": [
                    {"role": "user", "content": "Write a poem"},
                    {"role": "assistant", "content": "Roses"},
                ],
                "agent": "agent-run",
            },
            format="json",
        )
    verdicts = list(
        CheckOutcome.objects.filter(provider__slug=ENGINE_SLUG, agent__subject_id="agent-run").values_list(
            "verdict", flat=True
        )
    )
    assert verdicts == ["BLOCK"]  # the poem needed no fact check, so it is not a verification


class Upstream(BaseHTTPRequestHandler):
    answer = RIGHT
    # Answers for successive calls (a model revising its answer); `answer` once they are used up. A dict
    # is sent as the whole message (a tool call).
    answers: list[str | dict[str, Any]] = []
    seen: list[dict[str, Any]] = []

    @staticmethod
    def message() -> dict[str, Any]:
        answer = Upstream.answers.pop(0) if Upstream.answers else Upstream.answer
        return answer if isinstance(answer, dict) else {"role": "assistant", "content": answer}

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Upstream.seen.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        payload = json.dumps(
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body.get("model", "m"),
                "choices": [
                    {
                        "index": 0,
                        "message": Upstream.message(),
                        "finish_reason": "stop",
                    }
                ],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    Upstream.seen = []
    Upstream.answers = []
    try:
        with override_settings(
            RUN_PROXY_UPSTREAM_URL=f"http://127.0.0.1:{server.server_address[1]}/v1",
            RUN_PROXY_UPSTREAM_API_KEY="sk-up",
        ):
            yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def proxy(operator: APIClient, answer: str, action: str) -> Any:
    Upstream.answer = answer
    return operator.post(
        "/v1/chat/completions",
        {"model": "m", "messages": QUESTION, "tools": TOOLS},
        format="json",
        headers={"x-hallucination-action": action},
    )


def test_it_forwards_upstream_and_adds_headers(operator: APIClient, upstream: str) -> None:
    response = proxy(operator, WRONG, "header")
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == WRONG
    assert response["x-vsr-hallucination-detected"] == "true"
    assert Upstream.seen[0]["path"] == "/v1/chat/completions" and Upstream.seen[0]["auth"] == "Bearer sk-up"


def test_it_blocks_a_hallucinated_answer_in_block_mode(operator: APIClient, upstream: str) -> None:
    response = proxy(operator, WRONG, "block")
    assert response.status_code == 422
    assert "1950" in response.json()["error"]["spans"]


def test_it_annotates_the_body_in_body_mode_and_leaves_grounded_answers_alone(
    operator: APIClient, upstream: str
) -> None:
    annotated = proxy(operator, WRONG, "body").json()["choices"][0]["message"]["content"]
    assert annotated != WRONG and WRONG in annotated
    clean = proxy(operator, RIGHT, "body").json()["choices"][0]["message"]["content"]
    assert clean == RIGHT


def test_it_refuses_unknown_actions(operator: APIClient, upstream: str) -> None:
    assert proxy(operator, RIGHT, "explode").status_code == 400
    assert Upstream.seen == []


def test_it_answers_502_when_the_upstream_is_down(operator: APIClient) -> None:
    with override_settings(RUN_PROXY_UPSTREAM_URL="http://127.0.0.1:9/v1", RUN_PROXY_TIMEOUT_SECONDS=2):
        response = operator.post("/v1/chat/completions", {"messages": QUESTION}, format="json")
    assert response.status_code == 502


def test_it_refuses_a_run_without_a_final_answer(operator: APIClient) -> None:
    # The run stops at the tool result: the model has not answered, so there is nothing to emit.
    response = operator.post("/api/v1/verify/run", {"messages": QUESTION, "tools": TOOLS}, format="json")
    assert response.status_code == 400, response.content
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["errors"][0]["field"] == "messages[2]"
    assert not RunVerification.objects.exists()


def revise(operator: APIClient, *answers: str | dict[str, Any], agent: str | None = None) -> Any:
    Upstream.answers = list(answers)
    Upstream.answer = answers[-1] if isinstance(answers[-1], str) else RIGHT
    headers = {"x-hallucination-action": "revise"}
    if agent:
        headers["x-agent-id"] = agent
    return operator.post(
        "/v1/chat/completions",
        {"model": "m", "messages": QUESTION, "tools": TOOLS},
        format="json",
        headers=headers,
    )


def test_it_revises_a_flagged_answer_and_returns_the_verified_one(
    operator: APIClient,
    upstream: str,
    django_capture_on_commit_callbacks: Any,
    linked_agent: Callable[..., Agent],
) -> None:
    linked_agent("agent-rev")
    with django_capture_on_commit_callbacks(execute=True):
        response = revise(operator, WRONG, RIGHT, agent="agent-rev")
    assert response.status_code == 200, response.content
    assert response.json()["choices"][0]["message"]["content"] == RIGHT
    assert response["x-vsr-attempts"] == "2" and response["x-vsr-returned-attempt"] == "2"
    first, second = response["x-vsr-attempt-actions"].split(",")
    assert first != "emit" and second == "emit"
    assert response["x-vsr-hallucination-detected"] == "false"
    # The model was shown its answer and the gate's feedback, which names the wrong value.
    asked = Upstream.seen[1]["body"]["messages"]
    assert asked[: len(QUESTION)] == QUESTION
    assert asked[-2] == {"role": "assistant", "content": WRONG}
    assert asked[-1]["role"] == "user" and "1950" in asked[-1]["content"]
    # Both attempts are on record; the returned one says what happened.
    record = RunVerification.objects.get(run_id=response["x-vsr-run-id"])
    gating = record.report["gating"]
    assert gating["stopped"] == "emitted" and gating["returned_attempt"] == 2
    assert [a["action"] for a in gating["attempts"]] == [first, "emit"]
    assert gating["attempts"][0]["flagged"] == ["1950"]
    assert RunVerification.objects.count() == 2
    # Only the answer the client got counts for the agent.
    verdicts = list(
        CheckOutcome.objects.filter(provider__slug=ENGINE_SLUG, agent__subject_id="agent-rev").values_list(
            "verdict", flat=True
        )
    )
    assert verdicts == ["ALLOW"]  # emit, in the provider's verdicts


def test_it_asks_once_when_the_first_answer_is_grounded(operator: APIClient, upstream: str) -> None:
    response = revise(operator, RIGHT)
    assert response.status_code == 200
    assert response["x-vsr-attempts"] == "1" and response["x-vsr-attempt-actions"] == "emit"
    assert len(Upstream.seen) == 1


@override_settings(RUN_PROXY_MAX_REVISIONS=1)
def test_it_stops_revising_after_the_limit_and_does_not_pass_the_answer_silently(
    operator: APIClient, upstream: str
) -> None:
    still_wrong = "The Eiffel Tower was built in 1950 and is 500 meters tall."
    response = revise(operator, WRONG, still_wrong)
    assert len(Upstream.seen) == 2  # one answer, one revision: the limit
    record = RunVerification.objects.get(run_id=response["x-vsr-run-id"])
    gating = record.report["gating"]
    assert gating["stopped"] == "max-revisions" and len(gating["attempts"]) == 2
    # The best-scored answer is returned (the latest among equals), and never silently.
    scores = [a["overall_score"] for a in gating["attempts"]]
    best = max(range(len(scores)), key=lambda i: (scores[i], i)) + 1
    assert gating["returned_attempt"] == best and response["x-vsr-returned-attempt"] == str(best)
    assert response["x-vsr-revision-stopped"] == "max-revisions"
    assert response["x-vsr-run-id"] == gating["attempts"][best - 1]["run_id"]
    if response.status_code == 422:  # the gate said block for it
        assert gating["attempts"][best - 1]["action"] == "block"
        assert "1950" in response.json()["error"]["spans"]
    else:
        content = response.json()["choices"][0]["message"]["content"]
        assert content.startswith((WRONG, still_wrong)) and "Warning" in content


@override_settings(RUN_PROXY_MAX_REVISIONS=0, RUN_PROXY_DEFAULT_ACTION="revise")
def test_it_takes_revise_as_the_default_action_and_honours_zero_revisions(
    operator: APIClient, upstream: str
) -> None:
    Upstream.answer = WRONG
    response = operator.post(
        "/v1/chat/completions", {"model": "m", "messages": QUESTION, "tools": TOOLS}, format="json"
    )
    assert len(Upstream.seen) == 1
    assert response["x-vsr-attempts"] == "1" and response["x-vsr-revision-stopped"] == "max-revisions"


@override_settings(RUN_PROXY_MAX_REVISIONS=5, OPERATOR_DAILY_QUOTA=2)
def test_it_stops_revising_when_the_operators_quota_runs_out(operator: APIClient, upstream: str) -> None:
    response = revise(operator, WRONG)  # the model never gets it right
    assert len(Upstream.seen) == 2  # each answer is a unit of the quota: two units, two answers
    assert response["x-vsr-revision-stopped"] == "quota" and response["x-vsr-attempts"] == "2"
    assert response.status_code in (200, 422)
    # The quota is now used up for the next request.
    assert revise(operator, RIGHT).status_code == 429


def test_it_stops_revising_when_the_model_asks_for_a_tool_instead(operator: APIClient, upstream: str) -> None:
    tool_call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "get_landmark_info", "arguments": "{}"}}
        ],
    }
    response = revise(operator, WRONG, tool_call)
    assert len(Upstream.seen) == 2
    assert response["x-vsr-revision-stopped"] == "no-answer" and response["x-vsr-returned-attempt"] == "1"
    if response.status_code == 200:  # the flagged first answer, with its warning, never the bare tool call
        content = response.json()["choices"][0]["message"]["content"]
        assert content.startswith(WRONG) and "Warning" in content
    else:
        assert response.status_code == 422 and "1950" in response.json()["error"]["spans"]


@override_settings(RUN_MAX_ANSWER_CHARS=len(WRONG) + 10)
def test_it_never_returns_a_revision_it_could_not_verify(operator: APIClient, upstream: str) -> None:
    too_long = RIGHT + " It is one of the most visited monuments in the world."
    response = revise(operator, WRONG, too_long)
    assert len(Upstream.seen) == 2
    assert response["x-vsr-revision-stopped"] == "unverifiable-revision"
    assert response["x-vsr-attempts"] == "1" and response["x-vsr-returned-attempt"] == "1"
    assert too_long not in json.dumps(response.json())
