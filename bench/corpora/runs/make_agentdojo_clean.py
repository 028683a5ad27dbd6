"""Build a held-out *clean* corpus of tool-grounded runs from AgentDojo's task suites (issue 14).

AgentDojo (ETH Zurich SPY Lab, MIT licence, ``pip install agentdojo``) ships four task suites (workspace,
travel, banking, slack), each with an environment (inboxes, calendars, files, hotels, bank accounts,
channels) and user tasks whose ``ground_truth()`` lists the tool calls a correct agent makes and whose
``GROUND_TRUTH_OUTPUT`` is the answer its authors wrote for it. This script replays that ground truth
offline, the way AgentDojo's own ``GroundTruthPipeline`` does (each call run against the suite's default
environment, its result serialised, here as JSON), and writes one groundedness line per user task whose
answer is not empty:

    {"id", "messages": [system, user, (assistant tool call, tool result)*, assistant answer],
     "tools": [the called tools as OpenAI function specs], "label": {"hallucinated": false, "spans": []}}

Nearly every answer is correct by construction (AgentDojo's utility checks accept it), so the set mostly
measures the false-positive rate; nobody here wrote the answers or the tool results, and no rule is tuned on
it. Two answers that AgentDojo's authors wrote say something the replayed run does not (``ANSWER_ERRORS``,
found while reading the engine's flags in issue 14's tenth round): they are labelled hallucinated with the
span of the unsupported value, as the tau sets label their agents' errors. ``--relabel FILE`` applies those
labels to an existing corpus file in place (no agentdojo needed).

    pip install agentdojo==0.1.35          # into a scratch venv: not a project dependency
    python bench/corpora/runs/make_agentdojo_clean.py > bench/corpora/runs/agentdojo_clean.jsonl
    python manage.py evaluate --task groundedness bench/corpora/runs/agentdojo_clean.jsonl
    python bench/corpora/runs/make_agentdojo_clean.py --relabel bench/corpora/runs/agentdojo_clean.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BENCHMARK_VERSION = "v1.2.2"

# Ground-truth answers that the replayed run does not support, by task (the line id's ending): the value
# labelled as the hallucinated span.
ANSWER_ERRORS: dict[str, str] = {
    # The ground truth looks up the address of "London Luxury", not of the hotel the answer names, so this
    # address is in no tool result.
    "travel-user_task_5": "12 Leinster Gardens, Bayswater, London W2 3AN, United Kingdom",
    # get_price_for_restaurants returns 20.0 for the restaurant answered.
    "travel-user_task_8": "30.0",
}
SYSTEM = (
    "You are an AI language model who assists the user by using the given tools. Answer the user's "
    "question from the results of the tools."
)


def _result_json(result: Any) -> str:
    """A tool's return value as JSON (AgentDojo's ``tool_result_to_str`` with ``json.dumps``, dates ISO)."""
    from agentdojo.agent_pipeline.tool_execution import tool_result_to_str

    return tool_result_to_str(result, dump_fn=lambda x: json.dumps(x, default=str, ensure_ascii=False))


def label_answer_errors(line: dict[str, Any]) -> dict[str, Any]:
    """``line`` labelled hallucinated, with the span of the unsupported value, if it is one of
    ``ANSWER_ERRORS``; otherwise unchanged. Idempotent.

    >>> line = {"id": "agentdojo-v1.2.2-travel-user_task_8", "label": {"hallucinated": False},
    ...         "messages": [{"role": "assistant", "content": "Le Marais, 30.0"}]}
    >>> label_answer_errors(line)["label"]["spans"]
    [{'start': 11, 'end': 15, 'text': '30.0'}]
    """
    for task, wrong in ANSWER_ERRORS.items():
        answer = str(line["messages"][-1]["content"])
        at = answer.find(wrong)
        if line["id"].endswith("-" + task) and at >= 0:
            spans = [{"start": at, "end": at + len(wrong), "text": wrong}]
            return {**line, "label": {"hallucinated": True, "fact_check_needed": True, "spans": spans}}
    return line


def _tool_spec(function: Any) -> dict[str, Any]:
    """An AgentDojo ``Function`` as an OpenAI tool declaration (its pydantic parameters as JSON Schema)."""
    return {
        "type": "function",
        "function": {
            "name": function.name,
            "description": function.description,
            "parameters": function.parameters.model_json_schema(),
        },
    }


def build(version: str = BENCHMARK_VERSION) -> list[dict[str, Any]]:
    """One clean groundedness line per user task with a ground-truth answer, in suite and task order."""
    from agentdojo.functions_runtime import FunctionsRuntime
    from agentdojo.task_suite.load_suites import get_suites

    lines: list[dict[str, Any]] = []
    for suite_name, suite in sorted(get_suites(version).items()):
        specs = {f.name: _tool_spec(f) for f in suite.tools}
        for task_id, task in sorted(suite.user_tasks.items(), key=lambda kv: int(kv[0].rsplit("_", 1)[1])):
            answer = str(task.GROUND_TRUTH_OUTPUT or "").strip()
            if not answer:
                continue
            env = suite.load_and_inject_default_environment({})
            env = task.init_environment(env)
            runtime = FunctionsRuntime(suite.tools)
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": " ".join(task.PROMPT.split())},
            ]
            for n, call in enumerate(task.ground_truth(env)):
                call_id = f"call_{n}"
                args = dict(call.args)
                result, error = runtime.run_function(env, call.function, args, raise_on_error=False)
                content = json.dumps({"error": error}) if error else _result_json(result)
                messages += [
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": call_id,
                                "type": "function",
                                "function": {
                                    "name": call.function,
                                    "arguments": json.dumps(args, default=str),
                                },
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": call_id, "content": content},
                ]
            messages.append({"role": "assistant", "content": answer})
            # The declarations of the tools the run calls (the suite's others would only bulk the file).
            called = sorted({c["function"]["name"] for m in messages for c in m.get("tool_calls") or []})
            tools = [specs[name] for name in called]
            lines.append(
                {
                    "id": f"agentdojo-{version}-{suite_name}-{task_id}",
                    "messages": messages,
                    "tools": tools,
                    "label": {"hallucinated": False, "fact_check_needed": True, "spans": []},
                }
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Write the corpus as JSONL to stdout."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--version", default=BENCHMARK_VERSION, help="AgentDojo benchmark version")
    parser.add_argument(
        "--relabel", type=Path, metavar="FILE", help="apply ANSWER_ERRORS to FILE in place and stop"
    )
    args = parser.parse_args(argv)
    if args.relabel:
        rows = [
            json.loads(raw) for raw in args.relabel.read_text(encoding="utf-8").splitlines() if raw.strip()
        ]
        args.relabel.write_text(
            "".join(json.dumps(label_answer_errors(r), ensure_ascii=False) + "\n" for r in rows),
            encoding="utf-8",
        )
        return 0
    try:
        lines = build(args.version)
    except ImportError:
        sys.stderr.write(
            "agentdojo is not installed: pip install agentdojo==0.1.35 (a scratch venv will do)\n"
        )
        return 2
    for line in lines:
        sys.stdout.write(json.dumps(label_answer_errors(line), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
