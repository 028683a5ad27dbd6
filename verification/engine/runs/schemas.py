"""The JSON Schema validator for a run's tool declarations, with its regexes run in linear time.

A run brings its own tool schemas, and their ``pattern`` and ``patternProperties`` regexes would run in
Python's backtracking ``re`` (jsonschema calls ``re.search``): ``{"pattern": "^(a+)+$"}`` against a
30-character argument takes seconds, one more character doubles it, and no budget can interrupt a single
``re`` call. This validator runs those keywords with :func:`~verification.engine.tools.patterns.linear_search`
(hyperscan); a regex that can run neither there nor safely in ``re`` is not checked (the keyword passes),
rather than let the request run unbounded. As in response patterns, ``\\d \\w \\s \\b`` are ASCII classes
there (``re`` would also take other scripts' digits and letters).

>>> v = SafeValidator({"type": "string", "pattern": "^(a+)+$"})
>>> [e.message for e in v.iter_errors("a" * 5_000 + "!")]
["'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'... does not match '^(a+)+$'"]
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import jsonschema
from jsonschema.exceptions import ValidationError

from ..budget import UNLIMITED, Budget
from ..tools.patterns import linear_search

__all__ = ["SafeValidator", "schema_budget"]

# The request's budget while its tool calls are validated: compiling a regex (hyperscan) can take a
# good fraction of a second for some bounded repeats, and a run may declare many, so the budget is checked
# before each one (jsonschema calls the keywords below with no way to pass it along).
_BUDGET: ContextVar[Budget] = ContextVar("tool_schema_budget", default=UNLIMITED)


@contextmanager
def schema_budget(budget: Budget) -> Iterator[None]:
    """Check ``budget`` before each regex that :data:`SafeValidator` runs inside this block."""
    token = _BUDGET.set(budget)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def _search(pattern: str, text: str) -> bool | None:
    _BUDGET.get().check("checking tool-call arguments against their schemas")
    return linear_search(pattern, text)


def _short(value: str) -> str:
    return repr(value) if len(value) <= 64 else repr(value[:60]) + "..."


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string") or not isinstance(pattern, str):
        return
    if _search(pattern, instance) is False:
        yield ValidationError(f"{_short(instance)} does not match {pattern!r}")


def _matches(pattern: str, name: str) -> bool:
    # A regex that cannot run safely counts as matching: the property is then neither checked against
    # its schema nor reported as additional (nothing is claimed that was not checked).
    return _search(pattern, name) is not False


def _pattern_properties(
    validator: Any, patterns: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, dict):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            if _search(pattern, name):
                yield from validator.descend(value, subschema, path=name, schema_path=pattern)


def _additional_properties(
    validator: Any, allowed: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties", {})
    patterns = schema.get("patternProperties", {})
    extras = [
        name for name in instance if name not in declared and not any(_matches(p, name) for p in patterns)
    ]
    if validator.is_type(allowed, "object"):
        for name in extras:
            yield from validator.descend(instance[name], allowed, path=name)
    elif allowed is False and extras:
        verb = "was" if len(extras) == 1 else "were"
        listed = ", ".join(_short(name) for name in sorted(extras))
        yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


#: Draft 2020-12 with ``pattern``, ``patternProperties`` and ``additionalProperties`` (which reads the
#: ``patternProperties`` regexes) matching in linear time.
SafeValidator: Any = jsonschema.validators.extend(
    jsonschema.Draft202012Validator,
    {
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
