"""A hostile 1 MB input must complete: every engine's regexes are linear, nothing backtracks badly.

The input is built from the prefixes that push regex engines into backtracking (runs of newlines,
separators, quotes, repeated rule keywords, half-open markup, PEM headers without an end, digit groups
that almost form numbers).  There is no time assertion: a catastrophic pattern would simply not finish.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_injection, redact_pii, score_hallucination_risk
from verification.engine.safety.health import fingerprint

PIECES = [
    "ignore all previous ", "'", "<", "{{", "1-", "a@", "0x", "-----BEGIN RSA PRIVATE KEY-----\n", "1 Aa ",
    "+1 ", "\u200b", "aGVsbG8g", ". ", "\n", "system: ", "DE89 ", "routing 1", '{"a": ', "Street ", "../",
    "<!--", "#", "-", " ", "\t", "%41", "&#105;", "i-g-n-",
]  # fmt: skip


def _hostile(size: int = 1_000_000) -> str:
    chunk = size // len(PIECES)
    text = "".join((p * (chunk // len(p) + 1))[:chunk] for p in PIECES)
    return text + "x" * (size - len(text))


@pytest.mark.slow
def test_it_completes_every_engine_on_a_hostile_megabyte() -> None:
    text = _hostile()
    assert len(text) == 1_000_000
    finding = detect_injection(text, source="tool_result", history=[text[:5000]])
    assert 0.0 <= finding.risk_score <= 1.0
    redaction = redact_pii(text)
    for _, _, start, end in redaction.replacements:
        assert 0 <= start < end <= len(text)
    assert 0.0 <= score_hallucination_risk(text, prompt=text[:10_000]).score <= 1.0
    assert len(fingerprint(text)) > 0
