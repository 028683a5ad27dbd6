"""untrusted.fetch against real local listeners: what a URL from outside may not reach or cost."""

from __future__ import annotations

import doctest
import ipaddress
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import untrusted.fetch
from untrusted.fetch import (
    OutboundFailed,
    OutboundRefused,
    OutboundTimeout,
    OutboundTooLarge,
    address_problem,
    fetch,
    resolve_checked,
    validate_url,
)

MiB = 1024 * 1024


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        server: Listener = self.server  # type: ignore[assignment]
        server.requests.append((self.path, self.headers.get("Host", "")))
        route = server.routes.get(self.path.split("?", 1)[0])
        if route is None:
            self._answer(404, b"{}")
        else:
            route(self)

    def _answer(self, status: int, body: bytes, **headers: str) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Listener(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[tuple[str, str]] = []
        self.routes: dict[str, Callable[[_Handler], None]] = {}
        self.base = f"http://127.0.0.1:{self.server_address[1]}"
        self.port = self.server_address[1]


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def json_route(body: bytes = b'{"ok": true}') -> Callable[[_Handler], None]:
    return lambda handler: handler._answer(200, body, Content_Type="application/json")


def test_it_fetches_from_a_local_listener_only_when_private_addresses_are_allowed(listener: Listener) -> None:
    listener.routes["/ok"] = json_route()
    answer = fetch(
        listener.base + "/ok", max_bytes=1024, deadline_seconds=5, allow_http=True, allow_private=True
    )
    assert (answer.status, answer.json(), answer.addresses) == (200, {"ok": True}, ("127.0.0.1",))
    with pytest.raises(OutboundRefused, match=r"127\.0\.0\.1 is a private or local address"):
        fetch(listener.base + "/ok", max_bytes=1024, deadline_seconds=5, allow_http=True)
    with pytest.raises(OutboundRefused, match="scheme 'http' is not allowed"):
        fetch(listener.base + "/ok", max_bytes=1024, deadline_seconds=5, allow_private=True)
    # Only the allowed request reached the listener.
    assert [path for path, _ in listener.requests] == ["/ok"]


def test_it_stops_a_slow_drip_at_the_overall_deadline(listener: Listener) -> None:
    def drip(handler: _Handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", "1000")
        handler.end_headers()
        try:
            for _ in range(1000):  # one byte every 50 ms: each read is quick, the whole is 50 s
                handler.wfile.write(b" ")
                handler.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass

    listener.routes["/drip"] = drip
    started = time.monotonic()
    with pytest.raises(OutboundTimeout, match=r"within 0\.5 s"):
        fetch(
            listener.base + "/drip", max_bytes=MiB, deadline_seconds=0.5, allow_http=True, allow_private=True
        )
    assert time.monotonic() - started < 1.0


def test_it_stops_a_silent_server_at_the_deadline(listener: Listener) -> None:
    listener.routes["/silent"] = lambda handler: time.sleep(3)
    started = time.monotonic()
    with pytest.raises(OutboundTimeout):
        fetch(
            listener.base + "/silent",
            max_bytes=MiB,
            deadline_seconds=0.4,
            allow_http=True,
            allow_private=True,
        )
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "no-length"])
def test_it_stops_a_64_mib_answer_at_the_byte_cap(listener: Listener, declared: bool) -> None:
    sent: list[int] = []

    def huge(handler: _Handler) -> None:
        handler.send_response(200)
        if declared:
            handler.send_header("Content-Length", str(64 * MiB))
        else:
            handler.send_header("Connection", "close")
        handler.end_headers()
        chunk = b"x" * MiB
        try:
            for _ in range(64):
                handler.wfile.write(chunk)
                sent.append(len(chunk))
        except OSError:
            pass

    listener.routes["/huge"] = huge
    started = time.monotonic()
    with pytest.raises(OutboundTooLarge, match="larger than 262144 bytes"):
        fetch(
            listener.base + "/huge",
            max_bytes=256 * 1024,
            deadline_seconds=10,
            allow_http=True,
            allow_private=True,
        )
    assert time.monotonic() - started < 2.0
    time.sleep(0.2)
    assert sum(sent) < 64 * MiB  # the reader hung up long before the end


def test_it_refuses_a_redirect_and_rechecks_every_hop_it_may_follow(listener: Listener) -> None:
    target = f"{listener.base}/ok"
    listener.routes["/ok"] = json_route()
    listener.routes["/to-local"] = lambda h: h._answer(302, b"", Location=target)
    listener.routes["/to-metadata"] = lambda h: h._answer(
        307, b"", Location="http://169.254.169.254/latest/meta-data/"
    )
    listener.routes["/to-ftp"] = lambda h: h._answer(301, b"", Location="ftp://127.0.0.1/x")
    with pytest.raises(OutboundRefused, match="redirects are not followed"):
        fetch(
            listener.base + "/to-local",
            max_bytes=1024,
            deadline_seconds=5,
            allow_http=True,
            allow_private=True,
        )
    assert [path for path, _ in listener.requests] == ["/to-local"]
    # With hops allowed, each one is checked again: even with private addresses allowed,
    # metadata and other schemes stay out.
    with pytest.raises(OutboundRefused, match="cloud metadata"):
        fetch(
            listener.base + "/to-metadata",
            max_bytes=1024,
            deadline_seconds=5,
            max_redirects=3,
            allow_http=True,
            allow_private=True,
        )
    with pytest.raises(OutboundRefused, match="scheme 'ftp'"):
        fetch(
            listener.base + "/to-ftp",
            max_bytes=1024,
            deadline_seconds=5,
            max_redirects=3,
            allow_http=True,
            allow_private=True,
        )
    answer = fetch(
        listener.base + "/to-local",
        max_bytes=1024,
        deadline_seconds=5,
        max_redirects=1,
        allow_http=True,
        allow_private=True,
    )
    assert answer.status == 200


def test_it_refuses_names_that_resolve_to_private_addresses(listener: Listener) -> None:
    listener.routes["/ok"] = json_route()
    with pytest.raises(OutboundRefused, match="localhost is a loopback name"):
        fetch(f"http://localhost:{listener.port}/ok", max_bytes=1024, deadline_seconds=5, allow_http=True)
    # The machine's own name, through the system resolver.
    name = socket.gethostname()
    try:
        resolved = {info[4][0] for info in socket.getaddrinfo(name, None)}
    except OSError:
        pytest.skip(f"{name} does not resolve here")
    if all(ipaddress.ip_address(a).is_global for a in resolved):
        pytest.skip(f"{name} resolves to public addresses here")
    with pytest.raises(OutboundRefused, match=f"{name} resolves to"):
        fetch(f"http://{name}:{listener.port}/ok", max_bytes=1024, deadline_seconds=5, allow_http=True)
    assert listener.requests == []
    assert validate_url(f"https://{name}/") is not None


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://[::1]/stats", "::1 is a private or local address"),
        ("https://[::ffff:127.0.0.1]/", "private or local"),
        ("https://169.254.169.254/latest/meta-data/", "cloud metadata address"),
        ("https://[fd00:ec2::254]/", "cloud metadata address"),
        ("https://metadata.google.internal/computeMetadata/v1/", "cloud metadata name"),
        ("https://METADATA.GOOGLE.INTERNAL./", "cloud metadata name"),
        ("https://10.0.0.1/", "private or local"),
        ("https://172.16.5.4/", "private or local"),
        ("https://192.168.1.1/", "private or local"),
        ("https://100.64.0.1/", "private or local"),
        ("https://169.254.1.1/", "private or local"),
        ("https://[fe80::1]/", "private or local"),
        ("https://[fc00::1]/", "private or local"),
        ("https://[64:ff9b::a00:1]/", "private or local"),
        ("https://0.0.0.0/", "unspecified"),
        ("https://224.0.0.1/", "multicast"),
        ("https://240.0.0.1/", "reserved"),
        ("https://127.1/", "non-canonical numeric"),
        ("https://2130706433/", "non-canonical numeric"),
        ("https://0x7f.0.0.1/", "non-canonical numeric"),
        ("https://localhost/", "loopback name"),
        ("https://api.localhost/", "loopback name"),
        ("ftp://example.org/stats", "scheme 'ftp'"),
        ("file:///etc/passwd", "scheme 'file'"),
        ("gopher://example.org/", "scheme 'gopher'"),
        ("http://93.184.215.14/", "scheme 'http'"),
        ("https://user:secret@93.184.215.14/", "user name or password"),
        ("https://93.184.215.14/a b", "whitespace or control"),
        ("https://", "no host"),
        ("", "empty"),
    ],
)
def test_it_refuses_inside_and_odd_urls_as_strings(url: str, reason: str) -> None:
    problem = validate_url(url)
    assert problem is not None and reason in problem
    with pytest.raises(OutboundRefused, match=reason.replace("(", r"\(")):
        fetch(url, max_bytes=1024, deadline_seconds=1)


def test_it_keeps_metadata_refused_when_private_addresses_are_allowed() -> None:
    for url in ("http://169.254.169.254/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/"):
        assert "metadata" in (validate_url(url, allow_http=True, allow_private=True) or "")
    assert validate_url("http://127.0.0.1:8000/", allow_http=True, allow_private=True) is None
    assert validate_url("http://[::1]:8000/", allow_http=True, allow_private=True) is None


def test_it_accepts_public_urls() -> None:
    assert validate_url("https://93.184.215.14/api") is None
    assert validate_url("https://[2606:4700:4700::1111]/") is None
    assert validate_url("https://stats.example/api", resolver=lambda host, port: ["93.184.215.14"]) is None
    # A name that does not resolve yet passes validation; fetch checks when it connects.
    assert validate_url("https://unresolvable.invalid/", resolver=_unresolvable) is None


def _unresolvable(host: str, port: int) -> list[str]:
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def test_it_refuses_a_name_with_any_private_address() -> None:
    mixed = validate_url("https://mixed.example/", resolver=lambda h, p: ["93.184.215.14", "10.0.0.7"])
    assert mixed == "mixed.example resolves to 10.0.0.7 is a private or local address"


def test_it_pins_the_address_it_checked_against_dns_rebinding(listener: Listener) -> None:
    # The name resolves to a public address when the URL is accepted, to loopback afterwards.
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])
    calls: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        calls.append(host)
        return next(answers)

    url = f"http://rebind.example:{listener.port}/ok"
    assert validate_url(url, allow_http=True, resolver=rebinding) is None
    with pytest.raises(OutboundRefused, match=r"rebind\.example resolves to 127\.0\.0\.1"):
        fetch(url, max_bytes=1024, deadline_seconds=5, allow_http=True, resolver=rebinding)
    assert calls == ["rebind.example", "rebind.example"]
    assert listener.requests == []


def test_it_connects_to_the_checked_address_and_keeps_the_name_for_host(listener: Listener) -> None:
    listener.routes["/ok"] = json_route()
    resolved: list[str] = []

    def once(host: str, port: int) -> list[str]:
        resolved.append(host)
        return ["127.0.0.1"]

    # No real DNS knows this name: the request can only arrive through the pinned address.
    answer = fetch(
        f"http://pinned.invalid:{listener.port}/ok",
        max_bytes=1024,
        deadline_seconds=5,
        resolver=once,
        allow_http=True,
        allow_private=True,
    )
    assert answer.status == 200 and answer.addresses == ("127.0.0.1",)
    assert resolved == ["pinned.invalid"]
    assert listener.requests == [("/ok", f"pinned.invalid:{listener.port}")]


def test_it_returns_the_address_to_connect_to_from_one_resolution() -> None:
    calls: list[str] = []

    def resolver(host: str, port: int) -> list[str]:
        calls.append(host)
        return ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]

    assert resolve_checked("example.test", 443, resolver=resolver) == "93.184.215.14"
    assert calls == ["example.test"]
    assert resolve_checked("198.51.100.1", 443, allow_private=True, resolver=resolver) == "198.51.100.1"
    assert calls == ["example.test"]  # a literal is not resolved
    with pytest.raises(OutboundFailed, match="does not resolve"):
        resolve_checked("nowhere.invalid", 443, resolver=_unresolvable)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "::1",
        "::ffff:192.168.0.1",
        "2002:a00:1::1",
        "fe80::1%eth0",
        "100.127.255.255",
    ],
)
def test_it_refuses_local_addresses_unless_allowed(address: str) -> None:
    assert address_problem(address) is not None
    assert address_problem(address, allow_private=True) is None


def test_it_reports_a_closed_port_as_failed() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(OutboundFailed, match="ConnectError"):
        fetch(
            f"http://127.0.0.1:{port}/",
            max_bytes=1024,
            deadline_seconds=2,
            allow_http=True,
            allow_private=True,
        )


def test_it_bounds_the_nesting_of_a_fetched_json_answer(listener: Listener) -> None:
    listener.routes["/deep"] = json_route(b"[" * 5000 + b"]" * 5000)
    answer = fetch(
        listener.base + "/deep", max_bytes=MiB, deadline_seconds=5, allow_http=True, allow_private=True
    )
    with pytest.raises(ValueError, match="nests deeper than 64"):
        answer.json()


def test_it_passes_the_module_doctests() -> None:
    assert doctest.testmod(untrusted.fetch).failed == 0


def test_it_counts_a_slow_name_lookup_against_the_deadline() -> None:
    def stuck(host: str, port: int) -> list[str]:
        time.sleep(2)
        return ["93.184.215.14"]

    started = time.monotonic()
    with pytest.raises(OutboundTimeout, match="did not resolve within the deadline"):
        fetch("https://slow-dns.example/", max_bytes=1024, deadline_seconds=0.3, resolver=stuck)
    assert time.monotonic() - started < 1.0


def test_it_tries_the_next_checked_address_when_one_does_not_connect(listener: Listener) -> None:
    listener.routes["/ok"] = json_route()
    # 127.0.0.2 is loopback too, but nothing listens there on this port.
    answer = fetch(
        f"http://two.invalid:{listener.port}/ok",
        max_bytes=1024,
        deadline_seconds=5,
        allow_http=True,
        allow_private=True,
        resolver=lambda host, port: ["127.0.0.2", "127.0.0.1"],
    )
    assert (answer.status, answer.addresses) == (200, ("127.0.0.1",))
    # Every address is checked before any is tried: one refused address refuses the name.
    with pytest.raises(OutboundRefused, match="cloud metadata"):
        fetch(
            f"http://two.invalid:{listener.port}/ok",
            max_bytes=1024,
            deadline_seconds=5,
            allow_http=True,
            allow_private=True,
            resolver=lambda host, port: ["127.0.0.1", "169.254.169.254"],
        )
    assert len(listener.requests) == 1
