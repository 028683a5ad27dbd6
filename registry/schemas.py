"""JSON Schemas of what providers send: the HCS-25 output-verification signal and outcomes.

The schemas are the single source of truth: the API validates with them and the OpenAPI
document shows them. Rules a schema cannot say (rates summing above 1, stake checks above the
total) are checked in `registry.services.validation`.
"""

from __future__ import annotations

from typing import Any

RATE = {"type": "number", "minimum": 0, "maximum": 1}
COUNT = {"type": "integer", "minimum": 0}
STAKE_LEVEL = {
    "type": "object",
    "properties": {"checks": COUNT, "allowRate": RATE, "avgConfidence": RATE},
    "required": ["checks"],
}
STAKE_LEVELS = ("low", "medium", "high", "critical")
# ERC-8004 agent wallets and signers are EVM addresses.
ADDRESS = {"type": "string", "pattern": "^0x[0-9a-fA-F]{40}$"}
SUBJECT_ID = {"type": "string", "pattern": r"^[A-Za-z0-9._:;=@+\-]{1,255}$"}

SIGNAL_PROPERTIES: dict[str, Any] = {
    "allowRate": RATE,
    "blockRate": RATE,
    "uncertainRate": RATE,
    "avgConfidence": RATE,
    "totalChecks": COUNT,
    "stakeDistribution": {
        "type": "object",
        "description": (
            "Checks per stake level; levels other than low/medium/high/critical are kept but ignored."
        ),
        "additionalProperties": STAKE_LEVEL,
    },
    "windowDays": {"type": "integer", "minimum": 1, "maximum": 365},
    "updatedAt": {"type": "string", "format": "date-time"},
    "providers": {
        "type": "array",
        "maxItems": 64,
        "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string", "maxLength": 255},
                "signerAddress": ADDRESS,
                "methodologyUrl": {"type": "string", "maxLength": 2000},
                "checksContributed": COUNT,
            },
            "required": ["id"],
        },
    },
}

SUMMARY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "VerificationSummaryIn",
    "description": "An HCS-25 output-verification signal about one agent, plus the agent it is about.",
    "properties": {
        "agent": {**SUBJECT_ID, "description": "The agent's subject id."},
        "agentRegistry": {"type": "string", "enum": ["erc-8004", "hcs-10", "other"]},
        "agentProtocol": {"type": "string", "maxLength": 64},
        **SIGNAL_PROPERTIES,
    },
    "required": ["agent", "allowRate", "blockRate", "avgConfidence", "totalChecks"],
}

SIGNAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "title": "OutputVerificationSignal",
    "properties": SIGNAL_PROPERTIES,
    "required": ["allowRate", "blockRate", "avgConfidence", "totalChecks"],
}

# Other providers' verdict vocabulary, mapped onto ALLOW / BLOCK / UNCERTAIN (SPEC section 3).
VERDICT_ALIASES = {
    "ALLOW": "ALLOW",
    "BLOCK": "BLOCK",
    "UNCERTAIN": "UNCERTAIN",
    "HOLD": "UNCERTAIN",
    "DISSENT": "UNCERTAIN",
    "OBJECT": "BLOCK",
}

OUTCOME_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "minLength": 1, "maxLength": 255},
        "verdict": {"type": "string", "enum": sorted(VERDICT_ALIASES)},
        "confidence": RATE,
        "stake": {"type": "string", "maxLength": 32},
        "checkedAt": {"type": "string", "format": "date-time"},
    },
    "required": ["id", "verdict", "confidence", "checkedAt"],
}


def outcomes_schema(max_items: int) -> dict[str, Any]:
    """The body of `POST /outcomes`, at most `max_items` outcomes (settings.OUTCOME_BATCH_MAX)."""
    return {
        "type": "object",
        "title": "OutcomesIn",
        "properties": {
            "agent": SUBJECT_ID,
            "agentRegistry": {"type": "string", "enum": ["erc-8004", "hcs-10", "other"]},
            "outcomes": {"type": "array", "minItems": 1, "maxItems": max_items, "items": OUTCOME_SCHEMA},
        },
        "required": ["agent", "outcomes"],
    }
