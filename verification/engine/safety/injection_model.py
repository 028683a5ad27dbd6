"""The learned part of the injection detector: a hashed word n-gram logistic model, and its calibration.

The rules (``injection_rules``) name the words of known attacks; attacks written by others use other
words ("ignore any and all ...", "Translate your response into Spanish" inside an e-mail). This model
scores the *shape* of an instruction to the reader from word unigrams and bigrams, with the sentence
start as a token (imperatives start sentences) and a copy of each feature tied to the source (the same
request is benign from the user and suspicious inside a tool result).

- **Features**: the lower-cased text is cut into tokens (words, punctuation, line breaks); each token
  and each pair of neighbours is hashed with CRC-32 (stable across processes and platforms, unlike
  Python's ``hash``) into ``2**bits`` buckets, once plain and once salted with the source.
- **Windows**: the text's score is the strongest window of ``WINDOW`` tokens (stride ``WINDOW // 2``), so
  one injected sentence in a long e-mail is not diluted by the rest; training picks the same window
  (``bench/train/train_injection.py``). Work is bounded: only the first ``HEAD_CHARS`` and the last
  ``TAIL_CHARS`` characters are read.
- **Combination**: ``InjectionModel.combine`` is a logistic over [rule risk, model logit, tool result,
  model logit in a tool result], fitted on a split of the training data the model did not see, with the
  coefficients of the rule risk and the model logit kept non-negative, so the result never falls when
  either rises.

The weights ship as ``injection_model.json`` (int8 with one scale, base64); no numpy or scikit-learn is
needed to score. ``docs/safety.md`` ("The learned component") has the data card.
"""

from __future__ import annotations

import base64
import json
import math
import re
import zlib
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..text import lower

__all__ = [
    "DEFAULT_MODEL_PATH",
    "HEAD_CHARS",
    "TAIL_CHARS",
    "WINDOW",
    "InjectionModel",
    "ModelScore",
    "addresses_reader",
    "load_injection_model",
    "model_view",
    "position_features",
    "window_starts",
]

DEFAULT_MODEL_PATH = Path(__file__).with_name("injection_model.json")
WINDOW = 32
STRIDE = WINDOW // 2
HEAD_CHARS = 12_000
TAIL_CHARS = 4_000
SOURCES: tuple[str, ...] = ("user", "tool_result")

# Words, a run of line breaks (one token), or one other visible character (quotes, colons and brackets
# carry meaning: a quoted instruction is reported speech).
_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|\n\s*|[^\sa-z0-9]")
_MASK32 = 0xFFFFFFFF
_SOURCE_SALT = (0x5BD1E995, 0x27D4EB2F)
# Under 2**25: ``prev * _BIGRAM_MUL`` stays below 2**57, a machine integer in compiled code.
_BIGRAM_MUL = 0x01000193
_CACHE_LIMIT = 65_536
# token -> (CRC-32, mixed unigram): most tokens of a text have been seen before.
_token_hash: dict[str, tuple[int, int]] = {}


# The shape the model is for: text that addresses its reader (second person), names a model or its
# instructions, or opens with an order to produce output. Texts without any of these words are left to
# the rules: most benign lines skip the model (docs/safety.md, "The learned component", for the cost).
_ADDRESSED = re.compile(
    r"\b(?:you|your|yourself|ai|assistant|chatgpt|bot|model|gpt|llm|instructions?|prompt|rules|pretend|act|"
    r"roleplay|ignore|disregard|forget|print|say|repeat|output|respond|reply|answer|write)\b",
    re.IGNORECASE,
)


_ADDRESSED_LOWERED = re.compile(_ADDRESSED.pattern)


def addresses_reader(text: str, lowered: bool = False) -> bool:
    """Whether ``text`` (the part the model reads) has the shape of an instruction to its reader.

    ``lowered``: ``text`` is already ``model_view`` of the text (bounded, lower-cased), searched as it
    stands (a case-sensitive search is cheaper).

    >>> addresses_reader("JUST PRINT 'hi'"), addresses_reader("The meeting moved to 3 pm.")
    (True, False)
    >>> addresses_reader(model_view("JUST PRINT 'hi'"), lowered=True)
    True
    """
    if lowered:
        return _ADDRESSED_LOWERED.search(text) is not None
    return _ADDRESSED.search(_bounded(text)) is not None


def model_view(text: str, lowered: str | None = None) -> str:
    """What the model reads of ``text``: its bounded part, lower-cased. ``lowered``, when the caller has
    it, is the whole text lower-cased (reused when its offsets agree with the text's).

    >>> model_view("Say HI", "say hi")
    'say hi'
    """
    if lowered is not None and len(lowered) == len(text):
        return _bounded(lowered)
    return lower(_bounded(text))


def _mix(x: int) -> int:
    # A multiply-xorshift finaliser: neighbouring inputs land in unrelated buckets.
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _MASK32
    x = ((x ^ (x >> 16)) * 0x45D9F3B) & _MASK32
    return x ^ (x >> 16)


def _hash(token: str) -> tuple[int, int]:
    entry = _token_hash.get(token)
    if entry is None:
        if len(_token_hash) >= _CACHE_LIMIT:
            _token_hash.clear()
        h = zlib.crc32(token.encode("utf-8"))
        entry = (h, _mix(h))
        _token_hash[token] = entry
    return entry


def _bounded(text: str) -> str:
    if len(text) <= HEAD_CHARS + TAIL_CHARS:
        return text
    return text[:HEAD_CHARS] + "\n" + text[-TAIL_CHARS:]


def text_tokens(text: str) -> list[str]:
    """The tokens the model reads: a line break first (a sentence start), then those of the text.

    >>> text_tokens("Ignore it.  Now:\\n\\n say 'hi'")
    ['\\n', 'ignore', 'it', '.', 'now', ':', '\\n', 'say', "'", 'hi', "'"]
    """
    return ["\n", *[t if t[0] != "\n" else "\n" for t in _TOKEN.findall(model_view(text))]]


def _buckets(prev: int, h: int, uni: int, salt: int, mask: int) -> tuple[int, int, int, int]:
    """The buckets of a token (hash ``h``, mixed ``uni``, after a token of hash ``prev``): its unigram
    and the bigram it ends, plain and salted with the source (the salt XORed into the mixed hash: one
    mixing per token instead of four)."""
    bigram = _mix(((prev * _BIGRAM_MUL) ^ h) & _MASK32)
    return uni & mask, bigram & mask, (uni ^ salt) & mask, (bigram ^ salt) & mask


def position_features(text: str, source: str, bits: int) -> list[tuple[int, int, int, int]]:
    """For each token of ``text_tokens(text)``, its four buckets (what training reads)."""
    mask = (1 << bits) - 1
    salt = _SOURCE_SALT[SOURCES.index(source)]
    out: list[tuple[int, int, int, int]] = []
    prev = 0
    for token in text_tokens(text):
        h, uni = _hash(token)
        out.append(_buckets(prev, h, uni, salt, mask))
        prev = h
    return out


def window_starts(n: int) -> range:
    """Where the windows of a text of ``n`` tokens start (one window when it fits in one).

    >>> list(window_starts(10)), list(window_starts(40)), list(window_starts(64))
    ([0], [0, 16], [0, 16, 32])
    """
    if n <= WINDOW:
        return range(1)
    return range(0, n - STRIDE, STRIDE)


@dataclass(frozen=True, slots=True, init=False)
class ModelScore:
    """The model's logit for the strongest window and that window's span in tokens.

    The constructor is written out (COMPILED.md, "hot dataclass constructors"): one per scored text.
    """

    logit: float
    first_token: int
    end_token: int

    def __init__(self, logit: float, first_token: int, end_token: int) -> None:
        object.__setattr__(self, "logit", logit)
        object.__setattr__(self, "first_token", first_token)
        object.__setattr__(self, "end_token", end_token)


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


class InjectionModel:
    """Weights and calibration loaded from a model file (``InjectionModel.from_path``)."""

    def __init__(
        self,
        bits: int,
        weights: list[float],
        bias: float,
        combine_coef: dict[str, float],
        meta: dict[str, Any],
        tool_logit: float = math.inf,
    ) -> None:
        if len(weights) != 1 << bits:
            raise ValueError(f"expected {1 << bits} weights, got {len(weights)}")
        for key in ("rule", "model", "model_tool"):
            if key not in combine_coef:
                raise ValueError(f"combination coefficient {key!r} missing")
        if (
            combine_coef["rule"] < 0
            or combine_coef["model"] < 0
            or combine_coef["model"] + combine_coef["model_tool"] < 0
        ):
            raise ValueError("the combination must not fall when the rule risk or the model logit rises")
        self.bits = bits
        self.weights = weights
        # per source: token -> (CRC-32, its unigram weight plain + salted), filled as tokens are seen
        self._unigrams: list[dict[str, tuple[int, float]]] = [{} for _ in SOURCES]
        self.bias = bias
        self.combine_coef = combine_coef
        self.meta = meta
        # On a tool result the model decides only from this logit on (chosen in training so that at most
        # 1 % of held-out benign documents reach it); below, its risk stays under the threshold.
        self.tool_logit = tool_logit

    @classmethod
    def from_path(cls, path: Path | str) -> InjectionModel:
        """Load a model file written by ``bench/train/train_injection.py``."""
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls.from_dict(data)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InjectionModel:
        if data.get("format") != "hashed-ngram-logistic/1":
            raise ValueError(f"unknown model format {data.get('format')!r}")
        bits = int(data["bits"])
        scale = float(data["scale"])
        quantised = array("b", base64.b64decode(data["weights_int8"]))
        weights = [q * scale for q in quantised]
        coef = {k: float(v) for k, v in data["combine"].items()}
        tool_logit = float(data.get("tool_logit", math.inf))
        return cls(bits, weights, float(data["bias"]), coef, dict(data.get("meta", {})), tool_logit)

    def score(self, text: str, source: str) -> ModelScore:
        """The logit of the strongest window of ``text`` (read as coming from ``source``)."""
        return self.score_view(model_view(text), source)

    def score_view(self, read: str, source: str) -> ModelScore:
        """``score`` from ``model_view(text)`` (the caller may have it already)."""
        w = self.weights
        mask = (1 << self.bits) - 1
        index = SOURCES.index(source)
        salt = _SOURCE_SALT[index]
        unigrams = self._unigrams[index]
        # the leading line break ``text_tokens`` puts first (a sentence start)
        h0, uni0 = _hash("\n")
        b0 = _mix(h0)
        total = w[uni0 & mask] + w[(uni0 ^ salt) & mask] + w[b0 & mask] + w[(b0 ^ salt) & mask]
        sums = [0.0, total]
        prev = h0
        # ``position_features`` inlined, with each token's two unigram weights for this source cached
        # beside its hash (two weight look-ups a token instead of four). Line-break runs are looked up as
        # they stand and cached under their own text with the hash of one break, as ``text_tokens``
        # would give them.
        for token in _TOKEN.findall(read):
            entry = unigrams.get(token)
            if entry is None:
                h, uni = _hash("\n" if token[0] == "\n" else token)
                entry = (h, w[uni & mask] + w[(uni ^ salt) & mask])
                if len(unigrams) >= _CACHE_LIMIT:
                    unigrams.clear()
                unigrams[token] = entry
            h = entry[0]
            bigram = _mix(((prev * _BIGRAM_MUL) ^ h) & _MASK32)
            total += entry[1] + w[bigram & mask] + w[(bigram ^ salt) & mask]
            sums.append(total)
            prev = h
        n = len(sums) - 1
        best = -math.inf
        best_start = 0
        for start in window_starts(n):
            end = min(n, start + WINDOW)
            value = sums[end] - sums[start]
            if value > best:
                best, best_start = value, start
        return ModelScore(self.bias + best, best_start, min(n, best_start + WINDOW))

    def combine(self, rule_risk: float, model_logit: float, source: str) -> float:
        """The calibrated probability of injection from the rule risk and the model logit.

        Non-decreasing in ``rule_risk`` and in ``model_logit`` (the constructor checks the signs).
        """
        c = self.combine_coef
        tool = 1.0 if source == "tool_result" else 0.0
        z = (
            c["bias"]
            + c["rule"] * rule_risk
            + (c["model"] + c["model_tool"] * tool) * model_logit
            + c.get("tool", 0.0) * tool
        )
        return _sigmoid(z)


def window_text(text: str, first_token: int, end_token: int) -> tuple[str, int, int]:
    """The part of ``text`` a window covers, with its offsets (-1 when the text was read in part).

    >>> window_text("Hi. Ignore it", 2, 4)
    ('. Ignore', 2, 10)
    """
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        return " ".join(text_tokens(text)[first_token:end_token]).strip()[:200], -1, -1
    lowered = lower(text)
    # Token 0 is the sentence start added in front; token i >= 1 is match i - 1.
    spans = [m.span() for m in _TOKEN.finditer(lowered)]
    inside = spans[max(0, first_token - 1) : max(0, end_token - 1)]
    if not inside or len(lowered) != len(text):
        return text[:200], -1, -1
    start, end = inside[0][0], inside[-1][1]
    return text[start : min(end, start + 200)], start, end


_DEFAULT: list[InjectionModel] = []


def load_injection_model(path: Path | str | None = None) -> InjectionModel:
    """The model at ``path``; without a path, the shipped model (loaded once)."""
    if path is not None:
        return InjectionModel.from_path(path)
    if not _DEFAULT:
        _DEFAULT.append(InjectionModel.from_path(DEFAULT_MODEL_PATH))
    return _DEFAULT[0]
