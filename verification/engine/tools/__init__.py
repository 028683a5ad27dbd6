"""Tool-result verification: is this tool-call result real or fabricated?

A pure-Python engine (seed 000, SPEC 4.1). Tier 0 checks the result against the tool's profile
(schema, pattern, latency, length); Tier 1 against what the engine has learned (SPC baselines, history
for the same arguments, the session, value plausibility). Signals are fused in log-odds into
P(hallucination) and a verdict: accept, flag or block.

>>> from verification.engine.tools import ToolVerifier
>>> engine = ToolVerifier()
>>> _ = engine.register_tool_profile("get_weather", expected_latency_ms=(100, 5000),
...                                  required_fields=["temperature", "humidity"])
>>> engine.verify("get_weather", {"city": "London"}, {"temperature": 18, "humidity": 65}, 350.0).verdict
<Verdict.ACCEPT: 'accept'>

The module-level :func:`register_tool_profile`, :func:`verify` and :func:`record_feedback` use one
default in-memory engine, like the seed's quick start.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from verification.engine.tools.engine import ToolVerifier
from verification.engine.tools.features import Limits, ResultRejectedError
from verification.engine.tools.fusion import (
    DECISIVE_LIKELIHOOD_RATIO,
    DEFAULT_LIKELIHOOD_RATIOS,
    DEFAULT_PRIOR,
)
from verification.engine.tools.profile import DEFAULT_LATENCY_MS, ToolProfile
from verification.engine.tools.result import Signal, Tier, Verdict, VerificationResult

__all__ = [
    "DECISIVE_LIKELIHOOD_RATIO",
    "DEFAULT_LIKELIHOOD_RATIOS",
    "DEFAULT_PRIOR",
    "Limits",
    "ResultRejectedError",
    "Signal",
    "Tier",
    "ToolProfile",
    "ToolVerifier",
    "Verdict",
    "VerificationResult",
    "default_engine",
    "record_feedback",
    "register_tool_profile",
    "verify",
]

_default: ToolVerifier | None = None


def default_engine() -> ToolVerifier:
    """Return the process-wide default engine (in-memory), creating it on first use.

    >>> default_engine() is default_engine()
    True
    """
    global _default
    if _default is None:
        _default = ToolVerifier()
    return _default


def register_tool_profile(
    tool_name: str,
    *,
    expected_latency_ms: tuple[float, float] | list[float] = DEFAULT_LATENCY_MS,
    required_fields: Iterable[str] | None = None,
    forbidden_fields: Iterable[str] | None = None,
    response_patterns: Iterable[str] | None = None,
    min_response_length: int | None = None,
    max_response_length: int | None = None,
    has_network_io: bool = True,
    likelihood_ratios: Mapping[str, float] | None = None,
) -> ToolProfile:
    """Register a profile on the default engine (see :meth:`ToolVerifier.register_tool_profile`).

    >>> register_tool_profile("calculate", expected_latency_ms=(0.1, 100), has_network_io=False).tool_name
    'calculate'
    """
    return default_engine().register_tool_profile(
        tool_name,
        expected_latency_ms=expected_latency_ms,
        required_fields=required_fields,
        forbidden_fields=forbidden_fields,
        response_patterns=response_patterns,
        min_response_length=min_response_length,
        max_response_length=max_response_length,
        has_network_io=has_network_io,
        likelihood_ratios=likelihood_ratios,
    )


def verify(
    tool: str,
    args: Any = None,
    result: Any = None,
    execution_time_ms: float = 0.0,
    session_id: str | None = None,
) -> VerificationResult:
    """Verify one result on the default engine (see :meth:`ToolVerifier.verify`).

    >>> verify("lookup", {"q": "x"}, {"lat": 1.0}, 120.0).verdict.value
    'accept'
    """
    return default_engine().verify(tool, args, result, execution_time_ms, session_id)


def record_feedback(tool: str, confidence_score: float, was_hallucination: bool) -> dict[str, float]:
    """Record labelled feedback on the default engine (see :meth:`ToolVerifier.record_feedback`).

    >>> record_feedback("lookup", 0.1, False)["feedback"]
    1.0
    """
    return default_engine().record_feedback(tool, confidence_score, was_hallucination)
