"""A probe of addresses, streets and towns in the fifteen locales of the Faker held-out set (issue 16,
helper h17d): Faker's values (seed 4242, not the held-out set's 83) in five sentence templates written
here, and how many stay readable after ``redact_pii``.  A dev tool for reading misses: the held-out set
itself is only measured (``bench_pii_recall.py``).

Run:  python bench/pii_locale_probe.py [--show 3]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from faker import Faker  # noqa: E402

from verification.engine.safety import redact_pii  # noqa: E402

LOCALES = [
    "sv_SE",
    "da_DK",
    "no_NO",
    "fi_FI",
    "cs_CZ",
    "sk_SK",
    "hu_HU",
    "hr_HR",
    "ro_RO",
    "pt_PT",
    "de_AT",
    "nl_BE",
    "en_IE",
    "en_CA",
    "en_NZ",
]
TEMPLATES = (
    "Please ship the order to {v} by Friday.",
    "My address is {v}.",
    "Send the invoice to: {v}",
    "We moved to {v} last month.",
    "Billing address: {v}",
)
KINDS = ("address", "street_address", "city")
PER_KIND = 12
SEED = 4242


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--show", type=int, default=0, help="print this many readable texts per row")
    args = parser.parse_args(argv)
    pick = random.Random(SEED)
    readable_all = total = 0
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(SEED)
        for kind in KINDS:
            readable: list[str] = []
            for _ in range(PER_KIND):
                value = getattr(fake, kind)()
                if kind == "address" and pick.random() < 0.5:
                    value = value.replace("\n", ", ")  # half the full addresses on one line
                text = pick.choice(TEMPLATES).format(v=value)
                if value in redact_pii(text).text:
                    readable.append(text)
            readable_all += len(readable)
            total += PER_KIND
            shown = f" {readable[: args.show]!r}" if args.show else ""
            print(f"{locale} {kind}: {len(readable)} of {PER_KIND} readable{shown}")
    print(f"all: {readable_all} of {total} readable")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
