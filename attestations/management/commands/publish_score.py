"""Publish an agent's current trust score to the ERC-8004 ReputationRegistry."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from common.errors import ApplicationError
from registry.models import Agent
from registry.services.scoring import trust_score_compute

from ...services.chain import chain_settings_all
from ...services.publishing import score_publication_request


class Command(BaseCommand):
    help = "Queue the agent's current trust score for publication as ERC-8004 feedback (giveFeedback)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("subject_id")

    def handle(self, *args: Any, subject_id: str, **options: Any) -> None:
        chains = chain_settings_all()
        if not chains:
            raise CommandError("The chain is off: set CHAIN_ENABLED=1 and CHAIN_RPC_URL.")
        agent = Agent.objects.select_related("latest_score__config").filter(subject_id=subject_id).first()
        if agent is None:
            raise CommandError(f"No agent {subject_id!r}.")
        # An agent's feedback goes to the reputation registry of the chain its identity is on.
        chain = next((c for c in chains if c.chain_id == agent.chain_id), chains[0])
        try:
            with transaction.atomic():
                score = agent.latest_score or trust_score_compute(agent=agent)[0]
                publication = score_publication_request(score=score, chain=chain)
        except ApplicationError as exc:
            raise CommandError(str(exc)) from None
        publication.refresh_from_db()
        self.stdout.write(
            f"publication {publication.pk} of score {score.pk} ({score.trust_score}): {publication.status}"
            + (f" tx {publication.tx_hash}" if publication.tx_hash else "")
        )
