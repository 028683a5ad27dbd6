"""The one way the rest of the registry emits webhook events (scoring, provider suspension).

Called inside the caller's transaction: the events and their deliveries are written with the change
that caused them (an outbox), so a rolled-back score sends nothing, and the delivery tasks are queued
with `transaction.on_commit` so a worker never looks for a row that is not committed yet. When no
subscription is active this costs one indexed query.
"""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime
from functools import partial
from typing import Any

from django.db import transaction
from django.utils import timezone

from common.enqueue import task_named
from registry.services.recompute import SCHEDULING_ERRORS
from registry.signals import ScoreChange

from .models import EventType, WebhookDelivery, WebhookEvent, WebhookSubscription

logger = logging.getLogger(__name__)

#: A provider.suspended payload names at most this many of the agents it reported on.
MAX_AGENTS_IN_PAYLOAD = 1000


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _subscriptions() -> list[tuple[WebhookSubscription, set[int]]]:
    active = list(WebhookSubscription.objects.filter(is_active=True).prefetch_related("agents"))
    return [(sub, {agent.pk for agent in sub.agents.all()}) for sub in active]


def _event(kind: str, data: dict[str, Any], now: datetime) -> WebhookEvent:
    payload = {"type": kind, "timestamp": _iso(now), "data": data}
    return WebhookEvent(msg_id=f"msg_{uuid.uuid4().hex}", type=kind, payload=payload)


def _queue(pairs: list[tuple[WebhookEvent, list[WebhookSubscription]]]) -> None:
    if not pairs:
        return
    WebhookEvent.objects.bulk_create([event for event, _ in pairs])
    deliveries = WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(subscription=sub, event=event) for event, subs in pairs for sub in subs]
    )
    transaction.on_commit(partial(_send, [delivery.pk for delivery in deliveries]))


def _send(delivery_ids: list[int]) -> None:
    for delivery_id in delivery_ids:
        webhook_deliver_queue(delivery_id)


def webhook_deliver_queue(delivery_id: int, countdown: float = 0.0) -> None:
    """Queue one attempt; a broker that is down is logged, and the sweep queues it later."""
    try:
        # By name: tasks.py imports this module, so importing it back would close a circle.
        task_named("webhooks.tasks.webhook_deliver").apply_async(
            (delivery_id,), countdown=countdown, retry=False
        )
    except SCHEDULING_ERRORS:
        logger.warning("could not queue webhook delivery %s; the sweep will", delivery_id, exc_info=True)


def webhook_score_changes_enqueue(*, changes: list[ScoreChange]) -> int:
    """Emit score.changed / agent.unrated to the subscriptions that ask for them; returns deliveries."""
    if not changes or not WebhookSubscription.objects.filter(is_active=True).exists():
        return 0
    subscriptions = _subscriptions()
    now = timezone.now()
    pairs: list[tuple[WebhookEvent, list[WebhookSubscription]]] = []
    for change in changes:
        watching = [sub for sub, agents in subscriptions if not agents or change.agent_id in agents]
        if not watching:
            continue
        data: dict[str, Any] = {
            "agent": change.subject_id,
            "previousScore": None if change.previous_score is None else float(change.previous_score),
            "trustScore": float(change.trust_score),
            "trustConfidence": float(change.trust_confidence),
            "rated": change.rated,
            "computedAt": _iso(change.computed_at),
        }
        if change.previous_score is None:
            # A first score: sent when it rates the agent (a change from "no data"), whatever the minimum.
            moved = change.rated
            delta = None
        else:
            delta = change.trust_score - change.previous_score
            moved = delta != 0
        if moved:
            takers = [
                sub
                for sub in watching
                if EventType.SCORE_CHANGED in sub.events and (delta is None or abs(delta) >= sub.min_change)
            ]
            if takers:
                pairs.append(
                    (
                        _event(
                            EventType.SCORE_CHANGED,
                            {**data, "change": None if delta is None else float(delta)},
                            now,
                        ),
                        takers,
                    )
                )
        if change.previous_rated and not change.rated:
            takers = [sub for sub in watching if EventType.AGENT_UNRATED in sub.events]
            if takers:
                pairs.append((_event(EventType.AGENT_UNRATED, data, now), takers))
    _queue(pairs)
    return sum(len(subs) for _, subs in pairs)


def webhooks_wanted() -> bool:
    """Whether any subscription is active: callers skip gathering an event's data otherwise."""
    return WebhookSubscription.objects.filter(is_active=True).exists()


def webhook_provider_suspended_enqueue(
    *, provider_slug: str, agents: dict[int, str], reason: str = ""
) -> int:
    """Emit provider.suspended to subscriptions for every agent or for one the provider reported on."""
    if not WebhookSubscription.objects.filter(is_active=True).exists():
        return 0
    now = timezone.now()
    takers = [
        sub
        for sub, watched in _subscriptions()
        if EventType.PROVIDER_SUSPENDED in sub.events and (not watched or watched & agents.keys())
    ]
    if not takers:
        return 0
    names = sorted(agents.values())
    data = {
        "provider": provider_slug,
        "reason": reason,
        "suspendedAt": _iso(now),
        "agents": names[:MAX_AGENTS_IN_PAYLOAD],
        "agentCount": len(names),
    }
    _queue([(_event(EventType.PROVIDER_SUSPENDED, data, now), takers)])
    return len(takers)
