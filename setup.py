"""Build hook: compiles the tool-result verifier's hot modules to C with mypyc.

Everything else about the package is declared in pyproject.toml. The compiled modules are the same
typed Python sources (mypy checks them as usual); mypyc turns them into extension modules that do
the same thing about 1.5x faster (docs/tool-verification.md, "Benchmark"). The sources stay the
reference: set TRUST_REGISTRY_PURE_PYTHON=1 to install without compiling, and the tests check that
no compiled module is older than its source (tests/conftest.py).
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import setup

# The per-call work of ToolVerifier.verify, and the in-memory store it learns into. Compiled code checks
# argument types at run time, and stores an int put in a float-typed slot as a float; these modules
# give results identical to the interpreted ones (tests/engine_tools/test_tools_compiled.py). Left out:
# profile.py (its public constructor normalises lists into its tuple fields, which a compiled dataclass
# would refuse; it runs once per tool) and calibration.py (once per evaluation, on numpy, and its
# integer counts would come out as floats).
COMPILED = [
    "verification/engine/store/memory.py",
    "verification/engine/tools/adaptive.py",
    "verification/engine/tools/baseline.py",
    "verification/engine/tools/engine.py",
    "verification/engine/tools/features.py",
    "verification/engine/tools/fusion.py",
    "verification/engine/tools/result.py",
    "verification/engine/tools/stats.py",
    "verification/engine/tools/tier0.py",
    "verification/engine/tools/tier1.py",
    "verification/engine/tools/values.py",
]


def ext_modules() -> list[Any]:
    if os.environ.get("TRUST_REGISTRY_PURE_PYTHON", "").lower() in ("1", "true", "yes", "on"):
        return []
    from mypyc.build import mypycify

    # mypyc-build.ini, not pyproject.toml: the project's mypy configuration loads the Django plugins,
    # which the isolated build environment does not have (and these modules do not need).
    return list(
        mypycify(
            ["--config-file", "mypyc-build.ini", *COMPILED],
            opt_level="3",
            debug_level="1",
            group_name="trust_registry_compiled",
        )
    )


setup(ext_modules=ext_modules())
