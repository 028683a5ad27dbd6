"""Celery tasks: thin wrappers that load by id and call a service."""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import OperationalError

from .enqueue import webhook_deliver_queue
from .services.deliveries import MAX_COUNTDOWN_SECONDS, webhook_deliveries_due, webhook_delivery_attempt

logger = logging.getLogger(__name__)


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def webhook_deliver(delivery_id: int) -> str:
    """One attempt; a failed one queues the next after the service's backoff delay."""
    delay = webhook_delivery_attempt(delivery_id=delivery_id)
    if delay is None:
        return "done"
    if delay <= MAX_COUNTDOWN_SECONDS:
        webhook_deliver_queue(delivery_id, countdown=delay)
    return f"retry in {delay:.1f} s"


@shared_task
def webhook_deliveries_sweep() -> int:
    """Beat: queue pending deliveries that are overdue (lost tasks, dead workers, long retries)."""
    due = webhook_deliveries_due()
    for delivery_id in due:
        webhook_deliver_queue(delivery_id)
    return len(due)
