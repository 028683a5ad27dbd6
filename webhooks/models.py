"""Webhook subscriptions of operators (marketplaces), the events the registry emits, their deliveries."""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from registry.models import Agent
from verification.models import Operator


class EventType(models.TextChoices):
    SCORE_CHANGED = "score.changed", "Score changed"
    PROVIDER_SUSPENDED = "provider.suspended", "Provider suspended"
    AGENT_UNRATED = "agent.unrated", "Agent unrated"


class WebhookSubscription(models.Model):
    """Where an operator wants events sent, which ones, about which agents, signed with which secret.

    The secret is kept in clear: the registry needs it to sign (HMAC), as every Standard Webhooks
    sender does. During a rotation the previous secret signs too, until `previous_secret_expires_at`.
    """

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="webhook_subscriptions")
    url = models.CharField(max_length=2048)
    events = models.JSONField(default=list)
    # No agents = every agent.
    agents = models.ManyToManyField(Agent, blank=True, related_name="webhook_subscriptions")
    min_change = models.DecimalField(max_digits=5, decimal_places=2, default=1)
    secret = models.CharField(max_length=80)
    previous_secret = models.CharField(max_length=80, blank=True)
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    is_active = models.BooleanField(default=True, db_index=True)
    disabled_reason = models.CharField(max_length=300, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["pk"]

    def __str__(self) -> str:
        return f"{self.operator} -> {self.url}"


class WebhookEvent(models.Model):
    """One thing that happened; its `msg_id` is the webhook-id every subscriber receives (dedupe key)."""

    msg_id = models.CharField(max_length=40, unique=True)
    type = models.CharField(max_length=32, choices=EventType.choices)
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["-pk"]

    def __str__(self) -> str:
        return f"{self.type} {self.msg_id}"


class WebhookDelivery(models.Model):
    """One event to one subscription: the delivery log (status, attempts, last code and latency)."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SUCCEEDED = "succeeded", "Succeeded"
        FAILED = "failed", "Failed"

    subscription = models.ForeignKey(WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(WebhookEvent, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    response_code = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    # Every attempt: [{"at", "code", "latencyMs", "error"}], at most WEBHOOK_MAX_ATTEMPTS entries.
    log = models.JSONField(default=list)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["-pk"]
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event} -> {self.subscription_id} ({self.status})"
