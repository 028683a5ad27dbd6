"""What a verification returns: signals, verdict and the Bayesian bookkeeping behind it."""

from __future__ import annotations

from enum import IntEnum, StrEnum
from typing import Any

__all__ = ["Signal", "Tier", "Verdict", "VerificationResult", "explain", "new_result"]


class Verdict(StrEnum):
    """The engine's decision: accept < 0.2 <= flag < 0.5 <= block by default.

    >>> Verdict("block") is Verdict.BLOCK
    True
    """

    ACCEPT = "accept"
    FLAG = "flag"
    BLOCK = "block"


class Tier(IntEnum):
    """How far the pipeline ran: TIER_0 when the zero-cost checks already blocked.

    >>> int(Tier.TIER_1)
    1
    """

    TIER_0 = 0
    TIER_1 = 1


class Signal:
    """One piece of evidence.

    ``likelihood_ratio`` is the LR the signal carries when fully present; the fusion uses
    ``1 + (LR - 1) * score`` when it fired and ``1 / max(0.1 * LR, 1.01)`` when it did not.
    ``decisive`` marks evidence that a real result cannot produce (it then uses the decisive LR).

    A plain class with its own constructor rather than a dataclass: ten are built per verification,
    and a dataclass's generated ``__init__`` runs as interpreted code even in the compiled engine.
    Read-only by convention: the engine hands the same not-fired signal to many results.

    >>> Signal("schema_mismatch", True, 1.0, 12.0, "missing 'price'").to_dict()["fired"]
    True
    """

    __slots__ = ("decisive", "detail", "fired", "likelihood_ratio", "name", "score", "tier")

    def __init__(
        self,
        name: str,
        fired: bool,
        score: float,
        likelihood_ratio: float,
        detail: str = "",
        tier: int = 0,
        decisive: bool = False,
    ) -> None:
        self.name = name
        self.fired = fired
        self.score = score
        self.likelihood_ratio = likelihood_ratio
        self.detail = detail
        self.tier = tier
        self.decisive = decisive

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Signal):
            return NotImplemented
        return (
            self.name == other.name
            and self.fired == other.fired
            and self.score == other.score
            and self.likelihood_ratio == other.likelihood_ratio
            and self.detail == other.detail
            and self.tier == other.tier
            and self.decisive == other.decisive
        )

    __hash__ = None  # type: ignore[assignment]  # mutable, like the dataclass it replaces

    def __repr__(self) -> str:
        return (
            f"Signal(name={self.name!r}, fired={self.fired!r}, score={self.score!r}, "
            f"likelihood_ratio={self.likelihood_ratio!r}, detail={self.detail!r}, tier={self.tier!r}, "
            f"decisive={self.decisive!r})"
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the signal as JSON-compatible data.

        >>> Signal("x", False, 0.0, 2.0).to_dict()["likelihood_ratio"]
        2.0
        """
        return {
            "name": self.name,
            "fired": self.fired,
            "score": round(self.score, 6),
            "likelihood_ratio": self.likelihood_ratio,
            "detail": self.detail,
            "tier": self.tier,
            "decisive": self.decisive,
        }


class VerificationResult:
    """The outcome of :meth:`ToolVerifier.verify`; read-only by convention.

    ``confidence`` is P(hallucination), equal to ``posterior`` (the seed's naming). ``explanation``
    may be given, or left None to be written from the other fields when first read (the engine does
    that: most results are never explained).

    >>> r = VerificationResult(Verdict.ACCEPT, 0.1, {}, Tier.TIER_1, "ok", 0.15, 0.1)
    >>> r.is_hallucinated, r.to_dict()["verdict"]
    (False, 'accept')
    """

    def __init__(
        self,
        verdict: Verdict,
        confidence: float,
        signals: dict[str, Signal],
        tier_reached: Tier,
        explanation: str | None,
        prior: float,
        posterior: float,
        tool: str = "",
        block_threshold: float = 0.5,
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.verdict = verdict
        self.confidence = confidence
        self.signals = signals
        self.tier_reached = tier_reached
        self._explanation = explanation
        self.prior = prior
        self.posterior = posterior
        self.tool = tool
        self.block_threshold = block_threshold
        self.extra: dict[str, Any] = {} if extra is None else extra

    @property
    def explanation(self) -> str:
        """The one-line explanation (see :func:`explain`).

        >>> VerificationResult(Verdict.ACCEPT, 0.05, {}, Tier.TIER_1, None, 0.15, 0.05).explanation
        'accept: P(hallucination) 0.15 -> 0.050; no signal fired'
        """
        if self._explanation is None:
            self._explanation = explain(
                self.verdict, self.signals, self.prior, self.posterior, self.tier_reached
            )
        return self._explanation

    def _fields(self) -> tuple[Any, ...]:
        return (
            self.verdict,
            self.confidence,
            self.signals,
            self.tier_reached,
            self.explanation,
            self.prior,
            self.posterior,
            self.tool,
            self.block_threshold,
            self.extra,
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VerificationResult):
            return NotImplemented
        return self._fields() == other._fields()

    __hash__ = None  # type: ignore[assignment]  # equal results may hold different (unhashable) dicts

    def __repr__(self) -> str:
        return (
            f"VerificationResult(verdict={self.verdict!r}, confidence={self.confidence!r}, "
            f"tier_reached={self.tier_reached!r}, tool={self.tool!r}, explanation={self.explanation!r})"
        )

    @property
    def is_hallucinated(self) -> bool:
        """True when the verdict is block (the seed's backward-compatible flag).

        >>> VerificationResult(Verdict.FLAG, 0.3, {}, Tier.TIER_1, "", 0.15, 0.3).is_hallucinated
        False
        """
        return self.verdict is Verdict.BLOCK

    def to_dict(self) -> dict[str, Any]:
        """Return the result as JSON-compatible data (for REST responses and logs).

        >>> VerificationResult(Verdict.BLOCK, 0.9, {}, Tier.TIER_0, "x", 0.15, 0.9).to_dict()["tier_reached"]
        0
        """
        return {
            "tool": self.tool,
            "verdict": self.verdict.value,
            "confidence": round(self.confidence, 6),
            "signals": {k: s.to_dict() for k, s in self.signals.items()},
            "tier_reached": int(self.tier_reached),
            "explanation": self.explanation,
            "prior": round(self.prior, 6),
            "posterior": round(self.posterior, 6),
            "is_hallucinated": self.is_hallucinated,
            "block_threshold": round(self.block_threshold, 6),
        }


def explain(verdict: Verdict, signals: dict[str, Signal], prior: float, posterior: float, tier: Tier) -> str:
    """Return the one-line explanation of a verification: verdict, prior -> posterior, fired signals.

    >>> explain(Verdict.ACCEPT, {}, 0.15, 0.05, Tier.TIER_1)
    'accept: P(hallucination) 0.15 -> 0.050; no signal fired'
    """
    fired = [f"{s.name} ({s.detail})" if s.detail else s.name for s in signals.values() if s.fired]
    head = f"{verdict.value}: P(hallucination) {prior:.2f} -> {posterior:.3f}"
    if tier is Tier.TIER_0 and verdict is Verdict.BLOCK:
        head += " (blocked at tier 0)"
    return head + ("; " + "; ".join(fired) if fired else "; no signal fired")


def new_result(
    verdict: Verdict,
    posterior: float,
    signals: dict[str, Signal],
    tier: Tier,
    prior: float,
    tool: str,
    block_threshold: float,
    extra: dict[str, Any],
) -> VerificationResult:
    """Build the engine's result; the explanation is written when first read.

    Equal to ``VerificationResult(...)`` with ``explanation=explain(...)``.

    >>> r = new_result(Verdict.ACCEPT, 0.05, {}, Tier.TIER_1, 0.15, "t", 0.5, {})
    >>> r.explanation, r.to_dict()["confidence"]
    ('accept: P(hallucination) 0.15 -> 0.050; no signal fired', 0.05)
    """
    return VerificationResult(
        verdict, posterior, signals, tier, None, prior, posterior, tool, block_threshold, extra
    )
