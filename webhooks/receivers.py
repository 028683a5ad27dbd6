"""The registry's signals (registry/signals.py) turned into webhook events, connected in WebhooksConfig.ready.

The registry cannot import this app; it sends a signal inside the transaction that changes a score or
suspends a provider, and these receivers write the events and deliveries in that same transaction.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef

from registry.models import Agent, Provider, VerificationSummary
from registry.signals import ScoreChange

from .enqueue import webhook_provider_suspended_enqueue, webhook_score_changes_enqueue, webhooks_wanted


def on_score_changes(*, changes: list[ScoreChange], **_: Any) -> None:
    webhook_score_changes_enqueue(changes=changes)


def on_provider_suspended(*, provider: Provider, reason: str, **_: Any) -> None:
    if not webhooks_wanted():
        return
    # Only read when someone subscribed: one pass over the provider's summaries (semi-join).
    reported = Agent.objects.filter(
        Exists(VerificationSummary.objects.filter(agent=OuterRef("pk"), provider=provider))
    )
    webhook_provider_suspended_enqueue(
        provider_slug=provider.slug,
        agents=dict(reported.values_list("pk", "subject_id")),
        reason=reason,
    )
