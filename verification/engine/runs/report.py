"""The HallucinationReport of SPEC 4.2 (seed 004) as plain dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..text import lower

__all__ = [
    "SEVERITY",
    "Claim",
    "ConsistencyProbe",
    "EvidenceSpan",
    "HallucinationReport",
    "ToolCallValidation",
]

# HaluGate's NLI severity: a contradiction is a direct error, an unsupported claim is unverifiable.
SEVERITY: dict[str, int] = {"SUPPORTED": 0, "UNSUPPORTED": 2, "CONTRADICTED": 4}


@dataclass(frozen=True, slots=True, init=False)
class EvidenceSpan:
    """Where evidence for a claim sits: a message of the run, a JSON path and a character span.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and a report holds a span per piece of evidence. It takes the same
    parameters as the generated one and, the class being frozen, sets the fields as the generated one does.

    >>> EvidenceSpan(2, "$.height", 40, 52, "330 meters").to_dict()["path"]
    '$.height'
    """

    message_index: int
    path: str
    start: int
    end: int
    text: str

    def __init__(self, message_index: int, path: str, start: int, end: int, text: str) -> None:
        object.__setattr__(self, "message_index", message_index)
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "end", end)
        object.__setattr__(self, "text", text)

    def to_dict(self) -> dict[str, Any]:
        """The span as JSON-ready data.

        >>> EvidenceSpan(2, "$", 0, 1, "x").to_dict()["message_index"]
        2
        """
        return {
            "message_index": self.message_index,
            "path": self.path,
            "span": [self.start, self.end],
            "text": self.text,
        }


@dataclass(slots=True, init=False)
class Claim:
    """One atomic, checkable claim of the final answer and its label.

    ``span`` is the character span of the claim's value in the answer (the text a user would have to fix);
    ``sentence`` is the proposition it belongs to.

    >>> c = Claim("1950", (30, 34), "The tower was built in 1950.", "date", True, "CONTRADICTED", 0.1)
    >>> c.severity, c.to_dict()["status"]
    (4, 'contradicted')
    """

    text: str
    span: tuple[int, int]
    sentence: str
    kind: str
    critical: bool
    label: str
    score: float
    evidence_spans: list[EvidenceSpan] = field(default_factory=list)
    reason: str = ""
    # The calibrated probability that this claim is a real error (calibration.json), None without one.
    probability: float | None = None

    # Written out rather than generated, as for EvidenceSpan: a report builds a claim per value of the answer.
    # ``evidence_spans`` defaults to a new list, as with the generated constructor.
    def __init__(
        self,
        text: str,
        span: tuple[int, int],
        sentence: str,
        kind: str,
        critical: bool,
        label: str,
        score: float,
        evidence_spans: list[EvidenceSpan] | None = None,
        reason: str = "",
        probability: float | None = None,
    ) -> None:
        self.text = text
        self.span = span
        self.sentence = sentence
        self.kind = kind
        self.critical = critical
        self.label = label
        self.score = score
        self.evidence_spans = [] if evidence_spans is None else evidence_spans
        self.reason = reason
        self.probability = probability

    @property
    def severity(self) -> int:
        """0, 2 or 4 as HaluGate grades it."""
        return SEVERITY[self.label]

    def to_dict(self) -> dict[str, Any]:
        """The claim as JSON-ready data (``status`` is the lower-case label)."""
        return {
            "text": self.text,
            "span": list(self.span),
            "sentence": self.sentence,
            "kind": self.kind,
            "critical": self.critical,
            "label": self.label,
            "status": lower(self.label),
            "severity": self.severity,
            "score": round(self.score, 4),
            "evidence_spans": [e.to_dict() for e in self.evidence_spans],
            "reason": self.reason,
            "probability": None if self.probability is None else round(self.probability, 4),
        }


@dataclass(slots=True)
class ToolCallValidation:
    """Stage 1 outcome for one tool call.

    >>> ToolCallValidation("get_weather", {"city": "Oslo"}, "valid").to_dict()["errors"]
    []
    """

    tool: str
    args: Any
    status: str  # valid | invalid | unknown_tool | unverified_provenance | unchecked (no schema declared)
    errors: list[str] = field(default_factory=list)
    call_id: str = ""
    message_index: int = -1

    def to_dict(self) -> dict[str, Any]:
        """The validation as JSON-ready data."""
        return {
            "tool": self.tool,
            "args": self.args,
            "status": self.status,
            "errors": list(self.errors),
            "call_id": self.call_id,
            "message_index": self.message_index,
        }


@dataclass(slots=True)
class ConsistencyProbe:
    """Stage 3 outcome for one critical claim.

    >>> ConsistencyProbe("1889", "1889", ["built in 1889"], 1.0).to_dict()["agreement"]
    1.0
    """

    claim: str
    original: str
    probe_answers: list[str]
    agreement: float
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The probe as JSON-ready data."""
        return {
            "claim": self.claim,
            "original": self.original,
            "probe_answers": list(self.probe_answers),
            "agreement": round(self.agreement, 4),
            "error": self.error,
        }


@dataclass(slots=True, init=False)
class HallucinationReport:
    """The verdict on one agent run (seed 004's HallucinationReport plus HaluGate's gate flags).

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and every run makes one. It takes the same parameters, in the same
    order, with the same defaults, as the generated one would (the lists default to new ones).

    >>> r = HallucinationReport(run_id="run-1", fact_check_needed=False, request_type="creative")
    >>> r.hallucination_detected, r.action, r.to_dict()["version"]
    (False, 'emit', '1.0')
    """

    run_id: str
    fact_check_needed: bool
    request_type: str
    unverified_factual: bool = False
    claims: list[Claim] = field(default_factory=list)
    tool_call_validations: list[ToolCallValidation] = field(default_factory=list)
    consistency_probes: list[ConsistencyProbe] = field(default_factory=list)
    overall_score: float = 1.0
    action: str = "emit"
    stake: str = "low"
    revise_message: str = ""
    refusal_message: str = ""
    version: str = "1.0"
    backend: str = "rules"
    # The calibrated probability that the answer is hallucinated (None without a calibration), and the gate
    # that set ``action``: "score" (seed 004's thresholds on overall_score) or "calibrated" (the fitted
    # thresholds on that probability).
    hallucination_probability: float | None = None
    gate: str = "score"

    def __init__(
        self,
        run_id: str,
        fact_check_needed: bool,
        request_type: str,
        unverified_factual: bool = False,
        claims: list[Claim] | None = None,
        tool_call_validations: list[ToolCallValidation] | None = None,
        consistency_probes: list[ConsistencyProbe] | None = None,
        overall_score: float = 1.0,
        action: str = "emit",
        stake: str = "low",
        revise_message: str = "",
        refusal_message: str = "",
        version: str = "1.0",
        backend: str = "rules",
        hallucination_probability: float | None = None,
        gate: str = "score",
    ) -> None:
        self.run_id = run_id
        self.fact_check_needed = fact_check_needed
        self.request_type = request_type
        self.unverified_factual = unverified_factual
        self.claims = [] if claims is None else claims
        self.tool_call_validations = [] if tool_call_validations is None else tool_call_validations
        self.consistency_probes = [] if consistency_probes is None else consistency_probes
        self.overall_score = overall_score
        self.action = action
        self.stake = stake
        self.revise_message = revise_message
        self.refusal_message = refusal_message
        self.version = version
        self.backend = backend
        self.hallucination_probability = hallucination_probability
        self.gate = gate

    @property
    def flagged_claims(self) -> list[Claim]:
        """Claims labelled CONTRADICTED or UNSUPPORTED, in answer order."""
        return [c for c in self.claims if c.label != "SUPPORTED"]

    @property
    def hallucination_detected(self) -> bool:
        """True when at least one claim is contradicted or unsupported."""
        return any(c.label != "SUPPORTED" for c in self.claims)

    @property
    def contradictions(self) -> int:
        """How many claims a tool result contradicts."""
        return sum(1 for c in self.claims if c.label == "CONTRADICTED")

    @property
    def max_severity(self) -> int:
        """The highest claim severity (0 when nothing is flagged)."""
        return max((c.severity for c in self.claims), default=0)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "run_id": self.run_id,
            "version": self.version,
            "fact_check_needed": self.fact_check_needed,
            "request_type": self.request_type,
            "unverified_factual": self.unverified_factual,
            "hallucination_detected": self.hallucination_detected,
            "contradictions": self.contradictions,
            "max_severity": self.max_severity,
            "claims": [c.to_dict() for c in self.claims],
            "tool_call_validations": [v.to_dict() for v in self.tool_call_validations],
            "consistency_probes": [p.to_dict() for p in self.consistency_probes],
            "overall_score": round(self.overall_score, 4),
            "hallucination_probability": (
                None if self.hallucination_probability is None else round(self.hallucination_probability, 4)
            ),
            "gate": self.gate,
            "action": self.action,
            "stake": self.stake,
            "revise_message": self.revise_message,
            "refusal_message": self.refusal_message,
            "backend": self.backend,
        }
