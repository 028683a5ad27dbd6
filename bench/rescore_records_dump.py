"""Dump what a full rescore stores for a seeded registry, to compare two versions of the drain byte for byte.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/throwaway \
        .venv/bin/python bench/rescore_records_dump.py OUT

The database is emptied (flush) and migrated first: give it a throw-away one. With the clock frozen,
it seeds SEED_AGENTS agents (default 600) from a fixed random seed (SEED, default 22): four providers
(one suspended, one operated by an agent owner), one or two summary windows per provider, fresh and
stale; rating feedback (revoked, other tags, decimals), established reviewers and a fresh ring,
first transactions on chain and linked identities. Then two full rescores through the drain in
claims of 200 (the default configuration, the sybil floor; then a new configuration) and writes every
stored score (its record and inputs as PostgreSQL renders the jsonb, and as the drain's JSON text
decodes), every agent's score columns and every score-change webhook event, one JSON line each, to
OUT. Run it on two checkouts and `cmp` the files: the same bytes mean the same records.
"""

from __future__ import annotations

import json
import os
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")

AGENTS = int(os.environ.get("SEED_AGENTS", "600"))
SEED = int(os.environ.get("SEED", "22"))
FROZEN = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)


def _stake(rng: random.Random) -> dict[str, dict[str, int]]:
    return {"low": {"checks": rng.randint(0, 9)}, "high": {"checks": rng.randint(0, 9)}}


def _seed(rng: random.Random) -> None:
    from registry.models import (
        Agent,
        AgentLink,
        FeedbackEntry,
        Provider,
        ReviewerFirstTx,
        VerificationSummary,
    )
    from registry.services.providers import provider_create

    providers = [provider_create(name=f"P{i}", slug=f"dump-{i}")[0] for i in range(4)]
    providers[3].status = Provider.Status.SUSPENDED
    providers[3].save(update_fields=["status"])
    owner = "0x" + "ab" * 20
    providers[2].operator_address = owner
    providers[2].save(update_fields=["operator_address"])
    agents = Agent.objects.bulk_create(
        [
            Agent(
                subject_id=f"dump-agent-{n:05d}",
                registry=rng.choice(["erc-8004", "erc-8004", "hcs-10", "other"]),
                protocol=rng.choice(["", "mcp", "a2a"]),
                owner_address=owner if rng.random() < 0.1 else "",
                wallet_address=f"0x{n + 0x500000:040x}" if rng.random() < 0.2 else "",
                chain_id=rng.choice([1, 8453]),
            )
            for n in range(AGENTS)
        ]
    )
    summaries = []
    feedback = []
    for agent in agents:
        for provider in rng.sample(providers, rng.randint(0, 4)):
            for window in range(rng.randint(1, 2)):
                allow = rng.random()
                block = rng.uniform(0, 1 - allow)
                summaries.append(
                    VerificationSummary(
                        provider=provider,
                        agent=agent,
                        window_days=7,
                        window_end=FROZEN - timedelta(days=rng.choice([0.5, 3, 45]), hours=window),
                        body_digest=f"sha256:{agent.pk}-{provider.pk}-{window}",
                        raw_body={"n": window},
                        allow_rate=allow,
                        block_rate=block,
                        uncertain_rate=rng.choice([None, 1 - allow - block]),
                        avg_confidence=rng.random(),
                        total_checks=rng.choice([0, 1, rng.randint(2, 10_000)]),
                        stake_distribution=rng.choice([None, _stake(rng)]),
                    )
                )
        for index in range(rng.choice([0, 0, 1, 3])):
            feedback.append(
                FeedbackEntry(
                    agent=agent,
                    client_address=f"0x{index:040x}",
                    feedback_index=index,
                    value=rng.randint(0, 10_000),
                    value_decimals=rng.choice([0, 2]),
                    tag1="starred" if rng.random() < 0.8 else "other",
                    revoked=rng.random() < 0.1,
                    block_time=FROZEN - timedelta(days=rng.randint(0, 400)) if rng.random() < 0.5 else None,
                )
            )
    # Established reviewers with a spread of ratings, and a ring of fresh wallets rating the same agents.
    for index in range(40):
        address = f"0x{index + 0x100:040x}"
        for n, agent in enumerate(rng.sample(agents, rng.randint(2, 12))):
            feedback.append(
                FeedbackEntry(
                    agent=agent,
                    client_address=address,
                    feedback_index=n,
                    value=rng.randint(40, 100),
                    tag1="starred",
                    block_time=FROZEN - timedelta(days=rng.randint(0, 300)),
                )
            )
    for index in range(10):
        for n, agent in enumerate(rng.sample(agents[:60], 6)):
            feedback.append(
                FeedbackEntry(
                    agent=agent,
                    client_address=f"0x{index + 0x900:040x}",
                    feedback_index=n,
                    value=100,
                    tag1="starred",
                )
            )
    VerificationSummary.objects.bulk_create(summaries)
    FeedbackEntry.objects.bulk_create(feedback)
    ReviewerFirstTx.objects.bulk_create(
        [
            ReviewerFirstTx(
                chain_id=1,
                address=f"0x{index + 0x100:040x}",
                block_number=index,
                block_time=FROZEN - timedelta(days=500 + index),
            )
            for index in range(0, 40, 3)
        ]
    )
    # Linked identities: pairs and a triple, each group under one primary.
    pool = rng.sample(agents, 30)
    reason = AgentLink.Reason.choices[0][0]
    links = [AgentLink(agent=pool[n + 1], primary=pool[n], reason=reason) for n in range(0, 24, 2)]
    links += [AgentLink(agent=member, primary=pool[24], reason=reason) for member in pool[25:27]]
    AgentLink.objects.bulk_create(links)
    # A subscriber to every event, so the score-change events are built and stored too.
    from verification.models import Operator
    from webhooks.models import EventType, WebhookSubscription

    WebhookSubscription.objects.create(
        operator=Operator.objects.create(name="dump"),
        url="https://example.invalid/hook",
        events=[EventType.SCORE_CHANGED, EventType.AGENT_UNRATED],
        min_change=0,
        secret="whsec_dump",
    )


def _rescore(round_: int) -> None:
    from django.db import transaction

    from registry.services import recompute, rescore
    from registry.services.scoring import scoring_config_create, scoring_config_current

    with transaction.atomic():
        if round_:
            params = dict(scoring_config_current().params)
            params["stale_multiplier"] = 0.5 + round_ / 100
            scoring_config_create(params=params, note=f"dump round {round_}")
            from registry.models import RescoreJob

            job = RescoreJob.objects.order_by("-pk").first()
        else:
            job = rescore.rescore_start(reason="dump")
    assert job is not None
    rescore.rescore_enqueue(job_id=job.pk)
    while recompute.recompute_drain(budget_seconds=3600):
        pass


def _dump(out: Path) -> int:
    from django.db import connection

    lines = []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.subject_id, c.version, s.trust_score::text, s.trust_confidence::text, s.record::text,"
            " s.inputs::text, s.inputs_digest, s.computed_at, s.newest_input_at, s.changes_at"
            " FROM registry_trustscore s JOIN registry_agent a ON a.id = s.agent_id"
            " JOIN registry_scoringconfig c ON c.id = s.config_id ORDER BY a.subject_id, c.version, s.id"
        )
        for row in cursor.fetchall():
            lines.append(json.dumps(["score", *[str(v) if isinstance(v, datetime) else v for v in row]]))
        cursor.execute(
            "SELECT a.subject_id, a.trust_score::text, a.trust_score_updated_at, s.inputs_digest, c.version"
            " FROM registry_agent a LEFT JOIN registry_trustscore s ON s.id = a.latest_score_id"
            " LEFT JOIN registry_scoringconfig c ON c.id = s.config_id ORDER BY a.subject_id"
        )
        for row in cursor.fetchall():
            lines.append(json.dumps(["agent", *[str(v) if isinstance(v, datetime) else v for v in row]]))
        cursor.execute("SELECT count(*), count(*) FILTER (WHERE changed) FROM registry_recomputerun")
        lines.append(json.dumps(["runs", *cursor.fetchone()]))
    from webhooks.models import WebhookEvent

    for event in WebhookEvent.objects.order_by("id").values("type", "payload"):
        payload = dict(event["payload"])
        # Event ids are fresh uuids: everything else must match.
        payload.pop("id", None)
        lines.append(json.dumps(["event", event["type"], payload], sort_keys=True))
    out.write_text("\n".join(lines) + "\n")
    return len(lines)


def main() -> None:
    import django
    from django.utils import timezone

    # Frozen before Django loads anything that reads the clock, so every timestamp is the same per run.
    timezone.now = lambda: FROZEN
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from registry.services import recompute, rescore

    if connection.vendor != "postgresql":
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    call_command("migrate", verbosity=0)
    call_command("flush", interactive=False, verbosity=0)
    recompute._ensure_drain = lambda: None
    rescore._queue_enqueue = lambda job_id: None
    _seed(random.Random(SEED))
    for round_ in range(2):
        _rescore(round_)
    print(f"{_dump(Path(sys.argv[1]))} lines")


if __name__ == "__main__":
    main()
