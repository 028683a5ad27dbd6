"""Migration registry 0011: an existing registry moves to the SPEC 2.4 floor, a fresh one starts there."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from adapters import ScoringParams, inputs_digest
from registry.models import RescoreJob, ScoringConfig
from registry.services.scoring import scoring_config_current

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("registry", "0010_agent_wallet_feedback_block_time")]
AFTER = [("registry", "0011_sybil_floor_default")]


@pytest.fixture
def before_floor() -> Iterator[Any]:
    """The registry's models as they were before 0011, then the schema migrated forward again."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    yield executor.loader.project_state(BEFORE).apps
    MigrationExecutor(connection).migrate(AFTER)


def _migrate_forward() -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)


def test_it_moves_an_existing_registry_to_the_floor_and_queues_a_rescore(before_floor: Any) -> None:
    old = before_floor.get_model("registry", "ScoringConfig")
    weighted_mean = ScoringParams().to_dict()
    old.objects.create(version=1, params=weighted_mean, digest=inputs_digest(weighted_mean), note="v1")
    _migrate_forward()
    current = scoring_config_current()
    # The frozen parameters are the ones a fresh registry starts with.
    assert (current.version, current.digest) == (2, inputs_digest(ScoringParams.sybil_floor().to_dict()))
    assert ScoringParams.from_dict(current.params) == ScoringParams.sybil_floor()
    job = RescoreJob.objects.get()
    assert (job.status, job.reason, job.provider_id) == ("queued", "scoring configuration v2", None)


def test_it_leaves_a_registry_that_already_has_the_floor_alone(before_floor: Any) -> None:
    old = before_floor.get_model("registry", "ScoringConfig")
    for version, params in enumerate((ScoringParams().to_dict(), ScoringParams.sybil_floor().to_dict()), 1):
        old.objects.create(version=version, params=params, digest=inputs_digest(params))
    _migrate_forward()
    assert list(ScoringConfig.objects.values_list("version", flat=True)) == [2, 1]
    assert not RescoreJob.objects.exists()


def test_it_starts_a_fresh_registry_on_the_floor(before_floor: Any) -> None:
    _migrate_forward()
    assert not ScoringConfig.objects.exists()
    current = scoring_config_current()
    assert (current.version, current.params["graph"]["id"]) == (1, "sybil-floor-1")
    assert not RescoreJob.objects.exists()
