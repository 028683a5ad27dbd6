"""Pluggable model backends that refine or explain Stage 2 labels (HaluGate's NLI explainer role).

A backend reads a local model directory; nothing is downloaded. The built-in ``bow-nli`` backend is a small
numpy model (bag-of-words encoder + linear NLI head) that shows the protocol end to end; a transformer
backend (torch, behind the optional ``model`` extra) implements the same :class:`NLIBackend` protocol.

Model directory layout: ``config.json`` (``{"type": "bow-nli", "labels": [...], "lowercase": true}``),
``vocab.txt`` (one token per line, line number = id, id 0 is the unknown token) and ``weights.npz``
(``embedding`` of shape (V, d), ``weight`` of shape (4·d, L), ``bias`` of shape (L,)).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

__all__ = ["BowNLIBackend", "NLIBackend", "load_backend"]

_LABELS = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION")
_TOKEN = re.compile(r"\w+|[^\w\s]")


@runtime_checkable
class NLIBackend(Protocol):
    """Classifies a (premise, hypothesis) pair as ENTAILMENT, NEUTRAL or CONTRADICTION."""

    name: str

    def classify(self, premise: str, hypothesis: str) -> tuple[str, float]:
        """The label and its probability."""
        ...


class BowNLIBackend:
    """A numpy NLI model: mean-pooled embeddings, features [p, h, |p-h|, p*h], a linear head, softmax.

    >>> import numpy as np
    >>> b = BowNLIBackend(["[UNK]", "a"], np.ones((2, 1)), np.zeros((4, 3)), np.array([0.0, 1.0, 0.0]))
    >>> b.classify("a", "a")[0]
    'NEUTRAL'
    """

    name = "bow-nli"

    def __init__(
        self,
        vocab: list[str],
        embedding: np.ndarray,
        weight: np.ndarray,
        bias: np.ndarray,
        labels: tuple[str, ...] = _LABELS,
        lowercase: bool = True,
    ) -> None:
        if embedding.ndim != 2 or embedding.shape[0] != len(vocab):
            raise ValueError(f"embedding must have shape ({len(vocab)}, d), got {embedding.shape}")
        d = embedding.shape[1]
        if weight.shape != (4 * d, len(labels)) or bias.shape != (len(labels),):
            raise ValueError(f"weight must be ({4 * d}, {len(labels)}) and bias ({len(labels)},)")
        self.index = {tok: i for i, tok in enumerate(vocab)}
        self.embedding, self.weight, self.bias = embedding, weight, bias
        self.labels, self.lowercase = labels, lowercase

    def _encode(self, text: str) -> np.ndarray:
        toks = _TOKEN.findall(text.lower() if self.lowercase else text)
        ids = [self.index.get(t, 0) for t in toks] or [0]
        return np.asarray(self.embedding[ids].mean(axis=0))

    def probabilities(self, premise: str, hypothesis: str) -> np.ndarray:
        """Softmax over the labels for one pair."""
        p, h = self._encode(premise), self._encode(hypothesis)
        logits = np.concatenate([p, h, np.abs(p - h), p * h]) @ self.weight + self.bias
        e = np.exp(logits - logits.max())
        return np.asarray(e / e.sum())

    def classify(self, premise: str, hypothesis: str) -> tuple[str, float]:
        """The most probable label and its probability."""
        probs = self.probabilities(premise, hypothesis)
        i = int(probs.argmax())
        return self.labels[i], float(probs[i])


def load_backend(path: str | Path) -> NLIBackend:
    """Load a model directory; its ``config.json`` names the backend type.

    >>> load_backend("/nonexistent")
    Traceback (most recent call last):
    ...
    FileNotFoundError: model directory /nonexistent has no config.json
    """
    root = Path(path)
    cfg_path = root / "config.json"
    if not cfg_path.is_file():
        raise FileNotFoundError(f"model directory {root} has no config.json")
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    kind = cfg.get("type")
    if kind == "bow-nli":
        vocab = (root / "vocab.txt").read_text(encoding="utf-8").splitlines()
        with np.load(root / "weights.npz") as w:
            return BowNLIBackend(
                vocab, w["embedding"], w["weight"], w["bias"],
                tuple(cfg.get("labels", _LABELS)), bool(cfg.get("lowercase", True)),
            )  # fmt: skip
    if kind in ("torch-nli", "transformers-nli"):
        raise ImportError(f"model type {kind!r} needs the optional 'model' extra (torch, transformers)")
    raise ValueError(f"unknown model type {kind!r} in {cfg_path}")
