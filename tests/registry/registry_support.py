"""Helpers for the registry tests: request bodies and an independent HCS-25 reference (SPEC section 2).

The reference is written from the SPEC text, not from `adapters/`, so the API's numbers are checked
against a second implementation of the same formulas.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

VECTORS_PATH = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "hcs25_vectors.json"
VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())

STAKE_WEIGHTS = {"low": 0.5, "medium": 1.0, "high": 2.0, "critical": 3.0}


def summary_body(agent: str, **fields: Any) -> dict[str, Any]:
    """A valid summary (the conformance "base" signal) about `agent`; fields override, None drops."""
    body: dict[str, Any] = {
        "agent": agent,
        "allowRate": 0.9,
        "blockRate": 0.1,
        "uncertainRate": 0.0,
        "avgConfidence": 0.8,
        "totalChecks": 10,
        "windowDays": 7,
        "stakeDistribution": {"low": {"checks": 8}, "medium": {"checks": 2}},
    }
    body.update(fields)
    return {k: v for k, v in body.items() if v is not None}


def half_up(x: float) -> float:
    """SPEC rounding: floor(x*100 + 0.5) / 100."""
    return math.floor(x * 100 + 0.5) / 100


def clamp(x: float, lo: float = 0.0, hi: float = 1.0) -> float:
    return max(lo, min(hi, x))


def component(x: float) -> float:
    return half_up(clamp(x, 0.0, 100.0))


def provider_quality(s: Mapping[str, Any]) -> float:
    dp = clamp(s["blockRate"] / 0.05)
    levels = {
        k: int(v["checks"]) for k, v in (s.get("stakeDistribution") or {}).items() if k in STAKE_WEIGHTS
    }
    known = sum(levels.values())
    sm = 1.0 if known == 0 else clamp(sum(STAKE_WEIGHTS[k] * n for k, n in levels.items()) / known, 0.5, 3.0)
    return float(s["allowRate"] * s["avgConfidence"] * dp * min(sm, 1.5) * 100)


def output_verification(summaries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """The output-verification adapter over eligible summaries: applicable, quality, coverage, total."""
    rows = [s for s in summaries if s["totalChecks"] > 0]
    total_checks = sum(int(s["totalChecks"]) for s in rows)
    if total_checks < 10:
        return {"applicable": False}
    weights = [math.log10(int(s["totalChecks"]) + 1) for s in rows]
    qualities = [provider_quality(s) for s in rows]
    mean = sum(w * q for w, q in zip(weights, qualities, strict=True)) / sum(weights)
    quality = mean
    if len(rows) >= 2:
        disagreement = sum(w * abs(q - mean) for w, q in zip(weights, qualities, strict=True)) / sum(weights)
        quality = mean * (1 - 0.5 * disagreement / 100)
    coverage = 100 * clamp(min(50.0, math.log10(total_checks + 1) * 20) / 50)
    q, c = component(quality), component(coverage)
    return {"applicable": True, "quality": q, "coverage": c, "total": component(0.7 * q + 0.3 * c)}


def erc8004_feedback(average: float, count: int) -> dict[str, float]:
    rating = component(average)
    volume = component(100 * clamp(min(20.0, math.log10(count + 1) * 10) / 20))
    return {"rating": rating, "volume": volume, "total": component((rating + volume) / 2)}


def composite(totals_and_weights: Iterable[tuple[float, float]]) -> float:
    """trustScore = Σ w·total / Σ w over the adapters in the denominator, 0 if none."""
    pairs = list(totals_and_weights)
    denominator = sum(w for _, w in pairs)
    if denominator == 0:
        return 0.0
    return component(sum(w * t for t, w in pairs) / denominator)


# A throwaway secp256k1 key for providers with a registered signer (never used outside tests).
TEST_SIGNER_KEY = "0x" + "4c" * 32


def demo_signer_address() -> str:
    from eth_account import Account

    return str(Account.from_key(TEST_SIGNER_KEY).address)


def signed_headers(
    provider_slug: str, agent: str, body: Any, *, nonce: int, key: str = TEST_SIGNER_KEY, ttl: int = 600
) -> dict[str, str]:
    """The X-Signature headers of an EIP-712 signed push, as APIClient keyword arguments."""
    import time

    from registry.services.signatures import signing_domain
    from signing.eip712 import ProviderSummary, sign

    deadline = int(time.time()) + ttl
    struct = ProviderSummary.for_body(provider_slug, agent, body, nonce=nonce, deadline=deadline)
    signature = sign(struct, signing_domain(), key)
    return {
        "HTTP_X_SIGNATURE": "0x" + signature.hex(),
        "HTTP_X_SIGNATURE_NONCE": str(nonce),
        "HTTP_X_SIGNATURE_DEADLINE": str(deadline),
    }


def list_plan(api: APIClient, query: str) -> dict[str, Any]:
    """The JSON plan of the agent SELECT the API ran for `query` (captured, then EXPLAINed)."""
    with CaptureQueriesContext(connection) as captured:
        response = api.get(f"/api/v1/agents?{query}")
    assert response.status_code == 200, response.content
    selects = [
        q["sql"]
        for q in captured.captured_queries
        if 'FROM "registry_agent"' in q["sql"] and "LIMIT" in q["sql"]
    ]
    assert len(selects) == 1, selects
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + selects[0])
        raw = cursor.fetchone()[0]
    document = json.loads(raw) if isinstance(raw, str) else raw
    plan: dict[str, Any] = document[0]["Plan"]
    return plan


def nodes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    found = [plan]
    for child in plan.get("Plans", []):
        found += nodes(child)
    return found
