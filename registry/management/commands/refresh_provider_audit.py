"""Recompute every provider's stored audit numbers and collusion signals now."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand

from registry.services.audit import provider_audit_refresh


class Command(BaseCommand):
    help = "Recompute the provider audit statistics and collusion signals the admin and provider pages show."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        done = provider_audit_refresh(wait=True)
        assert done is not None  # wait=True always takes the lock
        self.stdout.write(
            f"Refreshed {done.providers} provider(s) as of {done.computed_at:%Y-%m-%d %H:%M:%S} UTC "
            f"in {time.perf_counter() - started:.2f} s."
        )
