"""Shared by the compiled-engine tests: run the same code on the installed (compiled) engine and on a
copy of its sources alone, each in its own process, and compare what they print.

setup.py compiles the engine's hot modules with mypyc. A compiled module stores an int put in a
float-typed slot as a float, checks argument types at run time and has no __dict__, so the results must
be shown to be the interpreted ones, byte for byte.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
SHARED_EVAL = ROOT.parent / "shared" / "eval"


def sources_only(where: Path) -> Path:
    """Copy the verification package without extension modules: Python then interprets every module."""
    shutil.copytree(
        ROOT / "verification", where / "verification", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    return where


def run_dump(code: str, args: list[str], *, sources: Path | None) -> list[str]:
    """Run `code` (which prints JSON lines, the first one {"compiled": bool}) on the installed engine,
    or on `sources` when given; returns its output lines."""
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    if sources is not None:
        env["PYTHONPATH"] = str(sources)
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=sources or ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.splitlines()


def assert_identical(installed: list[str], interpreted: list[str], *, at_least: int) -> None:
    """The two dumps match line for line, and the installed one really ran compiled code."""
    assert json.loads(interpreted[0]) == {"compiled": False}
    if os.environ.get("TRUST_REGISTRY_PURE_PYTHON", "").lower() not in ("1", "true", "yes", "on"):
        # A normal install compiles the engine; without that this would compare source with source.
        assert json.loads(installed[0]) == {"compiled": True}
    assert len(installed) == len(interpreted) >= at_least
    assert installed[1:] == interpreted[1:]


def with_docstrings(module: ModuleType) -> ModuleType:
    """The module itself, or for a compiled one (no docstrings) its source loaded as a separate module,
    for doctest. The source's relative imports resolve in the real package."""
    path = Path(module.__file__ or "")
    if path.suffix == ".py":
        return module
    source = path.with_name(path.name.split(".")[0] + ".py")
    spec = importlib.util.spec_from_file_location(f"{module.__name__}_source", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    loaded.__package__ = module.__package__
    sys.modules[spec.name] = loaded  # dataclasses look their module up while the class is built
    spec.loader.exec_module(loaded)
    return loaded
