"""The provider client against a live registry: every refusal is a RegistryError carrying the problem.

A push the registry refuses must not pass unnoticed (the method returned the 4xx response before), and
the CLI must exit non-zero and print the problem; a wrong provider slug is named as such, not as a
wrong key (the registry itself can only say that the signature is not its provider's signer's).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eth_account import Account

from provider_client import RegistryClient, RegistryError
from provider_client.cli import main as cli_main
from registry.models import VerificationSummary
from registry.services.providers import provider_create

SIGNER = Account.from_key("0x" + "c3" * 32)
OTHER_SIGNER = Account.from_key("0x" + "d4" * 32)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _auto_register(settings: Any) -> None:
    settings.AUTO_REGISTER_AGENTS = True


def summary(**overrides: Any) -> dict[str, Any]:
    body = {"agent": "agent-c", "allowRate": 0.9, "blockRate": 0.1, "avgConfidence": 0.8, "totalChecks": 20}
    body.update(overrides)
    return body


@pytest.fixture
def api_key() -> str:
    _, issued = provider_create(name="Acme", slug="acme", signer_address=SIGNER.address)
    assert issued is not None
    return issued.plaintext


def _client(url: str, api_key: str, *, provider: str = "acme", key: Any = SIGNER) -> RegistryClient:
    return RegistryClient(url, api_key=api_key, provider=provider, private_key=key.key.hex())


def test_it_raises_a_typed_error_with_the_problem_on_a_wrong_api_key(live_server: Any, api_key: str) -> None:
    with _client(live_server.url, "trk_not-a-key") as client, pytest.raises(RegistryError) as refused:
        client.push_summary(summary())
    assert refused.value.status == 401
    assert refused.value.problem["status"] == 401
    assert refused.value.type.startswith("/problems/")
    assert refused.value.response.headers["Content-Type"].startswith("application/problem+json")
    assert VerificationSummary.objects.count() == 0


def test_it_carries_the_fields_the_registry_names(live_server: Any, api_key: str) -> None:
    with _client(live_server.url, api_key) as client, pytest.raises(RegistryError) as refused:
        client.push_summary(summary(allowRate="0.9"))
    assert refused.value.status == 400
    assert [error["field"] for error in refused.value.errors] == ["allowRate"]
    assert "allowRate" in str(refused.value)


def test_it_returns_the_answer_of_an_accepted_push(live_server: Any, api_key: str) -> None:
    with _client(live_server.url, api_key) as client:
        assert client.push_summary(summary()).status_code == 201
        assert client.trust_score("agent-c")["subjectId"] == "agent-c"
        with pytest.raises(RegistryError) as missing:
            client.trust_score("nobody-here")
    assert missing.value.status == 404


def test_it_names_a_slug_no_provider_has(live_server: Any, api_key: str) -> None:
    with (
        _client(live_server.url, api_key, provider="acme-typo") as client,
        pytest.raises(RegistryError) as refused,
    ):
        client.push_summary(summary())
    assert refused.value.status == 401
    assert refused.value.hint is not None
    assert "no provider with the slug 'acme-typo'" in refused.value.hint


def test_it_names_the_slug_of_another_provider(live_server: Any, api_key: str) -> None:
    # Our key signs for "other", but the API key is acme's: the slug is what is wrong.
    provider_create(name="Other", slug="other", signer_address=OTHER_SIGNER.address, with_key=False)
    with (
        _client(live_server.url, api_key, provider="other", key=OTHER_SIGNER) as client,
        pytest.raises(RegistryError) as refused,
    ):
        client.push_summary(summary())
    assert refused.value.hint is not None
    assert "the API key belongs to another provider" in refused.value.hint


def test_it_names_a_signing_key_that_is_not_the_providers(live_server: Any, api_key: str) -> None:
    with (
        _client(live_server.url, api_key, key=OTHER_SIGNER) as client,
        pytest.raises(RegistryError) as refused,
    ):
        client.push_summary(summary())
    assert refused.value.hint is not None
    assert f"{OTHER_SIGNER.address} is not the registered signer of 'acme'" in refused.value.hint


def test_it_exits_non_zero_and_prints_the_problem_from_the_cli(
    live_server: Any, api_key: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "key").write_text(api_key)
    (tmp_path / "signer").write_text(SIGNER.key.hex())
    (tmp_path / "summary.json").write_text(json.dumps(summary()))
    code = cli_main(
        [
            "push", str(tmp_path / "summary.json"), "--url", live_server.url, "--provider", "acme-typo",
            "--api-key-file", str(tmp_path / "key"), "--signing-key-file", str(tmp_path / "signer"),
        ]
    )  # fmt: skip
    assert code == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "401" in err
    assert "no provider with the slug 'acme-typo'" in err
    assert json.loads(err[err.index("\n{") :])["status"] == 401
    assert VerificationSummary.objects.count() == 0
