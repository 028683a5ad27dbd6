"""Guarded outbound GETs for URLs that come from outside (provider stats endpoints, agent URIs).

A URL a provider or a chain transaction gives us must not make the registry reach inside its own
network (server-side request forgery): loopback services, the private network, link-local and cloud
metadata endpoints. And an answer must not hold a worker for long or fill its memory. So:

* `validate_url` is the check when a URL is accepted (a provider's stats endpoint, a form): scheme,
  no credentials, and the host's addresses (a literal, or what the name resolves to now).
* `fetch` checks again *when it connects*: the name is resolved once, every address it gives is
  checked, and the connection goes to the address that was checked (the URL keeps its name, so
  `Host` and TLS SNI and certificate checks are the name's). A name that resolved to a public
  address at validation and to 127.0.0.1 later (DNS rebinding) is refused then.
* An answer is read as a stream and given up past `max_bytes`; the whole request, from resolution
  to last byte, stops at `deadline_seconds` (every socket read waits at most the time left, so a
  server that drips one byte at a time cannot stretch it). Redirects are refused unless the caller
  allows a few, and then each hop is checked like the first.

The transport is httpcore (httpx's own): its network backend is the one place every connection is
opened, so the address check there cannot be bypassed by a redirect, a proxy or a retry. It sends no
Accept-Encoding, so answers are never decompressed past the cap.

>>> validate_url("ftp://example.org/stats")
"scheme 'ftp' is not allowed; use https"
>>> validate_url("https://169.254.169.254/latest/meta-data/")
'169.254.169.254 is a cloud metadata address'
>>> validate_url("https://93.184.215.14/api") is None
True
"""

from __future__ import annotations

import ipaddress
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpcore
import httpx

from .jsonbounds import MAX_DEPTH, loads

__all__ = [
    "METADATA_ADDRESSES",
    "METADATA_NAMES",
    "Fetched",
    "OutboundError",
    "OutboundFailed",
    "OutboundRefused",
    "OutboundTimeout",
    "OutboundTooLarge",
    "Resolver",
    "address_problem",
    "checked_addresses",
    "fetch",
    "resolve_checked",
    "validate_url",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: host, port -> the addresses to try, as getaddrinfo would give them.
Resolver = Callable[[str, int], list[str]]

#: Cloud instance-metadata services: refused even when private addresses are allowed.
METADATA_ADDRESSES: frozenset[IPAddress] = frozenset(
    ipaddress.ip_address(address)
    for address in (
        "169.254.169.254",  # AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
        "169.254.170.2",  # AWS ECS task credentials
        "169.254.169.123",  # AWS time service
        "fd00:ec2::254",  # AWS IMDS over IPv6
        "fd00:ec2::23",
        "100.100.100.200",  # Alibaba Cloud
        "168.63.129.16",  # Azure wire server (a public address)
        "192.0.0.192",  # Oracle Cloud
    )
)
METADATA_NAMES = frozenset(
    {
        "metadata.google.internal",
        "metadata.goog",
        "metadata",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.azure.internal",
    }
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_BROADCAST = ipaddress.IPv4Address("255.255.255.255")
_MAX_URL_LENGTH = 2048
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Hosts spelled only with digits, dots and hex markers are IPv4 literals to getaddrinfo ("127.1",
# "2130706433", "0x7f.0.0.1"); only the canonical dotted quad is accepted, so what is checked is
# what is read.
_NUMERIC_HOST = re.compile(r"^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]*))*\.?$", re.IGNORECASE)


class OutboundError(Exception):
    """An outbound request that gave no usable answer; `str()` says why, for logs and reports."""


class OutboundRefused(OutboundError):
    """The URL or an address it leads to is not allowed (scheme, host, address, redirect)."""


class OutboundFailed(OutboundError):
    """The request was allowed but did not complete (unresolvable, refused connection, bad TLS...)."""


class OutboundTimeout(OutboundFailed):
    """The overall deadline passed before the whole answer arrived."""


class OutboundTooLarge(OutboundFailed):
    """The answer is longer than the byte cap (declared or read)."""


@dataclass(frozen=True)
class Fetched:
    """An answer: status, headers (lower-case names) and, for a 2xx status, the body."""

    url: str
    status: int
    headers: dict[str, str]
    content: bytes = b""
    #: The address each connection went to, in order (what was checked).
    addresses: tuple[str, ...] = field(default=())

    def json(self, *, max_depth: int = MAX_DEPTH) -> Any:
        """The body as JSON, refused past `max_depth` levels (untrusted.jsonbounds)."""
        return loads(self.content, max_depth=max_depth)


def _unwrap(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one carries (mapped, 6to4, Teredo, NAT64), else the address itself.

    >>> str(_unwrap(ipaddress.ip_address("::ffff:127.0.0.1")))
    '127.0.0.1'
    >>> str(_unwrap(ipaddress.ip_address("64:ff9b::a00:1")))
    '10.0.0.1'
    """
    if isinstance(address, ipaddress.IPv4Address):
        return address
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def address_problem(address: str | IPAddress, *, allow_private: bool = False) -> str | None:
    """Why the registry may not connect to this address, or None when it may.

    Never: metadata services, multicast, broadcast, unspecified and reserved addresses. Unless
    `allow_private`: loopback, RFC 1918, link-local, CGNAT 100.64/10, ULA fc00::/7 and every other
    range that is not globally routable (documentation, benchmarking). An IPv6 address that carries
    an IPv4 one (::ffff:a.b.c.d, 6to4, Teredo, NAT64) is judged by the IPv4 address it reaches.

    >>> address_problem("::ffff:10.0.0.1")
    '::ffff:a00:1 (10.0.0.1) is a private or local address'
    >>> address_problem("127.0.0.1", allow_private=True) is None
    True
    >>> address_problem("169.254.169.254", allow_private=True)
    '169.254.169.254 is a cloud metadata address'
    """
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv6Address) and ip.scope_id:
        ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
    # What the connection reaches: the IPv4 address inside a mapped/6to4/Teredo/NAT64 one.
    target = _unwrap(ip)
    shown = str(ip) if target == ip else f"{ip} ({target})"
    if ip in METADATA_ADDRESSES or target in METADATA_ADDRESSES:
        return f"{shown} is a cloud metadata address"
    if target.is_multicast or target.is_unspecified or target == _BROADCAST:
        return f"{shown} is a multicast, broadcast or unspecified address"
    if target.is_reserved and not target.is_loopback:  # ::1 sits in IPv6's reserved ::/8
        return f"{shown} is a reserved address"
    local = (
        target.is_loopback
        or target.is_link_local
        or target.is_private
        or target in _CGNAT
        or (isinstance(target, ipaddress.IPv6Address) and target.is_site_local)
    )
    if local:
        return None if allow_private else f"{shown} is a private or local address"
    if not target.is_global:  # documentation, benchmarking and other special-purpose ranges
        return None if allow_private else f"{shown} is a private or local address"
    return None


def _system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        text = str(sockaddr[0])
        if text not in addresses:
            addresses.append(text)
    return addresses


def _resolve_within(resolver: Resolver, host: str, port: int, seconds: float | None) -> list[str]:
    """`resolver(host, port)`, given up after `seconds` (getaddrinfo has no timeout of its own).

    The lookup runs in a daemon thread; one that outlives the deadline finishes on its own.
    """
    if seconds is None:
        return resolver(host, port)
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append(resolver(host, port))
        except BaseException as error:  # handed to the caller's thread below
            outcome.append(error)

    worker = threading.Thread(target=run, name=f"resolve {host}", daemon=True)
    worker.start()
    worker.join(max(seconds, 0.0))
    if not outcome:
        raise OutboundTimeout(f"{host} did not resolve within the deadline")
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return list(outcome[0])


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _host_problem(host: str, *, allow_private: bool) -> str | None:
    """What is wrong with a host name before it is resolved (metadata, localhost, odd numerals)."""
    name = host.rstrip(".").lower()
    if not name:
        return "the URL has no host"
    if name in METADATA_NAMES:
        return f"{name} is a cloud metadata name"
    if _literal(name) is None and _NUMERIC_HOST.match(name):
        return f"{host!r} is a non-canonical numeric address; write the address in full"
    if not allow_private and (name == "localhost" or name.endswith(".localhost")):
        return f"{name} is a loopback name"
    return None


def resolve_checked(
    host: str,
    port: int,
    *,
    allow_private: bool = False,
    resolver: Resolver | None = None,
    timeout: float | None = None,
) -> str:
    """Resolve `host` once and return the address to connect to, after checking every one it gave.

    This is the pin: the caller connects to exactly the returned address. A name with several
    addresses is refused when any of them is refused (a mixed answer is how rebinding hides).
    Raises OutboundRefused, or OutboundFailed when the name does not resolve (OutboundTimeout when
    it does not within `timeout` seconds).

    >>> resolve_checked("203.0.113.7", 443, allow_private=True)
    '203.0.113.7'
    >>> resolve_checked("rebind.example", 443, resolver=lambda host, port: ["10.1.2.3"])
    Traceback (most recent call last):
    ...
    untrusted.fetch.OutboundRefused: rebind.example resolves to 10.1.2.3 is a private or local address
    """
    return checked_addresses(host, port, allow_private=allow_private, resolver=resolver, timeout=timeout)[0]


def checked_addresses(
    host: str,
    port: int,
    *,
    allow_private: bool = False,
    resolver: Resolver | None = None,
    timeout: float | None = None,
) -> list[str]:
    """Every address `host` resolves to (one lookup), in order, once all of them passed the check.

    `resolve_checked` is the first of them; a connection may try the others in turn (an IPv6
    address first on a host without IPv6), never an address that was not in this list.
    """
    problem = _host_problem(host, allow_private=allow_private)
    if problem:
        raise OutboundRefused(problem)
    literal = _literal(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = _resolve_within(resolver or _system_resolver, host, port, timeout)
        except (OSError, UnicodeError) as error:
            raise OutboundFailed(f"{host} does not resolve ({error})") from None
        if not addresses:
            raise OutboundFailed(f"{host} does not resolve")
    for address in addresses:
        try:
            why = address_problem(address, allow_private=allow_private)
        except ValueError:
            raise OutboundRefused(f"{host} resolves to {address!r}, not an IP address") from None
        if why:
            raise OutboundRefused(why if literal is not None else f"{host} resolves to {why}")
    return addresses


def _parse(url: str, *, allow_http: bool) -> httpx.URL:
    """The URL parsed, or OutboundRefused when its form is not allowed (before any resolution)."""
    if not isinstance(url, str) or not url:
        raise OutboundRefused("the URL is empty")
    if len(url) > _MAX_URL_LENGTH:
        raise OutboundRefused(f"the URL is longer than {_MAX_URL_LENGTH} characters")
    if any(ord(character) < 0x21 or ord(character) == 0x7F for character in url):
        raise OutboundRefused("the URL contains whitespace or control characters")
    scheme = url.split(":", 1)[0].lower() if ":" in url else ""
    allowed = ("https", "http") if allow_http else ("https",)
    if scheme not in allowed:
        shown = scheme or "(none)"
        raise OutboundRefused(f"scheme {shown!r} is not allowed; use https")
    try:
        parsed = httpx.URL(url)
    except (httpx.InvalidURL, ValueError, UnicodeError) as error:
        raise OutboundRefused(f"the URL cannot be parsed ({error})") from None
    if parsed.userinfo:
        raise OutboundRefused("the URL may not carry a user name or password")
    if not parsed.host:
        raise OutboundRefused("the URL has no host")
    return parsed


def validate_url(
    url: str, *, allow_http: bool = False, allow_private: bool = False, resolver: Resolver | None = None
) -> str | None:
    """Why this URL may not be fetched, or None. For checking a URL when it is accepted.

    A literal address is checked as it is; a name is resolved and all its addresses checked. A name
    that does not resolve now passes (it may be configured before its DNS is): `fetch` checks again.

    >>> validate_url("https://[::1]:8443/")
    '::1 is a private or local address'
    >>> validate_url("https://user:pw@example.org/")
    'the URL may not carry a user name or password'
    """
    try:
        parsed = _parse(url, allow_http=allow_http)
        host = parsed.host
        resolve_checked(
            host, parsed.port or _default_port(parsed), allow_private=allow_private, resolver=resolver
        )
    except OutboundRefused as refused:
        return str(refused)
    except OutboundFailed:
        return None
    return None


def _default_port(url: httpx.URL) -> int:
    return 443 if url.scheme == "https" else 80


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write waits at most until the overall deadline."""

    def __init__(self, inner: httpcore.NetworkStream, deadline: float) -> None:
        self._inner = inner
        self._deadline = deadline

    def _left(self, timeout: float | None) -> float:
        left = self._deadline - time.monotonic()
        if left <= 0:
            raise httpcore.ReadTimeout("the overall deadline has passed")
        return left if timeout is None else min(timeout, left)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, self._left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, self._left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore.NetworkStream:
        return _DeadlineStream(
            self._inner.start_tls(ssl_context, server_hostname, self._left(timeout)), self._deadline
        )

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _PinningBackend(httpcore.NetworkBackend):
    """httpcore's socket backend, except that each connection goes only to a checked address."""

    def __init__(self, *, deadline: float, allow_private: bool, resolver: Resolver | None) -> None:
        self._inner = httpcore.SyncBackend()
        self._deadline = deadline
        self._allow_private = allow_private
        self._resolver = resolver
        self.addresses: list[str] = []

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        addresses = checked_addresses(
            host,
            port,
            allow_private=self._allow_private,
            resolver=self._resolver,
            timeout=self._deadline - time.monotonic(),
        )
        for index, address in enumerate(addresses):
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise httpcore.ConnectTimeout("the overall deadline has passed")
            try:
                stream = self._inner.connect_tcp(
                    address,
                    port,
                    timeout=left if timeout is None else min(timeout, left),
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectError:
                # Like socket.create_connection: the next address, and the last one's error.
                if index == len(addresses) - 1:
                    raise
                continue
            self.addresses.append(address)
            return _DeadlineStream(stream, self._deadline)
        raise AssertionError("checked_addresses returns at least one address")

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise OutboundRefused("unix sockets are not allowed")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def _request_target(url: httpx.URL) -> httpcore.URL:
    return httpcore.URL(
        scheme=url.raw_scheme,
        host=url.raw_host,
        port=url.port,
        target=url.raw_path,
    )


def _host_header(url: httpx.URL) -> bytes:
    host = url.raw_host
    if b":" in host:
        host = b"[" + host + b"]"
    return host if url.port is None else host + b":" + str(url.port).encode()


def fetch(
    url: str,
    *,
    max_bytes: int,
    deadline_seconds: float,
    allow_http: bool = False,
    allow_private: bool = False,
    max_redirects: int = 0,
    headers: dict[str, str] | None = None,
    resolver: Resolver | None = None,
    ssl_context: ssl.SSLContext | None = None,
    method: str = "GET",
    content: bytes | None = None,
) -> Fetched:
    """GET `url` (or `method` with `content`, e.g. a webhook POST) within the bounds.

    The answer's body is read only for a 2xx answer.

    Raises OutboundRefused (policy: scheme, host, address, redirect), OutboundTimeout (deadline),
    OutboundTooLarge (byte cap) or OutboundFailed (anything else that kept the answer away).
    A 3xx answer is refused unless `max_redirects` allows following it; each hop is checked again.
    """
    if max_bytes < 0 or deadline_seconds <= 0:
        raise ValueError("max_bytes must be >= 0 and deadline_seconds > 0")
    deadline = time.monotonic() + deadline_seconds
    backend = _PinningBackend(deadline=deadline, allow_private=allow_private, resolver=resolver)
    current = _parse(url, allow_http=allow_http)
    sent = [(b"Accept", b"application/json"), (b"User-Agent", b"trust-registry")]
    sent += [(name.encode("latin-1"), value.encode("latin-1")) for name, value in (headers or {}).items()]
    pool = httpcore.ConnectionPool(
        network_backend=backend, ssl_context=ssl_context, max_connections=1, retries=0, http1=True
    )
    try:
        with pool:
            for hop in range(max_redirects + 1):
                answer = _get(pool, current, sent, deadline, max_bytes, method=method, content=content)
                if answer.status not in _REDIRECTS:
                    return Fetched(
                        url=str(current),
                        status=answer.status,
                        headers=answer.headers,
                        content=answer.content,
                        addresses=tuple(backend.addresses),
                    )
                location = answer.headers.get("location", "")
                if hop == max_redirects:
                    raise OutboundRefused(
                        f"{current} redirects to {location!r}; redirects are not followed"
                        if max_redirects == 0
                        else f"more than {max_redirects} redirects"
                    )
                try:
                    target = str(current.join(location))
                except (httpx.InvalidURL, ValueError, UnicodeError):
                    raise OutboundRefused(f"redirect to an invalid URL {location!r}") from None
                current = _parse(target, allow_http=allow_http)
    except httpcore.TimeoutException:
        raise OutboundTimeout(
            f"no complete answer from {current.host} within {deadline_seconds:g} s"
        ) from None
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol) as error:
        raise OutboundFailed(f"{current.host}: {type(error).__name__}: {error}") from None
    except ssl.SSLError as error:
        raise OutboundFailed(f"{current.host}: TLS failed: {error}") from None
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class _Answer:
    status: int
    headers: dict[str, str]
    content: bytes


def _get(
    pool: httpcore.ConnectionPool,
    url: httpx.URL,
    headers: list[tuple[bytes, bytes]],
    deadline: float,
    max_bytes: int,
    *,
    method: str = "GET",
    content: bytes | None = None,
) -> _Answer:
    left = max(deadline - time.monotonic(), 0.001)
    timeouts = {"connect": left, "read": left, "write": left, "pool": left}
    sent = [(b"Host", _host_header(url)), *headers]
    if content is not None:
        sent.append((b"Content-Length", str(len(content)).encode()))
    with pool.stream(
        method,
        _request_target(url),
        headers=sent,
        content=content,
        extensions={"timeout": timeouts},
    ) as response:
        received = {
            name.decode("latin-1").lower(): value.decode("latin-1") for name, value in response.headers
        }
        if not 200 <= response.status < 300:
            return _Answer(response.status, received, b"")
        declared = received.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            raise OutboundTooLarge(f"the answer is larger than {max_bytes} bytes (it declares {declared})")
        return _Answer(response.status, received, _read_capped(response.iter_stream(), max_bytes))


def _read_capped(chunks: Iterator[bytes], max_bytes: int) -> bytes:
    body = bytearray()
    for chunk in chunks:
        body += chunk
        # Stop as soon as the cap is passed: the declared length may lie or be absent.
        if len(body) > max_bytes:
            raise OutboundTooLarge(f"the answer is larger than {max_bytes} bytes")
    return bytes(body)
