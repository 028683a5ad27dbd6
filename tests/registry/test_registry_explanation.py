"""HCS-25 v1.1 through the registry: graphs in numbered configurations, the explanation endpoint, the page."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from common.errors import ApplicationError
from registry.models import Agent, FeedbackEntry, Provider
from registry.services.agents import agent_register
from registry.services.scoring import scoring_config_create, scoring_config_current
from tests.adapters.graph_support import graphs, recompute_explanation
from tests.registry.registry_support import summary_body

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]

MakeProvider = Callable[..., tuple[Provider, str]]
REFS = [
    "adapter:output-verification",
    "adapter:erc8004-feedback",
    "component:output-verification.quality",
    "component:output-verification.coverage",
    "component:erc8004-feedback.rating",
    "component:erc8004-feedback.volume",
    "component:erc8004-feedback.score",
]
SYBIL_FLOOR: dict[str, Any] = {
    "id": "feedback-floor-1",
    "nodes": [
        {"name": "quality", "op": "mean", "inputs": ["adapter:output-verification"]},
        {"name": "governed", "op": "floor", "inputs": ["node:quality", "component:erc8004-feedback.rating"]},
    ],
    "output": "governed",
}
_serial = itertools.count()


def _push(committed: Callable[[Callable[[], Any]], Any], client: APIClient, body: dict[str, Any]) -> None:
    response = committed(lambda: client.post("/api/v1/summaries", body, format="json"))
    assert response.status_code in (200, 201), response.content


def _feedback(agent: Agent, values: list[int]) -> None:
    for i, value in enumerate(values):
        FeedbackEntry.objects.create(
            agent=agent, client_address=f"0x{i + 1:040x}", feedback_index=i, tag1="starred", value=value
        )


def _config(graph: dict[str, Any] | None, weights: tuple[float, float] = (1.0, 1.0)) -> int:
    params = scoring_config_current().params
    # A new version each time (identical params would give back an older, not current, version);
    # the maximum age does not touch fresh summaries.
    params["output_verification"]["max_age_days"] = 30.0 + next(_serial)
    for adapter, weight in zip(params["adapters"], weights, strict=True):
        adapter["weight"] = weight
    params.pop("graph", None)
    if graph is not None:
        params["graph"] = graph
    return scoring_config_create(params=params, note="graph test").version


def test_it_scores_with_the_graph_of_the_current_configuration_and_names_it(
    make_provider: MakeProvider, keyed_client: Callable[[str], APIClient], committed: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="floored", registry="erc-8004")
    _, key = make_provider("tp")
    _push(committed, keyed_client(key), summary_body("floored", totalChecks=400, blockRate=0.1))
    _feedback(agent, [20, 30])
    before = api.get("/api/v1/agents/floored/trust-score").json()
    version = _config(SYBIL_FLOOR)
    _push(committed, keyed_client(key), summary_body("floored", totalChecks=401, blockRate=0.1))
    record = api.get("/api/v1/agents/floored/trust-score").json()
    assert before["compositionGraphId"] == "hcs25-composite"
    assert record["trustScoreConfigVersion"] == version
    assert record["compositionGraphId"] == "feedback-floor-1"
    rating = record["trustScores"]["erc8004-feedback.rating"]
    quality = record["breakdown"]["adapters"][0]["total"]
    # The weak feedback caps the score instead of being averaged into it.
    assert rating < quality
    assert record["trustScore"] == record["trustScores"]["total"] == rating
    explained = api.get("/api/v1/agents/floored/trust-score/explanation")
    assert explained.status_code == 200
    body = explained.json()
    assert body["graph"] == {
        **SYBIL_FLOOR,
        "nodes": [{**n, "params": {}} for n in SYBIL_FLOOR["nodes"]],
    }
    assert body["explanation"] == record["explanation"]
    governed = body["explanation"]["nodes"][-1]
    assert (governed["name"], governed["constraintApplied"], governed["value"]) == ("governed", True, rating)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    graph=st.none() | graphs(REFS),
    weights=st.tuples(st.sampled_from([0.0, 1.0, 2.5]), st.sampled_from([0.0, 1.0, 3.0])),
    registry=st.sampled_from(["erc-8004", "hcs-10"]),
    checks=st.sampled_from([0, 5, 40, 900]),
    ratings=st.lists(st.integers(0, 100), max_size=4),
)
def test_it_publishes_an_explanation_that_recomputes_the_score_exactly(
    make_provider: MakeProvider,
    keyed_client: Callable[[str], APIClient],
    committed: Any,
    api: APIClient,
    graph: dict[str, Any] | None,
    weights: tuple[float, float],
    registry: str,
    checks: int,
    ratings: list[int],
) -> None:
    n = next(_serial)
    version = _config(graph, weights)
    subject = f"explained-{n}"
    agent = agent_register(subject_id=subject, registry=registry)
    _feedback(agent, ratings)
    if checks:
        _, key = make_provider(f"p-{n}")
        _push(committed, keyed_client(key), summary_body(subject, totalChecks=checks, stakeDistribution=None))
    record = api.get(f"/api/v1/agents/{subject}/trust-score").json()
    body = api.get(f"/api/v1/agents/{subject}/trust-score/explanation").json()
    assert body["trustScoreConfigVersion"] == record["trustScoreConfigVersion"] == version
    assert (
        body["compositionGraphId"]
        == record["compositionGraphId"]
        == (graph or {}).get("id", "hcs25-composite")
    )
    assert body["breakdown"] == record["breakdown"]
    # Recomputed from the published breakdown and the explanation alone, by a second implementation.
    assert (
        recompute_explanation(body["explanation"], body["breakdown"]["adapters"])
        == record["trustScores"]["total"]
    )
    assert [node["name"] for node in body["explanation"]["nodes"]] == body["explanation"]["order"]
    assert {node["name"] for node in body["graph"]["nodes"]} == set(body["explanation"]["order"])


@pytest.mark.parametrize(
    ("graph", "pointer"),
    [
        ({**SYBIL_FLOOR, "nodes": [{"name": "governed", "op": "floor", "inputs": ["node:governed", "x:y"]}]},
         "/graph/nodes/0/inputs/1"),
        ({**SYBIL_FLOOR, "nodes": [{"name": "governed", "op": "mean", "inputs": ["node:governed"]}]},
         "/graph/nodes/0/inputs/0"),
        ({**SYBIL_FLOOR, "nodes": [{"name": "governed", "op": "sum", "inputs": []}]}, "/graph/nodes/0/op"),
        ({**SYBIL_FLOOR, "nodes": [{"name": f"n{i}", "op": "constant", "params": {"value": 1}} for i in range(65)]},  # noqa: E501
         "/graph/nodes"),
    ],
)  # fmt: skip
def test_it_refuses_an_invalid_graph_with_a_problem_naming_the_field(
    graph: dict[str, Any], pointer: str
) -> None:
    params = {**scoring_config_current().params, "graph": graph}
    with pytest.raises(ApplicationError) as caught:
        scoring_config_create(params=params)
    problem = caught.value.to_problem()
    assert (problem["status"], problem["type"]) == (400, "/problems/validation")
    assert [e["pointer"] for e in problem["errors"]] == [pointer]
    assert scoring_config_current().version == 1


def test_it_shows_the_field_error_in_the_admin_form(admin_client_logged_in: tuple[Client, Any]) -> None:
    from django.contrib import admin
    from django.test import RequestFactory

    from registry.models import ScoringConfig

    request = RequestFactory().get("/admin/registry/scoringconfig/add/")
    request.user = admin_client_logged_in[1]
    form_class = admin.site._registry[ScoringConfig].get_form(request)
    bad = {**scoring_config_current().params, "graph": {**SYBIL_FLOOR, "output": "nowhere"}}
    form = form_class(data={"params": json.dumps(bad), "note": "x"})
    assert not form.is_valid()
    assert str(form.errors["params"][0]).startswith("/graph/output:")
    good = form_class(data={"params": json.dumps({**bad, "graph": SYBIL_FLOOR}), "note": "x"})
    assert good.is_valid(), good.errors


def test_it_answers_404_for_an_unknown_agent(api: APIClient) -> None:
    response = api.get("/api/v1/agents/nobody/trust-score/explanation")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")


def test_it_shows_the_graph_trace_on_the_agent_page(
    make_provider: MakeProvider, keyed_client: Callable[[str], APIClient], committed: Any
) -> None:
    agent = agent_register(subject_id="traced", registry="erc-8004")
    _feedback(agent, [10])
    _config(SYBIL_FLOOR)
    _, key = make_provider("tp")
    _push(committed, keyed_client(key), summary_body("traced", totalChecks=400))
    page = Client().get("/agents/traced").content.decode()
    assert "How the score is composed" in page
    assert "<code>feedback-floor-1</code>" in page
    assert "component:erc8004-feedback.rating = 10.0" in page
    assert "(constraint applied)" in page
