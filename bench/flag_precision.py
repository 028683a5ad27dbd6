"""Precision of the engine's name flags on the dev sets (issue 14, h22j): re-runnable table.

For every flagged claim of kind ``entity``/``name`` over the given JSONL sets (default: every
``bench/corpora/runs/*dev*.jsonl`` plus ``../shared/eval/{tooltalk,groundedness}_dev.jsonl``), the claim is a
true positive when its line is hallucinated and its span overlaps a gold span, a false alarm otherwise
(``fa_clean`` on clean lines, ``fa_hal`` outside the gold spans of an edited line). Claims are grouped by
label, by the name's form (code, one word, several words, with digits, ...), by the engine's reason, and by
the evidence: whether the tool results are records (JSON) at all, and whether any of their string values has
the same form as the name (a name slot of the kind the answer uses). Held-out sets are not read.

Usage: ``python -m bench.flag_precision [FILES...] [--by FEATURE ...] [--json OUT]``.
"""

from __future__ import annotations

import argparse
import glob
import json
import re
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from verification.engine.runs import verify_run

_CODE = re.compile(r"[A-Z0-9][A-Z0-9._/-]{1,}")
_CAP_WORD = re.compile(r"[A-Z][\w'&.-]*")


def name_form(text: str) -> str:
    """The form of a name: ``code``, ``digits``, ``one_word``, ``multiword``, ``lower``."""
    t = text.strip()
    if _CODE.fullmatch(t) and any(c.isalpha() for c in t):
        return "code"
    if any(c.isdigit() for c in t):
        return "digits"
    words = t.split()
    if not t[:1].isupper():
        return "lower"
    return "one_word" if len(words) == 1 else "multiword"


def _leaves(node: Any, key: str = "") -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, str(k))
    elif isinstance(node, list):
        for v in node:
            out += _leaves(v, key)
    elif isinstance(node, str):
        out.append((key, node))
    return out


def tool_strings(messages: list[dict[str, Any]]) -> tuple[bool, list[tuple[str, str]]]:
    """Whether any tool result is a JSON record, and the (key, string value) leaves of the tool results."""
    structured = False
    leaves: list[tuple[str, str]] = []
    for m in messages[:-1]:
        if m.get("role") != "tool":
            continue
        c = m.get("content")
        if not isinstance(c, str):
            continue
        try:
            node = json.loads(c)
        except ValueError:
            leaves.append(("", c))
            continue
        if isinstance(node, (dict, list)):
            structured = True
        leaves += _leaves(node)
    return structured, leaves


def _value_form(v: str) -> str | None:
    v = v.strip()
    if not v or len(v) > 60 or len(v.split()) > 6:
        return None
    f = name_form(v)
    if f in ("one_word", "multiword") and not all(
        _CAP_WORD.fullmatch(w) or (w.islower() and len(w) <= 3) for w in v.split()
    ):
        return None
    return f


def features(claim: Any, messages: list[dict[str, Any]], cache: dict[str, Any]) -> dict[str, str]:
    if "leaves" not in cache:
        structured, leaves = tool_strings(messages)
        cache["structured"] = structured
        cache["forms"] = Counter(f for _, v in leaves if (f := _value_form(v)))
        cache["has_tools"] = any(m.get("role") == "tool" for m in messages[:-1])
        cache["leaves"] = leaves
    form = name_form(claim.text)
    same = cache["forms"].get(form, 0) > 0
    if form in ("one_word", "multiword"):
        same = bool(cache["forms"].get("one_word") or cache["forms"].get("multiword"))
    return {
        "label": claim.label.lower(),
        "form": form,
        "tools": ("json" if cache["structured"] else "text") if cache["has_tools"] else "none",
        "ev_same_form": "yes" if same else "no",
        "reason": claim.reason[:50],
        "initial": "start" if claim.span[0] == 0 or claim.sentence.strip().startswith(claim.text) else "mid",
    }


def measure(files: list[str]) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    for path in files:
        name = Path(path).name.removesuffix(".jsonl")
        for raw in Path(path).read_text(encoding="utf-8").splitlines():
            if not raw.strip():
                continue
            item = json.loads(raw)
            messages = item["messages"]
            label = item.get("label") or {}
            gold = bool(label.get("hallucinated"))
            spans = [(s["start"], s["end"]) for s in label.get("spans", [])]
            try:
                report = verify_run(messages, item.get("tools"))
            except ValueError:
                continue
            cache: dict[str, Any] = {}
            for c in report.claims:
                if c.label == "SUPPORTED" or c.kind not in ("entity", "name"):
                    continue
                inside = any(c.span[0] < b and a < c.span[1] for a, b in spans)
                row = features(c, messages, cache)
                row["set"] = name
                row["outcome"] = "tp" if gold and inside else ("fa_hal" if gold else "fa_clean")
                row["text"] = c.text
                rows.append(row)
    return rows


def table(rows: list[dict[str, str]], by: list[str]) -> str:
    agg: dict[tuple[str, ...], Counter[str]] = defaultdict(Counter)
    for r in rows:
        agg[tuple(r[k] for k in by)][r["outcome"]] += 1
    lines = [f"{' / '.join(by):60s}   tp fa_clean fa_hal  precision"]
    for key, c in sorted(agg.items(), key=lambda kv: -sum(kv[1].values())):
        n = sum(c.values())
        lines.append(
            f"{' / '.join(key)[:60]:60s} {c['tp']:4d} {c['fa_clean']:8d} {c['fa_hal']:6d}  {c['tp'] / n:.2f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*")
    p.add_argument("--by", action="append", default=None)
    p.add_argument("--json", default=None)
    a = p.parse_args(argv)
    runs = sorted(f for f in glob.glob("bench/corpora/runs/*dev*.jsonl") if not f.endswith(".meta.jsonl"))
    files = a.files or [*runs, "../shared/eval/tooltalk_dev.jsonl", "../shared/eval/groundedness_dev.jsonl"]
    rows = measure(files)
    if a.json:
        Path(a.json).write_text(json.dumps(rows), encoding="utf-8")
    for by in a.by or ["label", "label,form", "label,tools,ev_same_form", "label,form,ev_same_form,initial"]:
        print(table(rows, by.split(",")))
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
