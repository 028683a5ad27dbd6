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
    assert record["trustScore"] == 42.74
    assert record["trustScores"]["output-verification.quality"] == 43.2
