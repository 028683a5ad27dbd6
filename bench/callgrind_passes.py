"""The callgrind set-up shared by the scripts that count instructions per pass of named workloads in one
process (``injection_instructions.py``, ``pii_names_instructions.py``).

The counted process runs each workload as :func:`marked_passes` does: one warm-up pass, then two passes
between two calls of ``zlib.adler32``, which callgrind's ``--dump-before=zlib_adler32`` turns into one
profile part; :func:`count_passes` runs the script's ``--run`` under callgrind and halves each part's total.
:func:`main` is the command line both scripts keep: ``--root`` (the tree to count) and ``--run``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path


def marked_passes(name: str, job: Callable[[], object]) -> None:
    """A warm-up pass of ``job``, then two passes between two markers (one profile part)."""
    job()
    zlib.adler32(name.encode())
    job()
    job()
    zlib.adler32(name.encode())


def count_passes(script: str, root: Path, workloads: Sequence[str]) -> dict[str, float]:
    """Millions of instructions per pass of each workload of ``script --run --root root``, under callgrind
    (the workloads in the order the script runs them)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        cmd = [
            "valgrind", "--tool=callgrind", "--dump-before=zlib_adler32", f"--callgrind-out-file={out}",
            sys.executable, script, "--run", "--root", str(root),
        ]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True)
        result = {}
        for k, name in enumerate(workloads):
            part = (Path(tmp) / f"cg.out.{2 * k + 2}").read_text()
            found = re.search(r"^totals:\s*(\d+)", part, re.M)
            assert found is not None
            result[name] = int(found.group(1)) / 2 / 1e6
        return result


def main(
    doc: str | None,
    script: str,
    run: Callable[[Path], None],
    workloads: Sequence[str],
    line: str,
    argv: list[str] | None = None,
    root: Path = Path(__file__).resolve().parent.parent,
    root_help: str | None = None,
    run_help: str = "run the workloads without callgrind",
) -> int:
    """The command line: ``--run`` runs the workloads (what the counted process does), otherwise each
    workload's figure is printed with ``line`` (``{name}``, ``{millions}``)."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, default=root, help=root_help)
    parser.add_argument("--run", action="store_true", help=run_help)
    args = parser.parse_args(argv)
    if args.run:
        run(args.root.resolve())
        return 0
    for name, millions in count_passes(script, args.root.resolve(), workloads).items():
        print(line.format(name=name, millions=millions))
    return 0
