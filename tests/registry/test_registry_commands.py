"""Management commands: create_provider, create_api_key, revoke_api_key, seed_demo."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from rest_framework.test import APIClient

from registry.models import CheckOutcome, Provider, ProviderApiKey
from registry.services.agents import agent_register
from tests.registry.registry_support import demo_signer_address, signed_headers, summary_body

pytestmark = pytest.mark.django_db

SIGNER = demo_signer_address()
KEY_LINE = re.compile(r"API key \(store it now; it is not shown again\): (trk_\S+)")


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def printed_key(output: str) -> str:
    match = KEY_LINE.search(output)
    assert match is not None, output
    return match.group(1)


def post_with(keyed_client: Callable[[str], APIClient], key: str, total: int, signed_by: str = "") -> int:
    body = summary_body("cmd-agent", totalChecks=total, updatedAt=f"2026-10-01T00:00:{total:02d}Z")
    headers: dict[str, Any] = signed_headers(signed_by, "cmd-agent", body, nonce=total) if signed_by else {}
    return keyed_client(key).post("/api/v1/summaries", body, format="json", **headers).status_code


@pytest.fixture(autouse=True)
def _agent(db: None) -> None:
    agent_register(subject_id="cmd-agent")


def test_it_creates_a_provider_and_prints_a_working_key(keyed_client: Callable[[str], APIClient]) -> None:
    output = run(
        "create_provider",
        "--name",
        "Thought Proof",
        "--slug",
        "thought-proof",
        "--signer-address",
        SIGNER,
        "--methodology-url",
        "https://thoughtproof.example/method",
        "--stats-endpoint",
        "https://thoughtproof.example/api",
    )
    key = printed_key(output)
    provider = Provider.objects.get(slug="thought-proof")
    assert (provider.name, provider.signer_address, provider.methodology_url, provider.stats_endpoint) == (
        "Thought Proof",
        SIGNER,
        "https://thoughtproof.example/method",
        "https://thoughtproof.example/api",
    )
    stored = ProviderApiKey.objects.get(provider=provider)
    assert key not in (stored.key_hash, stored.prefix) and key.startswith(stored.prefix)
    assert post_with(keyed_client, key, 10, signed_by="thought-proof") == 201
    assert post_with(keyed_client, key + "x", 11, signed_by="thought-proof") == 401


def test_it_refuses_a_duplicate_slug() -> None:
    run("create_provider", "--name", "One", "--slug", "dup")
    with pytest.raises(CommandError, match="dup"):
        run("create_provider", "--name", "Two", "--slug", "dup")
    assert Provider.objects.filter(slug="dup").count() == 1


@pytest.mark.parametrize(
    "args",
    [
        ["--signer-address", "0x1234"],
        ["--signer-address", "not-an-address"],
        ["--operator-address", "0x" + "z" * 40],
        ["--methodology-url", "not a url"],
    ],
)
def test_it_refuses_bad_provider_fields(args: list[str]) -> None:
    with pytest.raises(CommandError):
        run("create_provider", "--name", "Bad", "--slug", "bad", *args)
    assert not Provider.objects.filter(slug="bad").exists()
    assert not ProviderApiKey.objects.exists()


def test_it_issues_another_key_that_works(keyed_client: Callable[[str], APIClient]) -> None:
    first = printed_key(run("create_provider", "--name", "Keyed", "--slug", "keyed"))
    second = printed_key(run("create_api_key", "keyed", "--name", "ci"))
    assert first != second
    assert post_with(keyed_client, first, 10) == 201
    assert post_with(keyed_client, second, 12) == 201
    assert ProviderApiKey.objects.filter(provider__slug="keyed").count() == 2


def test_it_refuses_a_key_for_an_unknown_provider() -> None:
    with pytest.raises(CommandError, match="nobody"):
        run("create_api_key", "nobody")


@pytest.mark.parametrize("form", ["prefix", "whole key"])
def test_it_revokes_a_key_so_it_stops_working(form: str, keyed_client: Callable[[str], APIClient]) -> None:
    kept = printed_key(run("create_provider", "--name", "Revoker", "--slug", "revoker"))
    output = run("create_api_key", "revoker")
    doomed = printed_key(output)
    prefix = re.search(r"Key (trk_\S+?)…", output)
    assert prefix is not None
    assert post_with(keyed_client, doomed, 10) == 201
    revoked = run("revoke_api_key", prefix.group(1) if form == "prefix" else doomed)
    assert "revoker" in revoked
    assert post_with(keyed_client, doomed, 11) == 401
    assert post_with(keyed_client, kept, 12) == 201
    with pytest.raises(CommandError):
        run("revoke_api_key", doomed)


def test_it_refuses_to_revoke_an_unknown_key() -> None:
    with pytest.raises(CommandError):
        run("revoke_api_key", "trk_notThere")


@pytest.mark.parametrize("prefix", ["", "trk_", "trk_Ab", "AbCdEfGhIjKl"])
def test_it_refuses_a_prefix_shorter_than_the_printed_one_even_for_the_only_key(prefix: str) -> None:
    printed_key(run("create_provider", "--name", "Lonely", "--slug", "lonely"))
    with pytest.raises(CommandError, match="as printed"):
        run("revoke_api_key", prefix)
    assert ProviderApiKey.objects.filter(revoked_at__isnull=False).count() == 0


def test_it_refuses_to_seed_the_demo_with_debug_off(tmp_path: Path, settings: Any) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG=1"):
        run("seed_demo", "--quiet", "--signing-key-file", str(tmp_path / "key"))
    assert not Provider.objects.exists()
    assert not (tmp_path / "key").exists()


def test_it_seeds_the_demo_again_over_its_own_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    # `make run` seeds on every start: the second start, later, finds the demo's suspended provider
    # (whose reports are then refused) and the demo's outcome ids (idempotency keys) already used.
    settings.DEBUG = True  # seed_demo refuses to run otherwise
    key_file = tmp_path / "key"
    run("seed_demo", "--quiet", "--signing-key-file", str(key_file))
    suspended = Provider.objects.get(slug="shady-verifier")
    assert suspended.status == Provider.Status.SUSPENDED
    reports = suspended.summaries.count()
    outcomes = CheckOutcome.objects.count()
    started = timezone.now()
    monkeypatch.setattr(timezone, "now", lambda: started + timedelta(minutes=5))
    run("seed_demo", "--quiet", "--signing-key-file", str(key_file))
    assert CheckOutcome.objects.count() == outcomes == 40
    suspended.refresh_from_db()
    assert suspended.status == Provider.Status.SUSPENDED and suspended.summaries.count() == reports > 0
    assert suspended.audit_events.filter(action="suspended").count() == 1


@pytest.mark.parametrize(
    ("endpoint", "reason"),
    [
        ("http://127.0.0.1:8000", "scheme 'http'"),
        ("https://127.0.0.1:8000", "127.0.0.1 is a private or local address"),
        ("https://[::1]/", "::1 is a private or local address"),
        ("https://10.0.0.1/", "private or local"),
        ("https://169.254.169.254/latest/meta-data/", "cloud metadata address"),
        ("https://metadata.google.internal/", "cloud metadata name"),
        ("https://localhost/api", "loopback name"),
        ("ftp://stats.example/", "scheme 'ftp'"),
    ],
)
def test_it_refuses_a_stats_endpoint_that_points_inside(endpoint: str, reason: str) -> None:
    with pytest.raises(CommandError, match=re.escape(reason)):
        run("create_provider", "--name", "Inside", "--slug", "inside", "--stats-endpoint", endpoint)
    assert not Provider.objects.filter(slug="inside").exists()


def test_it_accepts_a_local_stats_endpoint_only_when_allowed(settings: Any) -> None:
    settings.OUTBOUND_ALLOW_HTTP = True
    settings.OUTBOUND_ALLOW_PRIVATE = True
    run("create_provider", "--name", "Dev", "--slug", "dev", "--stats-endpoint", "http://127.0.0.1:8000")
    assert Provider.objects.get(slug="dev").stats_endpoint == "http://127.0.0.1:8000"
    # Metadata stays out even then.
    with pytest.raises(CommandError, match="cloud metadata"):
        run("create_provider", "--name", "M", "--slug", "m", "--stats-endpoint", "http://169.254.169.254/")
