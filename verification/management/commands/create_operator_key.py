"""Issue an API key to an agent operator for the verification endpoints; printed once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from verification.services.tools import operator_key_create


class Command(BaseCommand):
    help = "Issue an operator API key (tro_…) for /api/v1/verify/*; it is shown only once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="Who the key is for")

    def handle(self, *args: Any, **options: Any) -> None:
        issued = operator_key_create(name=options["name"])
        self.stdout.write(f"Operator key {issued.record.prefix}… for {issued.record.name}.")
        self.stdout.write(f"API key (store it now; it is not shown again): {issued.plaintext}")
