"""Agent-run verification inside the service: verify, persist the report, count the outcome,
and the HaluGate-style proxy that verifies an upstream model's answer before returning it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
from django.conf import settings

from common.errors import ApplicationError, FieldError, validation_error
from registry.models import Agent
from untrusted.jsonbounds import loads as bounded_json

from ..engine.runs import (
    ACTIONS,
    Budget,
    BudgetExceeded,
    HallucinationReport,
    MalformedRunError,
    RunTooLargeError,
    RunVerifierConfig,
    apply_action,
    report_headers,
    verify_run,
)
from ..models import OperatorApiKey, RunVerification, ShadowCount
from .engine_provider import engine_outcome_record
from .operators import (
    operator_agent_authorize,
    operator_agents_resolve,
    operator_ensure_active,
    operator_of,
    operator_quota_consume,
)
from .safety import run_injection_signals
from .shadow import shadow_count

_INDEX = re.compile(r"\[(\d+)\]")


def path_to_pointer(path: str) -> str:
    """`messages[3].tool_calls[0].function.arguments` -> `/messages/3/tool_calls/0/function/arguments`.

    >>> path_to_pointer("messages[3].content")
    '/messages/3/content'
    """
    dotted = _INDEX.sub(lambda m: f".{m.group(1)}", path)
    return "/" + "/".join(part for part in dotted.split(".") if part) if dotted else ""


def run_config() -> RunVerifierConfig:
    return RunVerifierConfig(
        emit_threshold=settings.RUN_EMIT_THRESHOLD,
        revise_threshold=settings.RUN_REVISE_THRESHOLD,
        block_threshold=settings.RUN_BLOCK_THRESHOLD,
        gate=settings.RUN_GATE,
        probe_endpoint=settings.RUN_PROBE_ENDPOINT or None,
        probe_model=settings.RUN_PROBE_MODEL,
        probe_api_key=settings.RUN_PROBE_API_KEY or None,
        model_path=settings.RUN_MODEL_PATH or None,
        max_answer_chars=settings.RUN_MAX_ANSWER_CHARS,
        max_total_chars=settings.RUN_MAX_CONTEXT_CHARS,
        max_claims=settings.RUN_MAX_CLAIMS,
        max_comparisons=settings.RUN_MAX_COMPARISONS,
    )


def _agent(
    subject_id: str | None, pointer: str, operator: OperatorApiKey | None, name: str = "agent"
) -> Agent | None:
    """The agent a run is verified for; the operator must be linked to it (its runs move the score)."""
    if not subject_id:
        return None
    if not isinstance(subject_id, str):
        raise validation_error([FieldError(pointer, "Expected an agent's subject id (a string).")])
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
    # Unknown agents are registered as summaries register them (AUTO_REGISTER_AGENTS), else a 400.
    agent = operator_agents_resolve(operator=operator_of(operator), wanted=[(subject_id, pointer)])[
        subject_id
    ]
    if operator is not None:
        operator_agent_authorize(operator=operator.owner, agent=agent, pointer=pointer, name=name)
    return agent


def _admit(operator: OperatorApiKey | None, count: int = 1) -> None:
    """A suspended operator is refused; otherwise the work counts against its daily quota."""
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
        operator_quota_consume(operator=operator.owner, count=count)


def _verify(messages: Any, tools: Any, probe_answers: Any, prefix: str = "") -> HallucinationReport:
    """verify_run under the request's budget: a run over a size cap is a 413 naming the part that is too
    large, a run that uses up its CPU time a 422 saying which budget (never a request that runs on)."""
    budget = Budget(settings.RUN_BUDGET_SECONDS)
    try:
        return verify_run(messages, tools, config=run_config(), probe_answers=probe_answers, budget=budget)
    except RunTooLargeError as exc:
        pointer = prefix + path_to_pointer(exc.path)
        raise ApplicationError(
            f"The agent run is too large to verify: {exc.path}: {exc.message}.",
            status=413,
            problem="payload-too-large",
            errors=[FieldError(pointer, exc.message)],
        ) from None
    except MalformedRunError as exc:
        pointer = prefix + path_to_pointer(exc.path)
        raise validation_error([FieldError(pointer, exc.message)], what="agent run") from None
    except BudgetExceeded as exc:
        raise ApplicationError(
            f"The verification stopped: {exc}. Send a shorter answer or smaller tool results.",
            status=422,
            problem="budget-exceeded",
            extra={"budget": exc.budget, "limit": exc.limit, "stage": exc.stage},
        ) from None


def _store(
    report: HallucinationReport,
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    source: str,
    count: bool = True,
    shadow: bool = False,
) -> RunVerification:
    record = RunVerification.objects.create(
        shadow=shadow,
        run_id=report.run_id,
        operator=operator,
        agent=agent,
        source=source,
        request_type=report.request_type,
        fact_check_needed=report.fact_check_needed,
        unverified_factual=report.unverified_factual,
        hallucination_detected=report.hallucination_detected,
        action=report.action,
        overall_score=report.overall_score,
        stake=report.stake,
        report=report.to_dict(),
    )
    if count:
        _count(report, record=record, agent=agent)
    return record


def _count(report: HallucinationReport, *, record: RunVerification, agent: Agent | None) -> None:
    """Record the run's verdict as an outcome of the engine provider for the agent."""
    # Only runs whose claims were actually checked count as verifications of the agent.
    if agent is not None and report.fact_check_needed and not report.unverified_factual:
        confidence = report.overall_score if report.action == "emit" else 1.0 - report.overall_score
        engine_outcome_record(
            agent=agent.subject_id,
            verification_id=f"run:{record.pk}:{report.run_id}",
            verdict=report.action,
            confidence=confidence,
            stake=report.stake,
            checked_at=record.created_at,
        )


@dataclass(frozen=True)
class RunVerified:
    record: RunVerification
    report: HallucinationReport
    headers: dict[str, str]
    injections: list[dict[str, Any]]
    # In shadow mode, what the gate's verdict would have done: "block", "revise" or "pass".
    shadow_would: str | None = None

    def body(self) -> dict[str, Any]:
        """The answer's JSON: the report, its injection findings and, in shadow mode, the real verdict
        under `shadow` while `action` says `emit` (nothing is enforced)."""
        out = self.report.to_dict()
        out["injection_findings"] = self.injections
        if self.shadow_would is not None:
            out["shadow"] = {"action": out["action"], "would": self.shadow_would}
            out["action"] = "emit"
        return out


# The gate's action -> what it would have done in shadow mode.
_GATE_WOULD = {"block": "block", "revise": "revise", "emit": "pass"}


def _shadow_headers(headers: dict[str, str], would: str) -> dict[str, str]:
    return {**headers, "x-vsr-action": "emit", "x-vsr-shadow": "true", "x-vsr-shadow-would": would}


def run_verify(*, operator: OperatorApiKey | None, body: Any, shadow: bool = False) -> RunVerified:
    """Verify a run posted to /api/v1/verify/run and persist its report.

    In shadow mode the report's `action` is `emit` and the gate's own verdict is under `shadow`; the
    run is stored (marked) and still counts for its agent, as an observation of the agent's output.
    """
    if not isinstance(body, dict):
        raise validation_error([FieldError("", "Expected an object with messages.")], what="agent run")
    if "messages" not in body:
        raise validation_error([FieldError("/messages", "This field is required.")], what="agent run")
    agent = _agent(body.get("agent"), "/agent", operator)
    run_require_answer(body["messages"])
    _admit(operator)
    report = _verify(body["messages"], body.get("tools"), body.get("probeAnswers"))
    record = _store(report, operator=operator, agent=agent, source="api", shadow=shadow)
    injections = run_injection_signals(body["messages"])
    headers = report_headers(report)
    if injections:
        headers["x-vsr-injection-detected"] = "true"
    would = None
    if shadow:
        would = _GATE_WOULD.get(report.action, "pass")
        shadow_count(operator=operator, endpoint=ShadowCount.Endpoint.RUN, would=[would])
        headers = _shadow_headers(headers, would)
    return RunVerified(
        record=record, report=report, headers=headers, injections=injections, shadow_would=would
    )


@dataclass(frozen=True)
class ProxyAnswer:
    status: int
    body: dict[str, Any]
    headers: dict[str, str]


@dataclass(frozen=True)
class ProxyStream:
    """A streamed answer: server-sent events, sent as they are produced."""

    headers: dict[str, str]
    events: Iterator[bytes]


# The proxy's actions: HaluGate's four, plus `revise`, which re-asks the upstream model with the gate's
# revise message (at most RUN_PROXY_MAX_REVISIONS times) before answering.
PROXY_ACTIONS = (*ACTIONS, "revise")


def run_require_answer(messages: Any, pointer: str = "/messages") -> None:
    """A run to verify must end with the assistant's answer: without one there is nothing to check,
    and passing it as `emit` would count an unchecked run as a good one."""
    if not isinstance(messages, list) or not messages:
        return  # the engine names the shape error (not a list, empty) itself
    last = messages[-1]
    content = last.get("content") if isinstance(last, dict) else None
    text = content if isinstance(content, str) else ""
    if isinstance(content, list):  # content parts: the text parts are the answer
        text = "".join(
            p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    if not isinstance(last, dict) or last.get("role") != "assistant" or not text.strip():
        raise validation_error(
            [
                FieldError(
                    f"{pointer}/{len(messages) - 1}",
                    "The run must end with the assistant's final answer (an assistant message with text).",
                )
            ],
            what="agent run",
        )


def _answer_text(upstream: dict[str, Any]) -> str | None:
    """The text of the upstream's first choice, or None when it asked for a tool or said nothing."""
    choices = upstream.get("choices") or []
    answer = (choices[0].get("message") or {}) if choices and isinstance(choices[0], dict) else {}
    if not isinstance(answer, dict) or answer.get("tool_calls") or not isinstance(answer.get("content"), str):
        return None
    content: str = answer["content"]
    return content


@dataclass
class _Attempt:
    upstream: dict[str, Any]
    report: HallucinationReport
    record: RunVerification


def proxy_would(report: HallucinationReport, upstream: dict[str, Any], action: str) -> str:
    """What `action` would have done to this answer: "block", "annotate", "revise" or "pass"."""
    if action == "revise":
        retry = report.action != "emit" and not report.unverified_factual and bool(report.revise_message)
        return "revise" if retry else "pass"
    _, out, status = apply_action(report, upstream, action)
    if status == 422:
        return "block"
    return "annotate" if out is not upstream else "pass"


def proxy_chat_completion(
    *,
    operator: OperatorApiKey | None,
    body: Any,
    action: str | None,
    agent_id: str | None,
    shadow: bool = False,
) -> ProxyAnswer | ProxyStream:
    """Forward a chat completion upstream, verify the answer against the request's tool messages.

    `stream: true` is answered as server-sent events (:mod:`.streaming`). In shadow mode the answer is
    passed on untouched whatever the action, with what the action would have done in the headers.
    """
    if not settings.RUN_PROXY_UPSTREAM_URL:
        raise ApplicationError(
            "The verifying proxy has no upstream configured.", status=503, problem="server-error"
        )
    if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
        raise validation_error(
            [FieldError("/messages", "Expected a list of messages.")], what="chat completion"
        )
    action = action or settings.RUN_PROXY_DEFAULT_ACTION
    if action not in PROXY_ACTIONS:
        raise validation_error(
            [FieldError.for_header("x-hallucination-action", f"Must be one of {', '.join(PROXY_ACTIONS)}.")]
        )
    stream = body.get("stream", False)
    if not isinstance(stream, bool):
        raise validation_error([FieldError("/stream", "Expected true or false.")], what="chat completion")
    if stream and action == "revise" and not shadow:
        raise validation_error(
            [
                FieldError(
                    "/stream",
                    "The revise action re-asks the model before answering, so it cannot stream; stream "
                    "with header, none, body or block, or send stream: false.",
                )
            ],
            what="chat completion",
        )
    # The header is not in the body: the problem's pointer is the document root, its detail names it.
    agent = _agent(agent_id, "", operator, name="the x-agent-id header")
    _admit(operator)
    if stream:
        from .streaming import proxy_stream  # the SSE half of the proxy

        return proxy_stream(operator=operator, agent=agent, body=body, action=action, shadow=shadow)
    upstream = _call_upstream(body)
    text = _answer_text(upstream)
    if text is None:
        # The model asked for a tool (or said nothing): there is no answer to verify yet.
        return ProxyAnswer(200, upstream, {})
    if action == "revise" and not shadow:
        return _proxy_revise(operator=operator, agent=agent, body=body, upstream=upstream, text=text)
    messages = [*body["messages"], {"role": "assistant", "content": text}]
    report = _verify(messages, body.get("tools"), None)
    _store(report, operator=operator, agent=agent, source="proxy", shadow=shadow)
    if shadow:
        would = proxy_would(report, upstream, action)
        shadow_count(operator=operator, endpoint=ShadowCount.Endpoint.PROXY, would=[would])
        # The proxy is the one that enforces, so x-vsr-action keeps the gate's verdict here.
        headers = {
            **report_headers(report),
            "x-vsr-run-id": report.run_id,
            "x-vsr-shadow": "true",
            "x-vsr-shadow-would": would,
        }
        return ProxyAnswer(200, upstream, headers)
    headers, out, status = apply_action(report, upstream, action)
    headers = {**headers, "x-vsr-run-id": report.run_id}
    return ProxyAnswer(status, out, headers)


def _proxy_revise(
    *,
    operator: OperatorApiKey | None,
    agent: Agent | None,
    body: dict[str, Any],
    upstream: dict[str, Any],
    text: str,
) -> ProxyAnswer:
    """The gating loop: verify, and while the gate says the answer is not fit to emit, show the model its
    answer and the gate's revise message and ask again (at most RUN_PROXY_MAX_REVISIONS times).

    Every attempt is verified (each under its own RUN_BUDGET_SECONDS, each upstream call under its own
    RUN_PROXY_TIMEOUT_SECONDS) and counts against the operator's quota. Each answer is verified against the
    client's conversation only, not the revise exchange: that is the conversation the client will see.
    The first answer the gate emits is returned; when none is, the best-scored one is returned with the
    `body` warning, or blocked (422) when its gate said block. Only the returned answer counts for the agent.
    """
    attempts: list[_Attempt] = []
    stopped = "emitted"
    asked = list(body["messages"])
    while True:
        messages = [*body["messages"], {"role": "assistant", "content": text}]
        try:
            report = _verify(messages, body.get("tools"), None)
        except ApplicationError:
            if not attempts:
                raise  # the first answer: 413 / 422 as for the other actions
            # A revision too large to verify or over the run budget is not returned unverified.
            stopped = "unverifiable-revision"
            break
        record = _store(report, operator=operator, agent=agent, source="proxy", count=False)
        attempts.append(_Attempt(upstream, report, record))
        if report.action == "emit":
            break
        if report.unverified_factual or not report.revise_message:
            # No tool context to check against (or nothing to tell the model): asking again cannot help.
            stopped = "unverifiable"
            break
        if len(attempts) > settings.RUN_PROXY_MAX_REVISIONS:
            stopped = "max-revisions"
            break
        try:
            _admit(operator)
        except ApplicationError as exc:
            if exc.status != 429:
                raise
            stopped = "quota"
            break
        asked = [
            *asked,
            {"role": "assistant", "content": text},
            {"role": "user", "content": report.revise_message},
        ]
        upstream = _call_upstream({**body, "messages": asked})
        revised = _answer_text(upstream)
        if revised is None:
            stopped = "no-answer"  # a revision that asks for a tool cannot be run by the proxy
            break
        text = revised
    if stopped == "emitted":
        chosen = len(attempts) - 1
    else:
        # The best verdict, the latest among equals (it had the most feedback).
        chosen = max(range(len(attempts)), key=lambda i: (attempts[i].report.overall_score, i))
    returned = attempts[chosen]
    gating = {
        "action": "revise",
        "stopped": stopped,
        "max_revisions": settings.RUN_PROXY_MAX_REVISIONS,
        "returned_attempt": chosen + 1,
        "attempts": [
            {
                "attempt": i + 1,
                "run_id": a.report.run_id,
                "action": a.report.action,
                "overall_score": a.report.overall_score,
                "hallucination_detected": a.report.hallucination_detected,
                "flagged": [c.text for c in a.report.flagged_claims],
            }
            for i, a in enumerate(attempts)
        ],
    }
    returned.record.report = {**returned.record.report, "gating": gating}
    returned.record.save(update_fields=["report"])
    _count(returned.report, record=returned.record, agent=agent)
    final_action = "header" if stopped in ("emitted", "unverifiable") else "body"
    if returned.report.action == "block" and stopped != "emitted":
        final_action = "block"
    headers, out, status = apply_action(returned.report, returned.upstream, final_action)
    headers = {
        **headers,
        "x-vsr-run-id": returned.report.run_id,
        "x-vsr-attempts": str(len(attempts)),
        "x-vsr-attempt-actions": ",".join(a.report.action for a in attempts),
        "x-vsr-returned-attempt": str(chosen + 1),
        "x-vsr-revision-stopped": stopped,
    }
    return ProxyAnswer(status, out, headers)


_upstream_client: httpx.Client | None = None


def _upstream() -> httpx.Client:
    """One pooled client per process: building a client (and its TLS context) costs ~40 ms of CPU."""
    global _upstream_client
    if _upstream_client is None:
        _upstream_client = httpx.Client(limits=httpx.Limits(max_connections=64, max_keepalive_connections=16))
    return _upstream_client


def upstream_target() -> tuple[str, dict[str, str]]:
    """The upstream's chat-completions URL and the headers every call to it carries."""
    url = settings.RUN_PROXY_UPSTREAM_URL.rstrip("/") + "/chat/completions"
    headers = {"Content-Type": "application/json"}
    if settings.RUN_PROXY_UPSTREAM_API_KEY:
        headers["Authorization"] = f"Bearer {settings.RUN_PROXY_UPSTREAM_API_KEY}"
    return url, headers


def upstream_client() -> httpx.Client:
    return _upstream()


def _call_upstream(body: dict[str, Any]) -> dict[str, Any]:
    url, headers = upstream_target()
    # httpx's timeout bounds each read, not the answer: an upstream sending a byte every few seconds
    # would hold the request forever. The whole exchange gets RUN_PROXY_TIMEOUT_SECONDS (and the answer
    # MAX_BODY_BYTES); verification then has its own budget, so a proxied request is bounded by the sum.
    timeout = settings.RUN_PROXY_TIMEOUT_SECONDS
    deadline = time.monotonic() + timeout
    try:
        with _upstream().stream("POST", url, json=body, headers=headers, timeout=timeout) as response:
            status = response.status_code
            chunks: list[bytes] = []
            size = 0
            if status < 400:
                for chunk in response.iter_bytes():
                    size += len(chunk)
                    if size > settings.MAX_BODY_BYTES:
                        raise ApplicationError(
                            f"The upstream answer exceeds {settings.MAX_BODY_BYTES} bytes.",
                            status=502,
                            problem="server-error",
                        )
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout("the upstream answer took longer than the proxy timeout")
                    chunks.append(chunk)
    except httpx.HTTPError as exc:
        raise ApplicationError(
            f"The upstream model did not answer: {type(exc).__name__}.", status=502, problem="server-error"
        ) from None
    if status >= 400:
        raise ApplicationError(
            f"The upstream model answered {status}.",
            status=502,
            problem="server-error",
            extra={"upstreamStatus": status},
        )
    try:
        data = bounded_json(b"".join(chunks), max_depth=settings.JSON_MAX_DEPTH)
    except ValueError:
        raise ApplicationError(
            "The upstream answer is not JSON.", status=502, problem="server-error"
        ) from None
    if not isinstance(data, dict):
        raise ApplicationError(
            "The upstream answer is not a chat completion.", status=502, problem="server-error"
        )
    return data
