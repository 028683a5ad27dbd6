"""Build hook: compiles the verification engine's hot modules to C with mypyc.

Everything else about the package is declared in pyproject.toml. The compiled modules are the same
typed Python sources (mypy checks them as usual); mypyc turns them into extension modules that do
the same thing 1.4-2x faster (docs/benchmarks.md). The sources stay the
reference: set TRUST_REGISTRY_PURE_PYTHON=1 to install without compiling, and the tests check that
no compiled module is older than its source (tests/conftest.py). The rules compiled code follows to
give the same results as its source are written once, in COMPILED.md.
"""

from __future__ import annotations

import os
from typing import Any

from setuptools import setup

# Compiled code checks argument types at run time, and stores an int put in a float-typed slot as a
# float; the modules listed give results identical to their interpreted sources (tests/*/test_*_compiled.py).
COMPILED = [
    # Agent-run verification (verify_run): everything on the per-run path. Left out: backend.py (a
    # runtime-checkable Protocol, which compiled code refuses; used only with a model), halugate.py and
    # probes.py (optional stages), config.py (its public dataclass takes settings values as given) and
    # errors.py (exceptions callers may subclass).
    "verification/engine/runs/added_counts.py",
    "verification/engine/runs/advised_times.py",
    "verification/engine/runs/aggregates.py",
    "verification/engine/runs/asked_counts.py",
    "verification/engine/runs/best_rated.py",
    "verification/engine/runs/changed_ends.py",
    "verification/engine/runs/clock.py",
    "verification/engine/runs/code_places.py",
    "verification/engine/runs/equations.py",
    "verification/engine/runs/evidence.py",
    "verification/engine/runs/factcheck.py",
    "verification/engine/runs/findings.py",
    "verification/engine/runs/gating.py",
    "verification/engine/runs/grounding.py",
    "verification/engine/runs/identity.py",
    "verification/engine/runs/item_options.py",
    "verification/engine/runs/labelled_totals.py",
    "verification/engine/runs/lexicon.py",
    "verification/engine/runs/link_forms.py",
    "verification/engine/runs/mentions.py",
    "verification/engine/runs/messages.py",
    "verification/engine/runs/name_kinds.py",
    "verification/engine/runs/numeric.py",
    "verification/engine/runs/own_lists.py",
    "verification/engine/runs/person_names.py",
    "verification/engine/runs/polarity.py",
    "verification/engine/runs/policy_durations.py",
    "verification/engine/runs/policy_rates.py",
    "verification/engine/runs/quoted_text.py",
    "verification/engine/runs/records.py",
    "verification/engine/runs/refund_words.py",
    "verification/engine/runs/report.py",
    "verification/engine/runs/routes.py",
    "verification/engine/runs/table_rows.py",
    "verification/engine/runs/toolcalls.py",
    "verification/engine/runs/trips.py",
    "verification/engine/runs/turns.py",
    "verification/engine/runs/units.py",
    "verification/engine/runs/verify.py",
    # Safety engines (injection, PII, hallucination risk). Left out: health.py (its public dataclass
    # validates what callers pass and must keep raising its own ValueError), scan.py (a thin wrapper)
    # and limits.py (constants).
    "verification/engine/safety/deobfuscate.py",
    "verification/engine/safety/fastpath.py",
    "verification/engine/safety/injection.py",
    "verification/engine/safety/injection_model.py",
    "verification/engine/safety/injection_rules.py",
    "verification/engine/safety/pii.py",
    "verification/engine/safety/pii_names.py",
    "verification/engine/safety/pii_types.py",
    "verification/engine/safety/prefilter.py",
    "verification/engine/safety/regions.py",
    "verification/engine/safety/risk.py",
    "verification/engine/safety/rule_index.py",
    # Tool-result verification: the per-call work of ToolVerifier.verify and the in-memory store it
    # learns into. Left out: profile.py (its public constructor normalises lists into its tuple fields,
    # which a compiled dataclass would refuse; it runs once per tool), calibration.py (once per
    # evaluation, on numpy, and its integer counts would come out as floats) and state.py (TypedDicts,
    # erased at run time, and the ToolBaseline summary built once per request).
    "verification/engine/store/memory.py",
    # Text helpers the compiled modules share (``lower``).
    "verification/engine/text.py",
    "verification/engine/tools/adaptive.py",
    "verification/engine/tools/baseline.py",
    "verification/engine/tools/confidence.py",
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
