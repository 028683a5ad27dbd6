"""The engine's Django side: operator keys, tool profiles and every verification it made."""

from __future__ import annotations

import uuid
from typing import ClassVar

from django.db import models

from registry.models import Agent, AppendOnlyModel, address_validator


class Operator(models.Model):
    """An agent operator: the identity its keys belong to, so links and ownership survive key rotation.

    What an operator may do is decided here, not per key: a suspended operator writes nothing with
    any of its keys, and its links to agents (OperatorAgentLink) outlive every key it rotates.
    """

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUSPENDED = "suspended", "Suspended"

    name = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    status_changed_at = models.DateTimeField(null=True, blank=True)
    # An address the operator proved it controls (an EIP-191 signature of a one-time challenge);
    # agents the chain says this address owns are the operator's without an admin's link.
    wallet_address = models.CharField(max_length=42, blank=True, validators=[address_validator])
    wallet_verified_at = models.DateTimeField(null=True, blank=True)
    wallet_challenge = models.CharField(max_length=100, blank=True)
    wallet_challenge_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class OperatorApiKey(models.Model):
    """A key issued to an agent operator for the verification endpoints (only its SHA-256 is kept)."""

    owner = models.ForeignKey(Operator, on_delete=models.PROTECT, related_name="keys")
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at"]
        verbose_name = "operator API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class OperatorAgentLink(models.Model):
    """An operator may act for an agent: its verifications of that agent count toward the agent's score.

    Granted by an admin (admin site, `link_operator_agent`); revoking keeps the row as history.
    """

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="links")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    granted_by = models.CharField(max_length=150)
    granted_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering: ClassVar = ["-granted_at"]
        verbose_name = "operator-agent link"
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["operator", "agent"],
                condition=models.Q(revoked_at__isnull=True),
                name="one_active_operator_agent_link",
            )
        ]

    def __str__(self) -> str:
        return f"{self.operator} -> {self.agent}"


class OperatorDailyUsage(models.Model):
    """How many verifications an operator asked for on one UTC day (OPERATOR_DAILY_QUOTA)."""

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["operator", "day"], name="one_usage_row_per_operator_day")
        ]

    def __str__(self) -> str:
        return f"{self.operator_id} {self.day}: {self.count}"


class Stake(models.TextChoices):
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"


class ToolProfileRecord(models.Model):
    """A tool's profile (seed 000's ToolProfile), editable in the admin and over the API."""

    tool_name = models.CharField(max_length=200, unique=True)
    expected_latency_min_ms = models.FloatField(default=50.0)
    expected_latency_max_ms = models.FloatField(default=30_000.0)
    required_fields = models.JSONField(default=list, blank=True)
    forbidden_fields = models.JSONField(default=list, blank=True)
    response_patterns = models.JSONField(default=list, blank=True)
    min_response_length = models.PositiveIntegerField(null=True, blank=True)
    max_response_length = models.PositiveIntegerField(null=True, blank=True)
    has_network_io = models.BooleanField(default=True)
    likelihood_ratios = models.JSONField(default=dict, blank=True)
    stake = models.CharField(max_length=16, choices=Stake.choices, default=Stake.MEDIUM)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=150, blank=True)
    # Only this operator (or an admin) may edit the profile; rows from before ownership have none and
    # are admin-only.
    created_by = models.ForeignKey(
        Operator, null=True, blank=True, on_delete=models.SET_NULL, related_name="tool_profiles"
    )

    class Meta:
        ordering: ClassVar = ["tool_name"]
        verbose_name = "tool profile"

    def __str__(self) -> str:
        return self.tool_name


class ToolVerification(models.Model):
    """One verified tool-call result, kept for feedback, calibration and audit."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    operator = models.ForeignKey(OperatorApiKey, null=True, blank=True, on_delete=models.SET_NULL)
    agent = models.ForeignKey(Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    tool = models.CharField(max_length=200, db_index=True)
    session_id = models.CharField(max_length=255, blank=True)
    verdict = models.CharField(max_length=16)
    posterior = models.FloatField(help_text="P(hallucination) after fusion")
    prior = models.FloatField()
    confidence = models.FloatField(help_text="Calibrated confidence in the verdict")
    tier_reached = models.PositiveSmallIntegerField()
    signals = models.JSONField()
    explanation = models.TextField()
    execution_time_ms = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    was_hallucination = models.BooleanField(null=True, blank=True)
    feedback_at = models.DateTimeField(null=True, blank=True)
    shadow = models.BooleanField(default=False, help_text="Shadow mode: the verdict was not enforced")

    class Meta:
        ordering: ClassVar = ["-created_at"]
        indexes: ClassVar = [models.Index(fields=["tool", "feedback_at"], name="labelled_by_tool")]

    def __str__(self) -> str:
        return f"{self.tool} {self.verdict} ({self.public_id})"


class RunVerification(models.Model):
    """One verified agent run and its HallucinationReport (seeds 004 and 002)."""

    run_id = models.CharField(max_length=100, db_index=True)
    operator = models.ForeignKey(OperatorApiKey, null=True, blank=True, on_delete=models.SET_NULL)
    agent = models.ForeignKey(Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    source = models.CharField(max_length=16, default="api", help_text="api or proxy")
    request_type = models.CharField(max_length=32)
    fact_check_needed = models.BooleanField()
    unverified_factual = models.BooleanField()
    hallucination_detected = models.BooleanField(db_index=True)
    action = models.CharField(max_length=16, db_index=True)
    overall_score = models.FloatField()
    stake = models.CharField(max_length=16)
    report = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    shadow = models.BooleanField(default=False, help_text="Shadow mode: the verdict was not enforced")

    class Meta:
        ordering: ClassVar = ["-created_at"]

    def __str__(self) -> str:
        return f"run {self.run_id}: {self.action}"


class ShadowCount(models.Model):
    """Shadow-mode verifications of one operator on one UTC day at one endpoint, and what they would
    have done had they been enforced (docs/run-verification.md, "Shadow mode")."""

    class Endpoint(models.TextChoices):
        PROXY = "proxy"
        RUN = "run"
        TOOL_CALL = "tool-call"

    operator = models.ForeignKey(Operator, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    endpoint = models.CharField(max_length=16, choices=Endpoint.choices)
    checks = models.PositiveIntegerField(default=0)
    would_block = models.PositiveIntegerField(default=0, help_text="refused or blocked had it been enforced")
    would_warn = models.PositiveIntegerField(
        default=0, help_text="annotated, revised or flagged had it been enforced"
    )

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["operator", "day", "endpoint"], name="shadow_count_unique")
        ]

    def __str__(self) -> str:
        return f"{self.operator_id} {self.day} {self.endpoint}: {self.would_block}/{self.checks} would block"


class HealthBaselineRecord(models.Model):
    """An agent's runtime baseline for one model (latency, token rate, structural fingerprint)."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    baseline = models.JSONField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["agent", "model"], name="unique_health_baseline")
        ]

    def __str__(self) -> str:
        return f"{self.agent_id}/{self.model}"


class RuntimeObservation(models.Model):
    """One reported model call and how it compared with the baseline before it was folded in.

    The answer text itself is not stored: only its structural comparison with the baseline.
    """

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200)
    latency_ms = models.FloatField()
    response_tokens = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, db_index=True)
    assessment = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering: ClassVar = ["-created_at"]
        indexes: ClassVar = [
            models.Index(fields=["agent", "model", "-created_at"], name="observation_recent")
        ]

    def __str__(self) -> str:
        return f"{self.agent_id}/{self.model}: {self.status}"


class ToolCalibration(AppendOnlyModel):
    """A calibration map from the engine's posterior to the observed hallucination rate.

    Fitted from labelled verifications; the newest one calibrates the confidence the engine reports
    as the provider's avgConfidence. Kept as history so every past confidence can be explained.
    """

    method = models.CharField(max_length=16)
    params = models.JSONField()
    labelled = models.PositiveIntegerField()
    positives = models.PositiveIntegerField()
    brier_before = models.FloatField()
    brier_after = models.FloatField()
    ece_before = models.FloatField()
    ece_after = models.FloatField()
    fitted_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering: ClassVar = ["-fitted_at"]

    def __str__(self) -> str:
        return f"{self.method} on {self.labelled} labels ({self.fitted_at:%Y-%m-%d %H:%M})"
