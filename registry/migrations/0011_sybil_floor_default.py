"""SPEC 2.4: the sybil-resistance floor becomes the scoring configuration in force.

A registry that already has configurations gets the floor as its newest numbered version, and a
rescore of every agent is recorded (a RescoreJob the beat drain enqueues: scoring_config_create does
the same for a configuration made in the admin). Existing scores stay, each naming the version it was
computed under, until the drain recomputes them. A fresh registry has nothing to move: its first
configuration is made on first use, and it is this one (registry.services.scoring.scoring_config_current).

The parameters are frozen here, as they were when the migration was written; the configuration is
matched by digest, so a registry that already made it (manage.py scoring_config_sybil_floor) is left
alone.
"""

from __future__ import annotations

from typing import Any

from django.db import migrations
from django.utils import timezone

FLOOR_PARAMS: dict[str, Any] = {
    "adapters": [
        {
            "adapter_id": "output-verification",
            "mode": "scoped",
            "weight": 1.0,
            "include_registries": [],
            "exclude_registries": [],
            "default_component_key": "output-verification.score",
            "include_protocols": [],
            "exclude_protocols": [],
        },
        {
            "adapter_id": "erc8004-feedback",
            "mode": "scoped",
            "weight": 1.0,
            "include_registries": ["erc-8004"],
            "exclude_registries": [],
            "default_component_key": "erc8004-feedback.score",
            "include_protocols": [],
            "exclude_protocols": [],
        },
        {
            "adapter_id": "sybil-resistance",
            "mode": "universal",
            "weight": 0.0,
            "include_registries": [],
            "exclude_registries": [],
            "default_component_key": "sybil-resistance.score",
            "include_protocols": [],
            "exclude_protocols": [],
        },
    ],
    "output_verification": {
        "full_power_block_rate": 0.05,
        "stake_weights": {"low": 0.5, "medium": 1.0, "high": 2.0, "critical": 3.0},
        "stake_multiplier_min": 0.5,
        "stake_multiplier_max": 3.0,
        "stake_multiplier_cap": 1.5,
        "volume_cap": 50.0,
        "volume_scale": 20.0,
        "min_checks": 10,
        "quality_weight": 0.7,
        "coverage_weight": 0.3,
        "disagreement_factor": 0.5,
        "max_age_days": 30.0,
    },
    "erc8004_feedback": {"rating_tag": "starred", "volume_cap": 20.0, "volume_scale": 10.0},
    "stale_multiplier": 1.0,
    "graph": {
        "id": "sybil-floor-1",
        "nodes": [
            {
                "name": "evidence",
                "op": "weightedMean",
                "inputs": ["adapter:output-verification", "adapter:erc8004-feedback"],
                "params": {"weights": [1.0, 1.0]},
            },
            {
                "name": "governed",
                "op": "floor",
                "inputs": ["node:evidence", "adapter:sybil-resistance"],
                "params": {},
            },
        ],
        "output": "governed",
    },
    "sybil": {
        "min_age_days": 30.0,
        "cluster_similarity": 0.8,
        "cluster_min_shared": 2,
        "neutral_agreement": 0.5,
        "min_standing": 0.2,
        "reviewers_target": 20.0,
        "providers_target": 3.0,
    },
}
NOTE = "SPEC 2.4 defaults: sybil-resistance as a floor, reviewer-weighted feedback"
BY = "migration registry 0011"


def floor_default(apps: Any, schema_editor: Any) -> None:
    from adapters import inputs_digest

    ScoringConfig = apps.get_model("registry", "ScoringConfig")
    RescoreJob = apps.get_model("registry", "RescoreJob")
    latest = ScoringConfig.objects.order_by("-version").first()
    if latest is None:
        return  # a fresh registry: its first configuration is this one, made on first use
    digest = inputs_digest(FLOOR_PARAMS)
    if ScoringConfig.objects.filter(digest=digest).exists():
        return
    config = ScoringConfig.objects.create(
        version=latest.version + 1, params=FLOOR_PARAMS, digest=digest, note=NOTE, created_by=BY
    )
    # Queued, not enqueued: the beat drain (rescore_jobs_resume) marks the agents in chunks.
    RescoreJob.objects.create(
        reason=f"scoring configuration v{config.version}", requested_by=BY, enqueued_at=timezone.now()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("registry", "0010_agent_wallet_feedback_block_time"),
    ]

    operations = [
        # Configurations are append-only: going back leaves v(n+1) in place (a newer one can be made).
        migrations.RunPython(floor_default, migrations.RunPython.noop),
    ]
