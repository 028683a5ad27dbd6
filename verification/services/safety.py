"""llmverify's engines inside the service (seed 003): scan texts, watch agents' runtime health."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from common.errors import ApplicationError, FieldError
from common.validation import BodySchema
from registry.models import Agent

from ..engine.safety import (
    MAX_CONTEXT_CHARS,
    MAX_SCAN_CHARS,
    HealthBaseline,
    HealthObservation,
    HealthThresholds,
    assess_health,
    detect_injection,
    scan_text,
    update_baseline,
)
from ..models import HealthBaselineRecord, OperatorApiKey, RuntimeObservation
from .operators import (
    operator_agent_authorize,
    operator_agents_resolve,
    operator_ensure_active,
    operator_of,
    operator_quota_consume,
)

SCAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ScanIn",
    "properties": {
        "text": {"type": "string", "description": f"At most {MAX_SCAN_CHARS} characters."},
        "context": {"type": "string", "description": "The prompt, for the hallucination-risk indicator."},
        "source": {"type": "string", "enum": ["user", "tool_result"], "default": "user"},
        "injection": {"type": "boolean", "default": True},
        "pii": {"type": "boolean", "default": True},
        "redact": {"type": "boolean", "default": False},
        "risk": {"type": "boolean", "default": True},
    },
    "required": ["text"],
    "additionalProperties": False,
}

OBSERVATION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "RuntimeObservationIn",
    "properties": {
        "model": {"type": "string", "minLength": 1, "maxLength": 200},
        "latencyMs": {"type": "number", "exclusiveMinimum": 0},
        "responseTokens": {"type": "integer", "minimum": 0},
        "text": {"type": "string", "description": f"The answer, at most {MAX_SCAN_CHARS} characters."},
    },
    "required": ["model", "latencyMs"],
    "additionalProperties": False,
}

SCAN_BODY = BodySchema(SCAN_SCHEMA)
OBSERVATION_BODY = BodySchema(OBSERVATION_SCHEMA)


def _too_long(field: str, size: int, limit: int) -> ApplicationError:
    return ApplicationError(
        f"{field} has {size} characters; the limit is {limit}.",
        status=413,
        problem="payload-too-large",
        errors=[FieldError(f"/{field}", f"at most {limit} characters")],
    )


def text_scan(*, body: Any, operator: OperatorApiKey | None = None) -> dict[str, Any]:
    """Injection, PII (optionally redacted) and hallucination risk of one text."""
    SCAN_BODY.check(body, what="scan request")
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
        operator_quota_consume(operator=operator.owner)
    if len(body["text"]) > MAX_SCAN_CHARS:
        raise _too_long("text", len(body["text"]), MAX_SCAN_CHARS)
    if len(body.get("context", "")) > MAX_CONTEXT_CHARS:
        raise _too_long("context", len(body["context"]), MAX_CONTEXT_CHARS)
    result = scan_text(
        body["text"],
        injection=body.get("injection", True),
        pii=body.get("pii", True),
        redact=body.get("redact", False),
        risk=body.get("risk", True),
        context=body.get("context"),
        source=body.get("source", "user"),
    )
    out = result.to_dict()
    if out.get("risk") is not None:
        out["risk"]["note"] = "An indicator of surface features of made-up content, not a verdict."
    return out


def runtime_observation_agent(*, subject_id: str, operator: OperatorApiKey | None) -> Agent:
    """The agent a runtime observation is about: with AUTO_REGISTER_AGENTS on an unknown one is
    registered (and linked to the operator) as summaries register agents; otherwise a 404."""
    agent = Agent.objects.filter(subject_id=subject_id).first()
    if agent is not None:
        return agent
    if not settings.AUTO_REGISTER_AGENTS:
        raise ApplicationError(f"No agent {subject_id!r}.", status=404, problem="not-found")
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
    return operator_agents_resolve(operator=operator_of(operator), wanted=[(subject_id, "")])[subject_id]


def runtime_observation_record(
    *, agent: Agent, body: Any, operator: OperatorApiKey | None = None
) -> dict[str, Any]:
    """Compare a model call with the agent's baseline for that model, then fold it in.

    Only an operator linked to the agent reports its runtime: the baseline is the agent's.
    """
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
        operator_agent_authorize(operator=operator.owner, agent=agent, pointer="")
    OBSERVATION_BODY.check(body, what="runtime observation")
    if operator is not None:
        operator_quota_consume(operator=operator.owner)
    if len(body.get("text", "")) > MAX_SCAN_CHARS:
        raise _too_long("text", len(body["text"]), MAX_SCAN_CHARS)
    observation = HealthObservation(
        latency_ms=float(body["latencyMs"]), response_tokens=body.get("responseTokens"), text=body.get("text")
    )
    with transaction.atomic():
        record, _ = HealthBaselineRecord.objects.select_for_update().get_or_create(
            agent=agent,
            model=body["model"],
            defaults={"baseline": HealthBaseline(agent.subject_id, body["model"]).to_dict()},
        )
        baseline = HealthBaseline.from_dict(record.baseline)
        # The same thresholds judge the observation and bound how far an anomalous one moves the baseline.
        thresholds = HealthThresholds()
        assessment = assess_health(baseline, observation, thresholds=thresholds)
        updated = update_baseline(baseline, observation, thresholds=thresholds)
        record.baseline = updated.to_dict()
        record.save(update_fields=["baseline", "updated_at"])
        RuntimeObservation.objects.create(
            agent=agent,
            model=body["model"],
            latency_ms=observation.latency_ms,
            response_tokens=observation.response_tokens,
            status=assessment.status,
            assessment=assessment.to_dict(),
        )
    return {
        "agent": agent.subject_id,
        "model": body["model"],
        **assessment.to_dict(),
        "baseline": _summary(updated),
    }


def _summary(baseline: HealthBaseline) -> dict[str, Any]:
    return {
        "latencySamples": baseline.latency_count,
        "latencyMeanMs": round(baseline.latency_mean_ms, 3),
        "tokensPerSecondSamples": baseline.tps_count,
        "tokensPerSecondMean": round(baseline.tps_mean, 3),
        "fingerprintSamples": baseline.fingerprint_count,
    }


def agent_health(*, agent: Agent, recent: int = 20) -> dict[str, Any]:
    """Per model: the baseline and the latest observations' statuses."""
    models: list[dict[str, Any]] = []
    for record in HealthBaselineRecord.objects.filter(agent=agent).order_by("model"):
        observations = RuntimeObservation.objects.filter(agent=agent, model=record.model)[:recent]
        latest = [
            {
                "at": o.created_at.isoformat().replace("+00:00", "Z"),
                "status": o.status,
                "latencyMs": o.latency_ms,
            }
            for o in observations
        ]
        models.append(
            {
                "model": record.model,
                "status": latest[0]["status"] if latest else "unknown",
                "baseline": _summary(HealthBaseline.from_dict(record.baseline)),
                "recent": latest,
            }
        )
    severity = {"error": 2, "warn": 1}
    worst = max((str(m["status"]) for m in models), key=lambda s: severity.get(s, 0), default="unknown")
    return {"agent": agent.subject_id, "status": worst, "models": models}


def run_injection_signals(messages: Any) -> list[dict[str, Any]]:
    """Prompt injection in a run's user turns and tool results (seed 003 inside run verification)."""
    if not isinstance(messages, list):
        return []
    findings = []
    history: list[str] = []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            continue
        role, text = message.get("role"), message["content"][:MAX_SCAN_CHARS]
        if role == "user":
            finding = detect_injection(text, source="user", history=history[-8:])
            history.append(text)
        elif role == "tool":
            finding = detect_injection(text, source="tool_result")
        else:
            continue
        if finding.is_injection:
            findings.append({"message": index, "role": role, **finding.to_dict()})
    return findings
