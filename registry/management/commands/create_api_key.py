"""Issue another API key for a provider; prints it once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from registry.models import Provider
from registry.services.providers import api_key_create


class Command(BaseCommand):
    help = "Issue a new API key for a provider and print it (shown only once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--name", default="", help="A label, e.g. the system that will use the key")

    def handle(self, *args: Any, **options: Any) -> None:
        provider = Provider.objects.filter(slug=options["slug"]).first()
        if provider is None:
            raise CommandError(f"No provider with slug {options['slug']!r}.")
        issued = api_key_create(provider=provider, name=options["name"])
        self.stdout.write(f"Key {issued.record.prefix}… for {provider.slug}.")
        self.stdout.write(f"API key (store it now; it is not shown again): {issued.plaintext}")
