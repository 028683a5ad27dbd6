import pytest
from django.test import override_settings

from tests.registry.registry_support import summary_body


@pytest.mark.django_db
@override_settings(AUTO_REGISTER_AGENTS=True)
def test_it_scores_a_pushed_summary(provider_client, api, django_capture_on_commit_callbacks):
    _, client = provider_client
    body = summary_body("agent-1", agentRegistry="hcs-10")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/summaries", body, format="json")
    assert response.status_code == 201, response.content
    record = api.get("/api/v1/agents/agent-1/trust-score").json()
    assert record["trustScores"]["output-verification.quality"] == 43.2
    # The evidence is the weighted mean (only output-verification applies to an hcs-10 agent)...
    nodes = {node["name"]: node for node in record["explanation"]["nodes"]}
    assert nodes["evidence"]["value"] == 42.74
    # ...and the default floor caps it: no reviewers (0) and one independent provider of the three the
    # sybil-resistance adapter asks for.
    providers = 100 * 1 / 3
    assert record["trustScores"]["sybil-resistance.providers"] == round(providers, 2)
    assert record["trustScores"]["sybil-resistance.reviewers"] == 0
    resistance = (0 + providers) / 2
    assert nodes["governed"]["constraintApplied"] is True
    assert record["trustScore"] == round(min(42.74, resistance), 2) == 16.67


@pytest.mark.django_db
@override_settings(AUTO_REGISTER_AGENTS=True)
def test_it_scores_a_pushed_summary_by_the_weighted_mean_under_version_1(
    provider_client, api, django_capture_on_commit_callbacks, weighted_mean_config
):
    _, client = provider_client
    body = summary_body("agent-1", agentRegistry="hcs-10")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/summaries", body, format="json")
    assert response.status_code == 201, response.content
    record = api.get("/api/v1/agents/agent-1/trust-score").json()
    assert record["trustScore"] == 42.74
    assert record["trustScores"]["output-verification.quality"] == 43.2
