"""Run the verification engine over a labelled JSONL file and write its metrics (SPEC section 6)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

TASKS = ("groundedness", "tool-results")


def guess_task(path: Path) -> str:
    """Tool streams start with profile/call lines; groundedness lines carry messages."""
    with path.open() as handle:
        for line in handle:
            if line.strip():
                first = json.loads(line)
                return (
                    "tool-results" if first.get("type") in ("profile", "call", "feedback") else "groundedness"
                )
    raise CommandError(f"{path} is empty")


class Command(BaseCommand):
    help = "Evaluate the engine on a labelled JSONL file: --task groundedness|tool-results."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--task", choices=TASKS, help="Guessed from the file when omitted.")
        parser.add_argument("--out", type=Path, help="Write the metrics JSON here as well as to stdout.")
        parser.add_argument("--no-progress", action="store_true", help="Hide the progress bar.")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"No such file: {path}")
        task = options["task"] or guess_task(path)
        progress = not options["no_progress"]
        if task == "tool-results":
            from verification.engine.eval.tool_results import evaluate_tool_results

            metrics = evaluate_tool_results(path, progress=progress)
        else:
            from verification.engine.eval.groundedness import evaluate_groundedness

            metrics = evaluate_groundedness(path, progress=progress)
        text = json.dumps(metrics, indent=2, sort_keys=True)
        if options["out"]:
            out: Path = options["out"]
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text + "\n")
        self.stdout.write(text)
