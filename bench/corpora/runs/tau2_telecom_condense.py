"""Turn the raw transcription of tau2-bench runs (``tau2_telecom_dev/raw/sNN.jsonl``, also the airline runs
of ``tau2x_airline_dev/``) into the condensed form ``make_tau_airline.py --condensed`` reads
(``traj_NNN.json`` and ``policy.md``).

A raw file holds one JSON array a line, the file's strings copied as JSON literals: ``["meta", {...}]``,
``["u", text]``, ``["a", text]``, ``["call", name, arguments, text said with the call]``, ``["t", result]``.
Only what the agent saw is transcribed: the user's own device tool calls and their results (``requestor:
user``) never reach the agent in tau2-bench and are not in the raw files.

    python bench/corpora/runs/tau2_telecom_condense.py bench/corpora/runs/tau2_telecom_dev
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def condense(raw: Path) -> dict[str, Any]:
    """One raw file as ``{"task_id", "task_name", "sim_id", "reward", "traj"}`` (task id: its number)."""
    rows = [json.loads(line) for line in raw.read_text(encoding="utf-8").splitlines() if line.strip()]
    meta = rows[0][1]
    traj: list[dict[str, Any]] = []
    for row in rows[1:]:
        kind = row[0]
        if kind in ("u", "a", "t"):
            traj.append({"r": kind, "c": row[1]})
        elif kind == "call":
            call: dict[str, Any] = {"r": "call", "n": row[1], "a": row[2]}
            if row[3]:
                call["c"] = row[3]
            traj.append(call)
        else:
            raise ValueError(f"{raw.name}: unknown row kind {kind!r}")
    return {
        "task_id": int(raw.stem.removeprefix("s")),
        "task_name": meta["task"],
        "sim_id": meta["sim_id"],
        "reward": meta["reward"],
        "traj": traj,
    }


def main(argv: list[str] | None = None) -> int:
    out = Path((argv or sys.argv[1:])[0])
    # The file's policy string: telecom's ``<main_policy>`` and ``<tech_support_policy>`` joined by a newline;
    # a domain with one policy (airline) has no ``policy_tech.json``.
    names = [n for n in ("policy.json", "policy_tech.json") if (out / "raw" / n).exists()]
    parts = [json.loads((out / "raw" / n).read_text(encoding="utf-8")) for n in names]
    policy = "\n".join(parts)
    (out / "policy.md").write_text(policy, encoding="utf-8")
    for raw in sorted((out / "raw").glob("s*.jsonl")):
        run = condense(raw)
        text = json.dumps(run, ensure_ascii=False, indent=1) + "\n"
        (out / f"traj_{run['task_id']:03d}.json").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
