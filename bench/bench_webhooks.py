"""Webhook delivery latency and throughput to a local receiver (issue 21 item 4).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_webhooks python bench/bench_webhooks.py

The database is emptied (flush) and migrated first: give it a throw-away one. In one process, no
broker (tasks are not run; the attempts are called as the worker's task would call them):

* enqueue: `webhook_score_changes_enqueue` for a batch of CHANGES score changes (default 200, a
  recompute drain's batch) with SUBSCRIPTIONS subscriptions (default 10) watching every agent - the
  cost the scoring transaction pays for the outbox rows;
* delivery: every pending delivery attempted once against a local HTTP receiver (ThreadingHTTPServer
  on 127.0.0.1, answering 200), sequentially as one solo worker does, then with THREADS threads
  (default 4) as a worker pool would; per attempt the latency the delivery log records (sign, POST,
  answer, log write) and, end to end, from the event's row to the receiver reading the request.

Prints JSON. Bounded: well under a minute on 2 cores with the defaults.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")
os.environ["WEBHOOK_TEST_ALLOWED_HOSTS"] = "127.0.0.1"

CHANGES = int(os.environ.get("CHANGES", "200"))
SUBSCRIPTIONS = int(os.environ.get("SUBSCRIPTIONS", "10"))
THREADS = int(os.environ.get("THREADS", "4"))


def _receiver() -> tuple[ThreadingHTTPServer, dict[str, float]]:
    arrived: dict[str, float] = {}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                arrived[f"{self.headers['webhook-id']}{self.path}"] = time.time()
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, arrived


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def main() -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone

    from registry.models import Agent
    from verification.services.tools import operator_key_create
    from webhooks.enqueue import ScoreChange, webhook_score_changes_enqueue
    from webhooks.models import WebhookDelivery
    from webhooks.services.deliveries import webhook_delivery_attempt
    from webhooks.services.subscriptions import webhook_subscription_create

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    server, arrived = _receiver()
    base = f"http://127.0.0.1:{server.server_address[1]}/hook"
    operator = operator_key_create(name="Bench marketplace").record.owner
    from django.test import override_settings

    with override_settings(WEBHOOK_MAX_SUBSCRIPTIONS=SUBSCRIPTIONS):
        for n in range(SUBSCRIPTIONS):
            webhook_subscription_create(
                operator=operator,
                url=f"{base}/{n}",
                events=["score.changed"],
                agents=[],
                min_change=Decimal(0),
            )
    agents = Agent.objects.bulk_create(
        [Agent(subject_id=f"bench-{n}", name=f"Bench {n}") for n in range(CHANGES)]
    )

    def changes() -> list[ScoreChange]:
        now = timezone.now()
        return [
            ScoreChange(
                agent_id=agent.pk,
                subject_id=agent.subject_id,
                previous_score=Decimal(50),
                previous_rated=True,
                trust_score=Decimal(60),
                trust_confidence=Decimal(1),
                rated=True,
                computed_at=now,
            )
            for agent in agents
        ]

    report: dict[str, Any] = {"changes": CHANGES, "subscriptions": SUBSCRIPTIONS, "threads": THREADS}
    for label, workers in (("sequential", 1), ("threads", THREADS)):
        batch = changes()
        started = time.perf_counter()
        with transaction.atomic():
            made = webhook_score_changes_enqueue(changes=batch)
            in_transaction_s = time.perf_counter() - started
        # The rest is the on-commit publishing of one task per delivery (here to an in-memory broker).
        enqueue_s = time.perf_counter() - started
        ids = list(
            WebhookDelivery.objects.filter(status="pending").order_by("pk").values_list("pk", flat=True)
        )
        started = time.perf_counter()
        if workers == 1:
            for delivery_id in ids:
                webhook_delivery_attempt(delivery_id=delivery_id)
        else:

            def attempt(delivery_id: int) -> None:
                webhook_delivery_attempt(delivery_id=delivery_id)
                connection.close()

            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(attempt, ids))
        deliver_s = time.perf_counter() - started
        rows = list(
            WebhookDelivery.objects.filter(pk__in=ids).select_related("event", "subscription").order_by("pk")
        )
        ok = [row for row in rows if row.status == "succeeded"]
        attempt_ms = [row.latency_ms or 0.0 for row in ok]
        end_to_end_ms = []
        for row in ok:
            key = f"{row.event.msg_id}/hook/{row.subscription.url.rsplit('/', 1)[1]}"
            if key in arrived:
                end_to_end_ms.append((arrived[key] - row.event.created_at.timestamp()) * 1000)
        report[label] = {
            "deliveries": made,
            "succeeded": len(ok),
            "enqueueInTransactionMs": round(in_transaction_s * 1000, 1),
            "enqueueWithPublishingMs": round(enqueue_s * 1000, 1),
            "deliveriesPerSecond": round(len(ids) / deliver_s, 1),
            "attemptMs": {
                "p50": _pct(attempt_ms, 0.5),
                "p95": _pct(attempt_ms, 0.95),
                "max": _pct(attempt_ms, 1),
            },
            "attemptMsMean": round(statistics.fmean(attempt_ms), 2) if attempt_ms else None,
            # From the event row's creation to the receiver reading it: includes the queue of
            # deliveries ahead of it in this run, so it grows with the batch (a backlog measure).
            "endToEndMs": {"p50": _pct(end_to_end_ms, 0.5), "p95": _pct(end_to_end_ms, 0.95)},
        }
    server.shutdown()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
