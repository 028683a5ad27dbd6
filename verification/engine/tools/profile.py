"""What a real response of one tool looks like (the seed's ToolProfile)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .patterns import ResponsePatterns

__all__ = ["DEFAULT_LATENCY_MS", "ToolProfile"]

#: The seed's default plausible latency range for a tool without a registered profile.
DEFAULT_LATENCY_MS: tuple[float, float] = (50.0, 30_000.0)


@dataclass(frozen=True)
class ToolProfile:
    """Expected behaviour of one tool; every field has the seed's default.

    >>> p = ToolProfile("calculate", expected_latency_ms=(0.1, 100), has_network_io=False)
    >>> p.to_dict()["has_network_io"]
    False
    """

    tool_name: str
    expected_latency_ms: tuple[float, float] = DEFAULT_LATENCY_MS
    required_fields: tuple[str, ...] = ()
    forbidden_fields: tuple[str, ...] = ()
    response_patterns: tuple[str, ...] = ()
    min_response_length: int | None = None
    max_response_length: int | None = None
    has_network_io: bool = True
    compiled_patterns: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)
    # What results are matched with: linear time (hyperscan), see patterns.py; compiled_patterns stays for
    # callers that read the patterns, nothing matches with it.
    pattern_matcher: ResponsePatterns = field(
        default_factory=lambda: ResponsePatterns(()), repr=False, compare=False
    )

    def __post_init__(self) -> None:
        lo, hi = (float(x) for x in self.expected_latency_ms)
        if not (lo >= 0 and hi >= lo):
            raise ValueError(f"expected_latency_ms must be (min, max) with 0 <= min <= max, got {(lo, hi)}")
        for name in ("min_response_length", "max_response_length"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 0):
                raise ValueError(f"{name} must be a non-negative int or None, got {value!r}")
        object.__setattr__(self, "expected_latency_ms", (lo, hi))
        for name in ("required_fields", "forbidden_fields", "response_patterns"):
            object.__setattr__(self, name, tuple(getattr(self, name) or ()))
        try:
            compiled = tuple(re.compile(p, re.DOTALL) for p in self.response_patterns)
        except re.error as exc:
            raise ValueError(f"response pattern for {self.tool_name!r} does not compile: {exc}") from exc
        object.__setattr__(self, "compiled_patterns", compiled)
        object.__setattr__(self, "pattern_matcher", ResponsePatterns.of(self.response_patterns))

    def to_dict(self) -> dict[str, Any]:
        """Return the profile as JSON-compatible data.

        >>> ToolProfile("t").to_dict()["expected_latency_ms"]
        [50.0, 30000.0]
        """
        return {
            "tool_name": self.tool_name,
            "expected_latency_ms": list(self.expected_latency_ms),
            "required_fields": list(self.required_fields),
            "forbidden_fields": list(self.forbidden_fields),
            "response_patterns": list(self.response_patterns),
            "min_response_length": self.min_response_length,
            "max_response_length": self.max_response_length,
            "has_network_io": self.has_network_io,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolProfile:
        """Build a profile from :meth:`to_dict` output (unknown keys are an error).

        >>> ToolProfile.from_dict({"tool_name": "t", "has_network_io": False}).has_network_io
        False
        """
        known = {
            "tool_name",
            "expected_latency_ms",
            "required_fields",
            "forbidden_fields",
            "response_patterns",
            "min_response_length",
            "max_response_length",
            "has_network_io",
        }
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown ToolProfile fields: {sorted(unknown)}")
        kwargs = dict(data)
        if "expected_latency_ms" in kwargs:
            kwargs["expected_latency_ms"] = tuple(kwargs["expected_latency_ms"])
        return cls(**kwargs)
