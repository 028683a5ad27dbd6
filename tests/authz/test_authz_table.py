"""The authorization table (tests/authz/authz_table.py), request by request, principal by principal.

Every row is sent as every principal with a body that would succeed for the right principal, each
in a savepoint rolled back afterwards so every principal meets the same registry. A route or method
the URLconf serves but the table does not list fails the coverage test.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.urls import URLPattern, URLResolver, get_resolver
from eth_account import Account
from eth_account.messages import encode_defunct
from rest_framework.test import APIClient

from tests.authz.authz_support import LINKED, TOOL, TOOLS, World, made_up_run, summary
from tests.authz.authz_table import PRINCIPALS, TABLE, Rule, render_markdown

ROOT = Path(__file__).resolve().parents[2]
WALLET = Account.from_key("0x" + "5a" * 32)
SKIPPED_METHODS = {"options", "head", "trace"}


def _routes(patterns: list[Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            if entry.app_name == "admin":
                yield route, None  # one route: its pages are sampled in the table
            else:
                yield from _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.callback


def _methods(callback: Any) -> set[str]:
    view = getattr(callback, "cls", None) or getattr(callback, "view_class", None)
    if view is None:
        return {"GET"}  # function views (pages, health, problem types) serve reads
    return {m.upper() for m in view.http_method_names if m not in SKIPPED_METHODS and hasattr(view, m)}


def served() -> set[tuple[str, str]]:
    out: set[tuple[str, str]] = set()
    for route, callback in _routes(get_resolver().url_patterns):
        out |= {("GET", route)} if callback is None else {(m, route) for m in _methods(callback)}
    return out


def test_it_lists_every_route_and_method_the_urlconf_serves(db: None) -> None:
    listed = {(method, rule.route) for rule in TABLE for method in rule.methods}
    missing = sorted(served() - listed)
    stale = sorted(listed - served())
    assert not missing, f"not in tests/authz/authz_table.py (add a row for each): {missing}"
    assert not stale, f"in the table but not served any more: {stale}"


def test_it_gives_every_principal_an_outcome_in_every_row() -> None:
    for rule in TABLE:
        assert set(rule.expect) == set(PRINCIPALS), rule
        assert set(rule.expect.values()) <= {"2xx", "3xx", "401", "403", "404"}, rule


def test_it_matches_the_table_in_the_security_docs() -> None:
    """docs/security.md carries the rendered table between markers; it must be this table."""
    text = (ROOT / "docs" / "security.md").read_text()
    found = re.search(r"<!-- authz-table:begin -->\n(.*?)<!-- authz-table:end -->", text, re.S)
    assert found is not None, "docs/security.md lost its authz-table markers"
    assert found.group(1) == render_markdown(), "regenerate it: python tests/authz/authz_table.py"


# --- the requests ----------------------------------------------------------------------------------

PARAMS: dict[str, Callable[[World], str]] = {
    "subject_id": lambda w: LINKED,
    "agent_id": lambda w: LINKED,
    "slug": lambda w: "provider",
    "version": lambda w: "1",
    "attestation_id": lambda w: str(w.attestation_id),
    "verification_id": lambda w: w.verification_id,
    "tool": lambda w: TOOL,
    "pk": lambda w: str(w.webhook_subscription_id),
}
PROBLEM_SLUG = "validation"


def _path(rule: Rule, world: World) -> str:
    if rule.sample:
        return rule.sample
    if rule.route.startswith("problems/"):
        return "/problems/" + PROBLEM_SLUG

    def value(match: re.Match[str]) -> str:
        return PARAMS[match.group(1)](world)

    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", value, rule.route)


def _wallet_proof(world: World, client: APIClient) -> dict[str, Any]:
    challenge = client.post(
        "/api/v1/operators/me/wallet/challenge", {"address": WALLET.address}, format="json"
    )
    if challenge.status_code != 200:
        return {"address": WALLET.address, "signature": "0x" + "00" * 65}
    message = encode_defunct(text=challenge.json()["message"])
    return {"address": WALLET.address, "signature": "0x" + WALLET.sign_message(message).signature.hex()}


CHECKED_AT = "2026-11-20T00:00:00Z"
FEEDBACK = "api/v1/verify/tool-call/<uuid:verification_id>/feedback"
OBSERVATIONS = "api/v1/agents/<str:subject_id>/runtime-observations"
BODIES: dict[tuple[str, str], Callable[[World, APIClient], Any]] = {
    ("POST", "api/v1/summaries"): lambda w, c: summary(LINKED, allowRate=0.8, blockRate=0.2),
    ("POST", "api/v1/summaries/batch"): lambda w, c: {"summaries": [summary(LINKED, allowRate=0.7)]},
    ("POST", "api/v1/outcomes"): lambda w, c: {
        "agent": LINKED,
        "outcomes": [
            {"id": "o-1", "verdict": "ALLOW", "confidence": 0.9, "checkedAt": "2026-11-20T00:00:00Z"}
        ],
    },
    ("POST", "api/v1/agents"): lambda w, c: {"subjectId": "agent-new", "name": "New"},
    ("POST", "api/v1/attestations/verify"): lambda w, c: w.attestation,
    ("POST", "api/v1/verify/tool-call"): lambda w, c: {
        "tool": TOOL,
        "result": {"temperature": 12},
        "executionTimeMs": 120,
        "agent": LINKED,
    },
    ("POST", "api/v1/verify/tool-call/<uuid:verification_id>/feedback"): lambda w, c: {
        "wasHallucination": False
    },
    ("POST", "api/v1/verify/run"): lambda w, c: {"messages": made_up_run(), "tools": TOOLS, "agent": LINKED},
    ("POST", "api/v1/scan"): lambda w, c: {"text": "What is the weather in Paris?"},
    ("POST", "api/v1/agents/<str:subject_id>/runtime-observations"): lambda w, c: {
        "model": "m",
        "latencyMs": 120,
    },
    ("PUT", "api/v1/tools/<str:tool>/profile"): lambda w, c: {"stake": "high"},
    ("POST", "v1/chat/completions"): lambda w, c: {
        "model": "m",
        "messages": made_up_run()[:3],
        "tools": TOOLS,
    },
    ("POST", "api/v1/operators/me/wallet/challenge"): lambda w, c: {"address": WALLET.address},
    ("POST", "api/v1/operators/me/wallet"): _wallet_proof,
    ("POST", "api/v1/webhooks/subscriptions"): lambda w, c: {
        "url": "https://93.184.215.14/hook",
        "events": ["score.changed"],
    },
    ("PATCH", "api/v1/webhooks/subscriptions/<int:pk>"): lambda w, c: {"minChange": 2},
}
HEADERS: dict[tuple[str, str], dict[str, str]] = {("POST", "v1/chat/completions"): {"x-agent-id": LINKED}}


def _outcome(status: int) -> str:
    return f"{status // 100}xx" if status // 100 in (2, 3) else str(status)


def _rule_id(rule: Rule) -> str:
    return f"{rule.method} {rule.sample or '/' + rule.route}"


@pytest.mark.parametrize("rule", TABLE, ids=_rule_id)
def test_it_answers_every_principal_as_the_table_says(rule: Rule, world: World) -> None:
    wrong = []
    for method, principal in itertools.product(rule.methods, PRINCIPALS):
        client = world.clients[principal]
        savepoint = transaction.savepoint()
        try:
            key = (method, rule.route)
            body = BODIES[key](world, client) if key in BODIES else None
            response = client.generic(
                method,
                _path(rule, world),
                data="" if body is None else json.dumps(body),
                content_type="application/json",
                headers=HEADERS.get(key, {}),
            )
        finally:
            transaction.savepoint_rollback(savepoint)
        got = _outcome(response.status_code)
        if got != rule.expect[principal]:
            wrong.append(
                f"{method} as {principal}: expected {rule.expect[principal]}, got {response.status_code} "
                f"{response.content[:300]!r}"
            )
        if got in {"401", "403"} and not _rule_id(rule).startswith("GET /admin"):
            assert response["Content-Type"].startswith("application/problem+json"), (principal, response)
    assert not wrong, "\n".join(wrong)
