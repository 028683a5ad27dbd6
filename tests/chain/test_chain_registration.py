"""Registration files from data:, http(s): (a local server) and ipfs: (a local gateway) agent URIs."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import quote

import pytest

from signing.chain.registration import (
    REGISTRATION_TYPE,
    RegistrationFetchError,
    fetch_registration_file,
    resolve_uri,
)

REGISTRATION = {
    "type": REGISTRATION_TYPE,
    "name": "Alice",
    "description": "an agent",
    "image": "https://example.org/a.png",
    "services": [{"name": "A2A", "endpoint": "https://alice.example/.well-known/agent-card.json"}],
    "x402Support": False,
    "active": True,
    "registrations": [
        {"agentId": 0, "agentRegistry": "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"}
    ],
}

PAGES: dict[str, tuple[int, bytes]] = {
    "/agent.json": (200, json.dumps(REGISTRATION).encode()),
    "/ipfs/bafyexample/agent.json": (200, json.dumps({**REGISTRATION, "name": "from ipfs"}).encode()),
    "/big.json": (200, b'{"pad": "' + b"x" * 5000 + b'"}'),
    "/list.json": (200, b"[1, 2]"),
    "/missing.json": (404, b"not here"),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, body = PAGES.get(self.path, (404, b""))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_it_reads_base64_and_percent_encoded_data_uris() -> None:
    encoded = base64.b64encode(json.dumps(REGISTRATION).encode()).decode()
    assert fetch_registration_file(f"data:application/json;base64,{encoded}") == REGISTRATION
    assert fetch_registration_file("data:application/json," + quote(json.dumps(REGISTRATION))) == REGISTRATION


@pytest.mark.parametrize(
    "uri",
    [
        "data:application/json;base64,!!!",
        "data:image/png;base64,AAAA",
        "data:application/json,[1]",
        "data:nocomma",
    ],
)
def test_it_refuses_bad_data_uris(uri: str) -> None:
    with pytest.raises(RegistrationFetchError):
        fetch_registration_file(uri)


def test_it_fetches_over_http_only_when_allowed(server: str) -> None:
    assert (
        fetch_registration_file(f"{server}/agent.json", allow_http=True, allow_private=True) == REGISTRATION
    )
    with pytest.raises(RegistrationFetchError, match="scheme"):
        fetch_registration_file(f"{server}/agent.json", allow_private=True)


def test_it_refuses_a_registration_file_on_a_private_address_by_default(server: str) -> None:
    with pytest.raises(RegistrationFetchError, match="private or local"):
        fetch_registration_file(f"{server}/agent.json", allow_http=True)


def test_it_fetches_ipfs_through_the_configured_gateway(server: str) -> None:
    assert (
        resolve_uri("ipfs://ipfs/bafy/x", ipfs_gateway="https://gw.example/ipfs")
        == "https://gw.example/ipfs/bafy/x"
    )
    document = fetch_registration_file(
        "ipfs://bafyexample/agent.json", ipfs_gateway=f"{server}/ipfs/", allow_http=True, allow_private=True
    )
    assert document["name"] == "from ipfs"


@pytest.mark.parametrize(
    ("path", "message"),
    [("/big.json", "larger than 1000 bytes"), ("/list.json", "JSON object"), ("/missing.json", "HTTP 404")],
)
def test_it_refuses_oversized_non_object_and_missing_files(server: str, path: str, message: str) -> None:
    with pytest.raises(RegistrationFetchError, match=message):
        fetch_registration_file(f"{server}{path}", allow_http=True, allow_private=True, max_bytes=1000)


def test_it_reports_an_unreachable_host_as_a_fetch_error() -> None:
    with pytest.raises(RegistrationFetchError, match="failed"):
        fetch_registration_file(
            "http://127.0.0.1:9/agent.json", allow_http=True, allow_private=True, timeout=2.0
        )


def test_it_reads_the_registration_file_an_agent_registered(identity, new_account, transact) -> None:
    owner = new_account()
    uri = "data:application/json;base64," + base64.b64encode(json.dumps(REGISTRATION).encode()).decode()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register, uri))
    assert fetch_registration_file(identity.agent_uri(agent_id)) == REGISTRATION
