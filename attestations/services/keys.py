"""The service's signing key, loaded once per process from the environment, never from settings.

Reading os.environ directly keeps the key out of `django.conf.settings`, which debug pages and
`diffsettings` can print.
"""

from __future__ import annotations

import os
from functools import cache

from common.errors import ApplicationError
from signing.keys import KeyConfigurationError, ServiceKey, load_service_key


@cache
def _load() -> ServiceKey | None:
    return load_service_key(os.environ)


def service_key(*, required: bool = True) -> ServiceKey | None:
    """The key, or a 503 problem when signing is not configured (and `required`)."""
    try:
        key = _load()
    except KeyConfigurationError as exc:
        raise ApplicationError(
            f"Signing is misconfigured: {exc}", status=503, problem="server-error"
        ) from None
    if key is None and required:
        raise ApplicationError(
            "This registry has no signing key (set TRUST_REGISTRY_SIGNING_KEY_FILE or _KEYSTORE).",
            status=503,
            problem="server-error",
        )
    return key


def service_key_reset() -> None:
    """Forget the loaded key (tests, key rotation on SIGHUP)."""
    _load.cache_clear()
