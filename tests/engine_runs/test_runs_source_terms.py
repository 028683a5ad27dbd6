"""Issue 14, thirteenth round (h22i): the word an answer uses for its source is no name.

Short assistant answers after an API result often cite it: "According to the API, the devices are ...",
"the URL you gave". "API" and "URL" are general vocabulary of technology, like "FAQ" or "PDF", not a proper
name of a kind the results hold; an acronym of a firm the results do not give is still flagged. The runs are
made up for these tests.
"""

from __future__ import annotations

from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run

_SCENE = (
    "[{'name': 'Light', 'description': 'Smart light in the hallway'}, "
    "{'name': 'Heater', 'description': 'Smart heater in the bedroom'}]"
)


def _run(answer: str) -> list[dict[str, Any]]:
    call = {
        "id": "c0",
        "type": "function",
        "function": {"name": "QueryScene", "arguments": '{"name": "Evening"}'},
    }
    return [
        {"role": "user", "content": "Which devices are in the Evening scene?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "name": "QueryScene", "content": _SCENE},
        {"role": "assistant", "content": answer},
    ]


def _names(answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(answer)))]


def test_it_reads_the_api_an_answer_cites_as_no_name():
    answer = (
        "According to the API, the Evening scene holds the smart light in the hallway and the smart heater."
    )
    assert _names(answer) == []


def test_it_reads_apis_and_urls_as_no_names():
    answer = "Both APIs agree: the Evening scene has a light and a heater. The URL you sent is not needed."
    assert _names(answer) == []


def test_it_still_flags_an_acronym_of_a_firm_beside_the_api():
    answer = "According to the API, the Evening scene holds a light and a heater made by GE."
    assert _names(answer) == ["GE"]
