"""Configuration of agent-run verification."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["RunVerifierConfig"]


@dataclass(frozen=True, slots=True)
class RunVerifierConfig:
    """Thresholds, limits and optional stages of :func:`verify_run`.

    The gate thresholds are the defaults of the agent hallucination detection spec (seed 004).

    >>> RunVerifierConfig().emit_threshold
    0.85
    >>> RunVerifierConfig(aggregate="mean").aggregate
    'mean'
    """

    emit_threshold: float = 0.85
    revise_threshold: float = 0.6
    block_threshold: float = 0.4
    # "min" is the worst claim, as the spec recommends for high-stakes use; "mean" is the weighted mean.
    aggregate: str = "min"
    # Which gate sets the action: "score" (the thresholds above on overall_score, seed 004) or "calibrated"
    # (the thresholds fitted from data in calibration.json, on the answer's hallucination probability).
    gate: str = "score"
    # Provenance of identifiers in tool arguments: values listed here never need a source in the run.
    allowlist: tuple[str, ...] = ()
    # Input bounds, so a hostile run cannot make verification slow.
    max_messages: int = 500
    max_total_chars: int = 2_000_000
    max_answer_chars: int = 50_000
    # Work caps checked once the answer's values and the evidence are known, before they are matched: the
    # number of checkable values in the answer, and that number times the evidence facts (the matching
    # compares each value with the facts of its kind). None: no cap (library use); the service sets both.
    max_claims: int | None = None
    max_comparisons: int | None = None
    # Stage 3: an OpenAI-compatible endpoint for self-consistency probes (None: only supplied answers).
    probe_endpoint: str | None = None
    probe_model: str = "gpt-4o-mini"
    probe_api_key: str | None = None
    probe_count: int = 1
    probe_timeout_s: float = 10.0
    max_probed_claims: int = 5
    # Where an HTTP endpoint needs extra headers (gateways, tenants).
    probe_headers: dict[str, str] = field(default_factory=dict)
    # Stage 2 refinement by a local model (see backend.py); None keeps the deterministic matcher only.
    model_path: str | None = None
    model_threshold: float = 0.8

    def __post_init__(self) -> None:
        if not 0.0 <= self.block_threshold <= self.revise_threshold <= self.emit_threshold <= 1.0:
            raise ValueError(
                "thresholds must satisfy 0 <= block <= revise <= emit <= 1, got "
                f"block={self.block_threshold}, revise={self.revise_threshold}, emit={self.emit_threshold}"
            )
        if self.gate not in ("score", "calibrated"):
            raise ValueError(f"gate must be 'score' or 'calibrated', got {self.gate!r}")
        if self.aggregate not in ("min", "mean"):
            raise ValueError(f"aggregate must be 'min' or 'mean', got {self.aggregate!r}")
        if self.probe_count < 1:
            raise ValueError(f"probe_count must be at least 1, got {self.probe_count}")
