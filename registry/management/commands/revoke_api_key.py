"""Revoke an API key by the prefix printed when it was issued."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from common.errors import ApplicationError
from registry.services.providers import api_key_revoke


class Command(BaseCommand):
    help = "Revoke an API key, given its prefix (e.g. trk_AbCdEfGh) or the whole key."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("prefix")

    def handle(self, *args: Any, **options: Any) -> None:
        prefix = options["prefix"]
        if len(prefix) > 12:
            prefix = prefix[:12]
        try:
            key = api_key_revoke(prefix=prefix)
        except ApplicationError as exc:
            raise CommandError(exc.detail) from None
        self.stdout.write(f"Revoked key {key.prefix}… of {key.provider.slug}.")
