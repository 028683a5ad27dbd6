"""Names and towns with few or no cues, sixth pass (issue 16, helper h19d): a sign-off or a form's
label on the line above a name, a greeting before a first name that is also a word or a town, names
written in lower case in chats, towns after verbs of travel and after "from X to".

Every example below is invented for these tests; the names and towns are made up or common.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii
from verification.engine.safety.pii_names import find_names, may_find


def _found(text: str, kind: str) -> list[str]:
    return [m.value for m in find_names(text) if m.type == kind]


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Thanks for the quick fix!\ncheers\nErika", "Erika"),
        ("Let me know if it breaks again.\nBest\nTrevor", "Trevor"),
        ("see you monday\nthx\nGabriel", "Gabriel"),
        ("All sorted now.\nMany thanks\nKimberly Sims", "Kimberly Sims"),
        ("Name\nHeather Monroe\nEmail\nnone given", "Heather Monroe"),
        ("Contact person:\nJordan Woods", "Jordan Woods"),
    ],
)
def test_it_reads_a_name_alone_on_the_line_after_a_sign_off_or_label(text: str, name: str) -> None:
    assert _found(text, "person") == [name]


@pytest.mark.parametrize(
    "text",
    [
        "Thanks\nPlease find the report attached.",
        "Best\nWindows 11 build is out",
        "cheers\nThe Support Team",
        "Name\nSee the attached form for details and more.",
    ],
)
def test_it_reads_no_name_after_a_sign_off_when_the_line_is_a_sentence(text: str) -> None:
    assert _found(text, "person") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Hi Chelsea,\nyour order shipped today.", "Chelsea"),
        ("Hey Amber - quick question about the invoice", "Amber"),
        ("Good morning Rebecca! The room is booked.", "Rebecca"),
    ],
)
def test_it_reads_the_one_greeted(text: str, name: str) -> None:
    assert _found(text, "person") == [name]


@pytest.mark.parametrize("text", ["Hello World!", "Hi Berlin!", "Hi Team,", "hello everyone, good morning!"])
def test_it_greets_no_person_in_a_word_or_a_town(text: str) -> None:
    assert _found(text, "person") == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("i talked to leslie carroll yesterday and she agreed", "leslie carroll"),
        ("can you ask heather monroe about the refund?", "heather monroe"),
        ("ping donna o'sullivan when the deploy is done", "donna o'sullivan"),
        ("lol cindy smith forgot the password again", "cindy smith"),
        ("vincent pittman is out sick today", "vincent pittman"),
        ("ok i spoke with björn berger", "björn berger"),
    ],
)
def test_it_reads_a_name_written_in_lower_case_after_a_cue(text: str, name: str) -> None:
    assert may_find(text, text)
    assert _found(text, "person") == [name]
    assert name not in redact_pii(text).text


@pytest.mark.parametrize(
    "text",
    [
        "she can be an honorable leader and loyal ally",
        "can you ask grant access for the master branch?",
        "the server is down, ping support when the port is ready",
        "i talked to many people about it",
        "will smith is an actor",  # no cue: "will" is a word first
    ],
)
def test_it_reads_no_lower_case_name_in_words(text: str) -> None:
    assert _found(text, "person") == []


@pytest.mark.parametrize(
    ("text", "towns"),
    [
        ("Just landed in Bestchester, will call later.", ["Bestchester"]),
        ("She commutes from Pichondan every day.", ["Pichondan"]),
        ("We moved from Gomezboeuf to Juliennec last year.", ["Gomezboeuf", "Juliennec"]),
        ("Location\nMurillostad", ["Murillostad"]),
    ],
)
def test_it_reads_towns_after_travel_and_from_to(text: str, towns: list[str]) -> None:
    assert _found(text, "location") == towns


@pytest.mark.parametrize(
    "text",
    [
        "Please send it to Marcus by Friday.",
        "We moved from Python 2 to Python 3 last year.",
        "The answer moved from Step 1 to Step 2.",
    ],
)
def test_it_reads_no_town_after_to_without_a_place_before(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type == "location"] == []
