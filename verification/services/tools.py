"""Tool-result verification inside the service: profiles from the database, shared engine state,
every verification stored and counted as the engine's outcome for the agent.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.utils import timezone

from common.errors import ApplicationError, FieldError, json_pointer, validation_error
from common.validation import BatchEnvelope, BodySchema

from ..engine.store import MemoryStore, RedisStore
from ..engine.tools import ResultRejectedError, ToolVerifier, VerificationResult
from ..engine.tools.patterns import pattern_problem
from ..engine.tools.stats import quantile
from ..models import Operator, OperatorApiKey, ShadowCount, ToolProfileRecord, ToolVerification
from ..schemas import FEEDBACK_SCHEMA, TOOL_CALL_SCHEMA, TOOL_PROFILE_SCHEMA, tool_call_batch_schema
from .calibration import calibrated_probability
from .engine_provider import engine_outcome_record
from .operators import (
    operator_agents_resolve,
    operator_ensure_active,
    operator_may_act_for,
    operator_of,
    operator_quota_consume,
    tool_profile_authorize_edit,
)
from .shadow import shadow_count

OPERATOR_KEY_PREFIX = "tro_"
PROFILE_VERSION_KEY = "verification:tool-profiles:version"
audit_logger = logging.getLogger("verification.audit")

TOOL_CALL_BODY = BodySchema(TOOL_CALL_SCHEMA)
TOOL_PROFILE_BODY = BodySchema(TOOL_PROFILE_SCHEMA)
FEEDBACK_BODY = BodySchema(FEEDBACK_SCHEMA)
TOOL_CALL_BATCH = BatchEnvelope(
    key="calls",
    item=TOOL_CALL_SCHEMA,
    bound="TOOL_CALL_BATCH_MAX",
    empty=lambda limit: f"Expected 1 to {limit} calls.",
    too_many=lambda limit, _: f"Expected 1 to {limit} calls.",
    document=tool_call_batch_schema,
)

# --- operator keys ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedOperatorKey:
    record: OperatorApiKey
    plaintext: str


def operator_key_create(*, name: str, owner: Operator | None = None) -> IssuedOperatorKey:
    """Issue a key for an agent operator; the plaintext is returned once.

    Without `owner` the key belongs to a new Operator of the same name; pass the operator to rotate
    keys (its links and profiles stay with it).
    """
    plaintext = OPERATOR_KEY_PREFIX + secrets.token_urlsafe(32)
    owner = owner or Operator.objects.create(name=name)
    record = OperatorApiKey.objects.create(
        owner=owner,
        name=name,
        prefix=plaintext[: len(OPERATOR_KEY_PREFIX) + 8],
        key_hash=hashlib.sha256(plaintext.encode()).hexdigest(),
    )
    return IssuedOperatorKey(record=record, plaintext=plaintext)


def operator_by_key(*, plaintext: str) -> OperatorApiKey | None:
    """The active key, or None. Not cached per process (unlike provider keys): one indexed query is
    nothing next to the engine work an operator request starts, and revocations and any other change
    to the key take effect from the next request in every process."""
    if not plaintext.startswith(OPERATOR_KEY_PREFIX):
        return None
    key_hash = hashlib.sha256(plaintext.encode()).hexdigest()
    key = (
        OperatorApiKey.objects.select_related("owner")
        .filter(key_hash=key_hash, revoked_at__isnull=True)
        .first()
    )
    if key is None:
        return None
    if key.last_used_at is None or (timezone.now() - key.last_used_at).total_seconds() > 60:
        OperatorApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    return key


def operator_key_revoke(*, prefix: str, actor_label: str = "") -> OperatorApiKey:
    """Revoke the operator key that starts with `prefix` (as printed when it was issued)."""
    if len(prefix) < len(OPERATOR_KEY_PREFIX) + 4:
        # A near-empty prefix would match whichever key happens to be the only one.
        raise ApplicationError(f"Give at least {len(OPERATOR_KEY_PREFIX) + 4} characters of the key.")
    matches = [
        key
        for key in OperatorApiKey.objects.filter(prefix__startswith=prefix[:16], revoked_at__isnull=True)
        if key.prefix.startswith(prefix) or prefix.startswith(key.prefix)
    ]
    if not matches:
        raise ApplicationError(
            f"No active operator key starts with {prefix!r}.", status=404, problem="not-found"
        )
    if len(matches) > 1:
        raise ApplicationError(f"{len(matches)} operator keys start with {prefix!r}; give more characters.")
    return operator_key_revoke_record(key=matches[0], actor_label=actor_label)


def operator_key_revoke_record(*, key: OperatorApiKey, actor_label: str = "") -> OperatorApiKey:
    """Revoke one operator key; refused by every process from the next request on."""
    if key.revoked_at is not None:
        return key
    key.revoked_at = timezone.now()
    key.save(update_fields=["revoked_at"])
    # Operator keys have no audit table; the log line is the record (the admin adds its LogEntry).
    audit_logger.info("operator key %s… (%s) revoked by %s", key.prefix, key.name, actor_label or "a command")
    return key


# --- the engine ------------------------------------------------------------------------------------

_engine: ToolVerifier | None = None
_engine_profiles_version: int | None = None
_engine_lock = threading.Lock()


def _new_engine() -> ToolVerifier:
    # With Redis every web and worker process shares baselines, history and feedback.
    store = (
        RedisStore(settings.REDIS_URL, namespace=settings.TOOL_ENGINE_NAMESPACE)
        if settings.REDIS_URL
        else MemoryStore()
    )
    return ToolVerifier(store=store)


_version_checked_at = 0.0
# How often a process asks the cache whether profiles changed (a cache read per call is measurable).
PROFILE_CHECK_SECONDS = 1.0


def tool_engine() -> ToolVerifier:
    """The process's engine, with profiles reloaded from the database whenever any was edited."""
    global _engine, _engine_profiles_version, _version_checked_at
    now = time.monotonic()
    if _engine is not None and now - _version_checked_at < PROFILE_CHECK_SECONDS:
        return _engine
    _version_checked_at = now
    version = cache.get(PROFILE_VERSION_KEY, 0)
    with _engine_lock:
        if _engine is None:
            _engine = _new_engine()
        if version != _engine_profiles_version:
            _engine.forget_cached_profiles()  # profiles cached before the edit are stale
            for record in ToolProfileRecord.objects.all():
                _register(_engine, record)
            _engine_profiles_version = version
        return _engine


def tool_engine_reset(*, clear_state: bool = False) -> None:
    """Drop the process's engine (tests; a new store namespace), optionally erasing its stored state."""
    global _engine, _engine_profiles_version, _version_checked_at
    with _engine_lock:
        if clear_state and _engine is not None:
            _engine.store.clear()
        _engine = None
        _engine_profiles_version = None
        _version_checked_at = 0.0


def _register(engine: ToolVerifier, record: ToolProfileRecord) -> None:
    engine.register_tool_profile(
        record.tool_name,
        expected_latency_ms=(record.expected_latency_min_ms, record.expected_latency_max_ms),
        required_fields=record.required_fields,
        forbidden_fields=record.forbidden_fields,
        response_patterns=record.response_patterns,
        min_response_length=record.min_response_length,
        max_response_length=record.max_response_length,
        has_network_io=record.has_network_io,
        likelihood_ratios=record.likelihood_ratios or None,
    )


# --- profiles --------------------------------------------------------------------------------------

_PROFILE_FIELDS = {
    "requiredFields": "required_fields",
    "forbiddenFields": "forbidden_fields",
    "responsePatterns": "response_patterns",
    "minResponseLength": "min_response_length",
    "maxResponseLength": "max_response_length",
    "hasNetworkIo": "has_network_io",
    "likelihoodRatios": "likelihood_ratios",
    "stake": "stake",
}


def tool_profile_to_dict(record: ToolProfileRecord) -> dict[str, Any]:
    return {
        "tool": record.tool_name,
        "expectedLatencyMs": [record.expected_latency_min_ms, record.expected_latency_max_ms],
        "requiredFields": record.required_fields,
        "forbiddenFields": record.forbidden_fields,
        "responsePatterns": record.response_patterns,
        "minResponseLength": record.min_response_length,
        "maxResponseLength": record.max_response_length,
        "hasNetworkIo": record.has_network_io,
        "likelihoodRatios": record.likelihood_ratios,
        "stake": record.stake,
        "updatedAt": record.updated_at.isoformat().replace("+00:00", "Z") if record.updated_at else None,
    }


def tool_profile_save(
    *, tool_name: str, data: Any, actor: str = "", operator: Operator | None = None
) -> ToolProfileRecord:
    """Create or update a tool's profile; every process picks it up on its next verification.

    `operator` is the operator editing over the API: it may create a profile (and then owns it) or
    edit its own. Without one the caller is an admin, who may edit every profile.
    """
    existing = ToolProfileRecord.objects.filter(tool_name=tool_name).first()
    if operator is not None:
        operator_ensure_active(operator=operator)
        tool_profile_authorize_edit(operator=operator, record=existing)
    TOOL_PROFILE_BODY.check(data, what="tool profile")
    if not tool_name or len(tool_name) > 200:
        raise validation_error([FieldError("/tool", "A tool name has 1 to 200 characters.")])
    # Patterns run on every result of the tool: only those that match in linear time are accepted.
    pattern_errors = [
        FieldError(f"/responsePatterns/{index}", f"Not an acceptable response pattern: {problem}.")
        for index, pattern in enumerate(data.get("responsePatterns", []))
        if (problem := pattern_problem(pattern)) is not None
    ]
    if pattern_errors:
        raise validation_error(pattern_errors, what="tool profile")
    record = existing or ToolProfileRecord(tool_name=tool_name, created_by=operator)
    if "expectedLatencyMs" in data:
        low, high = data["expectedLatencyMs"]
        if low > high:
            raise validation_error([FieldError("/expectedLatencyMs", "The minimum exceeds the maximum.")])
        record.expected_latency_min_ms, record.expected_latency_max_ms = float(low), float(high)
    for key, attr in _PROFILE_FIELDS.items():
        if key in data:
            setattr(record, attr, data[key])
    try:
        _register(ToolVerifier(), record)  # the engine's own validation (LR names, bounds)
    except ValueError as exc:
        raise validation_error([FieldError("", str(exc))], what="tool profile") from None
    record.updated_by = actor
    try:
        with transaction.atomic():
            record.save()
            transaction.on_commit(_bump_profiles_version)
    except IntegrityError:
        # Created concurrently by someone else (who now owns it): this request's owner check is stale.
        raise ApplicationError(
            f"The profile of {tool_name!r} was created meanwhile; read it and retry.",
            status=409,
            problem="conflict",
        ) from None
    return record


def _bump_profiles_version() -> None:
    try:
        cache.incr(PROFILE_VERSION_KEY)
    except ValueError:
        cache.set(PROFILE_VERSION_KEY, 1, timeout=None)


# --- verification ----------------------------------------------------------------------------------


def _confidence_in_verdict(result: VerificationResult) -> float:
    """How sure the engine is of what it said: calibrated P(hallucination) for a block, its complement
    otherwise."""
    p = calibrated_probability(result.posterior)
    return p if result.verdict.value == "block" else 1.0 - p


def tool_call_validate(body: Any, *, prefix: list[str | int]) -> list[FieldError]:
    return TOOL_CALL_BODY.errors(body, prefix=prefix)


# A tool verdict -> what it would have done in shadow mode.
_VERDICT_WOULD = {"block": "block", "flag": "flag", "accept": "pass"}


def tool_calls_verify(
    *, operator: OperatorApiKey | None, calls: list[dict[str, Any]], batch: bool, shadow: bool = False
) -> list[dict[str, Any]]:
    """Verify calls in order (state accumulates), store each, and count it for its agent.

    In shadow mode each result says `accept` (and `is_hallucinated: false`) with the engine's own
    verdict under `shadow`; the verification is stored (marked) and still counts for its agent.
    """
    errors: list[FieldError] = []
    for index, call in enumerate(calls):
        errors.extend(tool_call_validate(call, prefix=["calls", index] if batch else []))
    if errors:
        raise validation_error(errors, what="tool call")
    if operator is not None:
        operator_ensure_active(operator=operator.owner)
    agents = operator_agents_resolve(
        operator=operator_of(operator),
        wanted=[
            (c["agent"], json_pointer(["calls", i, "agent"] if batch else ["agent"]))
            for i, c in enumerate(calls)
            if "agent" in c
        ],
    )
    if operator is not None:
        unlinked = [
            FieldError(
                json_pointer(["calls", i, "agent"] if batch else ["agent"]), "Not linked to this operator."
            )
            for i, c in enumerate(calls)
            if "agent" in c and not operator_may_act_for(operator=operator.owner, agent=agents[c["agent"]])
        ]
        if unlinked:
            raise ApplicationError(
                "This operator is not linked to every agent named; ask an admin for a link or prove the "
                "agent's on-chain owner wallet.",
                status=403,
                problem="forbidden",
                errors=unlinked,
            )
        operator_quota_consume(operator=operator.owner, count=len(calls))
    engine = tool_engine()
    stakes = dict(
        ToolProfileRecord.objects.filter(tool_name__in={c["tool"] for c in calls}).values_list(
            "tool_name", "stake"
        )
    )
    out = []
    for index, call in enumerate(calls):
        try:
            result = engine.verify(
                call["tool"],
                call.get("args"),
                call["result"],
                float(call["executionTimeMs"]),
                call.get("sessionId"),
            )
        except ResultRejectedError as exc:
            pointer = json_pointer(["calls", index, "result"] if batch else ["result"])
            raise validation_error([FieldError(pointer, str(exc))], what="tool call") from None
        agent = agents.get(call.get("agent", ""))
        record = ToolVerification.objects.create(
            operator=operator,
            agent=agent,
            tool=call["tool"],
            session_id=call.get("sessionId", ""),
            verdict=result.verdict.value,
            posterior=result.posterior,
            prior=result.prior,
            confidence=_confidence_in_verdict(result),
            tier_reached=int(result.tier_reached),
            signals={name: signal.to_dict() for name, signal in result.signals.items()},
            explanation=result.explanation,
            execution_time_ms=float(call["executionTimeMs"]),
            shadow=shadow,
        )
        if agent is not None:
            engine_outcome_record(
                agent=agent.subject_id,
                verification_id=f"tool:{record.public_id}",
                verdict=result.verdict.value,
                confidence=record.confidence,
                stake=stakes.get(call["tool"], "medium"),
                checked_at=record.created_at,
            )
        item = {"id": str(record.public_id), **result.to_dict()}
        if shadow:
            would = _VERDICT_WOULD.get(item["verdict"], "pass")
            item["shadow"] = {
                "verdict": item["verdict"],
                "is_hallucinated": item["is_hallucinated"],
                "would": would,
            }
            item["verdict"], item["is_hallucinated"] = "accept", False
        out.append(item)
    if shadow:
        shadow_count(
            operator=operator,
            endpoint=ShadowCount.Endpoint.TOOL_CALL,
            would=[item["shadow"]["would"] for item in out],
        )
    return out


def tool_feedback_record(*, public_id: str, body: Any, operator: Operator | None = None) -> dict[str, Any]:
    """Label an earlier verification; the tool's prior and block threshold adapt (seed 000).

    Over the API only the operator whose key made the verification labels it (`operator`); labels
    move the tool's prior for everyone, so nobody else's say counts.
    """
    FEEDBACK_BODY.check(body, what="feedback")
    record = ToolVerification.objects.select_related("operator").filter(public_id=public_id).first()
    if record is None:
        raise ApplicationError("No such verification.", status=404, problem="not-found")
    if operator is not None:
        operator_ensure_active(operator=operator)
        if record.operator is None or record.operator.owner_id != operator.pk:
            raise ApplicationError(
                "This verification was made by another operator; only it (or an admin) labels it.",
                status=403,
                problem="forbidden",
            )
    was = bool(body["wasHallucination"])
    if record.was_hallucination is not None:
        if record.was_hallucination == was:
            return {"id": public_id, "replayed": True, **tool_engine().tool_adaptation(record.tool)}
        raise ApplicationError(
            "This verification was already labelled otherwise.", status=409, problem="conflict"
        )
    adaptation = tool_engine().record_feedback(record.tool, record.posterior, was)
    ToolVerification.objects.filter(pk=record.pk).update(was_hallucination=was, feedback_at=timezone.now())
    return {"id": public_id, "replayed": False, **adaptation}


# --- baseline statistics ---------------------------------------------------------------------------


def _summary_of(values: list[float], total: int) -> dict[str, Any] | None:
    """Mean and quantiles of one baseline's recent window; *total* counts every value ever seen."""
    if not values:
        return None
    return {
        "observations": total,
        "window": len(values),
        "p50": round(quantile(values, 0.5), 4),
        "p10": round(quantile(values, 0.1), 4),
        "p90": round(quantile(values, 0.9), 4),
        "mean": round(sum(values) / len(values), 4),
    }


def tool_baseline(*, tool: str, fields: int = 50) -> dict[str, Any]:
    """What the engine has learned about a tool: latency and size baselines, field frequencies,
    numeric fields, and its feedback-adapted prior and block threshold."""
    engine = tool_engine()
    learned = engine.baseline(tool)
    out: dict[str, Any] = {
        "tool": tool,
        "profile": engine.get_profile(tool).to_dict(),
        "adaptation": engine.tool_adaptation(tool),
        "observations": 0,
        "latencyMs": None,
        "responseBytes": None,
        "fieldFrequency": {},
        "numericFields": {},
    }
    if learned is None:
        return out
    n = learned.observations
    out["observations"] = n
    out["latencyMs"] = _summary_of(learned.latency_ms, learned.latency_total)
    out["responseBytes"] = _summary_of(learned.response_bytes, learned.response_total)
    keys = sorted(learned.field_counts.items(), key=lambda kv: -kv[1])[:fields]
    out["fieldFrequency"] = {key: round(count / n, 4) for key, count in keys}
    numeric = sorted(learned.numeric.items())[:fields]
    out["numericFields"] = {path: _summary_of(window, total) for path, (window, total) in numeric}
    return out
