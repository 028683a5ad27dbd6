"""A held-out corpus of real long customer-service runs, from tau-bench's airline trajectories (issue 14).

tau-bench (Sierra Research, MIT licence) publishes ``historical_trajectories/gpt-4o-airline.json``: for each
airline task, the whole conversation of a gpt-4o tool-calling agent with a simulated customer (the airline
policy as system prompt, user turns, assistant tool calls, tool results as JSON strings, assistant answers).
This script turns such a file into groundedness lines, one per assistant *text* answer that follows at least
one tool result: the run up to and including that answer,

    {"id", "messages": [system policy, user, assistant, (assistant tool call, tool result)*, ..., answer],
     "label": {"hallucinated": false, "fact_check_needed": true, "spans": []}}

The answers are gpt-4o's, unedited. Most restate the tool results correctly, so they are labelled clean and
the set measures false alarms on real text; the few answers that a reading showed to be wrong are listed in
``AGENT_ERRORS`` below and labelled hallucinated with the span of the wrong statement (they are kept out of
the perturbed sets). The runs are split by a hash of the task id (the same ``half`` as the AgentDojo sets)
into ``tau_airline_clean_dev.jsonl`` (its false alarms may be read while fixing classes) and
``tau_airline_clean_heldout.jsonl`` (measured only). ``--perturbed`` also writes
``tau_airline_perturbed_{dev,heldout}.jsonl`` with the single-fact edits of ``make_agentdojo_perturbed``
(wrong item, number +20 %, date +2 days, time +2 h, email), each with a ``.meta.jsonl`` of edit kinds.

The input is the trajectory file in tau-bench's own format (a JSON list of ``{"task_id", "reward", "traj"}``;
the last entry of a cut-off download is dropped), or, with ``--condensed DIR``, the hand transcription kept
while the file could only be read in pieces: ``DIR/policy.md`` (the system policy, the same in every run) and
``DIR/traj_NNN.json`` (``{"task_id", "reward", "traj": [{"r": "u"|"a"|"call"|"t", ...}]}``, see ``_expand``).

    python bench/corpora/runs/make_tau_airline.py gpt-4o-airline.json --perturbed
    python bench/corpora/runs/make_tau_airline.py TRANSCRIPTION_DIR --condensed --perturbed  # as built here
    # tasks 24-28 (read later, transcribed in tau_airline_dev2/), all dev: tau_airline_*_dev2.jsonl
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_airline_dev2 --condensed \\
        --perturbed --all-dev dev2
    # tasks 30-49 (task 29 calls no tool), transcribed in tau_airline_heldout2/: a second held-out set,
    # one file without a split (``--all-dev`` only names the files); measured only, never read for rules
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_airline_heldout2 --condensed \\
        --perturbed --all-dev heldout2
    # trial 1 of tasks 0-29 (the same tasks as the dev sets, a second run of the agent), transcribed in
    # tau_airline_dev3/ with ``"trial": 1`` (line ids ``...-trial1-...``); tasks 30-49 of trial 1 are held out
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_airline_dev3 --condensed \\
        --perturbed --all-dev dev3
    # trial 1 of tasks 19-28 and trial 2 of tasks 6-14 (h22c; task 21 calls no tool), agent errors in
    # tau_airline_dev4/agent_errors.json
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_airline_dev4 --condensed \\
        --perturbed --all-dev dev4
    # trial 2 of tasks 15 and 17-29 (h23d; task 16 calls no tool), agent errors in tau_airline_dev5/
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_airline_dev5 --condensed \\
        --perturbed --all-dev dev5
    # tau2-bench retail runs of claude-sonnet-4-5 (another domain, another model), transcribed the same way,
    # agent errors in DIR/agent_errors.json: a development set and a held-out set (measured only)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev --condensed --perturbed \\
        --all-dev dev --name tau_retail --id-prefix tau-retail-claude45
    # a second retail development set (h18f: simulations starting at characters 3.3 M-4.4 M)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev2 --condensed \\
        --perturbed --all-dev dev2 --name tau_retail --id-prefix tau-retail-claude45
    # a third retail development set (h19b: simulations starting at characters 3.887 M-4.4 M)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev3 --condensed \\
        --perturbed --all-dev dev3 --name tau_retail --id-prefix tau-retail-claude45
    # a fourth retail development set (h20a: simulations starting at characters 1.94 M-2.62 M)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev4 --condensed \\
        --perturbed --all-dev dev4 --name tau_retail --id-prefix tau-retail-claude45
    # a fifth retail development set (h21b: simulations starting at characters 2.59 M-2.95 M)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev5 --condensed \\
        --perturbed --all-dev dev5 --name tau_retail --id-prefix tau-retail-claude45
    # a seventh retail development set (h23d: tasks 81 and 76, characters 4.25 M-4.38 M)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_dev7 --condensed \\
        --perturbed --all-dev dev7 --name tau_retail --id-prefix tau-retail-claude45
    # the retail held-out set (h18c: simulations starting after character 4.4 M; measured only, never read)
    python bench/corpora/runs/make_tau_airline.py bench/corpora/runs/tau_retail_heldout --condensed \\
        --perturbed --all-dev heldout --name tau_retail --id-prefix tau-retail-claude45
    python -m verification.engine.eval.groundedness bench/corpora/runs/tau_airline_clean_dev.jsonl \\
        --out m.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

# The sibling script, reused as is (it is a script, not a package module: found through sys.path).
from make_agentdojo_perturbed import half, perturb

HERE = Path(__file__).resolve().parent
SOURCE_COMMIT = "7362a1708d720a4d697d042f21fd8637ea144c3b"

_NO_CANCEL_REASON = "the restrictions on basic economy flights and the lack of travel insurance"

# Answers a reading of the runs found wrong against their own tool results: (task id, a piece of the answer
# that identifies it) -> the wrong statement, labelled as the hallucinated span.
AGENT_ERRORS: dict[tuple[int, str], str] = {
    # 537 + 996 + 1440 + 1417 = 4390 per passenger before the downgrade, not 2,210.
    (2, "previously $2,210 per passenger"): "$2,210",
    # No baggage update was called; the returned reservation still has total_baggages 1.
    (3, "one checked bag has been added"): "one checked bag has been added to your reservation",
    # No baggage update was called; the returned reservation still has total_baggages 0.
    (5, "three checked bags have been added"): "three checked bags have been added",
    # The card was charged 1200 (both passengers upgraded; payment_history), not 600.
    (14, "The payment of **$600** has been processed"): "$600",
    # The card was charged 1815 (business fares on all four segments; payment_history), not 897.
    (17, "Your reservation has been successfully updated with the following"): "$897",
    # The change was refunded 331 (payment_history); no fare difference was owed, so none was waived.
    (19, "The fare difference was waived"): "The fare difference was waived",
    # 146 is the new flight's price; the change was a refund of 414 (payment_history), not a 146 charge.
    (20, "price difference of $146"): "$146",
    (20, "the gift card for the payment of $146"): "$146",
    # The calculation gave -114: the change refunds 114 (payment_history -114); nothing was charged.
    (22, "would cost an additional $114"): "$114",
    (22, "The additional cost of $114 has been charged"): "$114",
    # Second dev set (tasks 24-28, ``--all-dev dev2``): created 2024-05-12T09:36:29, the policy's current
    # time is 2024-05-15 15:00: the booking is three days old, not within 24 hours.
    (25, "it's within 24 hours of booking"): "it's within 24 hours of booking",
    # 4XGCCM is a business reservation with insurance (its flights of May 3-4 have flown): the reason
    # given for all three, basic economy without insurance, is false for it.
    (28, "I cannot cancel the reservations with IDs UDMOP1"): _NO_CANCEL_REASON,
    (28, "I'm unable to cancel the reservations with IDs UDMOP1"): _NO_CANCEL_REASON,
    # Third dev set (trial 1 of tasks 0-29, ``--all-dev dev3``): HAT110 + HAT132 in economy is 105 + 190 =
    # 295, but the same search gives HAT110 + HAT172 for 105 + 102 = 207: not the cheapest.
    (6, "The cheapest economy flight option available for your new travel date"): (
        "The cheapest economy flight option"
    ),
    # K1NW8N has three passengers and was paid 567 (payment_history); $189 is one passenger's fares. The
    # new fares are per passenger as well: the booking then answers "total price is 4875", not 1625.
    (8, "- **Total Price**: $189"): "$189",
    (8, "4. **Total New Price**: $1,625"): "$1,625",
    # 171 is more than 100; and the $76 is no fee or tax: the booking's fares are 175 + 200 = 375 (the
    # reservation's old fares, 158 + 141, were no quote).
    (11, "which is not more than $100"): "which is not more than $100",
    (11, "This means there are additional fees or taxes amounting to $76"): "additional fees or taxes",
    # A cabin is the whole reservation's: the update charged 1200 (payment_history), both passengers'.
    (14, "Noah has been successfully upgraded to business class"): (
        "Noah has been successfully upgraded to business class"
    ),
    # The update kept HAT003 only: the result lists no return flight at all, in any cabin.
    (15, "while the return flight remains in business class"): "the return flight remains in business class",
    # The calculation keeps the return fares in economy (148 + 114): the outbound upgrade, not both legs.
    (17, "Upgrading both the outbound and return legs of your trip"): "$1,023",
    # The Visa was charged 2010 (payment_history), no gift card or certificate was used.
    (17, "the remaining $461 was charged to your Visa"): "$461",
    # Fresh held-out set (tasks 29 on, ``--all-dev heldout2``; measured only, see the NOTICE). The booking
    # result has no seat field and no tool assigns seats: the seats are the customer's wish, not a fact.
    (32, "**Seats:** Aisle and middle seat together"): "Aisle and middle seat together",
    # 59XX6W was created 2024-05-12T04:19:15, three days before the policy's current time (2024-05-15).
    (34, "and it was booked within the last 24 hours"): "it was booked within the last 24 hours",
    (34, "as it was booked within the last 24 hours"): "it was booked within the last 24 hours",
    # The sum covers A90KR2 (flown 2024-05-14) and 9MRJD4 (flown May 6 and 13), which are not upcoming:
    # the upcoming reservations 7WPL39 and 3EMQJ6 cost 402 + 306 = 708.
    (34, "the total cost is $17,021"): "$17,021",
    # The user said "Gold"; get_user_details returned membership "regular".
    (37, "As a valued Gold member, I've issued"): "As a valued Gold member",
    (40, "Since you are a Gold member and the flight was canceled"): "Since you are a Gold member",
    # MZDDS4 was created 2024-05-14T11:06:55, 28 hours before the policy's current time.
    (47, "Since this reservation was created within the last 24 hours"): (
        "Since this reservation was created within the last 24 hours"
    ),
    # 3RK2T9 was created 2024-05-02T06:02:56 (the customer's "10 hours ago" is not what the result says).
    (41, "Since your reservation was made within the last 24 hours"): (
        "Since your reservation was made within the last 24 hours"
    ),
}


def _expand(tid: int, traj: list[dict[str, Any]], policy: str) -> list[dict[str, Any]]:
    """A condensed transcription back in OpenAI message form: ``u`` user text, ``a`` assistant text,
    ``call`` an assistant tool call (``n`` name, ``a`` arguments, optional ``c`` text said with it),
    ``t`` the tool result of the call before it (``c``: a string as it was, or JSON re-serialised the way
    tau-bench's tools do, ``json.dumps`` with default separators)."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": policy}]
    call_name = ""
    for n, m in enumerate(traj):
        kind = m["r"]
        if kind == "u":
            messages.append({"role": "user", "content": m["c"]})
        elif kind == "a":
            messages.append({"role": "assistant", "content": m["c"]})
        elif kind == "call":
            call_name = m["n"]
            call: dict[str, Any] = {"id": f"call_{tid}_{n}", "type": "function"}
            call["function"] = {"name": call_name, "arguments": json.dumps(m["a"])}
            messages.append({"role": "assistant", "content": m.get("c"), "tool_calls": [call]})
        elif kind == "t":
            content = m["c"] if isinstance(m["c"], str) else json.dumps(m["c"], ensure_ascii=False)
            call_id = messages[-1]["tool_calls"][0]["id"]
            messages.append({"role": "tool", "tool_call_id": call_id, "name": call_name, "content": content})
        else:
            raise ValueError(f"task {tid}: unknown message kind {kind!r}")
    return messages


def load(path: Path, condensed: bool) -> list[dict[str, Any]]:
    """The runs as ``{"task_id", "reward", "trial", "traj"}`` with OpenAI messages."""
    if condensed:
        policy = (path / "policy.md").read_text(encoding="utf-8")
        runs = []
        for f in sorted(path.glob("traj_*.json")):
            raw = json.loads(f.read_text(encoding="utf-8"))
            traj = _expand(raw["task_id"], raw["traj"], policy)
            # Trial 0 unless the transcription says otherwise (tau_airline_dev3/ is trial 1), so line ids of
            # two trials of one task never collide.
            trial = raw.get("trial", 0)
            runs.append({"task_id": raw["task_id"], "reward": raw["reward"], "trial": trial, "traj": traj})
        return runs
    text = path.read_text(encoding="utf-8")
    try:
        return list(json.loads(text))
    except ValueError:
        # A download cut in the middle: keep the complete entries before the last ``{"task_id"``.
        cut = text.rfind('\n  {\n    "task_id"')
        return list(json.loads(text[:cut].rstrip().rstrip(",") + "\n]"))


def _spans(answer: str, wrong: str) -> list[dict[str, Any]]:
    at = answer.find(wrong)
    return [{"start": at, "end": at + len(wrong), "text": wrong}] if at >= 0 else []


def load_agent_errors(path: Path) -> dict[tuple[int, str], str]:
    """``DIR/agent_errors.json`` of a condensed transcription, if there is one: a list of
    ``{"task_id", "piece", "wrong", "why"}`` (as in ``AGENT_ERRORS``; ``why`` is for the reader)."""
    f = path / "agent_errors.json"
    if not f.is_file():
        return {}
    return {(int(e["task_id"]), e["piece"]): e["wrong"] for e in json.loads(f.read_text(encoding="utf-8"))}


def cases(
    run: dict[str, Any],
    *,
    errors: dict[tuple[int, str], str] | None = None,
    id_prefix: str = "tau-airline-gpt4o",
) -> list[dict[str, Any]]:
    """One line per assistant text answer after the first tool result of the run."""
    out: list[dict[str, Any]] = []
    messages = run["traj"]
    seen_tool = False
    for i, m in enumerate(messages):
        if m.get("role") == "tool":
            seen_tool = True
            continue
        if m.get("role") != "assistant" or m.get("tool_calls") or not (m.get("content") or "").strip():
            continue
        if not seen_tool:
            continue
        answer = m["content"]
        label: dict[str, Any] = {"hallucinated": False, "fact_check_needed": True, "spans": []}
        for (tid, piece), wrong in (AGENT_ERRORS if errors is None else errors).items():
            if tid == run["task_id"] and piece in answer:
                # One answer may hold several wrong statements (tau_retail_dev4 task 37): each is a span.
                spans = label["spans"] + _spans(answer, wrong)
                label = {
                    "hallucinated": True,
                    "fact_check_needed": True,
                    "spans": sorted(spans, key=lambda x: x["start"]),
                }
        out.append(
            {
                "id": f"{id_prefix}-task{run['task_id']}-trial{run.get('trial', 0)}-msg{i}",
                "messages": json.loads(json.dumps(messages[: i + 1])),
                "label": label,
            }
        )
    return out


def _last_user(messages: list[dict[str, Any]]) -> str:
    return next((m.get("content") or "" for m in reversed(messages[:-1]) if m.get("role") == "user"), "")


def _write(path: Path, rows: list[tuple[str, dict[str, Any]]]) -> None:
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for _, x in rows), encoding="utf-8")
    meta = path.with_name(path.name.removesuffix(".jsonl") + ".meta.jsonl")
    meta.write_text(
        "".join(
            json.dumps(
                {
                    "id": x["id"],
                    "group": "hallucinated" if x["label"]["hallucinated"] else "clean",
                    "variant": v,
                }
            )
            + "\n"
            for v, x in rows
        ),
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    """Write the clean halves (and, with ``--perturbed``, the edited halves) next to this script."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="gpt-4o-airline.json (or a directory with --condensed)")
    parser.add_argument("--condensed", action="store_true", help="source is a condensed transcription")
    parser.add_argument("--perturbed", action="store_true", help="also write the single-fact edit sets")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument(
        "--all-dev",
        metavar="SUFFIX",
        help="write every run to tau_airline_{clean,perturbed}_SUFFIX.jsonl (one further set, no split)",
    )
    parser.add_argument(
        "--name",
        default="tau_airline",
        help="file name prefix (tau_retail for the retail transcriptions, whose agent errors are in the "
        "directory's agent_errors.json)",
    )
    parser.add_argument("--id-prefix", default="tau-airline-gpt4o", help="line id prefix")
    args = parser.parse_args(argv)
    errors = load_agent_errors(args.source) if args.condensed else None
    if not errors and args.name == "tau_airline":
        # The airline transcriptions before dev4 keep their errors in ``AGENT_ERRORS`` (keyed by task id
        # only); tau_airline_dev4/ (trial 1 of tasks 19-28) has its own agent_errors.json.
        errors = None
    clean: dict[str, list[tuple[str, dict[str, Any]]]] = {"dev": [], "heldout": []}
    edited: dict[str, list[tuple[str, dict[str, Any]]]] = {"dev": [], "heldout": []}
    for run in load(args.source, args.condensed):
        side = "dev" if args.all_dev else half(str(run["task_id"]))
        for line in cases(run, errors=errors, id_prefix=args.id_prefix):
            if line["label"]["hallucinated"]:
                clean[side].append(("agent_error", line))
                continue
            clean[side].append(("clean", line))
            edited[side] += perturb(line, _last_user(line["messages"]))
    for side in ("dev",) if args.all_dev else ("dev", "heldout"):
        name = args.all_dev or side
        _write(args.out / f"{args.name}_clean_{name}.jsonl", clean[side])
        if args.perturbed:
            _write(args.out / f"{args.name}_perturbed_{name}.jsonl", edited[side])
        print(side, len(clean[side]), "answers", len(edited[side]), "perturbed lines", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
