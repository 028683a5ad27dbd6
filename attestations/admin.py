"""The admin for signed scores and ERC-8004: everything here is evidence or chain state, read-only."""

from __future__ import annotations

from django.contrib import admin

from common.admin import ReadOnlyAdmin

from .models import (
    AgentRegistration,
    ChainCursor,
    ChainEvent,
    ProviderWalletCheck,
    ScoreAttestation,
    ScorePublication,
    ValidationAnswer,
)


@admin.register(ScoreAttestation)
class ScoreAttestationAdmin(ReadOnlyAdmin):
    list_display = ["id", "score", "signer_address", "issued_at", "expires_at"]
    search_fields = ["document_hash", "signer_address"]


@admin.register(ScorePublication)
class ScorePublicationAdmin(ReadOnlyAdmin):
    list_display = ["id", "agent", "score", "status", "value", "nonce", "tx_hash", "attempts", "updated_at"]
    list_filter = ["status", "chain_id"]
    search_fields = ["agent__subject_id", "tx_hash"]


@admin.register(ValidationAnswer)
class ValidationAnswerAdmin(ReadOnlyAdmin):
    list_display = ["id", "request_hash", "agent", "status", "response", "tx_hash", "attempts", "updated_at"]
    list_filter = ["status", "chain_id"]
    search_fields = ["request_hash", "tx_hash", "agent__subject_id"]


@admin.register(ProviderWalletCheck)
class ProviderWalletCheckAdmin(ReadOnlyAdmin):
    """Mismatches sort first: a provider whose signer is no longer its agent's wallet needs a look."""

    list_display = ["provider", "wallet_ok", "signer_address", "registered_wallet", "checked_at", "error"]
    list_filter = ["matches"]
    search_fields = ["provider__slug", "signer_address", "registered_wallet"]

    @admin.display(boolean=True, description="wallet = signer", ordering="matches")
    def wallet_ok(self, obj: ProviderWalletCheck) -> bool:
        return obj.matches


@admin.register(ChainCursor)
class ChainCursorAdmin(ReadOnlyAdmin):
    list_display = ["chain_id", "contracts", "next_block", "reorgs", "updated_at"]


@admin.register(ChainEvent)
class ChainEventAdmin(ReadOnlyAdmin):
    # Events that could not be decoded or applied are skipped by the indexer and kept here with their
    # raw log and error, so filtering by status is how an operator finds them.
    list_display = ["name", "status", "chain_id", "block_number", "log_index", "tx_hash", "indexed_at"]
    list_filter = ["status", "name", "chain_id"]
    search_fields = ["tx_hash", "error"]


@admin.register(AgentRegistration)
class AgentRegistrationAdmin(ReadOnlyAdmin):
    """Agents' registration files: the invalid and unreachable ones say why in `error`."""

    list_display = ["agent", "status", "name", "lists_agent", "attempts", "fetched_at", "updated_at"]
    list_filter = ["status", "lists_agent"]
    search_fields = ["agent__subject_id", "name"]
    list_select_related = ["agent"]
