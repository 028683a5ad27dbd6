"""Store the SPEC 2.4 configuration (sybil-resistance as a floor) as the newest numbered version."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from adapters import ScoringParams
from registry.services.scoring import scoring_config_create


class Command(BaseCommand):
    help = (
        "Make the sybil-resistance floor configuration (SPEC 2.4) the one in force: a new numbered "
        "version whose graph caps the weighted mean of the evidence by the sybil-resistance adapter, "
        "with ERC-8004 feedback weighted by reviewer standing. Every score moves to it."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        config = scoring_config_create(
            params=ScoringParams.sybil_floor().to_dict(),
            note="SPEC 2.4: sybil-resistance as a floor, reviewer-weighted feedback",
            created_by="manage.py scoring_config_sybil_floor",
        )
        self.stdout.write(f"Scoring configuration v{config.version} ({config.digest}).")
