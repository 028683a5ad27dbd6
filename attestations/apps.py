from django.apps import AppConfig


class AttestationsConfig(AppConfig):
    """Signed trust: EIP-712 attestations of scores, signed ingestion, and ERC-8004 on Base."""

    name = "attestations"
    verbose_name = "Attestations and ERC-8004"
    default_auto_field = "django.db.models.BigAutoField"
