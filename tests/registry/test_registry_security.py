"""Rate limits that hold, production settings, the admin lockout and revocable provider keys."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client
from rest_framework.test import APIClient

from common.keycache import KeyLookupCache
from config.env import env_rate
from registry.models import Provider, ProviderApiKey, ProviderAuditEvent
from registry.services.agents import agent_register
from tests.registry.registry_support import summary_body

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def rates(settings: Any) -> Callable[..., None]:
    """Set the throttle rates for one test (DRF re-reads its settings on the change)."""

    def set_rates(**scopes: str | None) -> None:
        current = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
        current.update({scope.replace("_", "-"): rate for scope, rate in scopes.items()})
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": current}

    return set_rates


def assert_rate_limited(response: Any) -> None:
    assert response.status_code == 429, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["type"] == "/problems/rate-limited"
    assert int(response["Retry-After"]) >= 1


# --- client address and anonymous limits ---------------------------------------------------------


def test_it_keeps_counting_a_client_that_rotates_x_forwarded_for(rates: Callable[..., None]) -> None:
    rates(reads="3/minute")
    client = Client()
    answers = [
        client.get("/api/v1/providers", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}", REMOTE_ADDR="192.0.2.1")
        for n in range(4)
    ]
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    assert_rate_limited(answers[3])
    # Another address has its own bucket.
    assert client.get("/api/v1/providers", REMOTE_ADDR="192.0.2.2").status_code == 200


def test_it_counts_the_right_most_forwarded_address_behind_one_proxy(
    rates: Callable[..., None], settings: Any
) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    rates(reads="3/minute")
    client = Client()

    def get(forwarded: str) -> Any:
        return client.get("/api/v1/providers", HTTP_X_FORWARDED_FOR=forwarded, REMOTE_ADDR="10.0.0.2")

    # The client controls everything left of what the proxy appended: it does not change the bucket.
    answers = [get(f"198.51.100.{n}, 203.0.113.9") for n in range(4)]
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    assert_rate_limited(answers[3])
    # The proxy's own address (REMOTE_ADDR) is shared by every client; the forwarded one counts.
    assert get("203.0.113.10").status_code == 200


@pytest.mark.parametrize(
    ("proxies", "forwarded", "expected"),
    [
        (0, "203.0.113.9", "192.0.2.1"),
        (1, "1.1.1.1, 203.0.113.9", "203.0.113.9"),
        (2, "1.1.1.1, 203.0.113.9, 10.0.0.3", "203.0.113.9"),
        (2, "203.0.113.9", "203.0.113.9"),
        (1, "not-an-address", "192.0.2.1"),
        (1, "", "192.0.2.1"),
    ],
)
def test_it_takes_the_client_address_from_the_trusted_proxies_only(
    settings: Any, proxies: int, forwarded: str, expected: str
) -> None:
    from django.test import RequestFactory

    from common.throttling import client_address

    settings.TRUSTED_PROXY_COUNT = proxies
    request = RequestFactory().get("/", HTTP_X_FORWARDED_FOR=forwarded, REMOTE_ADDR="192.0.2.1")
    assert client_address(request) == expected


@pytest.mark.parametrize("path", ["/agents/", "/agents/page-agent", "/api/v1/tools", "/api/schema/"])
def test_it_throttles_pages_and_every_public_list(rates: Callable[..., None], path: str) -> None:
    agent_register(subject_id="page-agent")
    rates(reads="2/minute")
    client = Client(HTTP_ACCEPT="application/json")  # the schema view answers YAML otherwise
    assert [client.get(path).status_code for _ in range(2)] == [200, 200]
    assert_rate_limited(client.get(path))


@pytest.mark.parametrize(
    ("path", "key"), [("/api/v1/agents", "trk_made-up"), ("/api/v1/scan", "tro_made-up")]
)
def test_it_counts_refused_keys_against_the_address(rates: Callable[..., None], path: str, key: str) -> None:
    # Authentication runs before throttling: made-up keys must not buy unlimited 401s.
    rates(reads="3/minute")
    client = Client()
    answers = [
        client.post(path, {}, HTTP_AUTHORIZATION=f"Bearer {key}", REMOTE_ADDR="192.0.2.9") for _ in range(4)
    ]
    assert [a.status_code for a in answers[:3]] == [401, 401, 401]
    assert_rate_limited(answers[3])


# --- per-key limits --------------------------------------------------------------------------------


def test_it_throttles_authenticated_reads_per_key_not_per_address(
    rates: Callable[..., None], make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    rates(reads_authenticated="3/minute", reads="100/minute")
    _, key = make_provider("reader")
    _, other_key = make_provider("other-reader")
    client = Client()

    def get(key: str, address: str) -> Any:
        return client.get("/api/v1/agents", HTTP_AUTHORIZATION=f"Bearer {key}", REMOTE_ADDR=address)

    answers = [get(key, f"192.0.2.{n}") for n in range(4)]
    assert [a.status_code for a in answers[:3]] == [200, 200, 200]
    assert_rate_limited(answers[3])
    assert get(other_key, "192.0.2.1").status_code == 200
    assert client.get("/api/v1/agents", REMOTE_ADDR="192.0.2.1").status_code == 200


def test_it_throttles_writes_per_key(
    rates: Callable[..., None], make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    rates(writes="2/minute")
    agent_register(subject_id="written-agent")
    _, key = make_provider("writer")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")

    def push(n: int) -> Any:
        body = summary_body("written-agent", totalChecks=10 + n, updatedAt=f"2026-10-01T00:00:{n:02d}Z")
        return client.post("/api/v1/summaries", body, format="json")

    assert [push(n).status_code for n in range(2)] == [201, 201]
    assert_rate_limited(push(3))
    # Reads by the same key have their own, larger bucket.
    assert client.get("/api/v1/agents").status_code == 200


# --- start-up validation ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1200/minute", "1200/minute"),
        (" 5 / s ", "5/s"),
        ("10/Hour", "10/hour"),
        ("3/days", "3/day"),
        ("off", None),
        ("", "7/minute"),
    ],
)
def test_it_reads_rates_in_the_forms_drf_understands(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: str | None
) -> None:
    monkeypatch.setenv("SOME_RATE", raw)
    assert env_rate("SOME_RATE", "7/minute") == expected


@pytest.mark.parametrize("raw", ["lots", "100", "0/minute", "-1/minute", "10/fortnight", "1.5/minute", "x/s"])
def test_it_refuses_a_rate_it_cannot_read(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("SOME_RATE", raw)
    with pytest.raises(ImproperlyConfigured, match="SOME_RATE"):
        env_rate("SOME_RATE", "7/minute")


def production_env(**extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SECURE_", "CSP_", "READ_RATE", "WRITE_RATE", "DJANGO_SETTINGS", "AXES_"))
        and key not in {"DEBUG", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "TRUSTED_PROXY_COUNT"}
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "0",
            "SECRET_KEY": "deploy-check-" + "k3y-with-enough-entropy-0123456789-abcdefghijklmnopqrstuvwxyz",
            "ALLOWED_HOSTS": "registry.example.org",
            **extra,
        }
    )
    return env


def manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("name", ["READ_RATE_LIMIT", "READ_RATE_LIMIT_AUTHENTICATED", "WRITE_RATE_LIMIT"])
def test_it_stops_start_up_on_a_bad_rate(name: str) -> None:
    result = manage("check", env=production_env(**{name: "lots"}))
    assert result.returncode != 0
    assert f"{name}='lots'" in result.stderr


def test_it_passes_the_deploy_check_with_production_defaults() -> None:
    result = manage("check", "--deploy", "--fail-level", "WARNING", env=production_env())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout, result.stdout + result.stderr


# --- headers and HTTPS -----------------------------------------------------------------------------


def test_it_sends_the_security_headers_on_pages() -> None:
    agent_register(subject_id="headed-agent")
    response = Client().get("/agents/headed-agent", secure=True)
    assert response.status_code == 200
    assert response["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"
    assert response["X-Frame-Options"] == "DENY"
    policy = response["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    # The page's one inline style carries the nonce the policy allows, and nothing else is inline.
    nonce = re.search(r"'nonce-([^']+)'", policy)
    assert nonce is not None
    assert f'<style nonce="{nonce.group(1)}">' in response.content.decode()
    # JSON answers are not documents: no policy to build, but the rest of the headers.
    api = Client().get("/api/v1/providers", secure=True)
    assert "Content-Security-Policy" not in api
    assert api["X-Content-Type-Options"] == "nosniff" and "Strict-Transport-Security" in api


def test_it_serves_swagger_ui_from_its_own_origin() -> None:
    response = Client().get("/api/docs/", secure=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert "cdn." not in page and "https://" not in page.replace("https://swagger.io", "")
    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    assert scripts
    for attributes, body in scripts:
        # CSP script-src 'self': every script is a same-origin file, none inline.
        assert 'src="/' in attributes and not body.strip(), (attributes, body)
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]


def test_it_redirects_to_https_but_not_the_health_check(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    redirected = client.get("/agents/")
    assert redirected.status_code == 301
    assert redirected["Location"].startswith("https://")
    assert client.get("/healthz").status_code == 200


# --- admin lockout ---------------------------------------------------------------------------------


def admin_login(client: Client, password: str, address: str = "192.0.2.50") -> Any:
    client.get("/admin/login/", REMOTE_ADDR=address)
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": "keeper", "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def logged_in(client: Client, address: str = "192.0.2.50") -> bool:
    return bool(client.get("/admin/", REMOTE_ADDR=address).status_code == 200)


def test_it_locks_the_admin_login_after_five_wrong_passwords() -> None:
    get_user_model().objects.create_superuser("keeper", "keeper@example.com", "the-right-password-42")
    client = Client(enforce_csrf_checks=False)
    for _ in range(4):
        assert admin_login(client, "wrong").status_code == 200  # the form again, with an error
    assert_rate_limited(admin_login(client, "wrong"))  # the fifth failure locks
    # The sixth attempt is refused even with the right password.
    assert_rate_limited(admin_login(client, "the-right-password-42"))
    assert not logged_in(client)
    # Locked by username and address: the owner logging in from elsewhere is not locked out.
    elsewhere = Client()
    assert admin_login(elsewhere, "the-right-password-42", address="192.0.2.51").status_code == 302
    assert logged_in(elsewhere, address="192.0.2.51")


# --- revocable provider keys -----------------------------------------------------------------------


def test_it_refuses_a_provider_key_revoked_in_the_admin_at_once(
    admin_client_logged_in: tuple[Client, Any], make_provider: Callable[..., tuple[Provider, str]]
) -> None:
    admin, user = admin_client_logged_in
    provider, key = make_provider("revokee")
    agent_register(subject_id="revoked-agent")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/v1/agents").status_code == 200  # cached from now on
    record = ProviderApiKey.objects.get(provider=provider)
    response = admin.post(
        "/admin/registry/providerapikey/",
        {"action": "revoke_keys", "_selected_action": [record.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 API key(s) revoked" in response.content.decode()
    answer = client.post("/api/v1/summaries", summary_body("revoked-agent"), format="json")
    assert answer.status_code == 401
    assert client.get("/api/v1/agents").status_code == 401
    event = ProviderAuditEvent.objects.get(provider=provider, action="key-revoked")
    assert (event.actor, event.actor_label) == (user, "auditor")


def test_it_drops_every_processes_cached_keys_on_revocation() -> None:
    # Two caches of one name stand for two worker processes sharing the cache (Redis in production).
    first: KeyLookupCache[str] = KeyLookupCache(name="provider", seconds=60)
    second: KeyLookupCache[str] = KeyLookupCache(name="provider", seconds=60)
    first.put("digest", "provider")
    assert first.get("digest") == "provider"
    second.invalidate()
    assert first.get("digest") is None
