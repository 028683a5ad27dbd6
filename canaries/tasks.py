"""Celery tasks: thin wrappers that load by id and call a service."""

from __future__ import annotations

import logging
import secrets

from celery import shared_task
from django.conf import settings

from registry.models import Provider
from registry.services.recompute import SCHEDULING_ERRORS

from .services.sending import canary_providers_due, canary_round_run

logger = logging.getLogger(__name__)


@shared_task
def canary_rounds_schedule() -> int:
    """Beat: queue one round per provider, each at a random moment of the coming interval.

    Spreading the rounds keeps the cases from arriving as a recognisable burst at a fixed time.
    """
    due = canary_providers_due()
    spread = max(int(settings.CANARY_INTERVAL_SECONDS) - 1, 1)
    for provider_id in due:
        try:
            canary_round.apply_async((provider_id,), countdown=secrets.randbelow(spread), retry=False)
        except SCHEDULING_ERRORS:
            logger.warning("could not queue a canary round for provider %s", provider_id, exc_info=True)
    return len(due)


@shared_task
def canary_round(provider_id: int) -> int:
    """One provider's round; returns the number of cases sent."""
    provider = Provider.objects.filter(pk=provider_id).first()
    if provider is None:
        return 0
    return len(canary_round_run(provider=provider))
