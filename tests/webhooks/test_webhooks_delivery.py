"""End to end: subscribe through the API, move a score through the API, a local receiver gets it signed."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from provider_client.webhooks import WebhookVerificationError, verify_webhook
from registry.models import Provider
from registry.services.providers import provider_set_status
from webhooks.models import WebhookDelivery, WebhookSubscription
from webhooks.services.deliveries import webhook_delivery_attempt
from webhooks.tasks import webhook_deliveries_sweep

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]


def summary(agent: str, allow: float = 0.9, checks: int = 10) -> dict[str, object]:
    return {
        "agent": agent,
        "allowRate": allow,
        "blockRate": round(1 - allow, 4),
        "uncertainRate": 0.0,
        "avgConfidence": 0.8,
        "totalChecks": checks,
        "windowDays": 7,
        "stakeDistribution": {"low": {"checks": checks}},
    }


def independent_signatures(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """Standard Webhooks checked with the standard library only (not provider_client)."""
    key = base64.b64decode(secret.split("_", 1)[1])
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    offered = [part.split(",", 1) for part in headers["webhook-signature"].split(" ")]
    return any(version == "v1" and hmac.compare_digest(value, expected) for version, value in offered)


def subscribe(client, url: str, **fields: object) -> dict:
    body = {"url": url, "events": ["score.changed", "provider.suspended", "agent.unrated"], **fields}
    response = client.post("/api/v1/webhooks/subscriptions", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def push(committed, provider, agent: str, allow: float = 0.9) -> None:
    _, client = provider
    response = committed(lambda: client.post("/api/v1/summaries", summary(agent, allow), format="json"))
    assert response.status_code == 201, response.content


def test_it_delivers_a_signed_score_change_to_a_subscriber(
    marketplace, provider, receiver, committed, api_client
):
    created = subscribe(marketplace, receiver.url)
    assert created["secret"].startswith("whsec_")
    push(committed, provider, "agent-1")
    assert len(receiver.requests) == 1
    got = receiver.requests[0]
    assert got.path == "/hooks"
    assert independent_signatures(created["secret"], got.headers, got.body)
    assert abs(int(got.headers["webhook-timestamp"]) - time.time()) < 600
    payload = json.loads(got.body)
    record = api_client.get("/api/v1/agents/agent-1/trust-score").json()
    assert payload["type"] == "score.changed"
    assert payload["data"]["agent"] == "agent-1"
    assert payload["data"]["previousScore"] is None
    assert payload["data"]["trustScore"] == record["trustScore"]
    # The helper receivers are given agrees, and refuses a tampered body or another secret.
    assert verify_webhook(secret=created["secret"], headers=got.headers, body=got.body) == payload
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret=created["secret"], headers=got.headers, body=got.body + b" ")
    other = "whsec_" + base64.b64encode(b"x" * 24).decode()
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret=other, headers=got.headers, body=got.body)
    log = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}/deliveries").json()["results"]
    assert [(d["status"], d["attempts"], d["responseCode"]) for d in log] == [("succeeded", 1, 200)]
    assert log[0]["msgId"] == got.headers["webhook-id"]


def test_it_sends_the_change_when_a_score_moves(marketplace, provider, receiver, committed):
    subscribe(marketplace, receiver.url)
    push(committed, provider, "agent-1", allow=0.9)
    push(committed, provider, "agent-1", allow=0.3)
    assert len(receiver.requests) == 2
    first, second = (json.loads(r.body)["data"] for r in receiver.requests)
    assert second["previousScore"] == first["trustScore"]
    assert second["change"] == pytest.approx(second["trustScore"] - first["trustScore"], abs=0.011)
    assert second["change"] < 0
    assert receiver.requests[0].headers["webhook-id"] != receiver.requests[1].headers["webhook-id"]


def test_it_retries_after_receiver_errors_with_the_same_id(marketplace, provider, receiver, committed):
    created = subscribe(marketplace, receiver.url)
    receiver.statuses = [500, 503]
    push(committed, provider, "agent-1")
    assert len(receiver.requests) == 3
    assert len({r.headers["webhook-id"] for r in receiver.requests}) == 1
    assert all(independent_signatures(created["secret"], r.headers, r.body) for r in receiver.requests)
    (delivery,) = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}/deliveries").json()[
        "results"
    ]
    assert delivery["status"] == "succeeded"
    assert delivery["attempts"] == 3
    assert [entry["code"] for entry in delivery["log"]] == [500, 503, 200]
    assert all(entry["latencyMs"] >= 0 for entry in delivery["log"])


def test_it_disables_a_subscription_after_consecutive_failed_deliveries(
    marketplace, provider, receiver, committed, settings
):
    settings.WEBHOOK_MAX_ATTEMPTS = 2
    settings.WEBHOOK_DISABLE_AFTER = 2
    created = subscribe(marketplace, receiver.url)
    receiver.statuses = [500] * 100
    push(committed, provider, "agent-1", allow=0.9)
    push(committed, provider, "agent-1", allow=0.5)
    assert len(receiver.requests) == 4
    state = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}").json()
    assert state["active"] is False
    assert "2 consecutive failed deliveries" in state["disabledReason"]
    push(committed, provider, "agent-1", allow=0.2)
    assert len(receiver.requests) == 4
    log = marketplace.get(f"/api/v1/webhooks/subscriptions/{created['id']}/deliveries").json()["results"]
    assert [d["status"] for d in log] == ["failed", "failed"]
    # Enabling it again resets the count, and the next change arrives.
    receiver.statuses = []
    enabled = marketplace.patch(
        f"/api/v1/webhooks/subscriptions/{created['id']}", {"active": True}, format="json"
    ).json()
    assert (enabled["active"], enabled["consecutiveFailures"]) == (True, 0)
    push(committed, provider, "agent-1", allow=0.7)
    assert len(receiver.requests) == 5


def test_it_signs_with_both_secrets_while_a_rotation_overlaps(marketplace, provider, receiver, committed):
    created = subscribe(marketplace, receiver.url)
    rotated = marketplace.post(f"/api/v1/webhooks/subscriptions/{created['id']}/rotate-secret").json()
    assert rotated["secret"] != created["secret"]
    push(committed, provider, "agent-1", allow=0.9)
    got = receiver.requests[-1]
    assert len(got.headers["webhook-signature"].split(" ")) == 2
    assert independent_signatures(created["secret"], got.headers, got.body)
    assert independent_signatures(rotated["secret"], got.headers, got.body)
    # After the overlap only the new secret signs.
    WebhookSubscription.objects.filter(pk=created["id"]).update(
        previous_secret_expires_at=timezone.now() - timedelta(seconds=1)
    )
    push(committed, provider, "agent-1", allow=0.4)
    got = receiver.requests[-1]
    assert len(got.headers["webhook-signature"].split(" ")) == 1
    assert independent_signatures(rotated["secret"], got.headers, got.body)
    assert not independent_signatures(created["secret"], got.headers, got.body)


def test_it_respects_the_agent_filter_and_the_minimum_change(
    marketplace, provider, receiver, committed, api_client
):
    push(committed, provider, "agent-1", allow=0.9)
    push(committed, provider, "agent-2", allow=0.9)
    only_two = subscribe(marketplace, receiver.url + "/two", agents=["agent-2"])
    big_moves = subscribe(marketplace, receiver.url + "/big", agents=["agent-1"], minChange=40)
    small_moves = subscribe(marketplace, receiver.url + "/small", agents=["agent-1"], minChange=0.5)
    assert small_moves["minChange"] == 0.5
    assert only_two["agents"] == ["agent-2"]
    before = api_client.get("/api/v1/agents/agent-1/trust-score").json()["trustScore"]
    push(committed, provider, "agent-1", allow=0.8)
    after = api_client.get("/api/v1/agents/agent-1/trust-score").json()["trustScore"]
    assert 0.5 <= abs(after - before) < 40
    assert [r.path for r in receiver.requests] == ["/hooks/small"]
    push(committed, provider, "agent-2", allow=0.1)
    assert [r.path for r in receiver.requests] == ["/hooks/small", "/hooks/two"]
    assert json.loads(receiver.requests[-1].body)["data"]["agent"] == "agent-2"
    assert big_moves["minChange"] == 40


def test_it_tells_subscribers_when_a_provider_is_suspended_and_agents_become_unrated(
    marketplace, provider, receiver, committed
):
    push(committed, provider, "agent-1", allow=0.9)
    created = subscribe(marketplace, receiver.url, events=["provider.suspended", "agent.unrated"])
    made, _ = provider
    committed(lambda: provider_set_status(provider=made, status=Provider.Status.SUSPENDED, reason="forged"))
    kinds = {json.loads(r.body)["type"]: json.loads(r.body)["data"] for r in receiver.requests}
    assert set(kinds) == {"provider.suspended", "agent.unrated"}
    assert kinds["provider.suspended"]["provider"] == "checker"
    assert kinds["provider.suspended"]["agents"] == ["agent-1"]
    assert kinds["provider.suspended"]["reason"] == "forged"
    assert kinds["agent.unrated"]["agent"] == "agent-1"
    assert kinds["agent.unrated"]["rated"] is False
    assert all(independent_signatures(created["secret"], r.headers, r.body) for r in receiver.requests)


def test_it_sends_nothing_for_events_not_subscribed(marketplace, provider, receiver, committed):
    subscribe(marketplace, receiver.url, events=["provider.suspended"])
    push(committed, provider, "agent-1", allow=0.9)
    push(committed, provider, "agent-1", allow=0.2)
    assert receiver.requests == []


def test_it_sweeps_deliveries_whose_task_was_lost(marketplace, provider, receiver):
    created = subscribe(marketplace, receiver.url)
    _, client = provider
    # No on-commit callbacks run: the delivery rows are written, their tasks never queued.
    assert client.post("/api/v1/summaries", summary("agent-1"), format="json").status_code == 201
    from registry.models import Agent
    from registry.services.scoring import trust_score_compute

    trust_score_compute(agent=Agent.objects.get(subject_id="agent-1"))
    assert receiver.requests == []
    assert webhook_deliveries_sweep() == 0  # not overdue yet
    WebhookDelivery.objects.update(created_at=timezone.now() - timedelta(minutes=5))
    assert webhook_deliveries_sweep() == 1
    assert len(receiver.requests) == 1
    assert independent_signatures(created["secret"], receiver.requests[0].headers, receiver.requests[0].body)
    assert webhook_deliveries_sweep() == 0


def test_it_does_not_attempt_a_delivery_before_it_is_due(marketplace, provider, receiver, committed):
    subscribe(marketplace, receiver.url)
    receiver.statuses = [500]
    _, client = provider
    assert client.post("/api/v1/summaries", summary("agent-1"), format="json").status_code == 201
    from registry.models import Agent
    from registry.services.scoring import trust_score_compute

    trust_score_compute(agent=Agent.objects.get(subject_id="agent-1"))
    (delivery,) = WebhookDelivery.objects.all()
    assert webhook_delivery_attempt(delivery_id=delivery.pk) is not None  # the 500: a retry is due later
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now() + timedelta(hours=1))
    # A duplicate task (a broker redelivery) before then does nothing.
    assert webhook_delivery_attempt(delivery_id=delivery.pk) is None
    assert len(receiver.requests) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == ("pending", 1)
