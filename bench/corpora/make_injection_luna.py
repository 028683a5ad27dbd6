"""Build ``bench/corpora/injection_luna.jsonl`` from tool results transcribed out of real agent runs.

Source: the public trajectories of ``Liu-Ruotian/agentdojo-luna-trajectories`` at commit
55cc6d0c941bc49ef61cc1d07b9a2d776e149ab1 (see ``injection_luna.NOTICE.md``).  The texts were read
with a search tool and transcribed by hand into ``injection_luna_src/<domain>.txt``; this script
only turns those files into the JSONL format of ``../shared/eval/injection_external_dev.jsonl``
(fields ``id``, ``text``, ``label``, ``source``, ``kind``) plus provenance fields.

Each record in a source file starts with a header line::

    === <id> | <run> | <tool> | <url, doc id or "record"> [| POISON]

followed by the tool-result text.  ``| POISON`` marks a page the benchmark itself lists in the
run's ``poison_doc_ids``; it becomes ``label: injection, kind: indirect``.  Every other text is a
benign tool result (``label: benign, kind: document``).  Labels follow the benchmark's marking, not
our judgement; doubts are kept in ``label_note``.

    .venv/bin/python bench/corpora/make_injection_luna.py            # writes the JSONL
    .venv/bin/python bench/eval_injection_external.py --path bench/corpora/injection_luna.jsonl
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "injection_luna_src"
OUT = HERE / "injection_luna.jsonl"
HEADER = "=== "

# Why a poisoned page's label is doubtful, keyed by record id (the benchmark's label is kept).
LABEL_NOTES: dict[str, str] = {
    "saas-t04-p1": (
        "listed in poison_doc_ids, but the page body is the literal placeholder "
        "'[POISONED_PROCEDURAL_PLACEHOLDER]': no attack text was ever filled in"
    ),
}


@dataclass(frozen=True)
class Record:
    """One transcribed tool result with its provenance."""

    rid: str
    run: str
    tool: str
    ref: str
    poisoned: bool
    text: str


def source_name(tool: str, ref: str) -> str:
    """Slice name for the eval table: what kind of tool result the text is."""
    if tool == "open_webpage":
        return "luna_webpage"
    if tool == "search_web":
        return "luna_search_results"
    if tool == "retrieve_internal_doc":
        return "luna_internal_doc"
    return "luna_record" if ref == "record" else f"luna_{tool}"


def parse_header(line: str) -> tuple[str, str, str, str, bool]:
    """Split ``=== id | run | tool | ref [| POISON]`` into its fields."""
    parts = [p.strip() for p in line[len(HEADER) :].split("|")]
    if len(parts) not in (4, 5) or (len(parts) == 5 and parts[4] != "POISON"):
        raise ValueError(f"bad header: {line!r}")
    return parts[0], parts[1], parts[2], parts[3], len(parts) == 5


def parse_file(path: Path) -> list[Record]:
    """Read one domain file into records; text keeps its inner blank lines, not the outer ones."""
    records: list[Record] = []
    header: tuple[str, str, str, str, bool] | None = None
    body: list[str] = []

    def flush() -> None:
        if header is not None:
            rid, run, tool, ref, poisoned = header
            records.append(Record(rid, run, tool, ref, poisoned, "\n".join(body).strip("\n")))

    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith(HEADER):
            flush()
            header, body = parse_header(line), []
        else:
            body.append(line)
    flush()
    return records


def to_row(rec: Record) -> dict[str, str]:
    """The JSONL row, in the external-set format plus provenance."""
    row = {
        "id": f"luna-{rec.rid}",
        "text": rec.text,
        "label": "injection" if rec.poisoned else "benign",
        "source": source_name(rec.tool, rec.ref),
        "kind": "indirect" if rec.poisoned else "document",
        "run": rec.run,
        "tool": rec.tool,
        "ref": rec.ref,
    }
    if rec.rid in LABEL_NOTES:
        row["label_note"] = LABEL_NOTES[rec.rid]
    return row


def main() -> int:
    """Write the corpus and print counts per label and source."""
    records = [r for path in sorted(SRC.glob("*.txt")) for r in parse_file(path)]
    ids = [r.rid for r in records]
    if len(ids) != len(set(ids)):
        raise SystemExit("duplicate ids in injection_luna_src")
    rows = [to_row(r) for r in records]
    with OUT.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    counts: dict[str, int] = {}
    for row in rows:
        key = f"{row['label']}/{row['source']}"
        counts[key] = counts.get(key, 0) + 1
    print(f"{len(rows)} rows -> {OUT.name}", file=sys.stderr)
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
