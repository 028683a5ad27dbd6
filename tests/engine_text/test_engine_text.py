"""The engines lower-case text as Python does, compiled (mypyc) or not (verification/engine/text.py).

mypyc compiles ``text.lower()`` to its own per-character primitive, which turns a word-final capital
sigma into "σ" where Python gives "ς": a compiled module that calls ``.lower()`` reads such texts
differently from its source.  So the compiled modules lower-case through ``text.lower``; one test holds
``lower`` to Python's method (in CI the module is compiled), the other keeps ``.lower()`` calls out of
every module ``setup.py`` compiles.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from verification.engine import text

ROOT = Path(__file__).resolve().parents[2]


def _compiled_modules() -> list[Path]:
    listed = re.findall(r'"(verification/engine/[\w/]+\.py)"', (ROOT / "setup.py").read_text())
    assert len(listed) > 20, "setup.py lists the compiled modules"
    return [ROOT / name for name in listed]


def test_it_lowers_a_word_final_capital_sigma_as_python_does() -> None:
    assert text.lower("ΟΔΥΣΣΕΥΣ") == "οδυσσευς"
    assert text.lower("ΝΙΚΟΣ said ΚΟΣΜΟΣ.") == "νικος said κοσμος."
    assert text.lower("Σ") == "σ"  # alone it is no word-final sigma


@given(st.text(alphabet="ΣσςΑΒΓabcΑ İIıſ .'-\u0301", max_size=20))
def test_it_lowers_every_text_as_str_lower(sample: str) -> None:
    assert text.lower(sample) == str.lower(sample)


def test_it_keeps_lower_calls_out_of_the_compiled_modules() -> None:
    calls = []
    for path in _compiled_modules():
        if path.name == "text.py" and path.parent.name == "engine":
            continue  # the one place that calls it, on ASCII text
        for node in ast.walk(ast.parse(path.read_text())):
            func = node.func if isinstance(node, ast.Call) else None
            if isinstance(func, ast.Attribute) and func.attr == "lower":
                calls.append(f"{path.relative_to(ROOT)}:{func.lineno}")
    assert not calls, f"lower-case through verification.engine.text.lower: {calls}"
