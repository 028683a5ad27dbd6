"""Rescore every agent (or one provider's) through the recompute queue, as one tracked job."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from registry.models import Provider
from registry.services.recompute import recompute_drain
from registry.services.rescore import rescore_enqueue, rescore_progress, rescore_start


class Command(BaseCommand):
    help = (
        "Rescore every agent under the current scoring configuration. The agents are marked for the "
        "recompute queue (the worker drains them); --wait prints progress until the job is done, "
        "--drain also scores them in this process (no worker needed)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--provider", default="", help="Only the agents this provider (slug) reported on")
        parser.add_argument("--reason", default="manual rescore", help="Shown in the admin")
        parser.add_argument(
            "--wait", action="store_true", help="Print progress until every agent is rescored"
        )
        parser.add_argument(
            "--drain", action="store_true", help="Score the agents in this process (implies --wait)"
        )
        parser.add_argument("--interval", type=float, default=5.0, help="Seconds between progress lines")

    def handle(self, *args: Any, **options: Any) -> None:
        provider = None
        if options["provider"]:
            provider = Provider.objects.filter(slug=options["provider"]).first()
            if provider is None:
                raise CommandError(f"No provider with slug {options['provider']!r}.")
        with transaction.atomic():
            job = rescore_start(
                reason=options["reason"], provider=provider, requested_by="manage.py rescore_all"
            )
        # The queued task may be doing this already; running it here too is safe (one job row lock)
        # and means the command works without a worker.
        job = rescore_enqueue(job_id=job.pk) or job
        self.stdout.write(f"Rescore job {job.pk}: {job.total} agents marked.")
        if not (options["wait"] or options["drain"]):
            return
        last = 0.0
        while True:
            if options["drain"]:
                recompute_drain(budget_seconds=options["interval"])
            progress = rescore_progress(job=job)
            now = time.monotonic()
            if progress.finished or now - last >= options["interval"]:
                last = now
                eta = progress.eta.isoformat(timespec="seconds") if progress.eta else "-"
                self.stdout.write(
                    f"{progress.done}/{progress.total} rescored, {progress.remaining} left, eta {eta}"
                )
            if progress.finished:
                return
            if not options["drain"]:
                time.sleep(min(options["interval"], 1.0))
