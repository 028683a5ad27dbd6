"""Build a labelled clean + perturbed set from the AgentDojo clean corpus (issue 14), split into two halves.

``agentdojo_clean.jsonl`` holds only correct answers (it measures false alarms). This script makes the
positives a detector must find from the same runs, by *single-fact edits* of those answers that a
reader of the tool results could catch, each line labelled with the span of the edited value:

- ``swap``: a value of the answer that a tool result states (a string or number of one record of a list)
  replaced by the value of the same key in another record of that list (another hotel's name, another
  file's id, another restaurant's price): the wrong item;
- ``number``: a number of the answer shifted (``n`` -> ``n + max(1, round(0.2 n))``, written with the same
  decimals);
- ``date`` / ``time``: an ISO date moved by two days, a clock time by two hours;
- ``email``: an address of the answer replaced by another address of the results, or its local part
  changed.

At most one edit of each kind per answer, chosen deterministically (no randomness): the first value of the
answer the kind applies to. Every clean answer is kept as it is (``variant`` ``clean``). The runs are split
by a hash of the task id into two halves: ``dev`` (its false alarms may be read while fixing classes) and
``heldout`` (only measured, never read line by line), written as ``agentdojo_perturbed_dev.jsonl`` and
``agentdojo_perturbed_heldout.jsonl`` next to this script, with ``.meta.jsonl`` files giving each line's
edit kind (``evaluate`` reads them for its ``by_variant`` breakdown).

    python bench/corpora/runs/make_agentdojo_perturbed.py
    python manage.py evaluate --task groundedness bench/corpora/runs/agentdojo_perturbed_heldout.jsonl

The answers and tool results are AgentDojo's (MIT licence, see agentdojo_clean.NOTICE.md); the edits are
made by this code, so the positives measure recall on single-value errors, not on real agents' mistakes.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The sibling script's labels of the answers that are wrong (a script, found through sys.path).
from make_agentdojo_clean import label_answer_errors

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "agentdojo_clean.jsonl"

_NUMBER = re.compile(r"(?<![\w.:/@,-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w:/@-]|[.,]\d)")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_CLOCK = re.compile(r"\b([01]?\d|2[0-3]):([0-5]\d)\b")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")


def _lists(value: Any) -> list[list[dict[str, Any]]]:
    """Every list of records in a parsed tool result, depth first. A dict keyed by names
    (``{"Le Baratin": 30.0, "New Asiaway": 30.0}``) is a list of ``{"name": key, "value": value}``."""
    out: list[list[dict[str, Any]]] = []
    if isinstance(value, list):
        records = [v for v in value if isinstance(v, dict)]
        if len(records) >= 2:
            out.append(records)
        for v in value:
            out += _lists(v)
    elif isinstance(value, dict):
        if len(value) >= 2 and all(isinstance(k, str) and " " in k.strip() for k in value):
            out.append([{"name": k, "value": v} for k, v in value.items()])
        for v in value.values():
            out += _lists(v)
    return out


def _results(messages: list[dict[str, Any]]) -> list[Any]:
    """The tool results that parse as JSON or as a Python literal (AgentDojo prints some dicts as reprs)."""
    out = []
    for m in messages:
        if m.get("role") != "tool":
            continue
        text = m.get("content") or ""
        try:
            out.append(json.loads(text))
        except ValueError:
            try:
                out.append(ast.literal_eval(text))
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                continue
    return out


def _render(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _swap(answer: str, messages: list[dict[str, Any]]) -> tuple[int, int, str] | None:
    """The first value of the answer that one record states and another record of its list replaces."""
    best: tuple[int, int, str] | None = None
    for result in _results(messages):
        for records in _lists(result):
            for i, rec in enumerate(records):
                for key, value in rec.items():
                    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
                        continue
                    text = _render(value)
                    if len(text) < 2:
                        continue
                    at = _find_whole(answer, text)
                    if at < 0:
                        continue
                    for other in records[:i] + records[i + 1 :]:
                        alt = other.get(key)
                        if isinstance(alt, bool) or not isinstance(alt, (str, int, float)):
                            continue
                        alt_text = _render(alt)
                        if alt_text != text and alt_text not in answer and len(alt_text) <= 80:
                            if best is None or at < best[0]:
                                best = (at, at + len(text), alt_text)
                            break
    return best


def _find_whole(text: str, needle: str) -> int:
    """The first place ``needle`` stands in ``text`` as a whole token (not inside a longer word or number)."""
    start = 0
    while True:
        at = text.find(needle, start)
        if at < 0:
            return -1
        before = text[at - 1] if at else " "
        after = text[at + len(needle)] if at + len(needle) < len(text) else " "
        if not (before.isalnum() or after.isalnum()) and not (before in ".:" and needle[0].isdigit()):
            return at
        start = at + 1


def _number(answer: str, question: str) -> tuple[int, int, str] | None:
    """The first number of the answer that is not a list marker ("1."), part of a date or time, or a
    number the user's own question gives (the answer restating it checks nothing of the results)."""
    for m in _NUMBER.finditer(answer):
        after = answer[m.end() : m.end() + 2]
        if after[:1] == "." and after[1:] in ("", " ", "\n"):
            continue
        if _find_whole(question, m.group(0)) >= 0:
            continue
        if _ISO_DATE.search(answer, max(0, m.start() - 8), m.end() + 8) or _CLOCK.search(
            answer, max(0, m.start() - 3), m.end() + 3
        ):
            continue  # part of a date or a time: those kinds have edits of their own
        text = m.group(0)
        decimals = len(text.split(".")[1]) if "." in text else 0
        value = float(text.replace(",", ""))
        new = value + max(1, round(0.2 * value))
        return m.start(), m.end(), f"{new:,.{decimals}f}" if "," in text else f"{new:.{decimals}f}"
    return None


def _date(answer: str) -> tuple[int, int, str] | None:
    from datetime import date, timedelta

    m = _ISO_DATE.search(answer)
    if m is None:
        return None
    d = date(int(m.group(1)), int(m.group(2)), int(m.group(3))) + timedelta(days=2)
    return m.start(), m.end(), d.isoformat()


def _time(answer: str) -> tuple[int, int, str] | None:
    m = _CLOCK.search(answer)
    if m is None:
        return None
    hour = (int(m.group(1)) + 2) % 24
    width = len(m.group(1))
    return m.start(), m.end(), f"{hour:0{width}d}:{m.group(2)}"


def _email(answer: str, messages: list[dict[str, Any]]) -> tuple[int, int, str] | None:
    m = _EMAIL.search(answer)
    if m is None:
        return None
    local, domain = m.group(0).split("@", 1)
    return (
        m.start(),
        m.end(),
        f"{local}.team@{domain}" if "." not in local else f"{local.split('.')[0]}@{domain}",
    )


def perturb(line: dict[str, Any], question: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The clean line and its edited lines, as ``(variant, line)``. ``question`` is the user text whose
    numbers the ``number`` edit leaves alone (default: the run's second message, AgentDojo's one user turn;
    a multi-turn corpus passes the last user turn)."""
    messages = line["messages"]
    answer = messages[-1]["content"]
    if question is None:
        question = messages[1]["content"] if len(messages) > 1 else ""
    out: list[tuple[str, dict[str, Any]]] = [("clean", line)]
    edits = {
        "swap": _swap(answer, messages),
        "number": _number(answer, question),
        "date": _date(answer),
        "time": _time(answer),
        "email": _email(answer, messages),
    }
    seen: set[tuple[int, int]] = set()
    for kind, edit in edits.items():
        if edit is None or (edit[0], edit[1]) in seen:
            continue
        a, b, new = edit
        seen.add((a, b))
        text = answer[:a] + new + answer[b:]
        edited = json.loads(json.dumps(line))
        edited["id"] = f"{line['id']}-{kind}"
        edited["messages"][-1]["content"] = text
        edited["label"] = {
            "hallucinated": True,
            "fact_check_needed": True,
            "spans": [{"start": a, "end": a + len(new), "text": new}],
        }
        out.append((kind, edited))
    return out


def half(task_id: str) -> str:
    """``dev`` or ``heldout``, by a hash of the task id (stable across runs and machines)."""
    return "dev" if hashlib.sha256(task_id.encode()).digest()[0] % 2 == 0 else "heldout"


def main() -> int:
    """Write the two halves and their meta files next to this script."""
    rows: dict[str, list[tuple[str, dict[str, Any]]]] = {"dev": [], "heldout": []}
    for raw in SOURCE.read_text(encoding="utf-8").splitlines():
        if raw.strip():
            line = label_answer_errors(json.loads(raw))
            if line["label"]["hallucinated"]:
                # An answer that is itself wrong is kept as labelled, and not edited (as the tau sets do).
                rows[half(line["id"])].append(("agent_error", line))
                continue
            rows[half(line["id"])] += perturb(line)
    for name, items in rows.items():
        path = HERE / f"agentdojo_perturbed_{name}.jsonl"
        path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for _, x in items), encoding="utf-8")
        meta = path.with_suffix(".meta.jsonl")
        meta.write_text(
            "".join(
                json.dumps(
                    {"id": x["id"], "group": "clean" if v == "clean" else "hallucinated", "variant": v}
                )
                + "\n"
                for v, x in items
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
