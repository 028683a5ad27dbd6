"""Stage 4: the emit / revise / block gate, the revise feedback and the refusal template."""

from __future__ import annotations

from .config import RunVerifierConfig
from .report import Claim, ConsistencyProbe, ToolCallValidation

__all__ = [
    "REFUSAL_TEMPLATE",
    "aggregate_score",
    "decide_action",
    "decide_calibrated",
    "refusal",
    "revise_message",
]

REFUSAL_TEMPLATE = (
    "I can't give a reliable answer to this: parts of my draft were not supported by the information I "
    "retrieved ({failure}). Please check the source directly or ask me to look it up again."
)


def aggregate_score(claims: list[Claim], config: RunVerifierConfig) -> float:
    """The gating score: the worst claim (default) or the mean, weighting critical claims twice.

    >>> from .report import Claim
    >>> cs = [Claim("a", (0, 1), "", "number", True, "SUPPORTED", 0.95),
    ...       Claim("b", (2, 3), "", "entity", False, "UNSUPPORTED", 0.5)]
    >>> aggregate_score(cs, RunVerifierConfig())
    0.5
    >>> round(aggregate_score(cs, RunVerifierConfig(aggregate="mean")), 3)
    0.8
    """
    if not claims:
        return 1.0
    if config.aggregate == "min":
        return min(c.score for c in claims)
    weights = [2.0 if c.critical else 1.0 for c in claims]
    # The sums start at 0.0, not sum()'s default int 0: compiled with mypyc, a sum started at an int is
    # an int accumulator and refuses the float terms (TypeError). Interpreted, both starts give the same
    # float, bit for bit (sum() turns its int 0 into 0.0 at the first float term).
    return sum((w * c.score for w, c in zip(weights, claims, strict=True)), 0.0) / sum(weights, 0.0)


def decide_action(
    overall: float,
    claims: list[Claim],
    validations: list[ToolCallValidation],
    probes: list[ConsistencyProbe],
    config: RunVerifierConfig,
) -> str:
    """Seed 004's gate: emit when the score clears ``emit_threshold`` with no critical divergence and no
    rejected tool call; block when a critical claim is below ``block_threshold``; otherwise revise.

    >>> decide_action(0.95, [], [], [], RunVerifierConfig())
    'emit'
    >>> decide_action(0.7, [], [], [], RunVerifierConfig())
    'revise'
    """
    if any(c.critical and c.score < config.block_threshold for c in claims):
        return "block"
    if overall < config.block_threshold:
        return "block"
    diverged = any(p.agreement < 0.5 for p in probes if not p.error)
    rejected = any(v.status in ("invalid", "unknown_tool") for v in validations)
    if overall >= config.emit_threshold and not diverged and not rejected:
        return "emit"
    return "revise"


def decide_calibrated(
    probability: float,
    thresholds: dict[str, float],
    validations: list[ToolCallValidation],
    probes: list[ConsistencyProbe],
) -> str:
    """The gate on the calibrated probability that the answer is hallucinated (``gate="calibrated"``):
    block from ``thresholds["block"]``, revise from ``thresholds["revise"]`` (both fitted from data, see
    calibration.json), and revise below it when a probe diverges or a tool call was rejected, as the
    score gate does.

    >>> t = {"revise": 0.5, "block": 0.95}
    >>> [decide_calibrated(p, t, [], []) for p in (0.05, 0.6, 0.99)]
    ['emit', 'revise', 'block']
    """
    if probability >= thresholds.get("block", 2.0):
        return "block"
    if probability >= thresholds.get("revise", 2.0):
        return "revise"
    diverged = any(p.agreement < 0.5 for p in probes if not p.error)
    rejected = any(v.status in ("invalid", "unknown_tool") for v in validations)
    return "revise" if diverged or rejected else "emit"


def revise_message(claims: list[Claim], validations: list[ToolCallValidation]) -> str:
    """The feedback for the next model turn, naming every claim that failed and every rejected call.

    >>> from .report import Claim
    >>> print(revise_message([Claim("1950", (0, 4), "Built in 1950.", "year", True, "CONTRADICTED", 0.2,
    ...                             reason="no evidence gives this year")], []))
    Revise your answer. Only state what the tool results support.
    - "1950" (in: "Built in 1950.") is contradicted by the tool results: no evidence gives this year.
    """
    lines = ["Revise your answer. Only state what the tool results support."]
    for c in claims:
        if c.label == "SUPPORTED":
            continue
        what = (
            "contradicted by the tool results"
            if c.label == "CONTRADICTED"
            else "not supported by any tool result"
        )
        lines.append(f'- "{c.text}" (in: "{c.sentence}") is {what}: {c.reason}.')
    for v in validations:
        if v.status != "valid":
            lines.append(f"- tool call {v.tool} ({v.status}): " + "; ".join(v.errors))
    return "\n".join(lines) if len(lines) > 1 else ""


def refusal(claims: list[Claim]) -> str:
    """The refusal for a blocked answer: it names the failure mode, not the internals.

    >>> from .report import Claim
    >>> wrong = Claim("May 3", (0, 5), "On May 3.", "date", True, "CONTRADICTED", 0.2)
    >>> "unsupported date" in refusal([wrong])
    True
    """
    kinds = sorted({c.kind for c in claims if c.label != "SUPPORTED"})
    failure = "unsupported " + ", ".join(kinds) if kinds else "failed verification"
    return REFUSAL_TEMPLATE.format(failure=failure)
