"""Why the run verifier's flagged spans miss the gold spans: per line, gold vs predicted, and a tally.

Issue 14 (h18a). ``verification.engine.eval.groundedness`` counts a predicted span right when it overlaps a
gold span by a character, a gold span found when a predicted span overlaps it. This script sorts every
gold and predicted span of a groundedness file into the classes that make span F1 differ from response F1:

- ``TP:exact`` / ``TP:near`` / ``TP:wide``: a gold span found, by a span equal to it, about as long ("$205"
  for "205"), or more than 1.5 times as long (a whole date for its day); all count as found;
- ``FN:gold_not_found(line_unflagged)``: an edit the report does not flag at all (a response miss);
- ``FN:gold_not_found(other_flagged)``: the line is flagged, but elsewhere (the wrong value blamed);
- ``FP:clean_line``: a flagged claim on a correct answer (a false alarm);
- ``FP:same_value_other_mention``: a flagged claim that repeats a gold span's text elsewhere;
- ``FP:extra_claim_on_edit_line``: a flagged claim next to (or instead of) the edit.

    python bench/span_misses.py bench/corpora/runs/tau_airline_perturbed_dev3.jsonl [-v]

``-v`` prints every line that is not all ``TP:exact``, with the text around each span and the claim's
reason. Use it on development sets only (see docs/run-verification.md for which those are).
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from verification.engine.runs import verify_run


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def classify(path: str, verbose: bool = False) -> Counter[str]:
    """The tally of span classes of one groundedness file (printing each imperfect line with ``verbose``)."""
    tally: Counter[str] = Counter()
    with open(path, encoding="utf-8") as fh:
        for ln in fh:
            item = json.loads(ln)
            label = item["label"]
            if label.get("span_labels") is False:
                continue
            msgs = item["messages"]
            ans = msgs[-1].get("content") or ""
            report = verify_run(msgs, item.get("tools"))
            gold = [(s["start"], s["end"]) for s in label.get("spans", [])]
            pred = [(c.span, c) for c in report.flagged_claims]
            classes: list[str] = []
            for g in gold:
                hits = [p for p, _ in pred if _overlap(p, g)]
                if not hits:
                    classes.append("FN:gold_not_found" + ("(other_flagged)" if pred else "(line_unflagged)"))
                for p in hits:
                    wide = (p[1] - p[0]) / max(1, g[1] - g[0]) > 1.5
                    classes.append("TP:exact" if p == g else ("TP:wide" if wide else "TP:near"))
            for p, _ in pred:
                if any(_overlap(p, g) for g in gold):
                    continue
                texts = [ans[a:b] for a, b in gold]
                if not gold:
                    classes.append("FP:clean_line")
                elif ans[p[0] : p[1]] in texts or any(t and t in ans[p[0] : p[1]] for t in texts):
                    classes.append("FP:same_value_other_mention")
                else:
                    classes.append("FP:extra_claim_on_edit_line")
            tally.update(classes)
            if verbose and any(k != "TP:exact" for k in classes):
                print("==", item.get("id"), classes)
                for a, b in gold:
                    print(
                        "   GOLD",
                        (a, b),
                        repr(ans[max(0, a - 40) : a]),
                        "[[",
                        ans[a:b],
                        "]]",
                        repr(ans[b : b + 30]),
                    )
                for p, c in pred:
                    before, after = ans[max(0, p[0] - 40) : p[0]], ans[p[1] : p[1] + 30]
                    print(
                        "   PRED",
                        p,
                        c.label,
                        repr(before),
                        "[[",
                        ans[p[0] : p[1]],
                        "]]",
                        repr(after),
                        "|",
                        c.reason,
                    )
    return tally


def main(argv: list[str]) -> int:
    verbose = "-v" in argv
    for path in (a for a in argv if not a.startswith("-")):
        print(path, dict(classify(path, verbose).most_common()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
