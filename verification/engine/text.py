"""Text helpers that must give the same answer compiled (mypyc) and interpreted.

``lower`` is ``str.lower`` as Python computes it.  Compiled with mypyc, ``text.lower()`` becomes mypyc's
own per-character primitive, which lower-cases a word-final capital sigma to "σ" where Python gives "ς"
(Unicode's Final_Sigma rule, the one context-dependent mapping), so a compiled engine read such texts
differently from its sources.  The engines' compiled modules lower-case through ``lower``.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["lower"]

# ``str.lower`` called as a function object: mypyc leaves the call to Python's method.
_str_lower: Callable[[str], str] = str.lower


def lower(text: str) -> str:
    """``text.lower()`` as Python computes it, in the compiled build too.

    >>> lower("ΟΔΥΣΣΕΥΣ")
    'οδυσσευς'
    >>> lower("Ignore ALL")
    'ignore all'
    """
    return text.lower() if text.isascii() else _str_lower(text)
