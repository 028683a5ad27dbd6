"""Sending canary cases to providers' check endpoints and recording their answers.

The check protocol (docs/canaries.md): the registry POSTs `{"messages": [...], "tools": [...]}`, an agent
run in the OpenAI chat format, to the provider's registered `check_endpoint`, and the provider answers
`{"verdict": "ALLOW" | "BLOCK" | "UNCERTAIN", "confidence": 0..1}` (the outcome vocabulary of SPEC
section 3, aliases included). Nothing in the request says it is a canary: the runs are drawn fresh from
verification.engine.eval.canary_cases with a secret seed, and each is sent once.
"""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import time
from typing import Any

import rfc8785
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from registry.models import Provider
from registry.schemas import VERDICT_ALIASES
from untrusted.fetch import OutboundError, fetch
from verification.engine.eval.canary_cases import canary_case

from ..models import CanaryCase

#: A check answer is a verdict and a confidence: anything longer than this is not one.
MAX_ANSWER_BYTES = 16 * 1024


def canary_body_digest(*, body: dict[str, Any]) -> str:
    """sha256 of the RFC 8785 canonical JSON of a request body (what makes a case unique)."""
    return hashlib.sha256(rfc8785.dumps(body)).hexdigest()


def canary_case_create(*, provider: Provider) -> CanaryCase:
    """A new pending case for `provider`: faithful or fabricated at even odds, from a secret seed."""
    for _ in range(5):
        case = canary_case(seed=secrets.randbits(63), fabricated=secrets.randbelow(2) == 1)
        body = case.request_body()
        try:
            with transaction.atomic():
                return CanaryCase.objects.create(
                    provider=provider,
                    domain=case.domain,
                    label=case.label,
                    edit=case.edit,
                    digest=canary_body_digest(body=body),
                    body=body,
                    sent_at=timezone.now(),
                )
        except IntegrityError:
            # The same run drawn twice (vanishingly rare): draw again rather than send a repeat.
            continue
    raise RuntimeError("could not draw an unused canary case in 5 tries")


def canary_answer_parse(*, content: bytes) -> tuple[str, float | None]:
    """(verdict, confidence) from a check answer; ValueError saying what is wrong with it."""
    try:
        answer = json.loads(content)
    except (ValueError, RecursionError):
        raise ValueError("the answer is not JSON") from None
    if not isinstance(answer, dict):
        raise ValueError("the answer is not a JSON object")
    verdict = answer.get("verdict")
    if not isinstance(verdict, str) or verdict.upper() not in VERDICT_ALIASES:
        raise ValueError(f"verdict must be one of {sorted(VERDICT_ALIASES)}")
    confidence = answer.get("confidence")
    if confidence is not None:
        if isinstance(confidence, bool) or not isinstance(confidence, int | float):
            raise ValueError("confidence must be a number in [0, 1]")
        if not math.isfinite(confidence) or not 0 <= confidence <= 1:
            raise ValueError("confidence must be a number in [0, 1]")
        confidence = float(confidence)
    return VERDICT_ALIASES[verdict.upper()], confidence


def _engine_answer(body: dict[str, Any]) -> tuple[str, float | None]:
    """The in-repo engine's verdict on a case, in process, as its outcomes record it (SPEC 4.3).

    The engine reports into the registry like any other provider, so it is measured like one: the run
    goes through the run verifier with the service's configuration and budget, and the report's action
    maps to a verdict exactly as the engine's own outcomes do (emit ALLOW, flag/revise UNCERTAIN, block
    BLOCK).
    """
    from verification.engine.budget import Budget
    from verification.engine.runs.verify import verify_run
    from verification.services.engine_provider import VERDICT_TO_OUTCOME
    from verification.services.runs import run_config

    report = verify_run(
        body["messages"],
        body["tools"],
        config=run_config(),
        budget=Budget(settings.RUN_BUDGET_SECONDS),
    )
    return VERDICT_TO_OUTCOME[report.action], None


def canary_case_send(*, case: CanaryCase) -> CanaryCase:
    """POST the case to its provider's check endpoint and store the answer (or why there is none).

    Never raises for what the provider does: a refused URL, a timeout, an error status, an oversized or
    malformed answer are all a FAILED case with the reason. Failures do not enter the error rates.
    """
    provider = case.provider
    started = time.perf_counter()
    verdict, confidence, error = "", None, ""
    if _is_engine(provider) and not provider.check_endpoint:
        try:
            verdict, confidence = _engine_answer(case.body)
        except Exception as exc:  # the engine's own failure is a failed case, like a provider's
            error = f"{type(exc).__name__}: {exc}"
    elif not provider.check_endpoint:
        error = "the provider has no check endpoint"
    else:
        try:
            answer = fetch(
                provider.check_endpoint,
                method="POST",
                content=json.dumps(case.body, separators=(",", ":")).encode(),
                headers={"Content-Type": "application/json"},
                max_bytes=MAX_ANSWER_BYTES,
                deadline_seconds=settings.CANARY_TIMEOUT_SECONDS,
                allow_http=settings.OUTBOUND_ALLOW_HTTP,
                allow_private=settings.OUTBOUND_ALLOW_PRIVATE,
            )
            if answer.status != 200:
                error = f"HTTP {answer.status}"
            else:
                verdict, confidence = canary_answer_parse(content=answer.content)
        except OutboundError as exc:
            error = f"{type(exc).__name__}: {exc}"
        except ValueError as exc:
            error = str(exc)
    case.latency_ms = round((time.perf_counter() - started) * 1000, 2)
    case.answered_at = timezone.now()
    if error:
        case.status = CanaryCase.Status.FAILED
        case.error = error[:300]
    else:
        case.status = CanaryCase.Status.ANSWERED
        case.verdict = verdict
        case.confidence = confidence
    case.save(update_fields=["status", "verdict", "confidence", "error", "latency_ms", "answered_at"])
    return case


def canary_round_run(*, provider: Provider, cases: int | None = None) -> list[CanaryCase]:
    """One round for one provider: `cases` new cases (CANARY_CASES_PER_ROUND), sent one after another.

    The provider's published accuracy is refreshed afterwards. A suspended provider, or one without a
    check endpoint, gets nothing.
    """
    from .accuracy import provider_accuracy_refresh

    if not provider.is_active or not (provider.check_endpoint or _is_engine(provider)):
        return []
    count = settings.CANARY_CASES_PER_ROUND if cases is None else cases
    sent = [canary_case_send(case=canary_case_create(provider=provider)) for _ in range(count)]
    provider_accuracy_refresh(provider=provider)
    return sent


def _is_engine(provider: Provider) -> bool:
    from verification.services.engine_provider import ENGINE_SLUG

    return bool(settings.CANARY_ENGINE) and provider.slug == ENGINE_SLUG


def canary_providers_due() -> list[int]:
    """Ids of the providers a scheduled round goes to: active, with a check endpoint (and the in-repo
    engine, which answers in process, unless CANARY_ENGINE is off)."""
    from verification.services.engine_provider import ENGINE_SLUG

    providers = Provider.objects.filter(status=Provider.Status.ACTIVE)
    if settings.CANARY_ENGINE:
        providers = providers.exclude(Q(check_endpoint="") & ~Q(slug=ENGINE_SLUG))
    else:
        providers = providers.exclude(check_endpoint="")
    return list(providers.order_by("pk").values_list("pk", flat=True))
