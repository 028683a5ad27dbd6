import pytest
from django.test import override_settings


@pytest.mark.django_db
@override_settings(AUTO_REGISTER_AGENTS=True)
def test_it_scores_a_pushed_summary(provider_client, api, django_capture_on_commit_callbacks):
    _, client = provider_client
    body = {
        "agent": "agent-1",
        "agentRegistry": "hcs-10",
        "allowRate": 0.9,
        "blockRate": 0.1,
        "uncertainRate": 0.0,
        "avgConfidence": 0.8,
        "totalChecks": 10,
        "windowDays": 7,
        "stakeDistribution": {"low": {"checks": 8}, "medium": {"checks": 2}},
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/summaries", body, format="json")
    assert response.status_code == 201, response.content
    record = api.get("/api/v1/agents/agent-1/trust-score").json()
    assert record["trustScore"] == 42.74
    assert record["trustScores"]["output-verification.quality"] == 43.2
