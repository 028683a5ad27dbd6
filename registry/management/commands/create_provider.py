"""Onboard a provider without the admin; prints its first API key once."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from common.errors import ApplicationError
from registry.services.providers import provider_create


class Command(BaseCommand):
    help = "Create a verification provider and print its first API key (shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument("--slug", required=True)
        parser.add_argument(
            "--signer-address", default="", help="0x… secp256k1 address that signs its summaries"
        )
        parser.add_argument("--methodology-url", default="")
        parser.add_argument("--stats-endpoint", default="", help="Base URL serving GET /v1/stats/{agent_id}")
        parser.add_argument(
            "--check-endpoint", default="", help="URL answering POST {messages, tools}: canary cases"
        )
        parser.add_argument("--operator-address", default="", help="Owner address, for self-report detection")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            provider, issued = provider_create(
                name=options["name"],
                slug=options["slug"],
                signer_address=options["signer_address"],
                methodology_url=options["methodology_url"],
                stats_endpoint=options["stats_endpoint"],
                check_endpoint=options["check_endpoint"],
                operator_address=options["operator_address"],
            )
        except ApplicationError as exc:
            raise CommandError(exc.detail) from None
        except ValidationError as exc:
            raise CommandError(
                "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
            ) from None
        assert issued is not None
        self.stdout.write(f"Created provider {provider.slug} (id {provider.pk}).")
        self.stdout.write(f"API key (store it now; it is not shown again): {issued.plaintext}")
