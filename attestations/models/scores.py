"""Signed score attestations."""

from __future__ import annotations

from typing import ClassVar

from django.db import models

from registry.models import AppendOnlyModel, TrustScore


class ScoreAttestation(AppendOnlyModel):
    """An EIP-712 attestation of one trust score, signed by the service key.

    `document` is served byte for byte (RFC 8785 canonical JSON), so its keccak256 (`document_hash`)
    can be published on chain as a feedbackHash and checked by anyone who fetches it.
    """

    score = models.ForeignKey(TrustScore, on_delete=models.CASCADE, related_name="attestations")
    signer_address = models.CharField(max_length=42)
    chain_id = models.PositiveBigIntegerField()
    document = models.TextField()
    document_hash = models.CharField(max_length=66, unique=True)
    issued_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering: ClassVar = ["-issued_at"]
        indexes: ClassVar = [models.Index(fields=["score", "-expires_at"], name="attestation_current")]

    def __str__(self) -> str:
        return f"attestation {self.pk} of score {self.score_id}"
