"""Request and response shapes of the webhook API."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from ..models import EventType, WebhookDelivery, WebhookSubscription


class SubscriptionInSerializer(serializers.Serializer):
    url = serializers.CharField(max_length=2048)
    events = serializers.ListField(child=serializers.CharField(max_length=40), max_length=10)
    agents = serializers.ListField(
        child=serializers.CharField(max_length=300), max_length=100, required=False, default=list
    )
    minChange = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=0, max_value=100, required=False, default=Decimal(1)
    )


class SubscriptionPatchSerializer(serializers.Serializer):
    events = serializers.ListField(child=serializers.CharField(max_length=40), max_length=10, required=False)
    minChange = serializers.DecimalField(
        max_digits=5, decimal_places=2, min_value=0, max_value=100, required=False
    )
    active = serializers.BooleanField(required=False)


def subscription_document(subscription: WebhookSubscription, *, secret: bool = False) -> dict[str, Any]:
    """The API's view of a subscription; the secret only right after it is made or rotated."""
    document: dict[str, Any] = {
        "id": subscription.pk,
        "url": subscription.url,
        "events": subscription.events,
        "agents": sorted(agent.subject_id for agent in subscription.agents.all()),
        "minChange": float(subscription.min_change),
        "active": subscription.is_active,
        "disabledReason": subscription.disabled_reason,
        "consecutiveFailures": subscription.consecutive_failures,
        "createdAt": subscription.created_at,
        "knownEvents": list(EventType.values),
    }
    if secret:
        document["secret"] = subscription.secret
        document["previousSecretExpiresAt"] = subscription.previous_secret_expires_at
    return document


class DeliverySerializer(serializers.ModelSerializer):
    msgId = serializers.CharField(source="event.msg_id")
    type = serializers.CharField(source="event.type")
    responseCode = serializers.IntegerField(source="response_code", allow_null=True)
    latencyMs = serializers.FloatField(source="latency_ms", allow_null=True)
    nextAttemptAt = serializers.DateTimeField(source="next_attempt_at", allow_null=True)
    deliveredAt = serializers.DateTimeField(source="delivered_at", allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = WebhookDelivery
        fields = (
            "id",
            "msgId",
            "type",
            "status",
            "attempts",
            "responseCode",
            "latencyMs",
            "error",
            "log",
            "nextAttemptAt",
            "deliveredAt",
            "createdAt",
        )
