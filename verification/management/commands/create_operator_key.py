"""Issue an API key to an agent operator for the verification endpoints; printed once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verification.models import Operator
from verification.services.tools import operator_key_create


class Command(BaseCommand):
    help = "Issue an operator API key (tro_…) for /api/v1/verify/*; it is shown only once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="Who the key is for")
        parser.add_argument(
            "--operator",
            type=int,
            help="Id of the operator the key belongs to (key rotation: its links stay); default a new one",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        owner = None
        if options["operator"] is not None:
            owner = Operator.objects.filter(pk=options["operator"]).first()
            if owner is None:
                raise CommandError(f"No operator {options['operator']}.")
        issued = operator_key_create(name=options["name"], owner=owner)
        record = issued.record
        self.stdout.write(f"Operator key {record.prefix}… for {record.name} (operator {record.owner_id}).")
        self.stdout.write(f"API key (store it now; it is not shown again): {issued.plaintext}")
