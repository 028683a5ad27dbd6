"""A fresh corpus of short multi-turn tool-using conversations: API-Bank dialogues (issue 14, h22i).

The public repository ``AlibabaResearch/DAMO-ConvAI`` (MIT licence, file ``LICENSE`` at commit
``e7be624876d293513f5311060f3d63c02b9a4bb5``) ships the API-Bank benchmark. Its file
``api-bank/json_test_data/level-1-response.json`` (commit ``5c38bb7d1d78c7a7f12aa415d620d6305dbe2078``) is a
list of items ``{"file", "id", "instruction", "input", "expected_output"}``: ``input`` is a short dialogue
between a user and an assistant in a line format::

    User: <utterance>
    AI: <assistant text>
    API-Request: [ApiName(key1='value1', key2='value2')]-><the API's result, as the API returned it>
    ...
    Generate AI Response:

and ``expected_output`` is the assistant's reply after the last API result, written by the benchmark's
annotators. The APIs are small simulated services (hospital registration, health records, symptom search,
smart home, calculator, agenda, reminders, accounts, bank balance, stocks) whose results are Python reprs
(``success``, ``98353393``, ``{'token': '...'}``, ``[{'name': 'Asthma', 'aid': '...'}]``). Unlike the other
run corpora these conversations are short (2-8 turns), multi-turn, and the answers are terse.

Items were read with a search tool in pieces and kept *verbatim* (``file``, ``id``, ``input``,
``expected_output``; the ``instruction``, which repeats the API descriptions, is not kept), one JSON per
item in ``apibank_dev/`` or ``apibank_heldout/``. This script parses each ``input`` into OpenAI messages
(``User:`` -> user, ``AI:`` -> assistant, ``API-Request:`` -> an assistant tool call with the parsed
keyword arguments and a tool message whose content is the result text after ``->``; a line with none of
these prefixes continues the previous message) and writes one groundedness line per item whose dialogue
has at least one API result::

    {"id": "apibank-<domain>-<file stem>-<id>", "messages": [...], "label": {...}}

The split is by domain (the API family of the item's dialogue, never by item): health, smart home and
calculator dialogues are the development set (``apibank_clean_dev.jsonl``, its false alarms may be read);
calendar, account and finance dialogues the held-out set (``apibank_clean_heldout.jsonl``, measured only).
An answer that a reading showed to state something its results do not support is listed in
``DIR/agent_errors.json`` (``[{"run", "piece", "wrong", "why"}]``, ``run`` = ``<file stem>-<id>``) and
labelled hallucinated with the span of ``wrong``; such answers stay out of the perturbed sets.
``--perturbed`` also writes ``apibank_perturbed_{dev,heldout}.jsonl`` with the single-fact edits of
``make_agentdojo_perturbed.perturb`` (the last user turn is the question whose numbers are left alone)
and, since these answers write dates with month names ("March 26th"), a ``named_date`` edit of this
script (the first such date moved by two days).

    python bench/corpora/runs/make_apibank_runs.py bench/corpora/runs/apibank_dev --perturbed
    python bench/corpora/runs/make_apibank_runs.py bench/corpora/runs/apibank_heldout --perturbed
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_agentdojo_perturbed import perturb
from make_luna_runs import agent_error_label, load, load_agent_errors
from make_tau_airline import _write

HERE = Path(__file__).resolve().parent
SOURCE_REPO = "AlibabaResearch/DAMO-ConvAI"
SOURCE_PATH = "api-bank/json_test_data/level-1-response.json"
SOURCE_COMMIT = "5c38bb7d1d78c7a7f12aa415d620d6305dbe2078"

# The API family of each API named in an item's file name. GetUserToken and GetToday are helpers that
# dialogues of every family call, so they say nothing about the domain.
_DOMAIN_OF_API = {
    **dict.fromkeys(
        (
            "AppointmentRegistration",
            "CancelRegistration",
            "EmergencyKnowledge",
            "ModifyRegistration",
            "QueryHealthData",
            "QueryRegistration",
            "RecordHealthData",
            "SymptomSearch",
        ),
        "health",
    ),
    **dict.fromkeys(("DeleteScene", "QueryScene", "TimedSwitch", "AddScene", "ModifyScene"), "smarthome"),
    "Calculator": "calculator",
    **dict.fromkeys(
        (
            "AddAgenda",
            "AddAlarm",
            "AddMeeting",
            "AddReminder",
            "DeleteAgenda",
            "DeleteAlarm",
            "DeleteMeeting",
            "DeleteReminder",
            "GetReminder",
            "ModifyAgenda",
            "ModifyAlarm",
            "ModifyMeeting",
            "ModifyReminder",
            "QueryAgenda",
            "QueryAlarm",
            "QueryMeeting",
            "QueryReminder",
        ),
        "calendar",
    ),
    **dict.fromkeys(("DeleteAccount", "ForgotPassword", "ModifyPassword", "RegisterUser"), "account"),
    **dict.fromkeys(("OpenBankAccount", "QueryBalance", "QueryStock"), "finance"),
}
_HELPER_APIS = frozenset({"GetUserToken", "GetToday"})

DEV_DOMAINS = frozenset({"health", "smarthome", "calculator"})
HELDOUT_DOMAINS = frozenset({"calendar", "account", "finance"})


def stem_of(file: str) -> str:
    """``ForgotPassword-level-1-1.jsonl`` -> ``ForgotPassword-level-1-1``."""
    return file.removesuffix(".jsonl")


def domain_of(file: str) -> str:
    """The one API family of a dialogue, from the API names its file name starts with."""
    apis = stem_of(file).split("-level-")[0].split("-")
    domains = {_DOMAIN_OF_API.get(a, "?") for a in apis if a not in _HELPER_APIS}
    if len(domains) != 1 or "?" in domains:
        raise ValueError(f"{file}: no single known domain ({sorted(domains)})")
    return domains.pop()


def split_of(domain: str) -> str:
    if domain in DEV_DOMAINS:
        return "dev"
    if domain in HELDOUT_DOMAINS:
        return "heldout"
    raise ValueError(f"unknown domain {domain!r}")


_KEY = re.compile(r"(?:^|, )([A-Za-z_]\w*)=")


def parse_args(text: str) -> dict[str, Any]:
    """``key1='v1', key2=3`` -> ``{"key1": "v1", "key2": "3"}``. A value runs to the next ``, name=``
    (values may hold unescaped quotes, e.g. ``health_data='[{'name': ...}]'``, so no Python parser)."""
    keys = list(_KEY.finditer(text))
    out: dict[str, Any] = {}
    for k, m in enumerate(keys):
        end = keys[k + 1].start() if k + 1 < len(keys) else len(text)
        value = text[m.end() : end]
        if len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        out[m.group(1)] = value
    return out


def parse_request(line: str) -> tuple[str, dict[str, Any], str]:
    """``[Name(args)]->result`` -> (name, args, result text)."""
    at = line.find(")]->")
    if not line.startswith("[") or at < 0 or "(" not in line[:at]:
        raise ValueError(f"not an API request: {line[:80]!r}")
    head = line[1:at]
    name, _, args = head.partition("(")
    return name, parse_args(args), line[at + len(")]->") :]


_END = "Generate AI Response:"


def messages_of(dialogue: str) -> list[dict[str, Any]]:
    """An API-Bank ``input`` dialogue as OpenAI messages (without the answer)."""
    messages: list[dict[str, Any]] = []
    n = 0
    for raw in dialogue.split("\n"):
        if raw == _END:
            break
        if raw.startswith("User: "):
            messages.append({"role": "user", "content": raw[len("User: ") :]})
        elif raw.startswith("AI: "):
            messages.append({"role": "assistant", "content": raw[len("AI: ") :]})
        elif raw.startswith("API-Request: "):
            name, args, result = parse_request(raw[len("API-Request: ") :])
            call_id = f"call_{n}"
            n += 1
            fn = {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}
            call = {"id": call_id, "type": "function", "function": fn}
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            messages.append({"role": "tool", "tool_call_id": call_id, "name": name, "content": result})
        elif messages and messages[-1]["role"] != "tool" and messages[-1].get("content") is not None:
            messages[-1]["content"] += "\n" + raw  # a continuation line of a multi-line turn
        else:
            raise ValueError(f"unexpected line {raw[:80]!r}")
    else:
        raise ValueError(f"dialogue does not end with {_END!r}")
    return messages


_MONTH_DAY = re.compile(
    r"\b(January|February|March|April|May|June|July|August|September|October|November|December) "
    r"(\d{1,2})(st|nd|rd|th)?\b"
)


def _ordinal(day: int) -> str:
    return "th" if 10 <= day % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(day % 10, "th")


def named_date_edit(line: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The ``named_date`` edit of a clean line: the answer's first "March 26th" / "October 10" moved by two
    days (back when that would leave the month), written the same way. ``perturb`` edits ISO dates only, and
    these answers write their dates with month names."""
    answer = line["messages"][-1]["content"]
    m = _MONTH_DAY.search(answer)
    if m is None:
        return None
    day = int(m.group(2))
    new_day = day + 2 if day + 2 <= 28 else day - 2
    new = f"{m.group(1)} {new_day}" + (_ordinal(new_day) if m.group(3) else "")
    edited = json.loads(json.dumps(line))
    edited["id"] = f"{line['id']}-named_date"
    edited["messages"][-1]["content"] = answer[: m.start()] + new + answer[m.end() :]
    span = {"start": m.start(), "end": m.start() + len(new), "text": new}
    edited["label"] = {"hallucinated": True, "fact_check_needed": True, "spans": [span]}
    return "named_date", edited


def line_of(item: dict[str, Any], errors: dict[tuple[str, str], str] | None = None) -> dict[str, Any] | None:
    """The groundedness line of an item, or None when its dialogue has no API result before the answer."""
    messages = messages_of(item["input"])
    answer = item["expected_output"]
    if not answer.strip() or not any(m["role"] == "tool" for m in messages):
        return None
    messages.append({"role": "assistant", "content": answer})
    key = f"{stem_of(item['file'])}-{item['id']}"
    label = agent_error_label(key, answer, errors)
    return {"id": f"apibank-{domain_of(item['file'])}-{key}", "messages": messages, "label": label}


def build(source: Path, out: Path, *, perturbed: bool = False) -> dict[str, int]:
    """Write ``apibank_clean_<split>.jsonl`` (and the perturbed set) from one directory of items, which
    must all fall on one side of the split; returns the counts."""
    errors = load_agent_errors(source)
    clean: list[tuple[str, dict[str, Any]]] = []
    edited: list[tuple[str, dict[str, Any]]] = []
    sides: set[str] = set()
    counts = {"items": 0, "kept": 0, "agent_errors": 0}
    for item in load(source):
        counts["items"] += 1
        sides.add(split_of(domain_of(item["file"])))
        line = line_of(item, errors)
        if line is None:
            continue
        counts["kept"] += 1
        if line["label"]["hallucinated"]:
            counts["agent_errors"] += 1
            clean.append(("agent_error", line))
            continue
        clean.append(("clean", line))
        user = [m["content"] for m in line["messages"] if m["role"] == "user"][-1]
        edited += perturb(line, user)
        extra = named_date_edit(line)
        if extra is not None:
            edited.append(extra)
    if len(sides) != 1:
        raise ValueError(f"{source}: items of both sides of the split (or none): {sorted(sides)}")
    side = sides.pop()
    _write(out / f"apibank_clean_{side}.jsonl", clean)
    if perturbed:
        _write(out / f"apibank_perturbed_{side}.jsonl", edited)
    counts["perturbed_lines"] = len(edited)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("source", type=Path, help="a directory of items (apibank_dev/ or apibank_heldout/)")
    parser.add_argument("--perturbed", action="store_true", help="also write the single-fact edit set")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    counts = build(args.source, args.out, perturbed=args.perturbed)
    print(json.dumps(counts), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
