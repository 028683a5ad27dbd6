"""One casing across /api/v1: property names are camelCase.

The verification engine is a plain Python library whose reports use Python's snake_case
(`tier_reached`, `run_id`); its REST layer answers in the registry's camelCase (`tierReached`,
`runId`) by passing each answer through `camelize`. Only property names change: the keys of maps
whose keys are data (signal names, tool names, field names of a result, model names) are kept as they
are, and so are all values.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_SNAKE = re.compile(r"_([a-z0-9])")

# Properties whose value is a map keyed by data, not by property names: those keys stay as they are
# (their values are camelized). Named after the property as the engine spells it, or as it reads after.
DATA_KEYED_MAPS: frozenset[str] = frozenset(
    {
        "signals",
        "likelihood_ratios",
        "likelihoodRatios",
        "raw",
        "calibrated",
        "per_tool",
        "perTool",
        "by_tool",
        "byTool",
        "fields",
        "field_frequencies",
        "fieldFrequencies",
        "fieldFrequency",
        "numeric_fields",
        "numericFields",
        "models",
        "per_kind_recall",
        "perKindRecall",
        "counts",
        "by_type",
        "byType",
        "categories",
    }
)


def camel(name: str) -> str:
    """`tier_reached` -> `tierReached`; names without an inner underscore are returned as they are.

    >>> camel("tier_reached"), camel("is_hallucinated"), camel("verdict"), camel("_private"), camel("p95_ms")
    ('tierReached', 'isHallucinated', 'verdict', '_private', 'p95Ms')
    """
    if "_" not in name.strip("_"):
        return name
    head = len(name) - len(name.lstrip("_"))
    return name[:head] + _SNAKE.sub(lambda m: m.group(1).upper(), name[head:])


def camelize(value: Any, *, data_keyed: frozenset[str] = DATA_KEYED_MAPS) -> Any:
    """A copy of `value` (JSON-like) with every property name in camelCase (see the module docstring).

    >>> camelize({"tier_reached": 2, "signals": {"schema_mismatch": {"fired": True, "log_lr": 1.5}}})
    {'tierReached': 2, 'signals': {'schema_mismatch': {'fired': True, 'logLr': 1.5}}}
    """
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            name = camel(key) if isinstance(key, str) else key
            if isinstance(key, str) and key in data_keyed and isinstance(item, Mapping):
                out[name] = {k: camelize(v, data_keyed=data_keyed) for k, v in item.items()}
            else:
                out[name] = camelize(item, data_keyed=data_keyed)
        return out
    if isinstance(value, list | tuple):
        return [camelize(item, data_keyed=data_keyed) for item in value]
    return value
