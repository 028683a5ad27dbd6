"""Issue 14, fifteenth round (h24e): a code made an adjective ("A4-style", "A4-sized") is the code.

The luna dev5 answer "Your bag is within the A4-style limit" (Wembley's page: "not bigger than A4 size")
was flagged as an identifier no result gives: the id pattern took the hyphenated adjective with the code.
A code joined to a word that only says "of that kind" ("-style", "-size", "-type", "-compatible", ...) is
checked as the code itself; another code stays a claim, and so does a code whose tail is no such word.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.engine_runs.runs_helpers import flagged, text_result_run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

ROOT = Path(__file__).resolve().parents[2]

_PAGE = (
    "content: '# Bag policy\n\n  Each person may bring one small bag."
    " The bag must not be bigger than A4 size:\n"
    "  Height: 297 mm, Width: 210 mm, Depth: 210 mm.'\ntitle: Restricted Bag Policy"
)


def _flags(result: str, answer: str) -> list[str]:
    run = text_result_run("Can I bring my backpack to the stadium?", result, answer, "open_webpage")
    return [t for t, _ in flagged(verify_run(run))]


@pytest.mark.parametrize("tail", ["style", "sized", "size", "type", "compatible"])
def test_a_code_made_an_adjective_is_the_code(tail: str) -> None:
    answer = f"Your bag is within the A4-{tail} limit, so you can bring it."
    assert _flags(_PAGE, answer) == []


def test_another_code_made_an_adjective_stays_a_claim() -> None:
    answer = "Your bag is within the B5-style limit, so you can bring it."
    assert any("B5" in t for t in _flags(_PAGE, answer))


def test_a_code_whose_tail_is_no_descriptor_stays_one_identifier() -> None:
    # "LM593-late" is no "of that kind" adjective: the whole token is the identifier, and no result has it.
    answer = "Your bag is within the limit; your flight LM593-late leaves at 15:00."
    assert "LM593-late" in _flags(_PAGE, answer)


def test_the_mention_is_the_code_without_its_tail() -> None:
    got = [(m.kind, m.text) for m in extract_mentions("a USB4-compatible dock and an A4-style bag")]
    assert ("id", "USB4") in got and ("id", "A4") in got
    assert not any(t.endswith(("-compatible", "-style")) for _, t in got)


def test_the_luna_dev5_line_of_the_class_has_no_false_alarm() -> None:
    lines = (ROOT / "bench/corpora/runs/luna_clean_dev5.jsonl").read_text(encoding="utf-8").splitlines()
    line = next(json.loads(x) for x in lines if json.loads(x)["id"] == "luna-ticketing-t03")
    assert flagged(verify_run(line["messages"])) == []


# A browsing model's source marker left in the answer (luna dev5, ticketing t07): private-use characters
# around "cite", "turn0search0". It cites a result; it is no identifier.
_MARKER = "\ue200cite\ue202turn0search0\ue201"


def test_a_source_marker_is_no_identifier() -> None:
    answer = f"You may bring one small bag, no bigger than A4 size. {_MARKER}"
    assert _flags(_PAGE, answer) == []
    bare = "You may bring one small bag, no bigger than A4 size. citeturn0search0"
    assert _flags(_PAGE, bare) == []


def test_a_code_next_to_a_marker_is_still_read_elsewhere() -> None:
    # The marker goes; another code of the answer is still checked.
    answer = f"Your bag is within the B5 limit. {_MARKER}"
    assert any("B5" in t for t in _flags(_PAGE, answer))


def test_the_luna_dev5_line_with_a_marker_has_no_false_alarm() -> None:
    lines = (ROOT / "bench/corpora/runs/luna_clean_dev5.jsonl").read_text(encoding="utf-8").splitlines()
    line = next(json.loads(x) for x in lines if json.loads(x)["id"] == "luna-ticketing-t07")
    assert flagged(verify_run(line["messages"])) == []
