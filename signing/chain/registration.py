"""Fetch an agent's registration file from its agent URI: ``data:``, ``https:`` or ``ipfs:`` (via a gateway).

>>> fetch_registration_file('data:application/json,{"name":"a"}')
{'name': 'a'}
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_to_bytes

from eth_utils import to_checksum_address
from jsonschema import Draft202012Validator

from untrusted.fetch import (
    OutboundError,
    OutboundFailed,
    OutboundRefused,
    OutboundTooLarge,
    Resolver,
    fetch,
)
from untrusted.jsonbounds import loads

__all__ = [
    "DEFAULT_IPFS_GATEWAY",
    "DEFAULT_MAX_BYTES",
    "REGISTRATION_SCHEMA",
    "REGISTRATION_TYPE",
    "Registration",
    "RegistrationFetchError",
    "RegistrationInvalid",
    "RegistrationUnreachable",
    "fetch_registration_file",
    "registration_read",
    "resolve_uri",
]

REGISTRATION_TYPE = "https://eips.ethereum.org/EIPS/eip-8004#registration-v1"
DEFAULT_IPFS_GATEWAY = "https://ipfs.io/ipfs/"
DEFAULT_MAX_BYTES = 256 * 1024
_JSON_MEDIA_TYPES = ("", "application/json", "text/plain")


class RegistrationFetchError(ValueError):
    """The registration file could not be fetched or is not a JSON object."""


class RegistrationUnreachable(RegistrationFetchError):
    """The host could not be reached or answered an error that may pass (timeout, 5xx, 429): retry later."""


class RegistrationInvalid(ValueError):
    """The document is JSON but not an ERC-8004 registration file; `problems` say where."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


_SHORT = {"type": "string", "maxLength": 200}
_URI = {"type": "string", "maxLength": 2048}
_SERVICE = {
    "type": "object",
    "required": ["name", "endpoint"],
    "properties": {"name": _SHORT, "endpoint": _URI, "version": _SHORT},
}
#: The registration-file shape of the ERC ("registration-v1"). `type` and `name` are required; the other
#: fields the ERC lists are checked when present, so a file that leaves out an image still shows its
#: name. Bounds keep what the page shows small. `services` is the ERC's current name for the list,
#: `endpoints` the earlier draft's; both are read.
REGISTRATION_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["type", "name"],
    "properties": {
        "type": {"const": REGISTRATION_TYPE},
        "name": {"type": "string", "minLength": 1, "maxLength": 200},
        "description": {"type": "string", "maxLength": 10_000},
        "image": _URI,
        "services": {"type": "array", "maxItems": 64, "items": _SERVICE},
        "endpoints": {"type": "array", "maxItems": 64, "items": _SERVICE},
        "active": {"type": "boolean"},
        "x402Support": {"type": "boolean"},
        "supportedTrust": {"type": "array", "maxItems": 16, "items": _SHORT},
        "registrations": {
            "type": "array",
            "maxItems": 64,
            "items": {
                "type": "object",
                "required": ["agentId", "agentRegistry"],
                "properties": {
                    "agentId": {"type": ["integer", "string"]},
                    "agentRegistry": _SHORT,
                },
            },
        },
    },
}
_VALIDATOR = Draft202012Validator(REGISTRATION_SCHEMA)
_MAX_PROBLEMS = 5


@dataclass(frozen=True)
class Registration:
    """What the registry keeps of a valid registration file."""

    name: str
    description: str = ""
    image: str = ""
    endpoints: list[dict[str, str]] = field(default_factory=list)
    active: bool | None = None
    #: The file's registrations list names this agent (agentRegistry and agentId).
    lists_agent: bool = False
    #: The other identities the file names, as subject ids (eip155:{chainId}:{registry}:{agentId}).
    others: list[str] = field(default_factory=list)


# NUL and lone surrogates (JSON allows "\u0000" and "\ud800") cannot be stored in PostgreSQL text.
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def _clean(text: str) -> str:
    return _UNSTORABLE.sub("\ufffd", text)


def registration_read(document: dict[str, Any], *, agent_registry: str, agent_id: int) -> Registration:
    """Check `document` against REGISTRATION_SCHEMA and keep what the agent page shows.

    >>> doc = {"type": REGISTRATION_TYPE, "name": "Scout", "services": [{"name": "MCP", "endpoint": "https://m"}],
    ...     "registrations": [{"agentId": 3, "agentRegistry": "eip155:8453:0xAB"}]}
    >>> r = registration_read(doc, agent_registry="eip155:8453:0xab", agent_id=3)
    >>> r.name, r.endpoints, r.lists_agent, r.others
    ('Scout', [{'name': 'MCP', 'endpoint': 'https://m', 'version': ''}], True, [])
    >>> try:
    ...     registration_read({"name": 5}, agent_registry="x", agent_id=0)
    ... except RegistrationInvalid as invalid:
    ...     invalid.problems
    ["(root): 'type' is a required property", "name: 5 is not of type 'string'"]
    """
    errors = sorted(
        _VALIDATOR.iter_errors(document), key=lambda e: ([str(p) for p in e.absolute_path], e.message)
    )
    if errors:
        problems = [
            f"{'.'.join(str(p) for p in error.absolute_path) or '(root)'}: {error.message[:200]}"
            for error in errors[:_MAX_PROBLEMS]
        ]
        raise RegistrationInvalid(problems)
    services = document.get("services") or document.get("endpoints") or []
    listed = any(
        str(entry["agentId"]) == str(agent_id) and entry["agentRegistry"].lower() == agent_registry.lower()
        for entry in document.get("registrations", [])
    )
    others: list[str] = []
    for entry in document.get("registrations", []):
        subject = _eip155_subject(entry["agentRegistry"], entry["agentId"])
        if (
            subject is not None
            and subject.lower() != f"{agent_registry}:{agent_id}".lower()
            and subject not in others
        ):
            others.append(subject)
    return Registration(
        name=_clean(document["name"]),
        description=_clean(document.get("description", "")),
        image=_clean(document.get("image", "")),
        endpoints=[
            {key: _clean(s.get(key, "")) for key in ("name", "endpoint", "version")} for s in services
        ],
        active=document.get("active"),
        lists_agent=listed,
        others=others,
    )


_EIP155_REGISTRY = re.compile(r"^eip155:([1-9][0-9]{0,18}):(0x[0-9a-fA-F]{40})$")


def _eip155_subject(agent_registry: str, agent_id: int | str) -> str | None:
    """The subject id of a registrations entry (checksummed registry), or None when it is not one.

    >>> _eip155_subject("eip155:1:0x" + "ab" * 20, "12")
    'eip155:1:0xABaBaBaBABabABabAbAbABAbABabababaBaBABaB:12'
    >>> _eip155_subject("hedera:mainnet:0.0.5", 1) is None
    True
    """
    match = _EIP155_REGISTRY.match(agent_registry.strip())
    text = str(agent_id).strip()
    if match is None or not text.isdigit() or len(text) > 78:
        return None
    return f"eip155:{int(match.group(1))}:{to_checksum_address(match.group(2))}:{int(text)}"


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
    signing.chain.registration.RegistrationFetchError: unsupported agent URI scheme: 'ftp'
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
    except (OutboundRefused, OutboundTooLarge) as error:
        # A forbidden address or an oversized file: trying again would end the same way.
        raise RegistrationFetchError(f"fetching {url} refused: {error}") from None
    except OutboundFailed as error:
        # Unreachable, timed out, bad TLS: a later try may succeed.
        raise RegistrationUnreachable(f"fetching {url} failed: {type(error).__name__}: {error}") from None
    except OutboundError as error:
        raise RegistrationFetchError(f"fetching {url} failed: {type(error).__name__}: {error}") from None
    if answer.status >= 500 or answer.status == 429:
        raise RegistrationUnreachable(f"fetching {url} answered HTTP {answer.status}")
    if answer.status != 200:
        raise RegistrationFetchError(f"fetching {url} answered HTTP {answer.status}")
    return answer.content
