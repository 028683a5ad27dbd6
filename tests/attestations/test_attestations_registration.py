"""Agents' ERC-8004 registration files: the indexer keeps each agentURI, a task fetches and checks the file
through the hardened outbound client, and the agent page shows it (real anvil, real PostgreSQL, Celery
eager, a real local HTTP server)."""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import socket
import threading
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from celery.exceptions import Retry
from django.conf import settings
from django.test import Client, override_settings
from django.utils import timezone
from eth_account.signers.local import LocalAccount
from web3 import Web3
from web3.types import TxReceipt

from attestations.models import AgentRegistration, AgentRegistrationStatus
from attestations.services.indexer import chain_index_run
from attestations.services.registrations import agent_registrations_refresh
from attestations.tasks import fetch_agent_registration
from registry.models import Agent
from signing.chain.identity import IdentityClient
from signing.chain.registration import REGISTRATION_TYPE
from signing.chain.settings import ChainSettings

pytestmark = pytest.mark.chain


def _data_uri(document: Any) -> str:
    return "data:application/json;base64," + base64.b64encode(json.dumps(document).encode()).decode()


def _file(chain: ChainSettings, agent_id: int, **extra: Any) -> dict[str, Any]:
    return {
        "type": REGISTRATION_TYPE,
        "name": "Scout",
        "description": "Finds <b>flights</b>.",
        "image": "https://scout.example/logo.png",
        "services": [
            {"name": "MCP", "endpoint": "https://scout.example/mcp", "version": "2025-06-18"},
            {"name": "ENS", "endpoint": "scout.eth"},
        ],
        "registrations": [
            {"agentId": agent_id, "agentRegistry": f"eip155:{chain.chain_id}:{chain.identity_registry}"}
        ],
        **extra,
    }


@pytest.fixture
def index(chain: ChainSettings, w3: Web3, django_capture_on_commit_callbacks: Any) -> Callable[[], None]:
    def run() -> None:
        # The fetch is queued on commit; Celery is eager in tests, so it runs here.
        with django_capture_on_commit_callbacks(execute=True):
            chain_index_run(chain=chain, w3=w3)

    return run


@pytest.fixture
def register_with(
    identity: IdentityClient, transact: Callable[..., TxReceipt], new_account: Callable[[], LocalAccount]
) -> Callable[[str], tuple[LocalAccount, int]]:
    def register(uri: str) -> tuple[LocalAccount, int]:
        owner = new_account()
        return owner, identity.registered_agent_id(transact(owner, identity.build_register, uri))

    return register


def _registration(agent_id: int) -> AgentRegistration:
    return AgentRegistration.objects.get(agent__erc8004_agent_id=agent_id)


def test_it_keeps_the_agent_uri_and_shows_the_registration_file_on_the_agent_page(
    db: None,
    chain: ChainSettings,
    identity: IdentityClient,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    next_id = 0  # agent ids start at 0 on the fresh registries of every test
    uri = _data_uri(_file(chain, next_id))
    _, agent_id = register_with(uri)
    assert agent_id == next_id
    index()

    row = _registration(agent_id)
    assert row.agent_uri == uri
    assert row.status == AgentRegistrationStatus.FETCHED, row.error
    assert (row.name, row.description, row.image) == (
        "Scout",
        "Finds <b>flights</b>.",
        "https://scout.example/logo.png",
    )
    assert row.endpoints == [
        {"name": "MCP", "endpoint": "https://scout.example/mcp", "version": "2025-06-18"},
        {"name": "ENS", "endpoint": "scout.eth", "version": ""},
    ]
    assert row.lists_agent is True

    page = Client().get(f"/agents/{Agent.objects.get(erc8004_agent_id=agent_id).subject_id}")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Scout" in html and "Finds &lt;b&gt;flights&lt;/b&gt;." in html  # the owner's text, escaped
    assert 'href="https://scout.example/mcp"' in html and "scout.eth" in html
    assert "does not list this" not in html


def test_it_fetches_the_new_file_when_the_owner_changes_the_uri(
    db: None,
    chain: ChainSettings,
    identity: IdentityClient,
    transact: Callable[..., TxReceipt],
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    owner, agent_id = register_with(_data_uri(_file(chain, 0)))
    index()
    # A file that does not name this agent back (someone else's file, or a copy) is kept but flagged.
    new_uri = _data_uri(_file(chain, 0, name="Scout v2", registrations=[]))
    transact(owner, identity.build_set_agent_uri, agent_id, new_uri)
    index()

    row = _registration(agent_id)
    assert (row.agent_uri, row.status, row.name, row.lists_agent) == (
        new_uri,
        AgentRegistrationStatus.FETCHED,
        "Scout v2",
        False,
    )
    page = Client().get(f"/agents/{row.agent.subject_id}").content.decode()
    assert "does not list this" in page


@pytest.mark.parametrize(
    ("document", "problem"),
    [
        ({"name": "No type"}, "'type' is a required property"),
        ({"type": REGISTRATION_TYPE, "name": 7}, "name: 7 is not of type 'string'"),
        (
            {"type": REGISTRATION_TYPE, "name": "x", "services": [{"name": "MCP"}]},
            "services.0: 'endpoint' is a required property",
        ),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_it_records_a_file_that_is_not_a_registration_file_as_invalid_naming_the_field(
    db: None,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
    document: Any,
    problem: str,
) -> None:
    _, agent_id = register_with(_data_uri(document))
    index()
    row = _registration(agent_id)
    assert row.status == AgentRegistrationStatus.INVALID
    assert problem in row.error
    assert row.name == "" and row.endpoints == []
    assert Client().get(f"/agents/{row.agent.subject_id}").status_code == 200


def test_it_stores_nothing_unstorable_from_a_hostile_file(
    db: None,
    chain: ChainSettings,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    document = _file(chain, 0, name="nul\u0000and\ud800surrogate", description="\u0000")
    _, agent_id = register_with(_data_uri(document))
    index()
    row = _registration(agent_id)
    assert row.status == AgentRegistrationStatus.FETCHED, row.error
    assert row.name == "nul\ufffdand\ufffdsurrogate" and row.description == "\ufffd"


class _Files(http.server.BaseHTTPRequestHandler):
    body = b"{}"

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _serving(handler: type[http.server.BaseHTTPRequestHandler]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 in a thread; yields the URL of its registration file."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent.json"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def file_server(chain: ChainSettings) -> Iterator[str]:
    """Serves one registration file (for agent id 0)."""
    handler = type("Handler", (_Files,), {"body": json.dumps(_file(chain, 0, name="Served")).encode()})
    with _serving(handler) as url:
        yield url


def test_it_refuses_a_uri_that_points_inside_the_network(
    db: None,
    file_server: str,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    # The SSRF guard stays on: the agent's owner wrote this URI, and 127.0.0.1 is the registry's own host.
    with override_settings(OUTBOUND_ALLOW_HTTP=True, OUTBOUND_ALLOW_PRIVATE=False):
        _, agent_id = register_with(file_server)
        index()
    row = _registration(agent_id)
    assert row.status == AgentRegistrationStatus.INVALID
    assert "private or local address" in row.error
    assert row.attempts == 1  # refused, not retried


def test_it_fetches_over_http_where_development_settings_allow_it(
    db: None,
    file_server: str,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    with override_settings(OUTBOUND_ALLOW_HTTP=True, OUTBOUND_ALLOW_PRIVATE=True):
        _, agent_id = register_with(file_server)
        index()
    row = _registration(agent_id)
    assert (row.status, row.name, row.lists_agent) == (AgentRegistrationStatus.FETCHED, "Served", True)


def test_it_retries_a_host_that_cannot_be_reached_and_records_it(
    db: None,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with override_settings(OUTBOUND_ALLOW_HTTP=True, OUTBOUND_ALLOW_PRIVATE=True):
        _, agent_id = register_with(f"http://127.0.0.1:{port}/agent.json")
        index()  # the index run itself is not disturbed by the agent's host
        row = _registration(agent_id)
        assert (row.status, row.attempts) == (AgentRegistrationStatus.UNREACHABLE, 1)
        assert "Connection refused" in row.error or "failed" in row.error
        # The task asks Celery for another try (eager Celery raises Retry instead of scheduling it).
        with pytest.raises(Retry):
            fetch_agent_registration.apply(args=(row.pk, row.agent_uri))
    assert _registration(agent_id).attempts == 2


def test_it_keeps_the_file_once_a_host_that_failed_answers(
    db: None,
    chain: ChainSettings,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    answers = [503, 200]
    body = json.dumps(_file(chain, 0, name="Back up")).encode()

    class Flaky(_Files):
        def do_GET(self) -> None:
            status = answers.pop(0) if answers else 200
            self.send_response(status)
            self.send_header("Content-Length", str(len(body) if status == 200 else 0))
            self.end_headers()
            if status == 200:
                self.wfile.write(body)

    with _serving(Flaky) as url, override_settings(OUTBOUND_ALLOW_HTTP=True, OUTBOUND_ALLOW_PRIVATE=True):
        _, agent_id = register_with(url)
        index()
        row = _registration(agent_id)
        assert row.status == AgentRegistrationStatus.UNREACHABLE and "HTTP 503" in row.error
        assert fetch_agent_registration.apply(args=(row.pk, row.agent_uri)).get() == "fetched"
    row = _registration(agent_id)
    assert (row.status, row.name, row.error) == (AgentRegistrationStatus.FETCHED, "Back up", "")


def test_it_records_an_agent_registered_without_a_uri_without_fetching(
    db: None,
    identity: IdentityClient,
    transact: Callable[..., TxReceipt],
    new_account: Callable[[], LocalAccount],
    index: Callable[[], None],
) -> None:
    owner = new_account()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    index()
    row = _registration(agent_id)
    assert (row.status, row.agent_uri, row.attempts) == (AgentRegistrationStatus.INVALID, "", 0)


def test_it_restores_the_previous_uri_when_a_reorg_orphans_its_update(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    identity: IdentityClient,
    transact: Callable[..., TxReceipt],
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
) -> None:
    first = _data_uri(_file(chain, 0, name="First"))
    owner, agent_id = register_with(first)
    index()
    fork = w3.provider.make_request("evm_snapshot", [])["result"]  # type: ignore[arg-type]
    transact(owner, identity.build_set_agent_uri, agent_id, _data_uri(_file(chain, 0, name="Orphaned")))
    index()
    assert _registration(agent_id).name == "Orphaned"

    # Another branch from the fork point, longer, without the update: the update's block is orphaned.
    assert w3.provider.make_request("evm_revert", [fork])["result"] is True  # type: ignore[arg-type]
    for _ in range(3):
        w3.provider.make_request("evm_mine", [])  # type: ignore[arg-type]
    index()
    row = _registration(agent_id)
    assert (row.agent_uri, row.status, row.name) == (first, AgentRegistrationStatus.FETCHED, "First")


def test_it_refreshes_files_whose_uri_did_not_change_oldest_first_and_bounded(
    db: None,
    chain: ChainSettings,
    register_with: Callable[[str], tuple[LocalAccount, int]],
    index: Callable[[], None],
    django_capture_on_commit_callbacks: Any,
) -> None:
    served = {"name": "Before"}

    class Changing(_Files):
        def do_GET(self) -> None:
            body = json.dumps(_file(chain, 0, name=served["name"])).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    with _serving(Changing) as url, override_settings(OUTBOUND_ALLOW_HTTP=True, OUTBOUND_ALLOW_PRIVATE=True):
        _, first = register_with(url)
        _, second = register_with(url + "?copy")
        _, fixed = register_with(_data_uri(_file(chain, 2, name="Content-addressed")))
        index()
        assert [_registration(a).name for a in (first, second, fixed)] == [
            "Before",
            "Before",
            "Content-addressed",
        ]
        served["name"] = "After"

        def refresh(now: Any, limit: int) -> list[int]:
            with django_capture_on_commit_callbacks(execute=True):
                return agent_registrations_refresh(now=now, limit=limit)

        # Not old enough yet: nothing is re-read.
        assert refresh(timezone.now(), 10) == []
        later = timezone.now() + timedelta(seconds=settings.REGISTRATION_REFRESH_SECONDS + 60)
        # At most `limit` per run, oldest first; each run takes the next ones; data: URIs never.
        assert refresh(later, 1) == [_registration(first).pk]
        assert [_registration(a).name for a in (first, second)] == ["After", "Before"]
        assert refresh(later, 1) == [_registration(second).pk]
        # Each was just re-read: none is due again before another REGISTRATION_REFRESH_SECONDS.
        soon = timezone.now() + timedelta(seconds=settings.REGISTRATION_REFRESH_SECONDS // 2)
        assert refresh(soon, 10) == []
    assert [_registration(a).name for a in (first, second, fixed)] == ["After", "After", "Content-addressed"]
    checked = _registration(fixed).checked_at
    assert checked is not None and checked < later
