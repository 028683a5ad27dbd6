"""Safety engines of the verification engine (seed 003, llmverify's engines), as a plain library.

- ``detect_injection``: prompt injection in nine categories, with risk, category and evidence;
- ``detect_pii`` / ``redact_pii``: 40+ PII and secret types, checksum-validated where a checksum
  exists, redacted with stable placeholders;
- ``score_hallucination_risk``: surface indicators of made-up content (an indicator, not a verdict);
- ``update_baseline`` / ``assess_health``: latency, token rate and structural drift per agent and model;
- ``scan_text``: all of the above in one call, with the size limits of ``limits``.

Nothing here imports Django; results are frozen dataclasses with ``to_dict()``.
"""

from .health import (
    HealthAssessment,
    HealthBaseline,
    HealthObservation,
    HealthThresholds,
    MetricStatus,
    assess_health,
    update_baseline,
)
from .injection import (
    INJECTION_THRESHOLD,
    InjectionEvidence,
    InjectionFinding,
    detect_injection,
    prepare_injection_prefilter,
)
from .injection_rules import CATEGORIES as INJECTION_CATEGORIES
from .limits import MAX_CONTEXT_CHARS, MAX_SCAN_CHARS
from .pii import PII_TYPE_NAMES, PiiMatch, Redaction, detect_pii, prepare_pii_prefilter, redact_pii
from .risk import RiskReport, score_hallucination_risk
from .scan import ScanResult, scan_text

__all__ = [
    "INJECTION_CATEGORIES",
    "INJECTION_THRESHOLD",
    "MAX_CONTEXT_CHARS",
    "MAX_SCAN_CHARS",
    "PII_TYPE_NAMES",
    "HealthAssessment",
    "HealthBaseline",
    "HealthObservation",
    "HealthThresholds",
    "InjectionEvidence",
    "InjectionFinding",
    "MetricStatus",
    "PiiMatch",
    "Redaction",
    "RiskReport",
    "ScanResult",
    "assess_health",
    "detect_injection",
    "detect_pii",
    "prepare_injection_prefilter",
    "prepare_pii_prefilter",
    "redact_pii",
    "scan_text",
    "score_hallucination_risk",
    "update_baseline",
]
