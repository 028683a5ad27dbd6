"""Subscriptions: create, change, rotate the secret, delete (an operator's own only)."""

from __future__ import annotations

import base64
import secrets
from datetime import timedelta
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from common.errors import ApplicationError, FieldError, validation_error
from provider_client.webhooks import SECRET_PREFIX
from registry.models import Agent
from untrusted.fetch import validate_url
from verification.models import Operator

from ..models import EventType, WebhookSubscription

MAX_AGENT_FILTER = 100


def webhook_secret_new() -> str:
    """A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode()


def webhook_url_policy(*, url: str) -> tuple[bool, bool]:
    """(allow_http, allow_private) for a target: the outbound settings, or both for a test-only host."""
    host = (urlsplit(url).hostname or "").lower()
    if host and host in {h.lower() for h in settings.WEBHOOK_TEST_ALLOWED_HOSTS}:
        return True, True
    return settings.OUTBOUND_ALLOW_HTTP, settings.OUTBOUND_ALLOW_PRIVATE


def webhook_url_check(*, url: str) -> None:
    """400 naming `url` unless the SSRF guard (untrusted.fetch) accepts it: https, no private address."""
    allow_http, allow_private = webhook_url_policy(url=url)
    problem = validate_url(url, allow_http=allow_http, allow_private=allow_private)
    if problem:
        raise validation_error([FieldError("/url", problem)], what="webhook URL")


def _events_check(events: list[str]) -> list[str]:
    known = set(EventType.values)
    if not events:
        raise validation_error([FieldError("/events", "Name at least one event.")], what="subscription")
    for index, event in enumerate(events):
        if event not in known:
            raise validation_error(
                [FieldError(f"/events/{index}", f"Unknown event {event!r}; one of {sorted(known)}.")],
                what="subscription",
            )
    return sorted(set(events))


def _agents_resolve(subject_ids: list[str]) -> list[Agent]:
    if len(subject_ids) > MAX_AGENT_FILTER:
        raise validation_error(
            [FieldError("/agents", f"At most {MAX_AGENT_FILTER} agents; leave it empty for every agent.")],
            what="subscription",
        )
    found = {agent.subject_id: agent for agent in Agent.objects.filter(subject_id__in=subject_ids)}
    for index, subject_id in enumerate(subject_ids):
        if subject_id not in found:
            raise validation_error(
                [FieldError(f"/agents/{index}", f"Unknown agent {subject_id!r}.")], what="subscription"
            )
    return list(found.values())


@transaction.atomic
def webhook_subscription_create(
    *,
    operator: Operator,
    url: str,
    events: list[str],
    agents: list[str],
    min_change: Decimal,
) -> WebhookSubscription:
    """A new subscription with a fresh secret (returned once by the API)."""
    # Serialises an operator's concurrent creates so the cap holds.
    Operator.objects.select_for_update().filter(pk=operator.pk).first()
    if WebhookSubscription.objects.filter(operator=operator).count() >= settings.WEBHOOK_MAX_SUBSCRIPTIONS:
        raise ApplicationError(
            f"This operator has {settings.WEBHOOK_MAX_SUBSCRIPTIONS} subscriptions, the most allowed.",
            status=409,
            problem="conflict",
        )
    webhook_url_check(url=url)
    chosen = _events_check(events)
    filtered = _agents_resolve(agents)
    subscription = WebhookSubscription.objects.create(
        operator=operator, url=url, events=chosen, min_change=min_change, secret=webhook_secret_new()
    )
    subscription.agents.set(filtered)
    return subscription


def webhook_subscription_update(
    *,
    subscription: WebhookSubscription,
    events: list[str] | None = None,
    min_change: Decimal | None = None,
    active: bool | None = None,
) -> WebhookSubscription:
    """Change the events or the minimum change, or (re-)enable / disable; re-enabling resets failures."""
    if events is not None:
        subscription.events = _events_check(events)
    if min_change is not None:
        subscription.min_change = min_change
    if active is not None:
        subscription.is_active = active
        if active:
            subscription.consecutive_failures = 0
            subscription.disabled_reason = ""
        else:
            subscription.disabled_reason = "disabled by its operator"
    subscription.save()
    return subscription


def webhook_subscription_rotate_secret(*, subscription: WebhookSubscription) -> WebhookSubscription:
    """A new secret; the old one keeps signing too for WEBHOOK_SECRET_OVERLAP_SECONDS."""
    subscription.previous_secret = subscription.secret
    subscription.previous_secret_expires_at = timezone.now() + timedelta(
        seconds=settings.WEBHOOK_SECRET_OVERLAP_SECONDS
    )
    subscription.secret = webhook_secret_new()
    subscription.save(update_fields=["secret", "previous_secret", "previous_secret_expires_at"])
    return subscription


def webhook_subscription_delete(*, subscription: WebhookSubscription) -> None:
    """Delete the subscription and its delivery log."""
    subscription.delete()


def webhook_subscription_authorize(*, operator: Operator, subscription: WebhookSubscription) -> None:
    """403 naming the subscription unless it is this operator's."""
    if subscription.operator_id != operator.pk:
        raise ApplicationError(
            "This subscription belongs to another operator.",
            status=403,
            problem="forbidden",
            errors=[FieldError("/id", "Not this operator's subscription.")],
        )
