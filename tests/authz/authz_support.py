"""What the authorization tests share: names, bodies, the world's shape, an upstream model.

The world (conftest.py) holds one of every principal: providers (active, suspended), operators
(linked, another, suspended), an admin; agents (one linked, one victim nobody is linked to); an
owned tool profile, a verification, an attestation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from rest_framework.test import APIClient

from registry.models import Agent, Provider
from verification.models import Operator
from verification.services.tools import (
    IssuedOperatorKey,
)

SIGNING_KEY = "0x" + "6c" * 32
LINKED = "agent-linked"
VICTIM = "agent-victim"
TOOL = "tool-owned"
TOOL_RESULT = {"name": "Eiffel Tower", "built": "1887-1889", "height": "330 m", "city": "Paris"}
QUESTION: list[dict[str, Any]] = [
    {"role": "user", "content": "When was the Eiffel Tower built and how tall is it?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_landmark_info", "arguments": json.dumps({"name": "Eiffel Tower"})},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(TOOL_RESULT)},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_landmark_info",
            "parameters": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    }
]
# A contradicted claim: counted as a BLOCK when it counts at all (the attack used such runs).
WRONG = "The Eiffel Tower was built in 1950 and is 330 meters tall."


def made_up_run(answer: str = WRONG) -> list[dict[str, Any]]:
    return [*QUESTION, {"role": "assistant", "content": answer}]


def summary(agent: str, **fields: Any) -> dict[str, Any]:
    return {
        "agent": agent,
        "allowRate": 0.9,
        "blockRate": 0.1,
        "avgConfidence": 0.8,
        "totalChecks": 40,
        "windowDays": 7,
        **fields,
    }


class UpstreamModel(BaseHTTPRequestHandler):
    """An OpenAI-compatible upstream that always answers the made-up run's wrong answer."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        payload = json.dumps(
            {
                "id": "chatcmpl-authz",
                "object": "chat.completion",
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": WRONG}, "finish_reason": "stop"}
                ],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


def bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


@dataclass
class World:
    provider: Provider
    operator: Operator
    other_operator: Operator
    operator_key: IssuedOperatorKey
    other_operator_key: IssuedOperatorKey
    linked: Agent
    victim: Agent
    verification_id: str
    attestation_id: int
    attestation: dict[str, Any]
    clients: dict[str, APIClient]
    webhook_subscription_id: int = 0
