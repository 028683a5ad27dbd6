"""A person's name made of two people's names: "Lucas Smith" beside "Ivan Smith" and "Lucas Davis" (issue 14).

A full name whose words each appear in the run was supported word by word ("its words all appear in the
evidence"). When the results keep people as ``first_name`` / ``last_name`` fields of one object (a user,
saved passengers, a booking's passengers), a full name is one of those objects: a first name of one person
told with the last name of another names nobody, and the name is contradicted, citing the people who have
that last name. A name whose last word is no ``last_name`` of the results, or whose first word is no
``first_name``, is left as it was (a name of something else, or a nickname).
"""

from __future__ import annotations

from typing import Any

from .evidence import Evidence, Fact, normalize_text
from .findings import Finding

__all__ = ["check_person_names"]

_WORDS_REASON = "its words all appear in the evidence"


def _people(ev: Evidence) -> dict[tuple[Any, ...], dict[str, Fact]]:
    """The results' objects with a first or last name, by (message, path of the object): their two fields."""
    people: dict[tuple[Any, ...], dict[str, Fact]] = {}
    for x in ev.strings:
        if x.source != "tool" or not isinstance(x.path, tuple) or not x.path:
            continue
        key = x.path[-1]
        if key in ("first_name", "last_name") and isinstance(x.value, str):
            people.setdefault((x.message_index, *x.path[:-1]), {})[key] = x
    return people


def check_person_names(findings: list[Finding], ev: Evidence) -> None:
    """Relabel, in place, a full name that joins one person's first name to another person's last name."""
    people: dict[tuple[Any, ...], dict[str, Fact]] | None = None
    for f in findings:
        m = f.mention
        if m.kind != "entity" or f.label != "SUPPORTED" or f.reason != _WORDS_REASON:
            continue
        words = normalize_text(m.text).split()
        if len(words) < 2:
            continue
        if people is None:
            people = _people(ev)
            if not people:
                return
        first, last = words[0], words[-1]
        with_last = [p for p in people.values() if "last_name" in p and p["last_name"].value == last]
        with_first = [p for p in people.values() if "first_name" in p and p["first_name"].value == first]
        if not with_last or not with_first:
            continue
        if any("first_name" in p and p["first_name"].value == first for p in with_last):
            continue
        f.label, f.derived = "CONTRADICTED", False
        f.facts = [x for p in with_last for x in (p.get("first_name"), p["last_name"]) if x is not None][:3]
        f.reason = "no person of the results has this first and last name"
