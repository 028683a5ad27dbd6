"""A development probe of person names and towns with few or no cues (issue 16, helper h19d): Faker's
names and towns (en_US, en_GB, de_DE, fr_FR, es_ES, it_IT, nl_NL, pl_PL; seed 1919, which no committed
set uses) in templates written here in the shape of support chats, e-mails, forms and logs: a name alone
on a line, after a greeting, before a sign-off without its comma, in lower case in a chat, a town in
"flying to X" or "moved from X to Y".  It counts the values still readable after ``redact_pii``.  A dev
tool for reading misses by class; the held-out sets are only measured (``bench_pii_recall.py``).

Run:  python bench/pii_names_probe.py [--show 3] [--locale en_US ...]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from verification.engine.safety import redact_pii  # noqa: E402

LOCALES = ["en_US", "en_GB", "de_DE", "fr_FR", "es_ES", "it_IT", "nl_NL", "pl_PL"]
SEED = 1919
PER_TEMPLATE = 6
# {v} is the value; {w} a second value of the same kind (checked too).
TEMPLATES = {
    "first": (
        "Thanks for sorting this out so quickly!\ncheers\n{v}",
        "Let me know if anything else comes up.\nBest\n{v}",
        "see you monday\nthx\n{v}",
        "Hi {v},\nyour order shipped today.",
        "Hey {v} - quick question about the invoice",
        "Good morning {v}! The room is booked.",
        "Please forward this to {v} when you can.",
        "{v} will handle the refund on Monday.",
        "ok so {v} said the build is green",
    ),
    "name": (
        "Regards\n{v}\nAccounts team",
        "Name\n{v}\nEmail\nnone given",
        "Contact person:\n{v}",
        "{v}\nSenior Engineer",
        "Many thanks\n{v}",
        "Meeting notes - attendees {v} and {w}",
        "I spoke with {v} yesterday about the renewal.",
        "[2024-03-02 10:14:07] INFO ticket assigned to {v}",
    ),
    "lower_name": (
        "i talked to {v} yesterday and she agreed",
        "can you ask {v} about the refund?",
        "lol {v} forgot the password again",
        "ping {v} when the deploy is done",
        "{v} is out sick today",
    ),
    "city": (
        "I'm flying to {v} tomorrow morning.",
        "We moved from {v} to {w} last year.",
        "heading back to {v} on friday",
        "The conference in {v} was great.",
        "Just landed in {v}, will call later.",
        "Ship from {v} warehouse delayed.",
        "Location\n{v}",
        "She commutes from {v} every day.",
    ),
}


def value_of(fake: Any, kind: str) -> str:
    if kind == "first":
        return str(fake.first_name())
    if kind == "name":
        return f"{fake.first_name()} {fake.last_name()}"
    if kind == "lower_name":
        return f"{fake.first_name()} {fake.last_name()}".lower()
    return str(fake.city())


def count_readable(
    templates: dict[str, tuple[str, ...]],
    kinds: list[str],
    locales: list[str],
    seed: int,
    per_template: int,
    value_of: Callable[[Any, str], str],
    show: int,
) -> None:
    """Print, per template and per kind, how many Faker values stay readable after ``redact_pii``:
    ``per_template`` draws of each locale, seeded ``seed`` plus the template's index; ``{v}`` is the
    value and ``{w}`` a second one (checked too).  Shared with ``pii_cueless_probe.py``."""
    from faker import Faker  # lazily: the test venv has no Faker

    totals: Counter[str] = Counter()
    for kind in kinds:
        for n, template in enumerate(templates[kind]):
            leaked: list[str] = []
            values = 0
            for locale in locales:
                fake = Faker(locale)
                fake.seed_instance(seed + n)
                for _ in range(per_template):
                    v, w = value_of(fake, kind), value_of(fake, kind)
                    text = template.format(v=v, w=w)
                    redacted = redact_pii(text).text
                    for value in (v, w) if "{w}" in template else (v,):
                        values += 1
                        if value in redacted:
                            leaked.append(f"{text!r} -> {redacted!r}")
            totals["values"] += values
            totals["leaked"] += len(leaked)
            totals[f"{kind} values"] += values
            totals[f"{kind} leaked"] += len(leaked)
            print(f"{kind} {template[:40]!r}: {len(leaked)} of {values} readable")
            for line in leaked[:show]:
                print("   ", line)
    for kind in kinds:
        print(f"{kind}: {totals[kind + ' leaked']} of {totals[kind + ' values']} readable")
    print(f"all: {totals['leaked']} of {totals['values']} readable")


def group_probe_main(
    doc: str | None,
    templates: dict[str, dict[str, tuple[str, ...]]],
    seeds: dict[str, int],
    locales: list[str],
    per_template: int,
    value_of: Callable[[Any, str], str],
    argv: list[str] | None = None,
) -> int:
    """The command line of a probe whose templates come in groups, each with its seed (``dev``, its misses
    read to write rules, and ``check``, only counted): ``--group``, ``--show`` and ``--kind`` (default: every
    kind, in the templates' order), then :func:`count_readable`. Shared by ``pii_cueless_probe.py`` and
    ``pii_prose_probe.py``."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--group", choices=list(seeds), default="dev")
    parser.add_argument("--show", type=int, default=0, help="print this many leaking texts per template")
    parser.add_argument("--kind", nargs="*", default=list(templates["dev"]))
    args = parser.parse_args(argv)
    group = templates[args.group]
    count_readable(group, args.kind, locales, seeds[args.group], per_template, value_of, args.show)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--show", type=int, default=0, help="print this many leaking texts per row")
    parser.add_argument("--locale", nargs="*", default=LOCALES)
    parser.add_argument("--kind", nargs="*", default=list(TEMPLATES))
    args = parser.parse_args(argv)
    count_readable(TEMPLATES, args.kind, args.locale, SEED, PER_TEMPLATE, value_of, args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
