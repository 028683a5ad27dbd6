"""Celery tasks: thin wrappers that load by id and call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from .services.deliveries import webhook_delivery_attempt


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def webhook_deliver(delivery_id: int) -> str:
    """One attempt; a failed one queues the next after the service's backoff delay."""
    delay = webhook_delivery_attempt(delivery_id=delivery_id)
    if delay is not None:
        webhook_deliver.apply_async((delivery_id,), countdown=delay)
        return f"retry in {delay:.1f} s"
    return "done"
