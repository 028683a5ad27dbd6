"""The names pass on long texts of one repeated shape: the same matches as on short ones.

Four steps of the names pass asked every match (or line) about all the others, so a transcript of one
speaker, a long list of one name or a text of many lines cost time quadratic in its length (200,000
characters of "Maria: hi" lines took seconds).  They now count or mark once; these tests hold the results
of the rewritten steps to what the old forms gave, at lengths where the old forms were slow.
"""

from __future__ import annotations

from verification.engine.safety.pii_names import find_names


def _people(text: str) -> list[str]:
    return [m.value for m in find_names(text) if m.type == "person"]


def test_it_reads_a_repeated_speaker_label_on_every_line_of_a_long_transcript() -> None:
    text = "Maria: hi\n" * 5000
    assert _people(text) == ["Maria"] * 5000


def test_it_finds_every_mention_of_a_name_in_a_long_list() -> None:
    # The second and later mentions come from the same-value step (the covered characters).
    text = "Anna Schultz signed first. " + "Then Anna Schultz, " * 3000 + "and nobody else."
    people = _people(text)
    assert people.count("Anna Schultz") == 3001


def test_it_still_reads_a_list_of_partners_as_a_firm() -> None:
    # The firm list is bounded; a short list of surnames before "and" is still a firm, not people.
    assert "Gibson" not in _people("We hired Gibson, Campbell and Bush for the audit.")


def test_it_reads_a_country_on_the_last_line_after_blank_lines_too() -> None:
    # "The last line with content" is found once; blank lines after it do not hide it.
    text = "Ship to\n\nKisbarát\nHungary\n\n\n"
    places = [m.value for m in find_names(text) if m.type == "location"]
    assert "Hungary" in places and "Kisbarát" in places
