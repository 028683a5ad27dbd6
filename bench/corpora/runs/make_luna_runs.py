"""A fresh corpus of real tool-using runs: a "gpt-5.6-luna" agent in twelve domains (issue 14, h20b).

The public repository ``Liu-Ruotian/agentdojo-luna-trajectories`` (commit
``55cc6d0c941bc49ef61cc1d07b9a2d776e149ab1``) publishes runs of a tool-using agent, ``gpt-5.6-luna``, on the
tasks of ``Liu-Ruotian/agentdojo-benchmark``, one file per task:
``runs/2026-07-18/codex1/<domain>/.../<domain>/tNN/poison_top1/seed_1.json`` (airport, automotive,
employment, logistics, telecom, ticketing) and ``runs/2026-07-18/codex2/<domain>/...`` (banking, ecommerce,
government, healthcare, saas, university). Each file holds ``messages`` (a short system prompt, the user's
request, assistant tool calls, tool results whose text is YAML-like ``key: value`` lines or web pages, and
the final answer), ``final_answer`` and the benchmark's ``evaluation`` (``opened_poison`` among others).
Unlike the tau-bench sets, these are one-request tasks with web search, documents and domain tools, and
the tool results are not JSON.

The files were read with a search tool in pieces and transcribed by hand into a *condensed* form, one JSON
per run in ``luna_dev/`` or ``luna_heldout/``::

    {"run_id", "domain", "task_id", "opened_poison": bool,
     "messages": [{"role": "system"|"user", "text"},
                  {"role": "assistant", "text": str|null, "calls": [{"function", "args"}]},
                  {"role": "tool", "text", "error"?}, ...,
                  {"role": "assistant", "text": final answer}]}

(texts verbatim; the tool results of an assistant message's calls follow it in the calls' order; a failed
call has an empty text and its ``error``, e.g. ``ValueError: No assistance phase record is available ...``,
which becomes the tool message's content, as it was what the agent was shown). This
script expands them back into OpenAI messages (call ids ``call_<n>``, arguments as JSON, tool messages
with ``tool_call_id`` and ``name``) and writes one groundedness line per run whose final answer follows at
least one tool result::

    {"id": "luna-<domain>-<task>", "messages": [system, user, (assistant tool call, tool result)*, answer],
     "label": {"hallucinated": false, "fact_check_needed": true, "spans": []}}

The split is by domain (never by task): the codex1 domains are the development set
(``luna_clean_dev.jsonl``, its false alarms may be read), the codex2 domains the held-out set
(``luna_clean_heldout.jsonl``, measured only). An answer that a reading showed to contradict its own
tool results is listed in ``DIR/agent_errors.json`` (``[{"run", "piece", "wrong", "why"}]``, dev only) and
labelled hallucinated with the span of ``wrong``; such answers are kept out of the perturbed sets. Runs
where the agent opened the benchmark's poisoned page are kept (the answer is still the agent's) and
counted. ``--perturbed`` also writes ``luna_perturbed_{dev,heldout}.jsonl`` with the single-fact edits of
``make_agentdojo_perturbed.perturb`` (reused as ``make_tau_airline.py`` does), each with a
``.meta.jsonl`` of edit kinds.

    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_dev --perturbed
    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_heldout --perturbed
    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_dev2 --perturbed --name dev2
    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_dev3 --perturbed --name dev3
    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_dev5 --perturbed --name dev5
    python bench/corpora/runs/make_luna_runs.py bench/corpora/runs/luna_dev6 --perturbed --name dev6
    python -m verification.engine.eval.groundedness bench/corpora/runs/luna_clean_dev.jsonl --out m.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The sibling scripts, reused as they are (scripts, not package modules: found through sys.path): the
# edits, and the writer of a set with its .meta.jsonl.
from make_agentdojo_perturbed import perturb
from make_tau_airline import _write

HERE = Path(__file__).resolve().parent
SOURCE_REPO = "Liu-Ruotian/agentdojo-luna-trajectories"
SOURCE_COMMIT = "55cc6d0c941bc49ef61cc1d07b9a2d776e149ab1"

# The split is by domain, so that no domain's tools or pages are seen on both sides.
DEV_DOMAINS = frozenset({"airport", "automotive", "employment", "logistics", "telecom", "ticketing"})
HELDOUT_DOMAINS = frozenset({"banking", "ecommerce", "government", "healthcare", "saas", "university"})


def split_of(domain: str) -> str:
    """``dev`` (the codex1 domains) or ``heldout`` (the codex2 domains); any other domain is an error."""
    if domain in DEV_DOMAINS:
        return "dev"
    if domain in HELDOUT_DOMAINS:
        return "heldout"
    raise ValueError(f"unknown domain {domain!r}")


def expand(run: dict[str, Any]) -> list[dict[str, Any]]:
    """A condensed transcription back in OpenAI message form."""
    messages: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # (call id, function) of calls whose results have not come yet
    n = 0
    for i, m in enumerate(run["messages"]):
        role = m["role"]
        if role in ("system", "user"):
            messages.append({"role": role, "content": m["text"]})
        elif role == "assistant" and m.get("calls"):
            calls = []
            for c in m["calls"]:
                call_id = f"call_{n}"
                n += 1
                pending.append((call_id, c["function"]))
                fn = {"name": c["function"], "arguments": json.dumps(c["args"], ensure_ascii=False)}
                calls.append({"id": call_id, "type": "function", "function": fn})
            messages.append({"role": "assistant", "content": m.get("text"), "tool_calls": calls})
        elif role == "assistant":
            messages.append({"role": "assistant", "content": m["text"]})
        elif role == "tool":
            if not pending:
                raise ValueError(f"{run['run_id']}: message {i} is a tool result without a call")
            call_id, name = pending.pop(0)
            # A failed call's result is its error (the text is then empty): what the agent was shown.
            content = m.get("error") or m["text"]
            messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": content})
        else:
            raise ValueError(f"{run['run_id']}: unknown role {role!r} at message {i}")
    return messages


def _spans(answer: str, wrong: str) -> list[dict[str, Any]]:
    at = answer.find(wrong)
    return [{"start": at, "end": at + len(wrong), "text": wrong}] if at >= 0 else []


def load_agent_errors(path: Path) -> dict[tuple[str, str], str]:
    """``DIR/agent_errors.json`` if there is one: ``(run key, piece of the answer) -> wrong statement``,
    the run key being ``<domain>-<task_id>``."""
    f = path / "agent_errors.json"
    if not f.is_file():
        return {}
    return {(e["run"], e["piece"]): e["wrong"] for e in json.loads(f.read_text(encoding="utf-8"))}


def line_of(run: dict[str, Any], errors: dict[tuple[str, str], str] | None = None) -> dict[str, Any] | None:
    """The groundedness line of a run, or None when its last message is no text answer that follows a
    tool result (such a run checks nothing against results)."""
    messages = expand(run)
    if not messages or messages[-1]["role"] != "assistant" or messages[-1].get("tool_calls"):
        return None
    answer = messages[-1].get("content") or ""
    if not answer.strip() or not any(m["role"] == "tool" for m in messages):
        return None
    key = f"{run['domain']}-{run['task_id']}"
    return {"id": f"luna-{key}", "messages": messages, "label": agent_error_label(key, answer, errors)}


def agent_error_label(key: str, answer: str, errors: dict[tuple[str, str], str] | None) -> dict[str, Any]:
    """The label of the answer of the run ``key``: hallucinated, with the span of the wrong statement, when
    ``errors`` (:func:`load_agent_errors`) lists a piece of it for that run (the last such entry); else
    clean. Shared with ``make_apibank_runs.py``."""
    label: dict[str, Any] = {"hallucinated": False, "fact_check_needed": True, "spans": []}
    for (run_key, piece), wrong in (errors or {}).items():
        if run_key == key and piece in answer:
            label = {"hallucinated": True, "fact_check_needed": True, "spans": _spans(answer, wrong)}
    return label


def load(path: Path) -> list[dict[str, Any]]:
    """The condensed runs of a directory, in file-name order."""
    return [
        json.loads(f.read_text(encoding="utf-8"))
        for f in sorted(path.glob("*.json"))
        if f.name[0] != "_" and f.name != "agent_errors.json"
    ]


def build(source: Path, out: Path, *, perturbed: bool = False, name: str | None = None) -> dict[str, int]:
    """Write ``luna_clean_<split>.jsonl`` (and the perturbed set) from one transcription directory, whose
    runs must all fall on one side of the split; returns the counts. ``name`` replaces the split in the
    file names (``dev2`` for a second dev transcription), which must still start with the split."""
    errors = load_agent_errors(source)
    clean: list[tuple[str, dict[str, Any]]] = []
    edited: list[tuple[str, dict[str, Any]]] = []
    sides: set[str] = set()
    counts = {"runs": 0, "kept": 0, "opened_poison": 0, "agent_errors": 0}
    for run in load(source):
        counts["runs"] += 1
        sides.add(split_of(run["domain"]))
        line = line_of(run, errors)
        if line is None:
            continue
        counts["kept"] += 1
        counts["opened_poison"] += bool(run.get("opened_poison"))
        if line["label"]["hallucinated"]:
            counts["agent_errors"] += 1
            clean.append(("agent_error", line))
            continue
        clean.append(("clean", line))
        user = next(m["content"] for m in line["messages"] if m["role"] == "user")
        edited += perturb(line, user)
    if len(sides) != 1:
        raise ValueError(f"{source}: runs of both sides of the split (or none): {sorted(sides)}")
    side = sides.pop()
    if name is not None and not name.startswith(side):
        # A dev transcription must never be written under a held-out name, nor the reverse.
        raise ValueError(f"{source}: runs of the {side} side cannot be named {name!r}")
    tag = name or side
    _write(out / f"luna_clean_{tag}.jsonl", clean)
    if perturbed:
        _write(out / f"luna_perturbed_{tag}.jsonl", edited)
    counts["perturbed_lines"] = len(edited)
    return counts


def main(argv: list[str] | None = None) -> int:
    """Build the sets of one transcription directory next to this script (or in ``--out``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "source", type=Path, help="a directory of condensed runs (luna_dev/ or luna_heldout/)"
    )
    parser.add_argument("--perturbed", action="store_true", help="also write the single-fact edit set")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument(
        "--name", default=None, help="file-name tag instead of the split, e.g. dev3 (must start with it)"
    )
    args = parser.parse_args(argv)
    counts = build(args.source, args.out, perturbed=args.perturbed, name=args.name)
    print(json.dumps(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
