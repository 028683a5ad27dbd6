"""A development probe of places and addresses in running text (issue 16, helper h18e): Faker's towns,
streets and full addresses of 22 locales (the fifteen of the Faker held-out set and seven others),
seed 5150 (not the held-out set's 83 nor ``pii_locale_probe.py``'s 4242), in ten sentence templates
written here, and how many values stay readable after ``redact_pii``: whole, or a word of them (a
street or town left in place by a partial redaction).  A dev tool for reading misses by class; the
held-out sets are only measured (``bench_pii_recall.py``).

Run:  python bench/pii_place_probe.py [--show 3] [--locale sv_SE]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from faker import Faker  # noqa: E402

from verification.engine.safety import redact_pii  # noqa: E402

LOCALES = [
    "sv_SE", "da_DK", "no_NO", "fi_FI", "cs_CZ", "sk_SK", "hu_HU", "hr_HR", "ro_RO", "pt_PT", "de_AT",
    "nl_BE", "en_IE", "en_CA", "en_NZ", "en_GB", "en_AU", "de_CH", "fr_CH", "es_MX", "lt_LT", "sl_SI",
]  # fmt: skip
# {v} is the value; the other slots are filled from the same locale.
TEMPLATES = {
    "city": (
        "She lives in {v} now.",
        "I grew up in {v}, near the coast.",
        "Residence: {v}",
        "The parcel is waiting at the depot in {v}.",
        "Our team in {v} will call you.",
    ),
    "street_address": (
        "Deliver it to {v} before noon.",
        "The venue is {v}, second floor.",
        "He lives at {v} with his sister.",
        "Return the keys to {v}, please.",
        "New office: {v}",
    ),
    "address": (
        "Please ship to {v} by Monday.",
        "Return address: {v}",
        "Her postal address is {v}.",
        "Kind regards,\n{name}\n{v}",
        "Invoice to:\n{v}",
    ),
}
PER_KIND = 15
SEED = 5150


def words_left(value: str, redacted: str) -> list[str]:
    """Words of ``value`` (three letters or more) still standing in ``redacted``."""
    out = []
    for word in re.findall(r"[^\W\d_]{3,}", value):
        if re.search(rf"(?<!\w){re.escape(word)}(?!\w)", redacted):
            out.append(word)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--show", type=int, default=0, help="print this many leaking texts per row")
    parser.add_argument("--locale", nargs="*", default=LOCALES)
    args = parser.parse_args(argv)
    pick = random.Random(SEED)
    totals: Counter[str] = Counter()
    for locale in args.locale:
        fake = Faker(locale)
        fake.seed_instance(SEED)
        for kind, templates in TEMPLATES.items():
            whole: list[str] = []
            partial: list[str] = []
            for _ in range(PER_KIND):
                value = getattr(fake, kind)()
                if kind != "address" or pick.random() < 0.4:
                    value = value.replace("\n", ", ")
                text = pick.choice(templates).format(v=value, name=fake.name())
                redacted = redact_pii(text).text
                if value in redacted:
                    whole.append(text)
                elif words_left(value, redacted):
                    partial.append(f"{text!r} -> {redacted!r}")
            totals["values"] += PER_KIND
            totals["whole"] += len(whole)
            totals["partial"] += len(partial)
            shown = f" {whole[: args.show]!r} {partial[: args.show]}" if args.show else ""
            print(f"{locale} {kind}: {len(whole)} whole, {len(partial)} partly readable of {PER_KIND}{shown}")
    print(f"all: {totals['whole']} whole and {totals['partial']} partly readable of {totals['values']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
