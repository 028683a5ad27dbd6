"""Building agent runs in the OpenAI chat format for the engine_runs tests."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

# The corpora of real runs and the scripts that make them.
RUNS_DIR = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs"


def load_bench_module(name: str) -> ModuleType:
    """A script of ``bench/corpora/runs`` (``make_tau_airline`` ...), loaded by path (no package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", RUNS_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_run(
    question: str,
    results: list[dict[str, Any]] | None,
    answer: str,
    tool: str = "lookup",
    system: str | None = None,
) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    if system:
        msgs.append({"role": "system", "content": system})
    msgs.append({"role": "user", "content": question})
    if results:
        calls = [
            {"id": f"call_{i}", "type": "function", "function": {"name": tool, "arguments": "{}"}}
            for i in range(len(results))
        ]
        msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
        for i, r in enumerate(results):
            msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": json.dumps(r)})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


_PLACES = ["Oslo", "Lima", "Perth", "Quito", "Dakar", "Hanoi", "Bergen", "Cusco", "Turin", "Leeds"]


def hostile_run(answer_chars: int, tool_chars: int, seed: int = 1) -> list[dict[str, Any]]:
    """The shape of the issue 13 finding: a long answer full of prices, counts, dates, times and names,
    against one tool result of many records with the same kinds of values (sizes in characters)."""
    import random

    rng = random.Random(seed)
    records, size, i = [], 2, 0
    while size < tool_chars:
        record = {
            "id": f"SKU-{i:06d}",
            "name": f"{rng.choice(_PLACES)} Widget {i}",
            "price": round(rng.uniform(1, 5000), 2),
            "qty": rng.randrange(1000),
            "date": f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 28):02d}",
            "time": f"{rng.randrange(24):02d}:{rng.randrange(60):02d}",
            "pct": rng.randrange(100),
        }
        records.append(record)
        size += len(json.dumps(record)) + 2
        i += 1
    parts, n = [], 0
    while n < answer_chars:
        sentence = (
            f"{rng.choice(_PLACES)} Widget {rng.randrange(9999)} costs ${rng.uniform(1, 5000):.2f} with "
            f"{rng.randrange(1000)} units, {rng.randrange(100)}% off on March {rng.randrange(1, 28)}, "
            f"2024 at {rng.randrange(1, 12)}:{rng.randrange(60):02d} PM, {rng.randrange(50)} km away. "
        )
        parts.append(sentence)
        n += len(sentence)
    return make_run("What are the prices and stock?", [{"items": records}], "".join(parts)[:answer_chars])


def names_run(names: int, records: int, seed: int = 2) -> list[dict[str, Any]]:
    """An answer of made-up names (each looked up word by word, then fuzzily, in the evidence's words)
    against records of other made-up words: the most matching work per checkable value."""
    import random

    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randrange(6, 10)))

    rows = [{"name": word(), "city": word()} for _ in range(records)]
    answer = " ".join(f"{word().capitalize()} met {word().capitalize()}." for _ in range(names // 2))
    return make_run("Who was there?", [{"rows": rows}], answer)


def run_with_calls(user: str, calls: list[tuple[str, Any, Any]], answer: str) -> list[dict[str, Any]]:
    """A run whose assistant makes ``calls`` ([(name, arguments, result)]) in one turn, then answers."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": user}]
    msgs.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a, _) in enumerate(calls)
            ],
        }
    )
    for i, (_, _, result) in enumerate(calls):
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(result)})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def text_result_run(question: str, text: str, answer: str, tool: str = "lookup") -> list[dict[str, Any]]:
    """A run of one call whose result is ``text`` as the tool wrote it (YAML-like lines, a page, JSON)."""
    call = {"id": "c0", "type": "function", "function": {"name": tool, "arguments": "{}"}}
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": text},
        {"role": "assistant", "content": answer},
    ]


def flagged(report: Any) -> list[tuple[str, str]]:
    """(text, label) of every flagged claim of a report."""
    return [(c.text, c.label) for c in report.flagged_claims]
