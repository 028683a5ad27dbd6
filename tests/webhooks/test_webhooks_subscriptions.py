"""Subscriptions through the API: hostile targets refused (4xx naming the field), who may do what."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

EVENTS = ["score.changed"]


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/hook",  # plain http
        "ftp://example.org/hook",
        "https://127.0.0.1/hook",
        "https://10.0.0.7/hook",
        "https://192.168.1.1/hook",
        "https://169.254.169.254/latest/meta-data/",
        "https://[::1]/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://localhost/hook",
        "https://2130706433/hook",  # 127.0.0.1 spelled as one number
        "https://user:password@example.org/hook",
        "https://metadata.google.internal/hook",
        "not a url",
        "https://" + "a" * 3000 + ".org/",
    ],
)
def test_it_refuses_hostile_target_urls(marketplace, url, settings):
    settings.WEBHOOK_TEST_ALLOWED_HOSTS = []
    response = marketplace.post(
        "/api/v1/webhooks/subscriptions", {"url": url, "events": EVENTS}, format="json"
    )
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == "url"


def test_it_refuses_the_local_receiver_without_the_test_allowlist(marketplace, receiver, settings):
    settings.WEBHOOK_TEST_ALLOWED_HOSTS = []
    response = marketplace.post(
        "/api/v1/webhooks/subscriptions", {"url": receiver.url, "events": EVENTS}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["field"] == "url"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "https://example.org/h", "events": ["score.moved"]}, "events[0]"),
        ({"url": "https://example.org/h", "events": []}, "events"),
        ({"url": "https://example.org/h", "events": "score.changed"}, "events"),
        ({"url": "https://example.org/h", "events": EVENTS, "agents": ["nobody"]}, "agents[0]"),
        ({"url": "https://example.org/h", "events": EVENTS, "agents": ["a"] * 101}, "agents"),
        ({"url": "https://example.org/h", "events": EVENTS, "minChange": -1}, "minChange"),
        ({"url": "https://example.org/h", "events": EVENTS, "minChange": "NaN"}, "minChange"),
        ({"url": ["https://example.org/h"], "events": EVENTS}, "url"),
    ],
)
def test_it_names_the_invalid_field(marketplace, body, field, settings):
    settings.OUTBOUND_ALLOW_PRIVATE = True  # example.org may not resolve here; the field checks come first
    response = marketplace.post("/api/v1/webhooks/subscriptions", body, format="json")
    assert response.status_code == 400, response.content
    assert response.json()["errors"][0]["field"] == field


def test_it_caps_the_subscriptions_of_an_operator(marketplace, receiver, settings):
    settings.WEBHOOK_MAX_SUBSCRIPTIONS = 2
    for _ in range(2):
        body = {"url": receiver.url, "events": EVENTS}
        assert marketplace.post("/api/v1/webhooks/subscriptions", body, format="json").status_code == 201
    body = {"url": receiver.url, "events": EVENTS}
    assert marketplace.post("/api/v1/webhooks/subscriptions", body, format="json").status_code == 409


def test_it_keeps_subscriptions_to_their_operator(marketplace, other_marketplace, provider, receiver):
    created = marketplace.post(
        "/api/v1/webhooks/subscriptions", {"url": receiver.url, "events": EVENTS}, format="json"
    ).json()
    path = f"/api/v1/webhooks/subscriptions/{created['id']}"
    assert other_marketplace.get(path).status_code == 403
    assert other_marketplace.post(path + "/rotate-secret").status_code == 403
    assert other_marketplace.get(path + "/deliveries").status_code == 403
    assert other_marketplace.delete(path).status_code == 403
    assert other_marketplace.get("/api/v1/webhooks/subscriptions").json()["results"] == []
    assert APIClient().get(path).status_code == 401
    _, provider_client = provider
    assert provider_client.get("/api/v1/webhooks/subscriptions").status_code == 401
    # The secret is shown when made and rotated, not when read.
    assert "secret" not in marketplace.get(path).json()
    assert marketplace.delete(path).status_code == 204
    assert marketplace.get(path).status_code == 404
