"""Fetch an agent's registration file from its agent URI: ``data:``, ``https:`` or ``ipfs:`` (via a gateway).

>>> fetch_registration_file('data:application/json,{"name":"a"}')
{'name': 'a'}
"""

from __future__ import annotations

import base64
import binascii
from typing import Any
from urllib.parse import unquote_to_bytes

from untrusted.fetch import OutboundError, Resolver, fetch
from untrusted.jsonbounds import loads

__all__ = [
    "DEFAULT_IPFS_GATEWAY",
    "DEFAULT_MAX_BYTES",
    "REGISTRATION_TYPE",
    "RegistrationFetchError",
    "fetch_registration_file",
    "resolve_uri",
]

REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
DEFAULT_IPFS_GATEWAY = "https://ipfs.io/ipfs/"
DEFAULT_MAX_BYTES = 256 * 1024
_JSON_MEDIA_TYPES = ("", "application/json", "text/plain")


class RegistrationFetchError(ValueError):
    """The registration file could not be fetched or is not a JSON object."""


def resolve_uri(uri: str, *, ipfs_gateway: str = DEFAULT_IPFS_GATEWAY) -> str:
    """The URL to fetch for an agent URI: ``ipfs://`` goes through the gateway, others are kept.

    >>> resolve_uri("ipfs://bafyCID/agent.json", ipfs_gateway="https://gw.example/ipfs/")
    'https://gw.example/ipfs/bafyCID/agent.json'
    """
    if uri.startswith("ipfs://"):
        path = uri.removeprefix("ipfs://").removeprefix("ipfs/")
        if not path:
            raise RegistrationFetchError("ipfs URI has no content identifier")
        return ipfs_gateway.rstrip("/") + "/" + path
    return uri


def fetch_registration_file(
    uri: str,
    *,
    ipfs_gateway: str = DEFAULT_IPFS_GATEWAY,
    timeout: float = 10.0,
    max_bytes: int = DEFAULT_MAX_BYTES,
    allow_http: bool = False,
    allow_private: bool = False,
    resolver: Resolver | None = None,
) -> dict[str, Any]:
    """Fetch and parse the registration file an agent URI points at.

    The URI is written on chain by anyone, so ``https://`` (and ``ipfs://`` through the gateway) goes
    through untrusted.fetch: ``timeout`` bounds the whole download, at most ``max_bytes`` are read,
    private/loopback/link-local/metadata addresses are refused (checked again at connect time),
    and up to 3 redirects are followed, each checked like the first. Plain ``http://`` only with
    ``allow_http``, private addresses only with ``allow_private`` (local development and tests).
    The JSON is depth-bounded (untrusted.jsonbounds).

    >>> fetch_registration_file("data:application/json;base64,eyJ0eXBlIjogIngifQ==")
    {'type': 'x'}
    >>> fetch_registration_file("ftp://example.org/a.json")
    Traceback (most recent call last):
    ...
    attestations.chain.registration.RegistrationFetchError: unsupported agent URI scheme: 'ftp'
    """
    if uri.startswith("data:"):
        raw = _decode_data_uri(uri)
    else:
        url = resolve_uri(uri, ipfs_gateway=ipfs_gateway)
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme != "https" and not (scheme == "http" and allow_http):
            raise RegistrationFetchError(f"unsupported agent URI scheme: {scheme!r}")
        raw = _download(
            url,
            timeout=timeout,
            max_bytes=max_bytes,
            allow_http=allow_http,
            allow_private=allow_private,
            resolver=resolver,
        )
    if len(raw) > max_bytes:
        raise RegistrationFetchError(f"registration file is larger than {max_bytes} bytes")
    try:
        document = loads(raw.decode("utf-8"))
    except ValueError as error:  # UnicodeDecodeError, JSONDecodeError and jsonbounds.TooDeep
        raise RegistrationFetchError(f"registration file is not UTF-8 JSON: {error}") from None
    if not isinstance(document, dict):
        raise RegistrationFetchError(
            f"registration file must be a JSON object, not {type(document).__name__}"
        )
    return document


def _decode_data_uri(uri: str) -> bytes:
    header, comma, payload = uri.removeprefix("data:").partition(",")
    if not comma:
        raise RegistrationFetchError("data URI has no ',' before its payload")
    parameters = header.split(";")
    media_type = parameters[0].strip().lower()
    if media_type not in _JSON_MEDIA_TYPES:
        raise RegistrationFetchError(f"data URI media type must be application/json, not {media_type!r}")
    if "base64" in (parameter.strip().lower() for parameter in parameters[1:]):
        try:
            return base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            raise RegistrationFetchError("data URI payload is not valid base64") from None
    return unquote_to_bytes(payload)


def _download(
    url: str,
    *,
    timeout: float,
    max_bytes: int,
    allow_http: bool,
    allow_private: bool,
    resolver: Resolver | None,
) -> bytes:
    try:
        answer = fetch(
            url,
            max_bytes=max_bytes,
            deadline_seconds=timeout,
            allow_http=allow_http,
            allow_private=allow_private,
            max_redirects=3,
            resolver=resolver,
        )
    except OutboundError as error:
        raise RegistrationFetchError(f"fetching {url} failed: {type(error).__name__}: {error}") from None
    if answer.status != 200:
        raise RegistrationFetchError(f"fetching {url} answered HTTP {answer.status}")
    return answer.content
