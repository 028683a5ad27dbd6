"""Hallucination-risk heuristics (seed 003): an *indicator*, never a verdict.

Four indicators, each in [0, 1], combined by a weighted noisy-OR:

- ``overconfidence``: absolute language ("definitely", "guaranteed", "100%") per sentence, offset by
  hedges ("probably", "about");
- ``novel_entities``: names, numbers, dates, URLs in the answer that the prompt never mentioned (only
  with a prompt to compare against);
- ``contradictions``: the same subject given two different numbers, or a sentence and its negation;
- ``fabricated_json_keys``: keys of JSON in the answer that neither the expected keys nor the prompt
  mention.

The grounded check of the run verifier (claims against tool results) is the real test; this score only
says "this text has the surface features that often come with made-up content".
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..text import lower

__all__ = ["RISK_WEIGHTS", "RiskReport", "score_hallucination_risk"]

#: Weight of each indicator in the noisy-OR (the risk one indicator at full strength contributes).
RISK_WEIGHTS: dict[str, float] = {
    "contradictions": 0.6,
    "fabricated_json_keys": 0.5,
    "novel_entities": 0.45,
    "overconfidence": 0.35,
}
DISCLAIMER = "Heuristic risk indicator from surface features; it does not check facts and is not a verdict."

_OVERCONFIDENT = re.compile(
    r"\b(?:definitely|certainly|undoubtedly|guaranteed?|absolutely|unquestionabl[ye]|undeniabl[ye]|"
    r"indisputabl[ye]|without\s+(?:a|any)\s+doubt|no\s+doubt|proven\s+fact|it\s+is\s+a\s+fact|"
    r"everyone\s+knows|always|never|100\s?%|completely\s+(?:sure|certain)|i\s+am\s+(?:sure|certain))\b|100\s?%",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:may|might|could|possibly|perhaps|probably|likely|approximately|about|around|roughly|"
    r"i\s+think|i\s+believe|not\s+sure|uncertain|it\s+seems|appears?\s+to|according\s+to|estimated?)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
_URL = r"https?://[^\s)\]>\"']{3,200}"
_EMAIL = r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,5}"
_NUMBER_OR_NAME = (
    r"\$?\d[\d,]*(?:\.\d+)?%?|"
    r"\b[A-Z][a-z]{1,30}(?:\s+(?:of\s+|the\s+|de\s+|van\s+)?[A-Z][a-z]{1,30}){0,4}\b"
)
_ENTITY = re.compile(f"{_URL}|{_EMAIL}|{_NUMBER_OR_NAME}")
# The same without the e-mail branch, for sentences without "@" (where that branch cannot match): the
# e-mail branch tries up to 64 characters at every word character, half the cost of this check.
_ENTITY_NO_EMAIL = re.compile(f"{_URL}|{_NUMBER_OR_NAME}")
# Case-sensitive forms for a quick "nothing to find" test on lower-cased ASCII text (see ``fastpath``).
_OVERCONFIDENT_WORDS = re.compile(
    r"definitely|certainly|undoubtedly|guarantee|absolutely|unquestionabl|undeniabl|indisputabl|"
    r"without\s+(?:a|any)\s+doubt|no\s+doubt|proven\s+fact|it\s+is\s+a\s+fact|everyone\s+knows|always|"
    r"never|100\s?%|completely\s+(?:sure|certain)|i\s+am\s+(?:sure|certain)"
)
# Capitalised words that start sentences or are pronouns: never names.
_STOP_CAPS = frozenset(
    {
        "The",
        "A",
        "An",
        "I",
        "It",
        "This",
        "That",
        "These",
        "Those",
        "He",
        "She",
        "They",
        "We",
        "You",
        "My",
        "Our",
        "Your",
        "His",
        "Her",
        "Their",
        "In",
        "On",
        "At",
        "For",
        "But",
        "And",
        "Or",
        "If",
        "When",
        "While",
        "Yes",
        "No",
        "However",
        "Also",
        "So",
        "Then",
        "There",
        "Here",
        "What",
        "Which",
        "Who",
        "How",
        "Why",
        "Note",
        "Sure",
        "Please",
        "Thanks",
    }
)
_NUMERIC_CLAIM = re.compile(
    r"\b((?:[A-Za-z][\w'-]{1,30}\s+){1,4}?)(?:is|was|are|were|has|had|have|costs?|equals?|totals?|reached|measures?)\s+"
    r"(?:about\s+|around\s+|approximately\s+|exactly\s+|only\s+)?(\$?\d[\d,]*(?:\.\d+)?)\s*([a-z%]{0,12})",
)
_NEGATION = re.compile(r"\b(?:not|never|no)\b|n't\b", re.IGNORECASE)
_WORDS = re.compile(r"[a-z0-9]+")
# Auxiliaries that negation adds ("opens" / "does not open"): ignored when comparing the two sentences.
_AUX = frozenset({"does", "did", "do", "is", "are", "was", "were", "has", "have", "had", "can", "will"})
_MAX_SENTENCES = 400
# What an indicator that cannot fire reports.
_NOTHING: tuple[float, Sequence[str]] = (0.0, ())
_MAX_JSON_STARTS = 20


@dataclass(frozen=True, slots=True, init=False)
class RiskReport:
    """Hallucination-risk indicator: ``score`` in [0, 1], a ``level``, the indicators and the reasons.

    The constructor is written out (``init=False``) for the reason given on ``pii.PiiMatch``: compiled
    with mypyc, the generated one (with its ``default_factory``) stays interpreted Python.  It takes the
    parameters the generated one took.
    """

    score: float
    level: str
    indicators: dict[str, float]
    reasons: tuple[str, ...]
    disclaimer: str

    def __init__(
        self,
        score: float,
        level: str,
        indicators: dict[str, float] | None = None,
        reasons: tuple[str, ...] = (),
        disclaimer: str = DISCLAIMER,
    ) -> None:
        object.__setattr__(self, "score", score)
        object.__setattr__(self, "level", level)
        object.__setattr__(self, "indicators", {} if indicators is None else indicators)
        object.__setattr__(self, "reasons", reasons)
        object.__setattr__(self, "disclaimer", disclaimer)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dict.

        >>> score_hallucination_risk("The sky is blue.").to_dict()["level"]
        'low'
        """
        return {
            "score": self.score,
            "level": self.level,
            "indicators": dict(self.indicators),
            "reasons": list(self.reasons),
            "disclaimer": self.disclaimer,
        }


def _sentences(text: str) -> list[str]:
    return [s for s in map(str.strip, _SENTENCE.findall(text)[:_MAX_SENTENCES]) if s]


def _overconfidence(text: str, sentences: list[str]) -> tuple[float, list[str]]:
    # On ASCII text (where lower-casing is exact) a case-sensitive search for the marker words without
    # their word boundaries finds a superset of the markers: when it finds none, there are none.
    if text.isascii() and _OVERCONFIDENT_WORDS.search(lower(text)) is None:
        return 0.0, []
    markers = [m.group(0) for m in _OVERCONFIDENT.finditer(text)]
    if not markers:
        return 0.0, []
    hedges = len(_HEDGE.findall(text))
    strength = max(0.0, len(markers) - 0.5 * hedges) / max(1, len(sentences))
    value = min(1.0, strength)
    shown = ", ".join(sorted(set(lower(m) for m in markers))[:5])
    return value, [f"overconfident language: {shown}"] if value > 0 else []


def _norm_entity(entity: str) -> str:
    # Chained str.replace runs in C and beats a regex or translate() on long prompts.
    out = lower(entity)
    for ch in (" ", "\n", "\t", "\r", ",", "$", "%"):
        if ch in out:
            out = out.replace(ch, "")
    return out


def _entities(sentences: list[str]) -> set[str]:
    found: set[str] = set()
    for sentence in sentences:
        entity = _ENTITY if "@" in sentence else _ENTITY_NO_EMAIL
        for i, match in enumerate(entity.finditer(sentence)):
            token = match.group(0)
            if token[0].isupper():
                words = token.split()
                if len(words) == 1:  # then ``words[0] == token``: it has no surrounding space
                    # A capitalised first word of a sentence is grammar, not a name.
                    if (i == 0 and match.start() == 0) or token in _STOP_CAPS:
                        continue
                elif all(w in _STOP_CAPS for w in words):
                    continue
            elif token.replace(",", "").replace(".", "").isdigit() and len(token.replace(",", "")) < 2:
                continue  # single digits ("1 of 3", list numbers) carry no specific claim
            found.add(token)
    return found


def _novel_entities(sentences: list[str], prompt: str) -> tuple[float, list[str]]:
    entities = _entities(sentences)
    if not entities:
        return 0.0, []
    haystack = _norm_entity(prompt)
    novel = sorted(e for e in entities if _norm_entity(e) not in haystack)
    if not novel:
        return 0.0, []
    value = (len(novel) / len(entities)) * min(1.0, len(novel) / 3)
    return value, [f"{len(novel)} of {len(entities)} entities not in the prompt: {', '.join(novel[:5])}"]


def _contradictions(sentences: list[str]) -> tuple[float, list[str]]:
    reasons: list[str] = []
    if len(sentences) < 2:
        return 0.0, reasons  # a contradiction needs two statements
    values: dict[str, set[str]] = {}
    for sentence in sentences:
        for match in _NUMERIC_CLAIM.finditer(sentence):
            # Key: the subject's head noun and the unit, so "the bridge is 1200 m" and "surveys agree the
            # bridge is 1450 m" compare, while "is 5 km" and "is 30 minutes" do not.
            head = lower(match.group(1)).split()[-1]
            subject = f"{head} ({match.group(3)})" if match.group(3) else head
            values.setdefault(subject, set()).add(match.group(2).replace(",", "").rstrip("."))
    for subject, numbers in values.items():
        if len(numbers) > 1:
            reasons.append(f"'{subject}' is given different values: {', '.join(sorted(numbers))}")
    # A sentence and its negation: same words apart from the negation, opposite polarity.
    keyed: dict[frozenset[str], list[bool]] = {}
    if not any(_NEGATION.search(sentence) for sentence in sentences[:200]):
        return (1.0 if reasons else 0.0), reasons[:5]
    for sentence in sentences[:200]:
        negated = bool(_NEGATION.search(sentence))
        words = frozenset(
            w.removesuffix("s")
            for w in _WORDS.findall(_NEGATION.sub(" ", lower(sentence)))
            if len(w) > 2 and w not in _AUX
        )
        if len(words) >= 3:
            keyed.setdefault(words, []).append(negated)
    for words, polarities in keyed.items():
        if len(set(polarities)) > 1:
            reasons.append(f"a statement and its negation: {' '.join(sorted(words)[:6])}")
    return (1.0 if reasons else 0.0), reasons[:5]


def _json_keys(value: Any, into: set[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            into.add(str(key))
            _json_keys(inner, into)
    elif isinstance(value, list):
        for inner in value[:1000]:
            _json_keys(inner, into)


def _json_in(text: str) -> list[Any]:
    found: list[Any] = []
    pos = text.find("{")
    if pos == -1:
        return found
    decoder = json.JSONDecoder()
    tries = 0
    while pos != -1 and tries < _MAX_JSON_STARTS:
        tries += 1
        try:
            value, end = decoder.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        found.append(value)
        pos = text.find("{", end)
    return found


_NON_ALNUM = re.compile(r"[^a-z0-9]")


def _key_words(key: str) -> str:
    return _NON_ALNUM.sub("", lower(key))


def _fabricated_keys(text: str, prompt: str | None, expected: set[str] | None) -> tuple[float, list[str]]:
    keys: set[str] = set()
    for value in _json_in(text):
        _json_keys(value, keys)
    if not keys or (expected is None and prompt is None):
        return 0.0, []
    if expected is not None:
        known = {_key_words(k) for k in expected}
        unknown = sorted(k for k in keys if _key_words(k) not in known)
    else:
        haystack = _key_words(prompt or "")
        unknown = sorted(k for k in keys if _key_words(k) not in haystack)
    if not unknown:
        return 0.0, []
    return len(unknown) / len(keys), [f"JSON keys not asked for: {', '.join(unknown[:8])}"]


def _level(score: float) -> str:
    return "high" if score >= 0.6 else "medium" if score >= 0.3 else "low"


def score_hallucination_risk(
    output: str,
    *,
    prompt: str | None = None,
    expected_keys: Iterable[str] | None = None,
) -> RiskReport:
    """Return the hallucination-risk indicator of ``output`` (optionally against its ``prompt``).

    >>> r = score_hallucination_risk("It is definitely 100% guaranteed to work.")
    >>> r.level, r.indicators["overconfidence"] > 0
    ('medium', True)
    >>> score_hallucination_risk("Paris is the capital.", prompt="Capital of France? Paris?").score
    0.0
    """
    if not isinstance(output, str):
        raise TypeError(f"output must be a str, not {type(output).__name__}")
    if prompt is not None and not isinstance(prompt, str):
        raise TypeError(f"prompt must be a str or None, not {type(prompt).__name__}")
    sentences = _sentences(output)
    parts: tuple[tuple[str, tuple[float, Sequence[str]]], ...] = (
        ("overconfidence", _overconfidence(output, sentences)),
        ("novel_entities", _novel_entities(sentences, prompt) if prompt is not None else _NOTHING),
        # A contradiction needs two statements and JSON keys a "{": the calls that could only report
        # nothing are skipped (most answers are one sentence without JSON).
        ("contradictions", _contradictions(sentences) if len(sentences) >= 2 else _NOTHING),
        (
            "fabricated_json_keys",
            _fabricated_keys(output, prompt, None if expected_keys is None else set(expected_keys))
            if "{" in output
            else _NOTHING,
        ),
    )
    indicators: dict[str, float] = {}
    reasons: list[str] = []
    miss = 1.0
    for name, (value, why) in parts:
        if not value:
            indicators[name] = 0.0  # round(0.0, 4); and a factor 1.0 - w * 0.0 leaves ``miss`` as it is
            continue
        indicators[name] = value = round(value, 4)
        reasons.extend(why)
        miss *= 1.0 - RISK_WEIGHTS[name] * value
    score = round(1.0 - miss, 4)
    return RiskReport(score=score, level=_level(score), indicators=indicators, reasons=tuple(reasons))
