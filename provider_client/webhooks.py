"""Verify a webhook from the registry (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).

For receivers, standard library only::

    from provider_client.webhooks import WebhookVerificationError, verify_webhook

    try:
        event = verify_webhook(secret="whsec_...", headers=request.headers, body=request.body)
    except WebhookVerificationError:
        return 400
    if seen_before(event_id := request.headers["webhook-id"]):  # replay: dedupe on the id
        return 200

The signature is `v1,` + base64(HMAC-SHA256(key, f"{id}.{timestamp}.{body}")) where the key is the
base64 text after `whsec_`. During a secret rotation the header carries several signatures separated
by spaces; one matching is enough. A timestamp outside `tolerance_seconds` of now is refused, so a
captured request cannot be replayed later; within the window, dedupe on `webhook-id`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

__all__ = ["SECRET_PREFIX", "WebhookVerificationError", "sign_webhook", "verify_webhook"]

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE_SECONDS = 300


class WebhookVerificationError(Exception):
    """The request is not a valid, fresh webhook signed with the given secret."""


def _key(secret: str) -> bytes:
    encoded = secret.removeprefix(SECRET_PREFIX)
    try:
        return base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise ValueError("the secret is not whsec_ followed by base64") from error


def sign_webhook(*, secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """`v1,<base64 signature>` of one message under one secret.

    >>> sign_webhook(secret="whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", msg_id="msg_p5jXN8AQM9LWM0D4loKWxJek",
    ...              timestamp=1614265330, body=b'{"test": 2432232314}')
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
    """
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    raise WebhookVerificationError(f"missing header {name}")


def verify_webhook(
    *,
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: float | None = None,
) -> Any:
    """The parsed JSON payload when the signature matches and the timestamp is fresh; else raises."""
    msg_id = _header(headers, "webhook-id")
    raw_timestamp = _header(headers, "webhook-timestamp")
    if not raw_timestamp.isdigit():
        raise WebhookVerificationError("webhook-timestamp is not a number of seconds")
    timestamp = int(raw_timestamp)
    current = time.time() if now is None else now
    if abs(current - timestamp) > tolerance_seconds:
        raise WebhookVerificationError("webhook-timestamp is outside the tolerance (replayed or clock skew)")
    expected = sign_webhook(secret=secret, msg_id=msg_id, timestamp=timestamp, body=body)
    offered = _header(headers, "webhook-signature").split()
    if not any(hmac.compare_digest(expected, candidate) for candidate in offered):
        raise WebhookVerificationError("no signature matches the secret")
    return json.loads(body)
