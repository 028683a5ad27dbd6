"""Delivering one event to one subscription: sign, POST through the outbound guard, log, retry, disable."""

from __future__ import annotations

import json
import logging
import random
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone

from provider_client.webhooks import sign_webhook
from untrusted.fetch import OutboundError, fetch

from ..models import WebhookDelivery, WebhookSubscription
from .subscriptions import webhook_url_policy

logger = logging.getLogger(__name__)

#: The receiver's answer is not used; a long one is cut off, not waited for.
MAX_ANSWER_BYTES = 64 * 1024
#: A claimed attempt's lease runs this long past the request's deadline; then the sweep may retry it.
LEASE_MARGIN_SECONDS = 30
DUE_TOLERANCE = timedelta(seconds=1)
#: The sweep queues deliveries overdue by this long (their task was lost, or their worker died).
SWEEP_GRACE = timedelta(seconds=60)
SWEEP_BATCH = 1000
#: Retries due later than this are left to the sweep instead of a broker countdown: the Redis
#: broker hands an unacknowledged delayed task out again after its visibility timeout.
MAX_COUNTDOWN_SECONDS = 300.0


def webhook_retry_delay(*, attempt: int, rng: random.Random | None = None) -> float:
    """Seconds before the next try after `attempt` failed tries: exponential, capped, with jitter.

    The cap is base x 2^(attempt-1) (at most WEBHOOK_BACKOFF_MAX_SECONDS); the delay is drawn from
    its upper half, so retries of many deliveries that failed together (a receiver outage) spread
    out instead of arriving together, and no retry comes sooner than half the schedule.
    """
    ceiling = min(
        settings.WEBHOOK_BACKOFF_MAX_SECONDS,
        settings.WEBHOOK_BACKOFF_BASE_SECONDS * 2 ** min(attempt - 1, 60),
    )
    draw = (rng or random).random()
    return ceiling / 2 + draw * ceiling / 2


def webhook_signatures(*, subscription: WebhookSubscription, msg_id: str, timestamp: int, body: bytes) -> str:
    """The webhook-signature header: the current secret's, and during an overlap the previous one's."""
    secrets = [subscription.secret]
    expires = subscription.previous_secret_expires_at
    if subscription.previous_secret and expires is not None and expires > timezone.now():
        secrets.append(subscription.previous_secret)
    return " ".join(
        sign_webhook(secret=secret, msg_id=msg_id, timestamp=timestamp, body=body) for secret in secrets
    )


def webhook_body(payload: object) -> bytes:
    """The bytes sent and signed (compact JSON)."""
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()


def _fail_delivery(delivery: WebhookDelivery) -> None:
    delivery.status = WebhookDelivery.Status.FAILED
    delivery.next_attempt_at = None
    subscription = delivery.subscription
    WebhookSubscription.objects.filter(pk=subscription.pk).update(
        consecutive_failures=F("consecutive_failures") + 1
    )
    subscription.refresh_from_db(fields=["consecutive_failures", "is_active"])
    if subscription.is_active and subscription.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER:
        WebhookSubscription.objects.filter(pk=subscription.pk).update(
            is_active=False,
            disabled_reason=(
                f"disabled after {subscription.consecutive_failures} consecutive failed deliveries"
            ),
        )


def webhook_delivery_attempt(*, delivery_id: int) -> float | None:
    """Try a pending delivery once; the seconds to wait before the next try, or None when done.

    Delivery is at least once (a worker that dies after the POST and before the write sends it again),
    which is why receivers dedupe on webhook-id (docs/webhooks.md).
    """
    now = timezone.now()
    # Claim the attempt: one conditional UPDATE, so a task the broker delivered twice, or one the
    # sweep queued again while the first was only late, does not POST twice at once; a task that
    # comes before the delivery is due (a broker redelivery of a retry) does nothing.
    claimed = (
        WebhookDelivery.objects.filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING)
        .filter(Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now + DUE_TOLERANCE))
        .update(
            next_attempt_at=now + timedelta(seconds=settings.WEBHOOK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS)
        )
    )
    if not claimed:
        return None
    delivery = WebhookDelivery.objects.select_related("subscription", "event").get(pk=delivery_id)
    subscription = delivery.subscription
    if not subscription.is_active:
        delivery.status = WebhookDelivery.Status.FAILED
        delivery.error = "the subscription is disabled"
        delivery.save(update_fields=["status", "error"])
        return None
    body = webhook_body(delivery.event.payload)
    timestamp = int(time.time())
    headers = {
        "Content-Type": "application/json",
        "webhook-id": delivery.event.msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhook_signatures(
            subscription=subscription, msg_id=delivery.event.msg_id, timestamp=timestamp, body=body
        ),
    }
    allow_http, allow_private = webhook_url_policy(url=subscription.url)
    started = time.perf_counter()
    code: int | None = None
    error = ""
    try:
        answer = fetch(
            subscription.url,
            method="POST",
            content=body,
            headers=headers,
            max_bytes=MAX_ANSWER_BYTES,
            deadline_seconds=settings.WEBHOOK_TIMEOUT_SECONDS,
            allow_http=allow_http,
            allow_private=allow_private,
        )
        code = answer.status
        if not 200 <= code < 300:
            error = f"HTTP {code}"
    except OutboundError as exc:
        error = f"{type(exc).__name__}: {exc}"[:300]
    latency_ms = round((time.perf_counter() - started) * 1000, 2)
    now = timezone.now()
    delivery.attempts += 1
    delivery.response_code = code
    delivery.latency_ms = latency_ms
    delivery.error = error
    delivery.log = [
        *delivery.log,
        {"at": now.isoformat(), "code": code, "latencyMs": latency_ms, "error": error},
    ][-settings.WEBHOOK_MAX_ATTEMPTS :]
    delay: float | None = None
    if not error:
        delivery.status = WebhookDelivery.Status.SUCCEEDED
        delivery.delivered_at = now
        delivery.next_attempt_at = None
        WebhookSubscription.objects.filter(pk=subscription.pk).update(consecutive_failures=0)
    elif delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        _fail_delivery(delivery)
    else:
        delay = webhook_retry_delay(attempt=delivery.attempts)
        delivery.next_attempt_at = now + timedelta(seconds=delay)
    delivery.save()
    return delay


def webhook_deliveries_due(*, now: datetime | None = None, batch: int = SWEEP_BATCH) -> list[int]:
    """Pending deliveries overdue by SWEEP_GRACE (lost task, dead worker, long retry): ids to queue."""
    cutoff = (now or timezone.now()) - SWEEP_GRACE
    return list(
        WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING)
        .filter(Q(next_attempt_at__lte=cutoff) | Q(next_attempt_at__isnull=True, created_at__lte=cutoff))
        .order_by("pk")
        .values_list("pk", flat=True)[:batch]
    )
