"""Building agent runs in the OpenAI chat format for the engine_runs tests."""

from __future__ import annotations

import json
from typing import Any


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
