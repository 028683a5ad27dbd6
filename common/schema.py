"""drf-spectacular postprocessing: make the generated OpenAPI document say what the API really does."""

from __future__ import annotations

import copy
from typing import Any

from .errors import PROBLEM_CONTENT_TYPE

_PROBLEM_FIELDS = {"type", "title", "status", "detail"}
_OPERATION_KEYS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def problem_details_hook(result: dict[str, Any], generator: Any, request: Any, public: bool) -> Any:
    """Error answers (4xx/5xx) documented as problem details are served as `application/problem+json`,
    and JSON Schemas written for validation (draft 2020-12: numeric `exclusiveMinimum`, type lists)
    are turned into their OpenAPI 3.0 form (`minimum` + boolean `exclusiveMinimum`; `type: [T, "null"]`
    as `type: T, nullable: true`, other type lists as `anyOf`).

    Works on a copy: the schema dicts are shared with the validators that check request bodies."""
    result = copy.deepcopy(result)
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            if method not in _OPERATION_KEYS:
                continue
            for code, response in operation.get("responses", {}).items():
                content = response.get("content") or {}
                if str(code)[:1] in "45" and _is_problem(content.get("application/json")):
                    content[PROBLEM_CONTENT_TYPE] = content.pop("application/json")
    _exclusive_bounds_to_openapi30(result)
    _type_lists_to_openapi30(result)
    return result


def _is_problem(media: Any) -> bool:
    """Documented with common.api.PROBLEM (other error bodies, e.g. the OpenAI-compatible
    proxy's 422, keep their own media type)."""
    schema = media.get("schema") if isinstance(media, dict) else None
    return isinstance(schema, dict) and set(schema.get("required", [])) >= _PROBLEM_FIELDS


def _exclusive_bounds_to_openapi30(node: Any) -> None:
    if isinstance(node, dict):
        for keyword, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            value = node.get(keyword)
            if isinstance(value, int | float) and not isinstance(value, bool):
                node[bound] = value
                node[keyword] = True
        for child in node.values():
            _exclusive_bounds_to_openapi30(child)
    elif isinstance(node, list):
        for child in node:
            _exclusive_bounds_to_openapi30(child)


def _type_lists_to_openapi30(node: Any) -> None:
    """OpenAPI 3.0 has no type lists: `{"type": ["integer", "null"]}` -> `{"type": "integer", "nullable":
    true}`; several non-null types -> `anyOf` of one type each (nullable kept)."""
    if isinstance(node, dict):
        types = node.get("type")
        if isinstance(types, list) and all(isinstance(t, str) for t in types):
            kinds = [t for t in types if t != "null"]
            del node["type"]
            if len(kinds) == 1:
                node["type"] = kinds[0]
            elif kinds:
                node["anyOf"] = [{"type": t} for t in kinds]
            if "null" in types:
                node["nullable"] = True
        for child in node.values():
            _type_lists_to_openapi30(child)
    elif isinstance(node, list):
        for child in node:
            _type_lists_to_openapi30(child)
