"""Weight providers by their canary accuracy on top of the configuration in force (a new numbered version)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from adapters.params import AccuracyWeighting
from common.errors import ApplicationError
from registry.services.scoring import scoring_config_create, scoring_config_current


class Command(BaseCommand):
    help = (
        "Make a new numbered scoring configuration: the one in force, with providers weighted by their "
        "measured accuracy on canary cases (docs/canaries.md), or without that weighting (--off). Every "
        "score moves to it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        defaults = AccuracyWeighting()
        parser.add_argument("--min-factor", type=float, default=defaults.min_factor)
        parser.add_argument("--confidence", type=float, default=defaults.confidence)
        parser.add_argument("--off", action="store_true", help="stop weighting providers by accuracy")

    def handle(self, *args: Any, **options: Any) -> None:
        params = dict(scoring_config_current().params)
        if options["off"]:
            params.pop("accuracy_weighting", None)
            note = "providers no longer weighted by canary accuracy"
        else:
            params["accuracy_weighting"] = {
                "min_factor": options["min_factor"],
                "confidence": options["confidence"],
            }
            note = "providers weighted by canary accuracy (Wilson lower bound)"
        try:
            config = scoring_config_create(
                params=params, note=note, created_by="manage.py scoring_config_accuracy_weighting"
            )
        except ApplicationError as exc:
            raise CommandError(exc.detail) from None
        if config.pk != scoring_config_current().pk:
            # scoring_config_create hands back a stored configuration with the same params as it is:
            # an earlier version does not become the one in force again.
            raise CommandError(
                f"That is scoring configuration v{config.version}, an earlier one; the one in force "
                f"(v{scoring_config_current().version}) is unchanged."
            )
        self.stdout.write(f"Scoring configuration v{config.version} ({config.digest}).")
