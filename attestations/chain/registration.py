"""Fetch an agent's registration file from its agent URI: ``data:``, ``https:`` or ``ipfs:`` (via a gateway).

>>> fetch_registration_file('data:application/json,{"name":"a"}')
{'name': 'a'}
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any
from urllib.parse import unquote_to_bytes

import httpx

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
    client: httpx.Client | None = None,
) -> dict[str, Any]:
    """Fetch and parse the registration file an agent URI points at.

    ``https://`` (and ``ipfs://`` through the gateway) is fetched with a timeout and at most ``max_bytes``
    read; plain ``http://`` only with ``allow_http`` (local development and tests).

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
        raw = _download(url, timeout=timeout, max_bytes=max_bytes, client=client)
    if len(raw) > max_bytes:
        raise RegistrationFetchError(f"registration file is larger than {max_bytes} bytes")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
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


def _download(url: str, *, timeout: float, max_bytes: int, client: httpx.Client | None) -> bytes:
    own_client = client is None
    http = client or httpx.Client(timeout=timeout, follow_redirects=True, max_redirects=3)
    try:
        with http.stream("GET", url, timeout=timeout, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise RegistrationFetchError(f"fetching {url} answered HTTP {response.status_code}")
            declared = response.headers.get("content-length")
            if declared is not None and declared.isdigit() and int(declared) > max_bytes:
                raise RegistrationFetchError(f"registration file is larger than {max_bytes} bytes")
            body = bytearray()
            for chunk in response.iter_bytes():
                body.extend(chunk)
                # Stop reading as soon as the bound is passed: the declared length may lie.
                if len(body) > max_bytes:
                    raise RegistrationFetchError(f"registration file is larger than {max_bytes} bytes")
            return bytes(body)
    except httpx.HTTPError as error:
        raise RegistrationFetchError(f"fetching {url} failed: {type(error).__name__}") from None
    finally:
        if own_client:
            http.close()
