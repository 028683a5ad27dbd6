"""A development probe of lone names and places with few or no cues (issue 16, helper h23g): Faker's
people, towns and postcodes of eight locales that no committed set draws from together (en_AU, es_MX,
es_AR, de_CH, fr_CH, it_CH, sl_SI, et_EE; seed 2323) in sentences written here: a first and last name in
running text with no cue, names in lists, tables and CSV rows, greetings and sign-offs on one line, towns
after travel and address wording, a town with its postcode.  Two template groups: ``dev`` (its misses
were read to write rules) and ``check`` (other wording of the same classes, other seed: only counted, so
the rule writer's own held-out part).  Counts the values still readable after ``redact_pii``.

Run:  python bench/pii_cueless_probe.py [--group dev|check] [--show 3] [--kind name town ...]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from pii_names_probe import group_probe_main  # noqa: E402

LOCALES = ["en_AU", "es_MX", "es_AR", "de_CH", "fr_CH", "it_CH", "sl_SI", "et_EE"]
SEEDS = {"dev": 2323, "check": 3232}
PER_TEMPLATE = 5
# {v} is the value; {w} a second value of the same kind (checked too).
TEMPLATES = {
    "dev": {
        "name": (
            "The ticket was reopened after {v} complained about the delay.",
            "We escalated it because {v} needs the report by Friday.",
            "Attendees: {v}, {w}",
            "| 1 | {v} | approved |\n| 2 | {w} | pending |",
            "id,name,status\n7,{v},active\n8,{w},closed",
            "Thanks again, {v}",
            "Cheers, {v} (support)",
            "- {v}\n- {w}",
            "Assigned: {v}; reviewer: {w}",
        ),
        "first": (
            "Thanks {v}, that fixed it.",
            "Morning {v}, the build is green.",
            "Cheers, {v}",
        ),
        "town": (
            "We stayed two nights in {v} before the flight.",
            "The parcel is stuck at the depot in {v} since Monday.",
            "She relocated to {v} last spring.",
            "Our train to {v} was cancelled.",
            "Delivery address: {v}",
            "I returned to {v} after the course.",
        ),
        "town_code": (
            "Please ship it to {v} by Thursday.",
            "The office moved to {v} in March.",
        ),
    },
    "check": {
        "name": (
            "Yesterday {v} asked whether the invoice was paid.",
            "The form was signed by {v} on the second page.",
            "Participants: {v}, {w}",
            "| {v} | 3 | yes |\n| {w} | 5 | no |",
            "name;role\n{v};owner\n{w};viewer",
            "Many thanks, {v}",
            "Best, {v}",
            "* {v}\n* {w}",
            "Owner: {v}; backup: {w}",
        ),
        "first": (
            "Thank you {v}, it works now.",
            "Evening {v}, the deploy is done.",
            "Best, {v}",
        ),
        "town": (
            "We spent a week in {v} last summer.",
            "The truck waited at the warehouse in {v} all night.",
            "He moved to {v} in 2019.",
            "My bus to {v} leaves at six.",
            "Shipping address: {v}",
            "They came back to {v} after the wedding.",
        ),
        "town_code": (
            "Send the documents to {v}, please.",
            "Our branch relocated to {v} this year.",
        ),
    },
}


def value_of(fake: Any, kind: str) -> str:
    if kind == "first":
        return str(fake.first_name())
    if kind == "name":
        return f"{fake.first_name()} {fake.last_name()}"
    if kind == "town_code":
        return f"{fake.postcode()} {fake.city()}"
    return str(fake.city())


def main(argv: list[str] | None = None) -> int:
    return group_probe_main(__doc__, TEMPLATES, SEEDS, LOCALES, PER_TEMPLATE, value_of, argv)


if __name__ == "__main__":
    raise SystemExit(main())
