"""ERC-8004 chain state: the indexer's cursor and events, outgoing transactions, wallet checks.

Kept apart from scores.py so the signed-score models stay readable; the package re-exports both.
"""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from registry.models import Agent, Provider, TrustScore

__all__ = [
    "AgentRegistration",
    "AgentRegistrationStatus",
    "ChainCursor",
    "ChainEvent",
    "ChainEventStatus",
    "ChainNonce",
    "OutgoingStatus",
    "OutgoingTransaction",
    "ProviderWalletCheck",
    "ScorePublication",
    "ValidationAnswer",
]


class ChainCursor(models.Model):
    """Where the indexer of one chain and one set of registry contracts continues.

    `block_hashes` maps block numbers (as strings, JSON keys) to the hashes seen when they were read, so
    the next run can tell whether those blocks were reorganised away.
    """

    chain_id = models.PositiveBigIntegerField()
    contracts = models.CharField(max_length=200, help_text="Sorted, comma-separated registry addresses")
    next_block = models.PositiveBigIntegerField()
    block_hashes = models.JSONField(default=dict)
    reorgs = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["chain_id", "contracts"], name="unique_chain_cursor")
        ]

    def __str__(self) -> str:
        return f"chain {self.chain_id} at block {self.next_block}"


class ChainEventStatus(models.TextChoices):
    APPLIED = "applied", "Applied"
    UNDECODABLE = "undecodable", "Undecodable: kept raw and skipped"
    FAILED = "failed", "Decoded, but applying it failed: kept and skipped"


class ChainEvent(models.Model):
    """One registry log; unique per (chain, transaction, log index) so re-reads are no-ops.

    On-chain strings are whatever a sender paid for (any length, NUL, invalid UTF-8), so they are kept
    losslessly in two parts: `args` holds each as display text (valid UTF-8 without NUL; bytes that are
    not are written ``\\xNN``), and `raw_args` holds the exact bytes (0x-hex) of every string whose display
    text differs from it; `raw_text` gives them back. `topics` and `data` are the raw log itself.

    A log that does not decode, or whose effects fail to apply, is recorded with its status and error and
    skipped, so no log can stop the indexer (docs/security.md).
    """

    chain_id = models.PositiveBigIntegerField()
    tx_hash = models.CharField(max_length=66)
    log_index = models.PositiveIntegerField()
    block_number = models.PositiveBigIntegerField(db_index=True)
    block_hash = models.CharField(max_length=66)
    contract_address = models.CharField(max_length=42)
    name = models.CharField(max_length=32, db_index=True)
    args = models.JSONField()
    raw_args = models.JSONField(default=dict, blank=True)
    topics = models.JSONField(default=list, blank=True)
    data = models.BinaryField(default=b"", blank=True)
    status = models.CharField(
        max_length=16, choices=ChainEventStatus.choices, default=ChainEventStatus.APPLIED, db_index=True
    )
    error = models.TextField(blank=True)
    indexed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar = ["block_number", "log_index"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["chain_id", "tx_hash", "log_index"], name="unique_chain_event")
        ]
        indexes: ClassVar = [models.Index(fields=["chain_id", "block_number"], name="chain_event_block")]

    def __str__(self) -> str:
        return f"{self.name or 'log'} @{self.block_number}:{self.log_index}"

    def raw_text(self, name: str) -> bytes:
        """The exact bytes of the on-chain string argument `name`, as sent (NUL, invalid UTF-8 and all)."""
        if name in self.raw_args:
            return bytes.fromhex(self.raw_args[name].removeprefix("0x"))
        return str(self.args[name]).encode("utf-8")


class ChainNonce(models.Model):
    """A lock row per sending account: nonce allocation happens while holding it (SELECT ... FOR UPDATE)."""

    chain_id = models.PositiveBigIntegerField()
    address = models.CharField(max_length=42)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["chain_id", "address"], name="unique_chain_nonce")
        ]

    def __str__(self) -> str:
        return f"{self.address} on {self.chain_id}"


class OutgoingStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    CLAIMED = "claimed", "Claimed by a worker"
    SENT = "sent", "Sent, awaiting receipt"
    CONFIRMED = "confirmed", "Confirmed"
    FAILED = "failed", "Failed"
    # A validation request about an agent that is not rated yet: no score to answer with (a 0 would read
    # as a verdict). The responder's sweep sets it back to pending once the agent is rated.
    DEFERRED = "deferred", "Deferred until the agent is rated"


class OutgoingTransaction(models.Model):
    """One transaction the service must send exactly once.

    The signed bytes and their hash are stored (and committed) before they are broadcast, so a worker
    that dies after sending leaves enough behind for the next one to find the receipt instead of
    sending again.
    """

    chain_id = models.PositiveBigIntegerField()
    status = models.CharField(
        max_length=16, choices=OutgoingStatus.choices, default=OutgoingStatus.PENDING, db_index=True
    )
    claim_token = models.CharField(max_length=36, blank=True)
    claim_owner = models.CharField(max_length=200, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    sender_address = models.CharField(max_length=42, blank=True)
    nonce = models.PositiveBigIntegerField(null=True, blank=True)
    tx_hash = models.CharField(max_length=66, blank=True, db_index=True)
    raw_transaction = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    last_error = models.TextField(blank=True)
    block_number = models.PositiveBigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class ScorePublication(OutgoingTransaction):
    """A trust score published as ReputationRegistry.giveFeedback (one per score and chain)."""

    score = models.ForeignKey(TrustScore, on_delete=models.PROTECT, related_name="publications")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="score_publications")
    attestation = models.ForeignKey(
        "attestations.ScoreAttestation", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    value = models.BigIntegerField(null=True, blank=True)
    value_decimals = models.PositiveSmallIntegerField(default=2)
    tag1 = models.CharField(max_length=64, blank=True)
    tag2 = models.CharField(max_length=64, blank=True)
    endpoint = models.CharField(max_length=500, blank=True)
    feedback_uri = models.CharField(max_length=500, blank=True)
    feedback_hash = models.CharField(max_length=66, blank=True)
    # The ERC-8004 feedback file served at feedback_uri, byte for byte (keccak256 = feedback_hash).
    # Empty for publications prepared before feedback files existed: their feedbackURI is the attestation.
    feedback_document = models.TextField(blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["score", "chain_id"], name="unique_score_publication")
        ]

    def __str__(self) -> str:
        return f"publication of score {self.score_id} ({self.status})"


class ValidationAnswer(OutgoingTransaction):
    """Our validationResponse to a ValidationRequest addressed to the service's validator address."""

    request_hash = models.CharField(max_length=66)
    erc8004_agent_id = models.DecimalField(max_digits=78, decimal_places=0)
    agent = models.ForeignKey(
        Agent, null=True, blank=True, on_delete=models.SET_NULL, related_name="validation_answers"
    )
    validator_address = models.CharField(max_length=42)
    # Display text of the on-chain requestURI (any length; see ChainEvent for the raw bytes).
    request_uri = models.TextField(blank=True)
    request_block = models.PositiveBigIntegerField(null=True, blank=True)
    response = models.PositiveSmallIntegerField(null=True, blank=True)
    attestation = models.ForeignKey(
        "attestations.ScoreAttestation", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    response_uri = models.CharField(max_length=500, blank=True)
    response_hash = models.CharField(max_length=66, blank=True)
    tag = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["chain_id", "request_hash"], name="unique_validation_answer")
        ]

    def __str__(self) -> str:
        return f"answer to {self.request_hash[:10]}… ({self.status})"


class ProviderWalletCheck(models.Model):
    """The last comparison of a provider's signer with its on-chain agent's getAgentWallet."""

    provider = models.OneToOneField(Provider, on_delete=models.CASCADE, related_name="wallet_check")
    chain_id = models.PositiveBigIntegerField()
    erc8004_agent_id = models.DecimalField(max_digits=78, decimal_places=0)
    signer_address = models.CharField(max_length=42, blank=True)
    registered_wallet = models.CharField(max_length=42, blank=True, help_text="Empty: the agent has none")
    matches = models.BooleanField()
    error = models.TextField(blank=True)
    checked_at = models.DateTimeField()

    class Meta:
        ordering: ClassVar = ["matches", "-checked_at"]

    def __str__(self) -> str:
        return f"wallet of {self.provider_id}: {'ok' if self.matches else 'MISMATCH'}"


class AgentRegistrationStatus(models.TextChoices):
    PENDING = "pending", "Pending: the URI is known, the file is not fetched yet"
    FETCHED = "fetched", "Fetched and valid"
    INVALID = "invalid", "Not a registration file, or refused (not retried until the URI changes)"
    UNREACHABLE = "unreachable", "Could not be fetched (retried with backoff)"


class AgentRegistration(models.Model):
    """An on-chain agent's agentURI and what its registration file says (name, description, endpoints).

    The URI comes from the agent's latest Registered/URIUpdated event; the file is fetched by a Celery task
    through the hardened outbound client, never in a request, and kept only when it has the shape of an
    ERC-8004 registration file. Everything here was written by the agent's owner: it is shown as the
    agent's own claim, never as something the registry vouches for.
    """

    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="registration")
    # eip155:{chainId}:{identityRegistry}, to check that the file names this agent back.
    agent_registry = models.CharField(max_length=120)
    # Display text of the on-chain URI (see ChainEvent for the raw bytes); data: URIs can be long.
    agent_uri = models.TextField()
    uri_block = models.PositiveBigIntegerField(help_text="Block of the event that set the URI")
    status = models.CharField(
        max_length=16,
        choices=AgentRegistrationStatus.choices,
        default=AgentRegistrationStatus.PENDING,
        db_index=True,
    )
    name = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    image = models.CharField(max_length=2048, blank=True)
    # [{"name", "endpoint", "version"}] from the file's services (or the older endpoints) list.
    endpoints = models.JSONField(default=list, blank=True)
    active = models.BooleanField(null=True, blank=True)
    # Whether the file's registrations list names this agent (agentRegistry + agentId): anyone can point
    # a URI at someone else's file, so a file that does not name the agent back is flagged.
    lists_agent = models.BooleanField(default=False)
    # The other identities (subject ids on other chains or registries) the file's registrations list names.
    other_identities = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    fetched_at = models.DateTimeField(null=True, blank=True)
    # When the file at this URI was last fetched or queued for a fetch: the periodic refresh re-reads
    # https files (their content can change under the same URI) oldest first, by this column.
    checked_at = models.DateTimeField(null=True, blank=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"registration of agent {self.agent_id} ({self.status})"
