"""h25b2 (issue 16): the tool-result cut of the learned part (``tool_logit``) is no longer set by one
document of a small kind.

Each kind of held-out benign tool result gets its own 1 % cut and the highest of them is the model's
``tool_logit``. Under ~100 documents that 1 % cut is the kind's single highest logit, which moved from
0.74 to 3.10 as new groups reshuffled the split (h25b); with ``min_kind=100`` (``--min-kind 100``)
such kinds are pooled. The shipped model keeps ``MIN_KIND`` 50: the retrain with 100 lost the FPR
target (docs/safety.md).
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

from verification.engine.safety.injection_model import DEFAULT_MODEL_PATH

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "train"))

from injection_data import Example  # noqa: E402
from train_injection import MIN_KIND, decide_tool_logit, tool_logit_cuts  # noqa: E402


def _docs(kind: str, n: int) -> list[Example]:
    return [Example(f"{kind} {i}", "tool_result", 0, kind) for i in range(n)]


def test_it_pools_a_kind_of_sixty_documents_so_one_outlier_does_not_set_the_cut() -> None:
    big = _docs("passages", 400)
    small = _docs("agent.documents", 60) + _docs("reader.mails", 90)
    logits = [-3.0 + i / 400 for i in range(400)] + [-2.0] * 59 + [5.0] + [-2.5] * 90
    cuts = tool_logit_cuts(big + small, [0.0] * 550, logits, min_kind=100)
    assert "agent.documents" not in cuts and "reader.mails" not in cuts
    cut = decide_tool_logit(big + small, [0.0] * 550, logits, min_kind=100)
    assert cut < 0.0
    # the pooled 1 % still holds on all the documents together
    assert sum(g > cut for g in logits) <= 0.01 * len(logits) + 1


def test_it_keeps_a_cut_of_its_own_for_a_kind_of_a_hundred_documents() -> None:
    easy = _docs("passages", 300)
    hard = _docs("mails", 100)
    logits = [-5.0 + i / 300 for i in range(300)] + [-1.0 + i / 100 for i in range(100)]
    cuts = tool_logit_cuts(easy + hard, [0.0] * 400, logits, min_kind=100)
    assert "mails" in cuts
    assert sum(g > cuts["mails"] for g in logits[300:]) <= 1
    assert decide_tool_logit(easy + hard, [0.0] * 400, logits, min_kind=100) == max(cuts.values())


def test_it_leaves_documents_the_rules_flag_and_attacks_out_of_the_cut() -> None:
    docs = [*_docs("mails", 100), Example("attack", "tool_result", 1, "mails")]
    logits = [-1.0] * 99 + [9.0, 20.0]
    rules = [0.0] * 99 + [0.9, 0.0]  # the 9.0 one is flagged by the rules, the 20.0 one is an attack
    assert decide_tool_logit(docs, rules, logits, min_kind=100) < 0.0


def test_it_ships_a_tool_logit_set_by_the_default_min_kind() -> None:
    data = json.loads(DEFAULT_MODEL_PATH.read_text(encoding="utf-8"))
    cuts = data["meta"]["tool_logit_cuts"]
    assert MIN_KIND == 50
    # the shipped file is the default retrain's: every kind of its cuts held at least MIN_KIND documents
    # or is the pool, and the tool cut is the highest of them
    assert data["tool_logit"] == max(cuts.values())
    assert math.isfinite(data["tool_logit"])
