"""Demo data for `make run`: providers with keys, agents, summaries that give varied scores.

Safe to run again: it only adds what is missing, and the demo keys are fixed so the printed
curl examples keep working.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.utils import timezone

from registry.models import Agent, CheckOutcome, FeedbackEntry, Provider, ProviderApiKey
from registry.services.agents import agent_register
from registry.services.outcomes import outcomes_ingest
from registry.services.providers import api_key_create, api_key_hash, provider_create, provider_set_status
from registry.services.scoring import trust_score_compute
from registry.services.summaries import summaries_ingest

DEMO_PASSWORD = "admin"
OWNER_A = "0x1111111111111111111111111111111111111111"
OWNER_B = "0x2222222222222222222222222222222222222222"
# Agents registered in the Base IdentityRegistry are named eip155:{chain}:{registry}:{agentId}.
BASE_AGENT = "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432:"

PROVIDERS = [
    # slug, name, methodology, operator address, demo key
    ("thoughtproof", "ThoughtProof", "https://thoughtproof.ai/methodology", "", "trk_demo_thoughtproof_0001"),
    ("veritas-labs", "Veritas Labs", "https://veritas.example/method", "", "trk_demo_veritas_labs_0001"),
    ("rubberstamp", "Rubberstamp Inc", "", "", "trk_demo_rubberstamp_00001"),
    ("self-check", "Self-Check (operated by an agent owner)", "", OWNER_A, "trk_demo_self_check_000001"),
    ("shady-verifier", "Shady Verifier (suspended)", "", "", "trk_demo_shady_verifier_01"),
]

AGENTS = [
    # subject id, name, registry, chain agent id, owner
    (
        BASE_AGENT + "28388",
        "ThoughtProof agent",
        "erc-8004",
        28388,
        "",
    ),
    (BASE_AGENT + "101", "Flight booker", "erc-8004", 101, OWNER_A),
    (
        BASE_AGENT + "102",
        "Research assistant",
        "erc-8004",
        102,
        OWNER_B,
    ),
    (BASE_AGENT + "103", "New trading bot", "erc-8004", 103, ""),
    ("hcs10:0.0.4811:support-bot", "Support bot", "hcs-10", None, ""),
    ("hcs10:0.0.4812:code-reviewer", "Code reviewer", "hcs-10", None, ""),
    ("hcs10:0.0.4813:summariser", "Summariser", "hcs-10", None, OWNER_B),
    ("demo:weather-agent", "Weather agent", "other", None, ""),
]

# (provider, agent index, allow, block, uncertain, confidence, checks, stake distribution)
SUMMARIES: list[tuple[str, int, float, float, float, float, int, dict[str, int] | None]] = [
    ("thoughtproof", 0, 0.90, 0.08, 0.02, 0.85, 240, {"low": 200, "high": 40}),
    ("veritas-labs", 0, 0.88, 0.10, 0.02, 0.80, 120, {"medium": 100, "critical": 20}),
    ("thoughtproof", 1, 0.70, 0.20, 0.10, 0.66, 50, {"low": 10, "medium": 20, "high": 15, "critical": 5}),
    ("self-check", 1, 1.00, 0.00, 0.00, 0.99, 500, None),
    ("thoughtproof", 2, 0.95, 0.05, 0.00, 0.90, 1000, {"high": 600, "critical": 400}),
    ("veritas-labs", 2, 0.60, 0.35, 0.05, 0.70, 300, {"medium": 300}),
    ("rubberstamp", 3, 1.00, 0.00, 0.00, 0.99, 5000, {"low": 5000}),
    ("thoughtproof", 3, 0.90, 0.10, 0.00, 0.80, 6, None),
    ("veritas-labs", 4, 0.92, 0.06, 0.02, 0.88, 80, {"low": 40, "medium": 40}),
    ("rubberstamp", 4, 1.00, 0.00, 0.00, 0.95, 900, None),
    ("thoughtproof", 5, 0.80, 0.15, 0.05, 0.90, 400, {"medium": 300, "high": 100}),
    ("shady-verifier", 5, 1.00, 0.00, 0.00, 1.00, 10000, {"critical": 10000}),
    ("veritas-labs", 6, 0.85, 0.10, 0.05, 0.70, 60, None),
]

# (agent index, rating 0-100, count)
FEEDBACK = [(0, 92, 40), (1, 71, 12), (2, 88, 10)]


class Command(BaseCommand):
    help = "Load demo providers, agents and summaries, then print where to look."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", default="8000")
        parser.add_argument("--quiet", action="store_true")
        parser.add_argument(
            "--signing-key-file",
            type=Path,
            help="Create a development signing key here if the file is missing (never in production).",
        )

    @transaction.atomic
    def _load(self) -> None:
        providers: dict[str, Provider] = {}
        for slug, name, methodology, operator, key in PROVIDERS:
            provider = Provider.objects.filter(slug=slug).first()
            if provider is None:
                provider, _ = provider_create(
                    name=name,
                    slug=slug,
                    methodology_url=methodology,
                    operator_address=operator,
                    with_key=False,
                )
            if not ProviderApiKey.objects.filter(key_hash=api_key_hash(key)).exists():
                api_key_create(provider=provider, name="demo", plaintext=key)
            providers[slug] = provider
        agents = [
            agent_register(
                subject_id=sid,
                name=name,
                registry=registry,
                owner_address=owner,
                chain_id=8453 if chain_id is not None else None,
                erc8004_agent_id=chain_id,
            )
            for sid, name, registry, chain_id, owner in AGENTS
        ]
        now = timezone.now().replace(microsecond=0)
        for slug, index, allow, block, uncertain, confidence, checks, stake in SUMMARIES:
            if providers[slug].status != Provider.Status.ACTIVE:
                # Suspended by an earlier run (below): its reports are refused now, and kept from then.
                continue
            body: dict[str, Any] = {
                "agent": agents[index].subject_id,
                "allowRate": allow,
                "blockRate": block,
                "uncertainRate": uncertain,
                "avgConfidence": confidence,
                "totalChecks": checks,
                "windowDays": 7,
                "updatedAt": (now - timedelta(hours=index + 1)).date().isoformat() + "T00:00:00Z",
            }
            if stake:
                body["stakeDistribution"] = {level: {"checks": n} for level, n in stake.items()}
            summaries_ingest(provider=providers[slug], bodies=[body])
        # Outcome ids are idempotency keys: a second run (new timestamps) would reuse them for other
        # content, which the registry refuses.  The first run's outcomes stay.
        if not CheckOutcome.objects.filter(
            provider=providers["veritas-labs"], outcome_id="demo-outcome-0"
        ).exists():
            outcomes_ingest(
                provider=providers["veritas-labs"],
                body={
                    "agent": agents[7].subject_id,
                    "outcomes": [
                        {
                            "id": f"demo-outcome-{i}",
                            "verdict": ["ALLOW", "ALLOW", "ALLOW", "HOLD", "OBJECT"][i % 5],
                            "confidence": 0.6 + (i % 4) / 10,
                            "stake": ["low", "medium", "high"][i % 3],
                            "checkedAt": (now - timedelta(minutes=i)).isoformat().replace("+00:00", "Z"),
                        }
                        for i in range(40)
                    ],
                },
            )
        for index, rating, count in FEEDBACK:
            for n in range(count):
                FeedbackEntry.objects.get_or_create(
                    agent=agents[index],
                    client_address=f"0x{n + 1:040x}",
                    feedback_index=1,
                    defaults={
                        "value": rating + (n % 5) - 2,
                        "value_decimals": 0,
                        "tag1": "starred",
                        "tag2": "demo",
                    },
                )
        provider_set_status(
            provider=providers["shady-verifier"],
            status=Provider.Status.SUSPENDED,
            actor_label="seed_demo",
            reason="demo: reports 100% ALLOW at full confidence",
        )
        user_model = get_user_model()
        if not user_model.objects.filter(username="admin").exists():
            user_model.objects.create_superuser("admin", "admin@example.com", DEMO_PASSWORD)

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            # Demo keys are public (printed in the README's curl examples) and the admin password is
            # "admin": in a production database they would be open doors.
            raise CommandError(
                "seed_demo loads demo data with published keys and an admin/admin account; "
                "it runs only with DEBUG=1 (a development set-up), never against production."
            )
        key_file: Path | None = options["signing_key_file"]
        if key_file is not None and not key_file.exists():
            key_file.parent.mkdir(parents=True, exist_ok=True)
            key_file.write_text("0x" + secrets.token_hex(32) + "\n")
            key_file.chmod(0o600)
        self._load()
        for agent in Agent.objects.all():
            trust_score_compute(agent=agent)
        if options["quiet"]:
            return
        base = f"http://{options['host']}:{options['port']}"
        key = PROVIDERS[0][4]
        subject = AGENTS[0][0]
        self.stdout.write(
            f"""
Trust registry demo is starting at {base}
  API docs (Swagger UI)   {base}/api/docs/
  OpenAPI schema          {base}/api/schema/
  Admin                   {base}/admin/   (user: admin, password: {DEMO_PASSWORD})
  Agents by score         {base}/api/v1/agents?ordering=-score
  Demo provider key       {key}   (provider thoughtproof)

Read a trust score, and the same score signed by the registry (EIP-712):
  curl -s {base}/api/v1/agents/{subject}/trust-score
  curl -s {base}/api/v1/agents/{subject}/trust-score/attestation

Push a summary as ThoughtProof:
  curl -s -X POST {base}/api/v1/summaries \\
    -H 'Authorization: Bearer {key}' -H 'Content-Type: application/json' \\
    -d '{{"agent": "demo:weather-agent", "allowRate": 0.9, "blockRate": 0.1,
         "avgConfidence": 0.8, "totalChecks": 50}}'
"""
        )
