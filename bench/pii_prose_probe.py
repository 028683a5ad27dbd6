"""A development probe of lone first names and towns in running prose, and of phone numbers whose label
comes after the number (issue 16, fifteenth round, helper h24f).

Faker's first names and towns of eight locales (en_US, en_GB, de_DE, fr_FR, it_IT, es_ES, pt_BR, nl_NL)
in sentences written here: a first name as the subject or object of a verb with no title, greeting or
label ("... and Margaret said ...", "I forwarded it to Jonas"), a town after a verb of travel or a
preposition of place in running text ("we drove to Tillamook"), and US and national phone layouts with
the label after the number ("555 234 5678 (mobile)", "020 7946 0018 fax", "5835929779-Office").
Two template groups: ``dev`` (seed 2424; its misses were read to write rules) and ``check`` (seed 4242,
other wording of the same classes: only counted, the rule writer's own held-out part).  Counts the
values still readable after ``redact_pii``.

Run:  python bench/pii_prose_probe.py [--group dev|check] [--show 3] [--kind first town phone]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pii_names_probe import group_probe_main  # noqa: E402

LOCALES = ["en_US", "en_GB", "de_DE", "fr_FR", "it_IT", "es_ES", "pt_BR", "nl_NL"]
SEEDS = {"dev": 2424, "check": 4242}
PER_TEMPLATE = 5
# {v} is the value; {w} a second value of the same kind (checked too).
TEMPLATES = {
    "dev": {
        "first": (
            "I asked around and {v} said the patch was fine.",
            "Yesterday {v} and I went over the logs together.",
            "The meeting ran long because {v} had more questions.",
            "I forwarded the whole thread to {v} this morning.",
            "According to {v}, the invoice was already paid.",
            "Can you check with {v} before merging?",
            "We waited an hour, then {v} finally showed up.",
            "Both {v} and {w} signed off on the change.",
        ),
        "town": (
            "Last weekend we drove to {v} to see the coast.",
            "The conference in {v} was better than expected.",
            "She grew up near {v} and still visits often.",
            "We stopped for lunch in {v} on the way back.",
            "The storm hit {v} hard last night.",
            "They are opening a second shop in {v} next year.",
        ),
        "phone": (
            "You can reach me on {v} (mobile) after five.",
            "{v} fax",
            "Numbers: {v} (work), {w} (home)",
            "Call {v}-Office if the line is busy.",
            "{v} - cell",
            "Her details changed to {v} mobile, email unchanged.",
        ),
    },
    "check": {
        "first": (
            "When I called, {v} told me the order had shipped.",
            "Last week {v} and I fixed the deploy script.",
            "The release slipped because {v} was on leave.",
            "I handed the keys over to {v} at noon.",
            "As {v} pointed out, the totals do not match.",
            "Please sync with {v} before you deploy.",
            "After lunch {v} came back with the figures.",
            "Either {v} or {w} can approve it.",
        ),
        "town": (
            "On Sunday we drove out to {v} for the market.",
            "The workshop in {v} was well attended.",
            "He was raised near {v} and moved away at twenty.",
            "We had dinner in {v} before heading home.",
            "Flooding closed the roads around {v} this morning.",
            "The bakery plans a new branch in {v} this autumn.",
        ),
        "phone": (
            "Text me at {v} (cell) when you land.",
            "{v} office",
            "Phones: {v} (home), {w} (mobile)",
            "Reach the desk at {v}-Work during the day.",
            "{v} - mobile",
            "Updated to {v} cell, address unchanged.",
        ),
    },
}
# National layouts of the locales whose Faker numbers start with a trunk "0" (no "+"); the others get
# a NANP number in one of these layouts.
_NANP_LAYOUTS = ("{a} {b} {c}", "({a}) {b}-{c}", "{a}{b}{c}", "{a}-{b}-{c}", "{a}.{b}.{c}")


def value_of(fake: Any, kind: str) -> str:
    if kind == "first":
        return str(fake.first_name())
    if kind == "phone":
        number = str(fake.phone_number())
        if number.startswith("0") and fake.random.random() < 0.5:
            return number
        area = fake.random.randint(2, 9) * 100 + fake.random.randint(1, 98)
        exchange = fake.random.randint(2, 9) * 100 + fake.random.randint(0, 99)
        line = fake.random.randint(0, 9999)
        layout = fake.random.choice(_NANP_LAYOUTS)
        return layout.format(a=f"{area:03d}", b=f"{exchange:03d}", c=f"{line:04d}")
    return str(fake.city())


def main(argv: list[str] | None = None) -> int:
    return group_probe_main(__doc__, TEMPLATES, SEEDS, LOCALES, PER_TEMPLATE, value_of, argv)


if __name__ == "__main__":
    raise SystemExit(main())
