"""Names pass cost (issue 16, helper h16q): the cheaper forms read exactly what the first forms read.

Every example below is invented for these tests.
"""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.safety import pii_names

_GROUPS = ("lead", "street", "low", "number", "tail", "town", "postcode")


def _two_steps(text: str) -> list[tuple[int, tuple[int, int] | None, tuple[object, ...]]]:
    """The first form: every cue of ``_ADDRESS_CUE``, then ``_STREET_ADDRESS`` matched at its end."""
    out: list[tuple[int, tuple[int, int] | None, tuple[object, ...]]] = []
    for cue in pii_names._ADDRESS_CUE.finditer(text):
        match = pii_names._STREET_ADDRESS.match(text, cue.end())
        if match is None:
            out.append((cue.start(), None, ()))
        else:
            spans = tuple((match.group(g), match.span(g)) for g in _GROUPS)
            out.append((cue.start(), match.span(), spans))
    return out


def _one_scan(text: str) -> list[tuple[int, tuple[int, int] | None, tuple[object, ...]]]:
    """The live form: ``_CUE_STREET``, the address read in a look-ahead at the cue's end."""
    out: list[tuple[int, tuple[int, int] | None, tuple[object, ...]]] = []
    for match in pii_names._CUE_STREET.finditer(text):
        if match.group("address") is None:
            out.append((match.start(), None, ()))
        else:
            spans = tuple((match.group(g), match.span(g)) for g in _GROUPS)
            out.append((match.start(), match.span("address"), spans))
    return out


@pytest.mark.parametrize(
    "text",
    [
        "Please ship it to 14 Quarry Lane, Eastbrook, 30412 by Friday.",
        "address: 9 rue des Lilas 4, Marvelle and then at Ostrova 12",
        "We met in 2019 at Harlow Court 3. From Pine 8 to Oak 9, then on ul. Zielna 5/2.",
        "an Oak 12 and it Elm 3 at an Birch 4",  # cues the pass drops ("an", "it") and a particle
        "address   is  :   Corso Vela 22\nto \n 5",
        "Nothing here at all, to be honest, in 3 days.",
    ],
)
def test_it_reads_the_same_cues_and_addresses_in_one_scan_as_in_two(text: str) -> None:
    assert _one_scan(text) == _two_steps(text)
    assert _two_steps(text)  # every example has a cue


_PIECES = [*"AaTtOo .,:/\t\n-", "12 ", "4b", "at ", "to ", "in ", "on ", "from ", "address ", "Address is: "]
_PIECES += [
    "an ",
    "it ",
    "de ",
    "van ",
    "ul. ",
    "rue ",
    "Quarry ",
    "Lane ",
    "St ",
    "Marvelle",
    "2019 ",
    "ed ",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_it_reads_the_same_cues_and_addresses_in_one_scan_as_in_two_on_any_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert _one_scan(text) == _two_steps(text)


def test_it_keeps_the_first_forms_patterns_inside_the_combined_one() -> None:
    # The combined pattern is built from the two, so that a change to either reaches the scan.
    assert pii_names._ADDRESS_CUE.pattern in pii_names._CUE_STREET.pattern
    assert pii_names._STREET_ADDRESS.pattern in pii_names._CUE_STREET.pattern
    assert re.compile(pii_names._CUE_STREET.pattern).groupindex.keys() >= {"address", *_GROUPS}


@pytest.mark.parametrize(
    "text", ["The guests: Ingrid, Harald, and Sven.", "Our kids: Olga, Ingrid, and Sven, all asleep."]
)
def test_it_reports_a_listed_name_that_is_also_addressed_once(text: str) -> None:
    # "Harald, and" reads as a name addressed after a comma and as a word of the list after the colon.
    found = pii_names.find_names(text)
    spans = [(m.start, m.end) for m in found]
    assert len(spans) == len(set(spans)) >= 3
    for left, right in itertools.pairwise(found):
        assert left.end <= right.start
