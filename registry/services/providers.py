"""Providers: creation, API keys, suspension and reinstatement."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.errors import ApplicationError, FieldError
from common.keycache import KeyLookupCache
from untrusted.fetch import validate_url

from ..models import Provider, ProviderApiKey, ProviderAuditEvent
from ..signals import provider_suspended

KEY_PREFIX = "trk_"


@dataclass(frozen=True)
class IssuedKey:
    """A freshly issued key: the plaintext exists only here, once."""

    record: ProviderApiKey
    plaintext: str


def api_key_hash(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


def api_key_create(*, provider: Provider, name: str = "", plaintext: str | None = None) -> IssuedKey:
    """Issue a new API key for a provider and return its plaintext once.

    `plaintext` is for fixtures and demo data only; real keys are always generated here.
    """
    if plaintext is None:
        plaintext = KEY_PREFIX + secrets.token_urlsafe(32)
    elif not plaintext.startswith(KEY_PREFIX) or len(plaintext) < 24:
        raise ApplicationError(f"An API key starts with {KEY_PREFIX!r} and has at least 24 characters.")
    record = ProviderApiKey.objects.create(
        provider=provider,
        name=name,
        prefix=plaintext[: len(KEY_PREFIX) + 8],
        key_hash=api_key_hash(plaintext),
    )
    ProviderAuditEvent.objects.create(provider=provider, action="key-created", reason=f"key {record.prefix}")
    return IssuedKey(record=record, plaintext=plaintext)


def api_key_revoke(*, prefix: str, actor: Any = None, actor_label: str = "") -> ProviderApiKey:
    """Revoke the key that starts with `prefix` (as printed when it was issued); refused at once."""
    # A short prefix would match whichever key happens to be the only one (an empty one did).
    if len(prefix) < len(KEY_PREFIX) + 8 or not prefix.startswith(KEY_PREFIX):
        raise ApplicationError(
            f"Give the key's prefix as printed when it was issued ({KEY_PREFIX} and 8 more characters), "
            f"or the whole key; got {prefix!r}."
        )
    matches = list(ProviderApiKey.objects.filter(prefix__startswith=prefix[:16], revoked_at__isnull=True))
    matches = [k for k in matches if k.prefix.startswith(prefix) or prefix.startswith(k.prefix)]
    if not matches:
        raise ApplicationError(f"No active API key starts with {prefix!r}.", status=404, problem="not-found")
    if len(matches) > 1:
        raise ApplicationError(f"{len(matches)} keys start with {prefix!r}; give more characters.")
    return api_key_revoke_record(key=matches[0], actor=actor, actor_label=actor_label)


def api_key_revoke_record(*, key: ProviderApiKey, actor: Any = None, actor_label: str = "") -> ProviderApiKey:
    """Revoke one key (the admin action's path); already revoked keys are left as they are."""
    if key.revoked_at is not None:
        return key
    key.revoked_at = timezone.now()
    key.save(update_fields=["revoked_at"])
    api_key_cache_clear()
    ProviderAuditEvent.objects.create(
        provider=key.provider,
        action="key-revoked",
        actor=actor,
        actor_label=actor_label,
        reason=f"key {key.prefix}",
    )
    return key


# Authenticated pushes are the hot path; the key -> provider answer is kept per process for a few
# seconds. A revocation or suspension invalidates every process's entries at once (common.keycache).
KEY_CACHE_SECONDS = 10.0
_key_cache: KeyLookupCache[Provider] = KeyLookupCache(name="provider", seconds=KEY_CACHE_SECONDS)


def api_key_cache_clear() -> None:
    """Forget cached key lookups in every process."""
    _key_cache.invalidate()


def provider_by_api_key(*, plaintext: str) -> Provider | None:
    """The provider owning an active key, or None. Touches last_used_at at most once a minute."""
    if not plaintext.startswith(KEY_PREFIX):
        return None
    digest = api_key_hash(plaintext)
    hit = _key_cache.get(digest)
    if hit is not None:
        return hit
    key = (
        ProviderApiKey.objects.select_related("provider")
        .filter(key_hash=digest, revoked_at__isnull=True)
        .first()
    )
    if key is None:
        return None
    now = timezone.now()
    if key.last_used_at is None or (now - key.last_used_at).total_seconds() > 60:
        ProviderApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
    _key_cache.put(digest, key.provider)
    return key.provider


def provider_endpoint_check(*, url: str, field: str = "statsEndpoint") -> None:
    """Refuse an endpoint the registry may not call (400 naming `field`); "" is none.

    For the stats endpoint (the collector) and the check endpoint (canaries). Both are checked again
    at every connection (untrusted.fetch); this is the early, clear answer for whoever configures them:
    https only, no loopback, private, link-local, CGNAT, ULA or metadata address, literal or resolved
    (OUTBOUND_ALLOW_HTTP / OUTBOUND_ALLOW_PRIVATE for development).
    """
    if not url:
        return
    problem = validate_url(
        url, allow_http=settings.OUTBOUND_ALLOW_HTTP, allow_private=settings.OUTBOUND_ALLOW_PRIVATE
    )
    if problem:
        raise ApplicationError(
            f"The {field} is not allowed: {problem}.",
            status=400,
            problem="validation",
            errors=[FieldError(f"/{field}", problem)],
        )


@transaction.atomic
def provider_create(
    *,
    name: str,
    slug: str,
    signer_address: str = "",
    methodology_url: str = "",
    stats_endpoint: str = "",
    check_endpoint: str = "",
    operator_address: str = "",
    independence_statement: str = "",
    with_key: bool = True,
) -> tuple[Provider, IssuedKey | None]:
    """Create a provider (and, by default, its first API key)."""
    if Provider.objects.filter(slug=slug).exists():
        raise ApplicationError(f"A provider with slug {slug!r} exists.", status=409, problem="conflict")
    provider_endpoint_check(url=stats_endpoint, field="statsEndpoint")
    provider_endpoint_check(url=check_endpoint, field="checkEndpoint")
    provider = Provider(
        name=name,
        slug=slug,
        signer_address=signer_address,
        methodology_url=methodology_url,
        stats_endpoint=stats_endpoint,
        check_endpoint=check_endpoint,
        operator_address=operator_address,
        independence_statement=independence_statement,
    )
    provider.full_clean()
    provider.save()
    ProviderAuditEvent.objects.create(provider=provider, action="created")
    issued = api_key_create(provider=provider, name="initial") if with_key else None
    return provider, issued


@transaction.atomic
def provider_set_status(
    *, provider: Provider, status: str, actor_label: str = "", actor=None, reason: str = ""
) -> Provider:
    """Suspend or reinstate a provider; every agent it reported on is rescored after commit.

    The rescore is a RescoreJob stored with the status change (services/rescore.py): a provider with
    a million agents is marked in chunks, not as a million ids in this transaction.
    """
    from .rescore import rescore_start

    if status not in Provider.Status.values:
        raise ApplicationError(f"Unknown status {status!r}.")
    if provider.status == status:
        return provider
    provider.status = status
    provider.status_changed_at = timezone.now()
    api_key_cache_clear()
    provider.save(update_fields=["status", "status_changed_at"])
    action = "suspended" if status == Provider.Status.SUSPENDED else "reinstated"
    ProviderAuditEvent.objects.create(
        provider=provider,
        action=action,
        actor=actor,
        actor_label=actor_label or (getattr(actor, "get_username", lambda: "")() if actor else ""),
        reason=reason,
    )
    rescore_start(
        reason=f"provider {provider.slug} {action}",
        provider=provider,
        requested_by=actor_label or (getattr(actor, "get_username", lambda: "")() if actor else ""),
    )
    if status == Provider.Status.SUSPENDED:
        # Webhooks (and anything else built on the registry) hear of it in this transaction.
        provider_suspended.send(sender=Provider, provider=provider, reason=reason)
    return provider


__all__ = [
    "IssuedKey",
    "api_key_create",
    "api_key_hash",
    "api_key_revoke",
    "provider_by_api_key",
    "provider_create",
    "provider_endpoint_check",
    "provider_set_status",
]
