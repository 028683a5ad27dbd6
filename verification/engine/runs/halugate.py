"""HaluGate's deployment shape as pure functions: response headers and the (possibly rewritten) body.

Actions (the ``hallucination_action`` of HaluGate's plugin): ``header`` adds headers only, ``body`` also
injects a warning into the answer, ``block`` replaces the answer with an error, ``none`` only logs.
"""

from __future__ import annotations

import copy
from typing import Any

from .gating import refusal
from .report import HallucinationReport

__all__ = ["ACTIONS", "HEADER_PREFIX", "apply_action", "report_headers"]

ACTIONS = ("header", "body", "block", "none")
HEADER_PREFIX = "x-vsr-"


def report_headers(report: HallucinationReport, prefix: str = HEADER_PREFIX) -> dict[str, str]:
    """The HaluGate-style headers describing ``report``.

    >>> from .report import HallucinationReport
    >>> report_headers(HallucinationReport("r", fact_check_needed=True, request_type="factual",
    ...                                     unverified_factual=True))["x-vsr-unverified-factual-response"]
    'true'
    """
    h = {f"{prefix}fact-check-needed": _b(report.fact_check_needed)}
    if report.unverified_factual:
        h[f"{prefix}unverified-factual-response"] = "true"
        h[f"{prefix}verification-context-missing"] = "true"
        return h
    if not report.fact_check_needed:
        return h
    flagged = report.flagged_claims
    h[f"{prefix}hallucination-detected"] = _b(bool(flagged))
    if flagged:
        # Header values must be one line of visible ASCII-safe text.
        spans = "; ".join(c.text.replace(";", ",").replace("\n", " ") for c in flagged)
        h[f"{prefix}hallucination-spans"] = spans.encode("ascii", "replace").decode("ascii")[:1024]
    h[f"{prefix}nli-contradictions"] = str(report.contradictions)
    h[f"{prefix}max-severity"] = str(report.max_severity)
    h[f"{prefix}action"] = report.action
    h[f"{prefix}overall-score"] = f"{report.overall_score:.4f}"
    return h


def _b(value: bool) -> str:
    return "true" if value else "false"


def apply_action(
    report: HallucinationReport, response: dict[str, Any], action: str = "header"
) -> tuple[dict[str, str], dict[str, Any], int]:
    """Apply a HaluGate action to a chat-completion ``response``: ``(headers, body, status)``.

    The input is never modified. ``block`` answers 422 with an OpenAI-style error body.

    >>> from .report import HallucinationReport
    >>> r = HallucinationReport("r", fact_check_needed=False, request_type="creative")
    >>> apply_action(r, {"choices": []}, "none")
    ({}, {'choices': []}, 200)
    """
    if action not in ACTIONS:
        raise ValueError(f"action must be one of {', '.join(ACTIONS)}, got {action!r}")
    if action == "none":
        return {}, response, 200
    headers = report_headers(report)
    detected = report.hallucination_detected
    if action == "header" or not (detected or report.unverified_factual):
        return headers, response, 200
    if action == "block" and detected:
        body = {
            "error": {
                "type": "hallucination_detected",
                "code": "hallucination_blocked",
                "message": refusal(report.claims),
                "run_id": report.run_id,
                "spans": [c.text for c in report.flagged_claims],
            }
        }
        return headers, body, 422
    body = copy.deepcopy(response)
    if detected:
        note = (
            "\n\n[Warning: parts of this answer are not supported by the retrieved data: "
            + ", ".join(f'"{c.text}"' for c in report.flagged_claims)
            + "]"
        )
    else:
        note = "\n\n[Note: this factual answer could not be verified against any retrieved data.]"
    for choice in body.get("choices", []):
        msg = choice.get("message") if isinstance(choice, dict) else None
        if isinstance(msg, dict) and isinstance(msg.get("content"), str):
            msg["content"] += note
    return headers, body, 200
