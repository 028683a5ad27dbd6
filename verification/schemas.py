"""JSON Schemas of the engine's REST inputs (validated with jsonschema, shown in OpenAPI)."""

from __future__ import annotations

from typing import Any

from registry.schemas import SUBJECT_ID

TOOL_CALL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ToolCallIn",
    "properties": {
        "tool": {"type": "string", "minLength": 1, "maxLength": 200},
        "args": {"description": "The call's arguments (any JSON)."},
        "result": {"description": "The tool's result: JSON, or a string holding JSON or text."},
        "executionTimeMs": {"type": "number", "minimum": 0},
        "sessionId": {"type": "string", "maxLength": 255},
        "agent": {
            **SUBJECT_ID,
            "description": "The agent whose call this was; its score counts the outcome.",
        },
    },
    "required": ["tool", "result", "executionTimeMs"],
}


def tool_call_batch_schema(max_items: int) -> dict[str, Any]:
    """`{"calls": [...]}` with at most `max_items` calls (settings.TOOL_CALL_BATCH_MAX)."""
    return {
        "type": "object",
        "title": "ToolCallBatchIn",
        "properties": {
            "calls": {"type": "array", "minItems": 1, "maxItems": max_items, "items": TOOL_CALL_SCHEMA}
        },
        "required": ["calls"],
    }


FEEDBACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ToolFeedbackIn",
    "properties": {"wasHallucination": {"type": "boolean"}},
    "required": ["wasHallucination"],
}

TOOL_PROFILE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "ToolProfileIn",
    "properties": {
        "expectedLatencyMs": {
            "type": "array",
            "items": {"type": "number", "minimum": 0},
            "minItems": 2,
            "maxItems": 2,
        },
        "requiredFields": {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 200},
        "forbiddenFields": {"type": "array", "items": {"type": "string", "maxLength": 200}, "maxItems": 200},
        "responsePatterns": {"type": "array", "items": {"type": "string", "maxLength": 1000}, "maxItems": 50},
        "minResponseLength": {"type": ["integer", "null"], "minimum": 0},
        "maxResponseLength": {"type": ["integer", "null"], "minimum": 0},
        "hasNetworkIo": {"type": "boolean"},
        "likelihoodRatios": {"type": "object", "additionalProperties": {"type": "number", "minimum": 1}},
        "stake": {"type": "string", "enum": ["low", "medium", "high", "critical"]},
    },
    "additionalProperties": False,
}
