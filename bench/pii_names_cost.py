"""CPU ms of the names pass (``find_names``) and of its two address passes (``_street_addresses``,
``_addressed``) over ``pii_dump.py``'s texts, best of the repeats, interpreted or compiled as installed.

``--against DIR`` times another checkout too (one made with ``git worktree add DIR COMMIT``), the two
alternately in fresh processes on the same texts (those of this checkout), so a loaded machine hurts both
alike.

Run:  python bench/pii_names_cost.py [--rounds 4] [--against /tmp/before]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from verification.engine.safety import pii_names as names
texts = json.load(open(sys.argv[2], encoding="utf-8"))
repeats = int(sys.argv[3])
def best(fn):
    low = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn()
        low = min(low, time.process_time() - start)
    return round(low * 1e3, 1)
def whole():
    for text in texts:
        names.find_names(text)
def street():
    for text in texts:
        if names._DIGIT.search(text) is not None:
            names._street_addresses(text, [])
def addressed():
    for text in texts:
        if "," in text:
            names._addressed(text, [])
whole()
print(json.dumps([best(whole), best(street), best(addressed)]))
"""


def child(root: Path, texts: str, repeats: int) -> list[float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), texts, str(repeats)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: list[float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout, timed alternately with this one")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "bench"))
    from pii_dump import texts

    rows = list(texts())
    roots = [ROOT] if args.against is None else [args.against, ROOT]
    found: dict[Path, list[list[float]]] = {root: [] for root in roots}
    with tempfile.NamedTemporaryFile("w", suffix=".json", encoding="utf-8") as handle:
        json.dump(rows, handle)
        handle.flush()
        for _ in range(args.rounds):
            for root in roots:
                found[root].append(child(root, handle.name, args.repeats))
    print(f"{len(rows)} texts, CPU ms a pass, best of {args.repeats} in each of {args.rounds} rounds")
    for root, runs in found.items():
        whole, street, addressed = (min(r[k] for r in runs) for k in range(3))
        print(
            f"{root}: find_names {whole}  _street_addresses {street}  _addressed {addressed}"
            f"  (find_names by round: {' '.join(str(r[0]) for r in runs)})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
