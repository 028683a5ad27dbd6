"""A code told with a place that is another airport's: "from Houston (ORD)" (issue 14).

Agents write an airport's city before its code, "from Houston (IAH) to Denver (DEN)". When the code is
another one of the run's airports ("Houston (ORD)", ORD being Chicago's, with IAH in the results), the
sentence names two airports at once and one of them is wrong: the code, the checkable value, is flagged,
citing the results' code the place names. The places of a code are those of ``lexicon.AIRPORT_PLACES``
(a city, the airport's names); a place names a code when it is one of them or one is a longer form of it
("New York" and EWR's "new york city"). A place that names no airport of the results, or also names the
code told, decides nothing.
"""

from __future__ import annotations

import re

from .evidence import Evidence, normalize_text
from .findings import Finding
from .lexicon import AIRPORT_PLACES

__all__ = ["check_code_places"]

# Up to four capitalised words (joined by spaces, "/" or "-") right before a three-capital code in
# parentheses: "Houston (IAH)", "Dallas/Fort Worth (DFW)", "Salt Lake City (SLC)".
_PLACE_CODE = re.compile(r"((?:[A-Z][a-z]+[ /-]){0,3}[A-Z][a-z]+) \(([A-Z]{3})\)")
# A code the results give as a whole string value.
_RESULT_CODE = re.compile(r'"([A-Z]{3})"')


def _names(place: str, code: str) -> bool:
    """Whether ``place`` (normalised) is one of ``code``'s places, or a shorter or longer form of one."""
    for p in AIRPORT_PLACES.get(code, "").split(";"):
        if p and (p == place or p.startswith(place + " ") or place.startswith(p + " ")):
            return True
    return False


def check_code_places(answer: str, findings: list[Finding], ev: Evidence) -> None:
    """Relabel, in place, a supported airport code told after a place that is another airport's of the run.

    >>> from .mentions import Mention
    >>> ev = Evidence(contents={1: '{"origin": "IAH", "destination": "ORD"}'})
    >>> ans = "Your trip from Houston (ORD) to Chicago (ORD)."
    >>> codes = [Finding(Mention("entity", m.start(), m.end(), "ORD"), "SUPPORTED", (0, len(ans)))
    ...          for m in re.finditer("ORD", ans)]
    >>> check_code_places(ans, codes, ev)
    >>> [(f.mention.start, f.label) for f in codes]
    [(24, 'CONTRADICTED'), (41, 'SUPPORTED')]
    """
    if "(" not in answer:
        return
    at = {f.mention.start: f for f in findings if f.mention.kind in ("entity", "id")}
    run_codes: set[str] | None = None
    for m in _PLACE_CODE.finditer(answer):
        f = at.get(m.start(2))
        code = m.group(2)
        if f is None or f.label != "SUPPORTED" or f.mention.text != code or code not in AIRPORT_PLACES:
            continue
        words = m.group(1).replace("/", " ").replace("-", " ").split()
        if run_codes is None:
            run_codes = {c for text in ev.contents.values() for c in _RESULT_CODE.findall(text)}
        # The longest run of the last words that names an airport ("trip Houston" is "Houston").
        named: set[str] = set()
        told = False
        for k in range(len(words)):
            place = normalize_text(" ".join(words[k:]))
            if _names(place, code):
                told = True
                break
            named = {c for c in run_codes if c != code and _names(place, c)}
            if named:
                break
        if told or not named:
            continue
        f.label, f.derived = "CONTRADICTED", False
        f.facts = [x for x in ev.strings if x.source == "tool" and x.text in named][:3]
        f.reason = f"{m.group(1)} is the place of {', '.join(sorted(named))}, not of this code"
