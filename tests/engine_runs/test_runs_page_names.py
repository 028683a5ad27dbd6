"""Issue 14, fifteenth round (h24e): names of web pages read mid-sentence (luna dev5, automotive t12).

Two false alarms of one answer that quotes the pages it opened: "eTags" (a brand whose first letter is lower
case) was read from its capital as "Tags", a name no text of the run has; and the imperative "Gather" after
a bold sentence ("3. **Start the transfer.** Gather the signed title") was read as a name, the sentence
having ended inside the bold marks. Each has a negative that must stay flagged.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine_runs.runs_helpers import flagged, text_result_run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

ROOT = Path(__file__).resolve().parents[2]

_PAGE = (
    "content: '# Buy, Title, and Register a Used Electric Vehicle\\n\\n  The page presents eTags online title"
    " transfer and registration as a service for processing used-EV paperwork.'\\ntitle: eTags"
)


def _flags(result: str, answer: str) -> list[str]:
    run = text_result_run("Where should my title transfer go?", result, answer, "open_webpage")
    return [t for t, _ in flagged(verify_run(run))]


def test_a_brand_with_a_lower_case_first_letter_is_read_whole() -> None:
    answer = "You can finish the title transfer through eTags, which processes the paperwork online."
    assert _flags(_PAGE, answer) == []
    got = [(m.kind, m.text) for m in extract_mentions("through eTags or an iPhone")]
    assert ("entity", "eTags") in got and ("entity", "iPhone") in got


def test_another_brand_of_that_form_stays_a_claim() -> None:
    answer = "You can finish the title transfer through eFiles, which processes the paperwork online."
    assert "eFiles" in _flags(_PAGE, answer)


def test_an_imperative_after_a_bold_sentence_is_no_name() -> None:
    answer = "1. **Start the title transfer.** Gather the signed title and send it through eTags."
    assert _flags(_PAGE, answer) == []


def test_a_name_after_a_bold_sentence_is_still_checked() -> None:
    answer = "1. **Start the title transfer.** Then Parcelo Express will collect the signed title."
    assert "Parcelo Express" in _flags(_PAGE, answer)


def test_the_luna_dev5_line_of_the_class_has_no_false_alarm() -> None:
    lines = (ROOT / "bench/corpora/runs/luna_clean_dev5.jsonl").read_text(encoding="utf-8").splitlines()
    line = next(json.loads(x) for x in lines if json.loads(x)["id"] == "luna-automotive-t12")
    assert flagged(verify_run(line["messages"])) == []
