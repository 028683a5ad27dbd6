"""Phone numbers whose label comes after the number, lone first names and towns in running prose
(issue 16, fifteenth round, helper h24f).

Every example below is invented for these tests; the numbers are made up, the names and towns common.
"""

from __future__ import annotations

import pytest

from verification.engine.safety import detect_pii, redact_pii


def _values(text: str, kind: str) -> list[str]:
    return [m.value for m in detect_pii(text) if m.type == kind]


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        # Ten digits in a row, or a national layout, need a phone word: after the number it counts too.
        ("8164180474 fax", "phone_nanp", "8164180474"),
        ("Please use 4534893096 (mobile) after five.", "phone_nanp", "4534893096"),
        ("Her details changed to 9853600621 mobile, email unchanged.", "phone_nanp", "9853600621"),
        ("7297517299 - cell", "phone_nanp", "7297517299"),
        ("Office: 5155633292-Office", "phone_nanp", "5155633292"),
        ("0467029574 fax", "phone_national", "0467029574"),
        ("Call 01227 323236-Office if the line is busy.", "phone_national", "01227 323236"),
        # A weak label word ("home", "work", "office") in brackets, after a dash or ending its line.
        ("Numbers: 2848186643 (home)", "phone_nanp", "2848186643"),
        ("Jo Doe\n5155633292 work\njo@example.org", "phone_nanp", "5155633292"),
    ],
)
def test_it_reads_a_phone_label_written_after_the_number(text: str, kind: str, value: str) -> None:
    assert value in _values(text, kind)
    assert value not in redact_pii(text).text


@pytest.mark.parametrize(
    "text",
    [
        # A weak label word in running text is no label.
        "Build 5155633292 home page is up.",
        "Batch 5155633292 work item closed",
        # What names a number as something else still wins ("order", "ticket", "SKU").
        "order 5155633292 fax",
        "ticket 5155633292 (mobile)",
        "SKU 0467029574 fax",
        # Longer digit runs and words glued to the label are not phone numbers.
        "id 1234567890123 fax",
        "ref 5155633292fax",
        # Without a separator before the label, nothing.
        "5155633292mobile",
    ],
)
def test_a_label_word_after_a_number_that_is_no_phone_stays_out(text: str) -> None:
    assert [m for m in detect_pii(text) if m.type.startswith("phone")] == []


def _people(text: str) -> list[str]:
    return [m.value for m in detect_pii(text) if m.type == "person"]


def _places(text: str) -> list[str]:
    return [m.value for m in detect_pii(text) if m.type == "location"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # Oneself and another: only a person goes "X and I", even a first name that is a town's too.
        ("Yesterday Teresa and I went over the logs together.", ["Teresa"]),
        ("The review is between Shelby and me.", ["Shelby"]),
        # An adverb, then a verb in the past.
        ("We waited an hour, then Mary finally showed up.", ["Mary"]),
        ("Lucas just said the build is green.", ["Lucas"]),
        # A verb of what a person did in a thread.
        ("The totals were off until Stacy explained the rounding.", ["Stacy"]),
        # Two listed first names joined by "and", one neither a word nor a town's name.
        ("Both Michael and Elizabeth signed off on the change.", ["Michael", "Elizabeth"]),
        ("I want to plan a trip with Annie and Charlie next week.", ["Annie", "Charlie"]),
    ],
)
def test_it_reads_a_lone_first_name_by_what_only_a_person_does(text: str, names: list[str]) -> None:
    assert _people(text) == names
    redacted = redact_pii(text).text
    assert not any(name in redacted for name in names)


@pytest.mark.parametrize(
    "text",
    [
        # Words, towns and firms joined by "and" stay out.
        "Salt and Pepper are on the table.",
        "Sydney and Mark streets meet here.",
        "Will and Grace was a sitcom.",
        "Johnson and Johnson makes plasters.",
        "Offices of Lee, Sanders and Tran are closed.",
        "The effect is well known (Dawson & Reid, 1997).",
        "Maddox and Howard v. Moore concerned the president.",
        "He was a member of T. Rex and Sky for a year.",
        # The adverb rule wants a listed first name, and "and I" a capitalised word no stop word.
        "Berlin finally approved the budget.",
        "Python and I never got along.",
        "The team then finally shipped it.",
    ],
)
def test_words_firms_and_towns_joined_like_people_stay_out(text: str) -> None:
    assert _people(text) == []


@pytest.mark.parametrize(
    ("text", "town"),
    [
        # Living or growing up near a place, staying or stopping in it: towns no list holds too.
        ("She grew up near Martineaudan and still visits often.", "Martineaudan"),
        ("We stopped in Brunetdan on the way back.", "Brunetdan"),
        ("They stayed in Kelliside for a week.", "Kelliside"),
    ],
)
def test_it_reads_a_town_near_which_one_lives_or_where_one_stays(text: str, town: str) -> None:
    assert town in _places(text)


@pytest.mark.parametrize(
    "text",
    ["She grew up near The Coast.", "Prices stayed in March flat.", "We stopped in May for a rest."],
)
def test_capitalised_words_after_a_stay_that_are_no_town_stay_out(text: str) -> None:
    assert _places(text) == []
