"""Canary cases sent to providers' check endpoints, and what each provider answered.

A case is sent once, to one provider, and never again: `digest` (sha256 of the canonical JSON body
sent) is unique across every provider, so a provider that memorises the cases it has seen learns nothing
about the next one.
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from registry.models import Provider


class CanaryCase(models.Model):
    class Label(models.TextChoices):
        FAITHFUL = "faithful", "Faithful (the right answer is ALLOW)"
        FABRICATED = "fabricated", "Fabricated (the right answer is BLOCK)"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        ANSWERED = "answered", "Answered"
        FAILED = "failed", "No usable answer"

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="canary_cases")
    kind = models.CharField(max_length=16, default="run")
    domain = models.CharField(max_length=32)
    label = models.CharField(max_length=16, choices=Label.choices)
    #: The edited value of a fabricated case ({"field", "tool", "answer"}); {} for a faithful one.
    edit = models.JSONField(default=dict, blank=True)
    digest = models.CharField(max_length=64, unique=True)
    body = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    verdict = models.CharField(max_length=16, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    latency_ms = models.FloatField(null=True, blank=True)
    sent_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-sent_at", "-id"]
        indexes: ClassVar = [models.Index(fields=["provider", "-sent_at"], name="canary_provider_recent")]

    def __str__(self) -> str:
        return f"canary {self.pk} to {self.provider_id} ({self.label})"

    @property
    def expected_verdict(self) -> str:
        return "BLOCK" if self.label == self.Label.FABRICATED else "ALLOW"

    @property
    def correct(self) -> bool | None:
        """Whether the answer was right; None without a decisive answer (UNCERTAIN or none)."""
        if self.status != self.Status.ANSWERED or self.verdict not in ("ALLOW", "BLOCK"):
            return None
        return self.verdict == self.expected_verdict
