"""The registry's data: agents, providers and their keys, summaries, outcomes, configs, scores.

Summaries, outcomes, scoring configurations and trust scores are append-only: the model refuses to
update or delete a stored row, so every published score can be recomputed from what was stored.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, ClassVar

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Value
from django.db.models.functions import Coalesce

SUBJECT_ID_RE = r"^[A-Za-z0-9._:;=@+\-]{1,255}$"
ADDRESS_RE = r"^0x[0-9a-fA-F]{40}$"

subject_id_validator = RegexValidator(SUBJECT_ID_RE, "Letters, digits and . _ : ; = @ + - only, up to 255.")
address_validator = RegexValidator(ADDRESS_RE, "An 0x-prefixed 20-byte hex address.")


class AppendOnlyError(Exception):
    """Raised when code tries to change or delete an append-only row."""


class AppendOnlyQuerySet(models.QuerySet):
    def update(self, **kwargs: Any) -> int:
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{self.model.__name__} rows are append-only")


class AppendOnlyModel(models.Model):
    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnlyError(f"{type(self).__name__} rows are append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnlyError(f"{type(self).__name__} rows are append-only")


# Sort keys of the agent lists: a NULL key (unrated, never updated) stands for a value past every
# real one in the direction sorted, so NULLs come last both ways and a plain row comparison
# `(key, id) < (last key, last id)` finds the next page inside the index.
RANK_NULL_DESC = Decimal("-1")  # scores are 0..100
RANK_NULL_ASC = Decimal("1000")
UPDATED_NULL_DESC = datetime(1, 1, 2, tzinfo=UTC)
UPDATED_NULL_ASC = datetime(9999, 12, 30, tzinfo=UTC)
RANK_DESC = Coalesce(F("trust_rank"), Value(RANK_NULL_DESC)).desc()
RANK_ASC = Coalesce(F("trust_rank"), Value(RANK_NULL_ASC)).asc()
UPDATED_DESC = Coalesce(F("trust_score_updated_at"), Value(UPDATED_NULL_DESC)).desc()
UPDATED_ASC = Coalesce(F("trust_score_updated_at"), Value(UPDATED_NULL_ASC)).asc()


class Agent(models.Model):
    """A subject of trust scoring (HCS-25 "subject")."""

    class Registry(models.TextChoices):
        ERC8004 = "erc-8004", "ERC-8004"
        HCS10 = "hcs-10", "HCS-10"
        OTHER = "other", "Other"

    subject_id = models.CharField(max_length=255, unique=True, validators=[subject_id_validator])
    name = models.CharField(max_length=200, blank=True)
    registry = models.CharField(
        max_length=32, choices=Registry.choices, default=Registry.OTHER, db_index=True
    )
    protocol = models.CharField(max_length=64, blank=True, db_index=True)
    chain_id = models.PositiveBigIntegerField(null=True, blank=True)
    # uint256 on chain: more than a bigint holds.
    erc8004_agent_id = models.DecimalField(max_digits=78, decimal_places=0, null=True, blank=True)
    owner_address = models.CharField(max_length=42, blank=True, validators=[address_validator], db_index=True)
    # The agent's verified wallet on chain (ERC-8004 getAgentWallet, kept by the indexer): the agent's
    # own address, so never an independent reviewer of it (SPEC 2.4).
    wallet_address = models.CharField(max_length=42, blank=True, validators=[address_validator])
    auto_registered = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Denormalised from the newest TrustScore so lists can filter and sort without a join.
    latest_score = models.OneToOneField(
        "TrustScore", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    trust_score = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True, db_index=True)
    trust_score_updated_at = models.DateTimeField(null=True, blank=True)
    # The lists' score sort key: trust_score when the newest score is rated (confidence above 0), else
    # NULL, so unrated agents sort last (and `rated=` filters) through the same index. A database trigger
    # (migration 0004) sets it from latest_score on every write of latest_score or trust_score, so each
    # writer of scores keeps it right without knowing of it; it is never serialised.
    trust_rank = models.DecimalField(max_digits=5, decimal_places=2, null=True, blank=True, editable=False)

    class Meta:
        ordering: ClassVar = ["subject_id"]
        # One index per list ordering (registry/api/filtersets.py AGENT_ORDERINGS builds the same
        # expressions): NULL keys are COALESCEd past every real value, and the id tie-break runs in the
        # key's direction, so a keyset page is one range of one index with no sort.
        indexes: ClassVar = [
            models.Index(RANK_DESC, F("id").desc(), name="agent_rank_desc"),
            models.Index(RANK_ASC, F("id").asc(), name="agent_rank_asc"),
            models.Index(F("registry"), RANK_DESC, F("id").desc(), name="agent_registry_rank_desc"),
            models.Index(F("registry"), RANK_ASC, F("id").asc(), name="agent_registry_rank_asc"),
            models.Index(UPDATED_DESC, F("id").desc(), name="agent_updated_desc"),
            models.Index(UPDATED_ASC, F("id").asc(), name="agent_updated_asc"),
        ]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["chain_id", "erc8004_agent_id"],
                name="unique_onchain_agent",
                condition=models.Q(erc8004_agent_id__isnull=False),
            )
        ]

    def __str__(self) -> str:
        return self.name or self.subject_id


class AgentSearchTerm(models.Model):
    """One word of an agent's name or subject id, with the agent's score sort key (PostgreSQL only).

    The agent search (`q=`) reads this table instead of scanning names: a word's rows in the index
    (term, rank DESC, agent DESC) are the agents having that word, best score first, so the first page
    of a search is one index range whatever the number of agents. Words are runs of letters and digits,
    lower-cased (the SQL function registry_search_words). Database triggers on registry_agent
    (migration 0014) write the rows on insert and rename and copy trust_rank on every rescore, so no
    writer of agents or scores knows of it; Django only reads it. `rank` is
    COALESCE(trust_rank, RANK_NULL_DESC): the -score ordering's own key.
    """

    pk = models.CompositePrimaryKey("agent", "term")
    agent = models.ForeignKey(Agent, on_delete=models.DO_NOTHING, related_name="search_terms")
    term = models.TextField()
    rank = models.DecimalField(max_digits=5, decimal_places=2)

    class Meta:
        managed = False
        db_table = "registry_agentsearchterm"

    def __str__(self) -> str:
        return self.term


class Provider(models.Model):
    """A verification provider that reports on agents."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        SUSPENDED = "suspended", "Suspended"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=64, unique=True)
    methodology_url = models.URLField(blank=True)
    signer_address = models.CharField(max_length=42, blank=True, validators=[address_validator])
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE, db_index=True)
    stats_endpoint = models.URLField(blank=True, help_text="Base URL serving GET /v1/stats/{agent_id}")
    # Where the registry sends labelled canary runs to measure the provider's error rates (canaries app).
    check_endpoint = models.URLField(
        blank=True, help_text="URL answering POST {messages, tools} with {verdict, confidence}"
    )
    # Independence: the provider's own operator address and, when the provider is itself an agent,
    # that agent. A summary about an agent with the same owner, or about itself, is self-reported.
    operator_address = models.CharField(max_length=42, blank=True, validators=[address_validator])
    agent = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="provider_identities"
    )
    independence_statement = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    status_changed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["slug"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE


class ProviderAuditEvent(AppendOnlyModel):
    """Who did what to a provider, and when (suspensions, reinstatements, keys)."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="audit_events")
    action = models.CharField(max_length=32)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    actor_label = models.CharField(max_length=150, blank=True)
    reason = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["-at"]

    def __str__(self) -> str:
        return f"{self.action} ({self.provider_id})"


class ProviderApiKey(models.Model):
    """An API key; only its SHA-256 is stored (keys are 256-bit random, so no slow hash is needed)."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100, blank=True)
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.provider.slug})"


class VerificationSummary(AppendOnlyModel):
    """One provider's summary of one agent over one window, as received."""

    class Source(models.TextChoices):
        PUSH = "push", "Pushed by the provider"
        OUTCOMES = "outcomes", "Rolled up from per-check outcomes"
        PULL = "pull", "Pulled from the provider's stats endpoint"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="summaries")
    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="summaries")
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.PUSH)
    window_days = models.PositiveIntegerField()
    window_end = models.DateTimeField(help_text="updatedAt of the body, or the time received")
    received_at = models.DateTimeField(auto_now_add=True, db_index=True)
    idempotency_key = models.CharField(max_length=255, blank=True)
    body_digest = models.CharField(max_length=71)
    raw_body = models.JSONField()
    allow_rate = models.FloatField()
    block_rate = models.FloatField()
    uncertain_rate = models.FloatField(null=True, blank=True)
    avg_confidence = models.FloatField()
    total_checks = models.PositiveBigIntegerField()
    stake_distribution = models.JSONField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-window_end", "-id"]
        verbose_name_plural = "verification summaries"
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["provider", "agent", "source", "window_days", "window_end"],
                name="unique_summary_window",
            )
        ]
        indexes: ClassVar = [models.Index(fields=["agent", "provider", "-window_end"], name="summary_latest")]

    def __str__(self) -> str:
        return f"{self.provider_id}→{self.agent_id} {self.window_end:%Y-%m-%d %H:%M} ({self.total_checks})"


class CheckOutcome(AppendOnlyModel):
    """One raw verification outcome; rolled up into the provider's windowed summary."""

    class Verdict(models.TextChoices):
        ALLOW = "ALLOW"
        BLOCK = "BLOCK"
        UNCERTAIN = "UNCERTAIN"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="outcomes")
    agent = models.ForeignKey(Agent, on_delete=models.PROTECT, related_name="outcomes")
    outcome_id = models.CharField(max_length=255)
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    reported_verdict = models.CharField(max_length=32)
    confidence = models.FloatField()
    stake = models.CharField(max_length=32, blank=True)
    checked_at = models.DateTimeField()
    received_at = models.DateTimeField(auto_now_add=True)
    body_digest = models.CharField(max_length=71)

    class Meta:
        ordering: ClassVar = ["-checked_at"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["provider", "outcome_id"], name="unique_outcome_id")
        ]
        indexes: ClassVar = [models.Index(fields=["provider", "agent", "checked_at"], name="outcome_window")]

    def __str__(self) -> str:
        return f"{self.outcome_id}: {self.verdict}"


class SubmissionNonce(AppendOnlyModel):
    """A (provider, nonce) pair from a signed submission: each may be used for one body only."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="+")
    nonce = models.DecimalField(max_digits=78, decimal_places=0)
    body_digest = models.CharField(max_length=66)
    signer_address = models.CharField(max_length=42)
    used_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["provider", "nonce"], name="unique_provider_nonce")
        ]

    def __str__(self) -> str:
        return f"{self.provider_id}:{self.nonce}"


class IdempotencyRecord(models.Model):
    """The answer given to a request that carried an Idempotency-Key, replayed on retry."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="idempotency_records")
    key = models.CharField(max_length=255)
    fingerprint = models.CharField(max_length=71)
    status_code = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["provider", "key"], name="unique_idempotency_key")
        ]

    def __str__(self) -> str:
        return f"{self.provider_id}:{self.key}"


class ScoringConfig(AppendOnlyModel):
    """An immutable, numbered scoring configuration (HCS-25 trustScoreConfigVersion)."""

    version = models.PositiveIntegerField(unique=True)
    params = models.JSONField()
    digest = models.CharField(max_length=71, unique=True)
    note = models.CharField(max_length=255, blank=True)
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["-version"]

    def __str__(self) -> str:
        return f"v{self.version}"


class ReviewerFirstTx(models.Model):
    """When a reviewer's wallet sent its first transaction on a chain (reviewer age, SPEC 2.4).

    Found by the indexer with a bounded binary search on eth_getTransactionCount (the wallet's nonce is 0
    before its first transaction and at least 1 from that block on), so a long-lived wallet whose first
    feedback is recent still counts as established. `probed` is False when the node could not answer for
    old blocks (no archive state): the block is then the one of the wallet's first indexed feedback.
    """

    chain_id = models.PositiveBigIntegerField()
    address = models.CharField(max_length=42, validators=[address_validator])
    block_number = models.PositiveBigIntegerField()
    block_time = models.DateTimeField()
    probed = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["chain_id", "address"], name="unique_reviewer_first_tx")
        ]

    def __str__(self) -> str:
        return f"{self.address} first sent in block {self.block_number} on {self.chain_id}"


class FeedbackEntry(models.Model):
    """One ERC-8004 ReputationRegistry feedback about an agent (filled by the chain indexer)."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="feedback")
    client_address = models.CharField(max_length=42, validators=[address_validator])
    feedback_index = models.PositiveBigIntegerField()
    value = models.DecimalField(max_digits=60, decimal_places=0)
    value_decimals = models.PositiveSmallIntegerField(default=0)
    tag1 = models.CharField(max_length=255, blank=True)
    tag2 = models.CharField(max_length=255, blank=True)
    revoked = models.BooleanField(default=False)
    block_number = models.PositiveBigIntegerField(null=True, blank=True)
    # The timestamp of that block: when the reviewer gave it on chain (reviewer age, SPEC 2.4). Empty for
    # rows indexed before it was kept; created_at stands in.
    block_time = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "feedback entries"
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["agent", "client_address", "feedback_index"], name="unique_feedback"
            )
        ]
        # Reviewer standing (SPEC 2.4) reads every rating a batch's reviewers gave, by address: without
        # this index each recompute batch scans the whole feedback table.
        indexes: ClassVar = [models.Index(fields=["client_address", "tag1"], name="feedback_reviewer")]

    def __str__(self) -> str:
        return f"{self.agent_id} #{self.feedback_index} from {self.client_address}"


class TrustScore(AppendOnlyModel):
    """A computed HCS-25 trust score record; every one is kept as history."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="scores")
    config = models.ForeignKey(ScoringConfig, on_delete=models.PROTECT, related_name="scores")
    trust_score = models.DecimalField(max_digits=5, decimal_places=2)
    trust_confidence = models.DecimalField(max_digits=5, decimal_places=4)
    record = models.JSONField()
    inputs = models.JSONField()
    inputs_digest = models.CharField(max_length=71)
    computed_at = models.DateTimeField(db_index=True)
    newest_input_at = models.DateTimeField(null=True, blank=True)
    # When a counted summary turns stale, changing the score without new input.
    changes_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering: ClassVar = ["-computed_at", "-id"]
        indexes: ClassVar = [models.Index(fields=["agent", "-computed_at"], name="score_history")]

    def __str__(self) -> str:
        return f"{self.agent_id}: {self.trust_score} (v{self.config_id})"


class PendingRecompute(models.Model):
    """A recompute requested for an agent and not yet stored: bursts coalesce on this row.

    See registry/services/recompute.py for the protocol: every write that changes an agent's inputs
    bumps `generation` in its own transaction; a drain claims the row with a lease (`claim`,
    `claimed_until`) and deletes it only in the transaction that stores the new score, and only if
    the generation is still the one it claimed.
    """

    class Priority(models.IntegerChoices):
        INPUT = 0, "an input changed"
        RESCORE = 1, "a full rescore"

    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    # Raw INSERTs (the summary ingest statement) rely on the database default.
    generation = models.BigIntegerField(default=1, db_default=1)
    # Drains claim changed inputs before a bulk rescore's marks, so a million-agent rescore does
    # not hold back the scores of agents that just got new summaries; any mark of an input change
    # lowers a row back to INPUT.
    priority = models.SmallIntegerField(choices=Priority.choices, default=0, db_default=0)
    claim = models.UUIDField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes: ClassVar = [
            # The claim reads rows in this order and stops after a batch; without the index it
            # sorted the whole table (276 ms with 1 M rows pending, issue 22).
            models.Index(fields=["priority", "requested_at", "agent"], name="pending_claim_order"),
        ]

    def __str__(self) -> str:
        return f"pending {self.agent_id}"


class PendingRollup(models.Model):
    """An outcome roll-up (provider, agent) requested and not yet stored; the same protocol as
    PendingRecompute (registry/services/rollups.py): marks bump `generation`, drains claim with a
    lease and delete only what they rolled up."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    requested_at = models.DateTimeField(auto_now_add=True)
    generation = models.BigIntegerField(default=1, db_default=1)
    claim = models.UUIDField(null=True, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["provider", "agent"], name="unique_pending_rollup")
        ]

    def __str__(self) -> str:
        return f"pending roll-up {self.provider_id}/{self.agent_id}"


class RecomputeRun(AppendOnlyModel):
    """One execution of the score recompute, kept so coalescing and lag can be observed."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField()
    changed = models.BooleanField()

    def __str__(self) -> str:
        return f"run {self.agent_id} at {self.started_at:%H:%M:%S}"


class RescoreJob(models.Model):
    """A rescore of many agents at once (all of them, or a suspended provider's), as one operation.

    The job is the durable intent: it is stored in the transaction that causes it (a provider's
    status change, a new scoring configuration) and then marks its agents for the ordinary recompute
    queue in chunks of ascending agent id, recording how far it got (`enqueued_through`), so an
    interrupted enqueue resumes where it stopped. Every mark it makes is requested at `enqueued_at`
    (or earlier, for a row that was already pending), so the rows still pending at or before that
    moment are exactly what is left of it: progress and the ETA are read from the queue.
    """

    class Status(models.TextChoices):
        QUEUED = "queued"
        ENQUEUING = "enqueuing"
        RUNNING = "running"
        DONE = "done"

    reason = models.CharField(max_length=200)
    requested_by = models.CharField(max_length=150, blank=True)
    # Only this provider's agents; all agents when empty.
    provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, db_index=True)
    total = models.BigIntegerField(default=0)
    done = models.BigIntegerField(default=0)
    enqueued_through = models.BigIntegerField(default=0)
    enqueued_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"rescore {self.pk}: {self.reason}"


class ProviderAuditStats(models.Model):
    """A provider's audit numbers and collusion signals as of `computed_at`.

    Maintained by registry.services.audit.provider_audit_refresh (beat, admin button, command) so the
    admin and the public provider page read one row instead of recomputing over every summary.
    Meanings are those of registry.selectors.ProviderAudit and CollusionSignals.
    """

    provider = models.OneToOneField(
        Provider, on_delete=models.CASCADE, primary_key=True, related_name="audit_stats"
    )
    agents = models.PositiveBigIntegerField(default=0)
    checks = models.PositiveBigIntegerField(default=0)
    # Sum of block_rate x total_checks over the latest summaries: block rate = blocked / checks.
    blocked_checks = models.FloatField(default=0.0)
    last_summary_at = models.DateTimeField(null=True, blank=True)
    owner_concentration = models.FloatField(null=True, blank=True)
    top_owner = models.CharField(max_length=42, blank=True)
    # [[other provider's slug, shared agents, mean |Δallow|+|Δblock|], ...] for pairs that look copied.
    copies = models.JSONField(default=list, blank=True)
    leniency = models.FloatField(null=True, blank=True)
    lenient_agents = models.PositiveBigIntegerField(default=0)
    # Calibration of the provider's confidence against the other providers' verdicts on the same agents:
    # [[bin (0-9, confidence tenths), outcomes, mean confidence, mean agreement], ...] over its decided
    # outcomes of the last CALIBRATION_WINDOW_DAYS (registry.services.audit).
    calibration = models.JSONField(default=list, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "provider audit stats"

    def __str__(self) -> str:
        return f"audit of {self.provider_id} at {self.computed_at:%Y-%m-%d %H:%M}"


class ProviderAuditSnapshot(models.Model):
    """One refresh's headline numbers for a provider, kept for the block-rate-over-time chart."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="audit_snapshots")
    computed_at = models.DateTimeField()
    agents = models.PositiveBigIntegerField()
    checks = models.PositiveBigIntegerField()
    block_rate = models.FloatField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-computed_at", "-id"]
        indexes: ClassVar = [models.Index(fields=["provider", "-computed_at"], name="audit_snapshot_history")]

    def __str__(self) -> str:
        return f"{self.provider_id} at {self.computed_at:%Y-%m-%d %H:%M}"


class ProviderAccuracy(models.Model):
    """A provider's error rates measured on canary cases (known answers) over the last `window_days`.

    Written by the canaries app (canaries.services.provider_accuracy_refresh); read by the admin, the
    provider page and the API. A false positive is a faithful case the provider blocked; a false negative
    a fabricated case it allowed. UNCERTAIN answers are abstentions, counted on their own, and cases
    without a usable answer (timeouts, errors, malformed bodies) are failures: neither enters a rate.
    Bounds are 95 % Wilson intervals (adapters.intervals).
    """

    provider = models.OneToOneField(
        Provider, on_delete=models.CASCADE, primary_key=True, related_name="accuracy"
    )
    window_days = models.PositiveIntegerField()
    cases = models.PositiveIntegerField(default=0)
    faithful_answered = models.PositiveIntegerField(default=0)
    fabricated_answered = models.PositiveIntegerField(default=0)
    false_positives = models.PositiveIntegerField(default=0)
    false_negatives = models.PositiveIntegerField(default=0)
    abstentions = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)
    false_positive_rate = models.FloatField(null=True, blank=True)
    false_positive_low = models.FloatField(default=0.0)
    false_positive_high = models.FloatField(default=1.0)
    false_negative_rate = models.FloatField(null=True, blank=True)
    false_negative_low = models.FloatField(default=0.0)
    false_negative_high = models.FloatField(default=1.0)
    last_case_at = models.DateTimeField(null=True, blank=True)
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "provider accuracies"

    def __str__(self) -> str:
        return f"accuracy of {self.provider_id} at {self.computed_at:%Y-%m-%d %H:%M}"

    def summary(self) -> str:
        """One line for people: both rates with their intervals and what they rest on."""
        fp = _rate_text(
            self.false_positive_rate,
            self.false_positive_low,
            self.false_positive_high,
            f"{self.false_positives} of {self.faithful_answered}",
        )
        fn = _rate_text(
            self.false_negative_rate,
            self.false_negative_low,
            self.false_negative_high,
            f"{self.false_negatives} of {self.fabricated_answered}",
        )
        return (
            f"false positives {fp}; false negatives {fn}; {self.abstentions} uncertain, "
            f"{self.failures} unanswered of {self.cases} cases in {self.window_days} days"
        )


def _rate_text(value: float | None, low: float, high: float, counts: str) -> str:
    if value is None:
        return "not measured yet"
    return f"{value:.1%} ({counts}; 95 % interval {low:.1%}-{high:.1%})"


class AgentLink(models.Model):
    """One identity of an agent that is registered more than once (on several chains), and the
    identity that stands for all of them (the primary: the earliest registered).

    Written by attestations.services.links from what the chains and the registration files say: the
    same owner address on each chain, or a registration file that names the other identity and has the
    same owner. Only identities with the same owner are ever linked, so nobody can attach their agent to
    someone else's. The primary itself has no row.
    """

    class Reason(models.TextChoices):
        SAME_OWNER = "same-owner", "Same owner, the owner's only agent on each chain"
        REGISTRATION_FILE = "registration-file", "Named by a registration file, same owner"

    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, primary_key=True, related_name="link")
    primary = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="linked_identities")
    reason = models.CharField(max_length=32, choices=Reason.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.agent_id} is {self.primary_id} ({self.reason})"
