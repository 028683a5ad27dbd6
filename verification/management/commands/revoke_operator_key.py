"""Revoke an operator key by the prefix printed when it was issued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from common.errors import ApplicationError
from verification.services.tools import OPERATOR_KEY_PREFIX, operator_key_revoke


class Command(BaseCommand):
    help = "Revoke an operator key, given its prefix (e.g. tro_AbCdEfGh) or the whole key; refused at once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        # The stored prefix is the first 12 characters; a whole key pasted here is cut to them.
        prefix = options["prefix"][: len(OPERATOR_KEY_PREFIX) + 8]
        try:
            key = operator_key_revoke(prefix=prefix, actor_label="manage.py revoke_operator_key")
        except ApplicationError as exc:
            raise CommandError(exc.detail) from None
        self.stdout.write(f"Revoked operator key {key.prefix}… of {key.name}.")
