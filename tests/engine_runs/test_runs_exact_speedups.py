"""Cheaper look-ups of the run verifier that must answer exactly as the code they replace (issue 14, h19e:
latency of long answers against big results). Each test compares the new look-up with the old one's
definition on made-up inputs."""

from __future__ import annotations

import random
import re

from verification.engine.runs.findings import Finding
from verification.engine.runs.grounding import _earlier_supported, _number_then_noun
from verification.engine.runs.mentions import extract_mentions


def _pattern_finds(haystack: str, number: str, noun: str) -> bool:
    # The regular expression ``Matcher._literal_with_noun`` ran over the whole haystack before.
    return re.search(rf"(?<![\d.,]){re.escape(number)}[ -]?{re.escape(noun)}", haystack) is not None


def test_it_finds_a_number_before_its_noun_as_the_look_behind_pattern_does() -> None:
    rng = random.Random(19)
    pieces = [
        "4",
        "14",
        "1.4",
        ",4",
        "٤",
        "٣4",
        " ",
        "-",
        "piece",
        "pieces",
        "4-piece",
        "x",
        "|",
        "4 piece",
        ".",
    ]
    for _ in range(4000):
        haystack = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 9)))
        number = rng.choice(["4", "14", "1.5", "٤"])
        noun = rng.choice(["piece", "", "pi", "-piece", " piece"])
        assert _number_then_noun(haystack, number, noun) == _pattern_finds(haystack, number, noun), (
            haystack,
            number,
            noun,
        )


def test_it_reads_the_supported_values_before_a_value_from_their_start_on() -> None:
    answer = "It costs $12, then $7 and 3 units; 9 km at $40, $5, $6 and $8 for 2 nights, $30 in all."
    mentions = sorted(extract_mentions(answer), key=lambda m: m.start)
    assert len(mentions) >= 8
    rng = random.Random(5)
    for _ in range(200):
        findings = [
            Finding(m, rng.choice(["SUPPORTED", "UNSUPPORTED", "CONTRADICTED"]), (0, len(answer)))
            for m in mentions
        ]
        starts = [f.mention.start for f in findings]
        for before in range(0, len(answer) + 2, 3):
            assert _earlier_supported(findings, before, starts) == _earlier_supported(findings, before)
