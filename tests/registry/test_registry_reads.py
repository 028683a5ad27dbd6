"""Public reads: agents (filtered, ordered), providers (public fields), problem 404s, OpenAPI and docs."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from rest_framework.test import APIClient

from registry.models import Provider, ProviderApiKey
from registry.services.agents import agent_register
from registry.services.providers import provider_set_status
from tests.registry.registry_support import VECTORS, output_verification

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]

SIGNALS = {v["name"]: v["providers"][0] for v in VECTORS["outputVerification"]}


@pytest.fixture
def population(
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
    committed: Callable[[Callable[[], Any]], Any],
) -> dict[str, float | None]:
    """Four agents, three scored by two providers; returns the expected score of each."""
    _, first = make_provider("first-verifier")
    _, second = make_provider("second-verifier")
    agent_register(subject_id="alpha", name="Alpha Bot", registry="hcs-10")
    agent_register(subject_id="beta", registry="other")
    agent_register(subject_id="gamma", name="Gamma", registry="hcs-10")
    agent_register(subject_id="delta", registry="erc-8004")
    plan = [
        ("alpha", first, "base"),
        ("beta", second, "no stakeDistribution"),
        ("gamma", second, "240 checks"),
    ]
    expected: dict[str, float | None] = {"delta": None}
    for subject, key, signal in plan:
        body = {"agent": subject, **SIGNALS[signal]}
        response = committed(partial(keyed_client(key).post, "/api/v1/summaries", body, format="json"))
        assert response.status_code == 201
        expected[subject] = output_verification([SIGNALS[signal]])["total"]
    return expected


def subjects(api: APIClient, query: str) -> list[str]:
    response = api.get(f"/api/v1/agents?{query}")
    assert response.status_code == 200, response.content
    return [a["subjectId"] for a in response.json()["results"]]


def test_it_lists_agents_with_their_scores(api: APIClient, population: dict[str, float | None]) -> None:
    data = api.get("/api/v1/agents?count=exact").json()
    assert data["count"] == 4 and data["countCapped"] is False
    assert {a["subjectId"]: a["trustScore"] for a in data["results"]} == population
    alpha = next(a for a in data["results"] if a["subjectId"] == "alpha")
    assert alpha["registry"] == "hcs-10" and alpha["name"] == "Alpha Bot"
    assert alpha["trustScoreUpdatedAt"] is not None


def test_it_filters_agents_by_registry(api: APIClient, population: dict[str, float | None]) -> None:
    assert sorted(subjects(api, "registry=hcs-10")) == ["alpha", "gamma"]
    assert subjects(api, "registry=erc-8004") == ["delta"]


def test_it_filters_agents_by_provider_slug(api: APIClient, population: dict[str, float | None]) -> None:
    assert subjects(api, "provider=first-verifier") == ["alpha"]
    assert sorted(subjects(api, "provider=second-verifier")) == ["beta", "gamma"]
    assert subjects(api, "provider=nobody") == []


def test_it_filters_agents_by_score_bounds(api: APIClient, population: dict[str, float | None]) -> None:
    scored = {k: v for k, v in population.items() if v is not None}
    assert sorted(subjects(api, "min_score=50")) == sorted(k for k, v in scored.items() if v >= 50)
    assert sorted(subjects(api, "max_score=50")) == sorted(k for k, v in scored.items() if v <= 50)
    low, high = 40, 65
    assert sorted(subjects(api, f"min_score={low}&max_score={high}")) == sorted(
        k for k, v in scored.items() if low <= v <= high
    )
    exact = scored["beta"]
    assert subjects(api, f"min_score={exact}&max_score={exact}") == ["beta"]


def test_it_searches_agents_by_subject_id_or_name(
    api: APIClient, population: dict[str, float | None]
) -> None:
    assert subjects(api, "q=alp") == ["alpha"]
    assert subjects(api, "q=BOT") == ["alpha"]
    # Words begin with the query's words: "a" is the start of "alpha" only, not inside "beta".
    assert subjects(api, "q=a") == ["alpha"]


def test_it_orders_agents_by_score_with_unscored_last(
    api: APIClient, population: dict[str, float | None]
) -> None:
    scored = {k: v for k, v in population.items() if v is not None}
    descending = sorted(scored, key=lambda k: -scored[k])
    assert subjects(api, "ordering=-score") == [*descending, "delta"]
    assert subjects(api, "ordering=score") == [*reversed(descending), "delta"]
    assert subjects(api, "") == [*descending, "delta"]
    assert subjects(api, "registry=hcs-10&ordering=score") == [k for k in reversed(descending) if k != "beta"]


def test_it_serves_one_agent_and_a_problem_404(api: APIClient, population: dict[str, float | None]) -> None:
    one = api.get("/api/v1/agents/gamma")
    assert one.status_code == 200
    assert one.json()["trustScore"] == population["gamma"]
    for url in (
        "/api/v1/agents/nope",
        "/api/v1/agents/nope/trust-score",
        "/api/v1/agents/nope/trust-score/history",
    ):
        missing = api.get(url)
        assert missing.status_code == 404, url
        assert missing["Content-Type"].startswith("application/problem+json")
        assert missing.json()["type"] == "/problems/not-found"


def test_it_shows_providers_public_fields_only(
    api: APIClient, make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    provider, key = make_provider(
        "public-face",
        signer_address="0x" + "ab" * 20,
        methodology_url="https://example.com/method",
        operator_address="0x" + "cd" * 20,
        stats_endpoint="https://93.184.215.14/internal-stats",
    )
    suspended, _ = make_provider("benched")
    provider_set_status(provider=suspended, status=Provider.Status.SUSPENDED, actor_label="test")
    response = api.get("/api/v1/providers")
    assert response.status_code == 200
    rows = response.json()["results"]
    assert [r["slug"] for r in rows] == ["benched", "public-face"]
    row = rows[1]
    assert set(row) == {
        "name",
        "slug",
        "methodologyUrl",
        "signerAddress",
        "status",
        "independenceStatement",
        "createdAt",
        "accuracy",
    }
    assert row["methodologyUrl"] == "https://example.com/method"
    assert row["signerAddress"] == "0x" + "ab" * 20
    text = response.content.decode()
    stored = ProviderApiKey.objects.get(provider=provider)
    assert stored.key_hash not in text and key not in text and stored.prefix not in text
    assert "internal-stats" not in text
    assert [r["slug"] for r in api.get("/api/v1/providers?status=suspended").json()["results"]] == ["benched"]
    detail = api.get("/api/v1/providers/public-face")
    assert detail.status_code == 200 and detail.json() == row
    assert api.get("/api/v1/providers/nope").status_code == 404


def test_it_serves_an_openapi_document_listing_the_summary_endpoints(api: APIClient) -> None:
    response = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert response.status_code == 200
    document = json.loads(response.content)
    assert document["openapi"].startswith("3.")
    paths = document["paths"]
    for path in (
        "/api/v1/summaries",
        "/api/v1/summaries/batch",
        "/api/v1/outcomes",
        "/api/v1/agents/{subject_id}/trust-score",
        "/api/v1/scoring-config",
    ):
        assert path in paths, path
    create = paths["/api/v1/summaries"]["post"]
    assert create["operationId"] == "summaries_create"
    assert {"201", "400", "401", "409", "413"} <= set(create["responses"])
    yaml = api.get("/api/schema/")
    assert yaml.status_code == 200 and b"/api/v1/summaries/batch" in yaml.content
    # Where a provider is pulled from is internal: neither the API nor its schema says it.
    assert "statsEndpoint" not in document["components"]["schemas"]["Provider"]["properties"]
    assert b"statsEndpoint" not in response.content


def test_it_serves_swagger_ui(api: APIClient) -> None:
    response = api.get("/api/docs/")
    assert response.status_code == 200
    assert b"swagger-ui" in response.content.lower()
    # The set-up script is a separate same-origin file (the CSP allows no inline script).
    script = api.get("/api/docs/", {"script": ""})
    assert script.status_code == 200
    assert b"/api/schema/" in script.content


def test_it_serves_the_trust_score_with_cache_headers(
    api: APIClient, population: dict[str, float | None]
) -> None:
    response = api.get("/api/v1/agents/alpha/trust-score")
    assert response.status_code == 200
    assert response.json()["trustScore"] == population["alpha"]
    assert response["ETag"].startswith('"')
    assert "max-age" in response["Cache-Control"]


def test_it_refuses_a_non_numeric_score_bound_as_a_problem(api: APIClient) -> None:
    response = api.get("/api/v1/agents?min_score=high")
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/problem+json")
    assert [e["field"] for e in response.json()["errors"]] == ["min_score"]


def test_it_registers_agents_for_providers_only(
    provider_client: tuple[Provider, APIClient], api: APIClient
) -> None:
    _, client = provider_client
    body = {"subjectId": "hcs10:0.0.4242", "name": "An HCS-10 agent", "registry": "hcs-10"}
    assert api.post("/api/v1/agents", body, format="json").status_code == 401
    created = client.post("/api/v1/agents", body, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["chainId"] is None and created.json()["ownerAddress"] == ""
    assert client.post("/api/v1/agents", body, format="json").status_code == 200
    bad = client.post("/api/v1/agents", {**body, "subjectId": "x y"}, format="json")
    assert bad.status_code == 400
    assert [e["field"] for e in bad.json()["errors"]] == ["subjectId"]
    assert api.get("/api/v1/agents?registry=hcs-10&count=exact").json()["count"] == 1
