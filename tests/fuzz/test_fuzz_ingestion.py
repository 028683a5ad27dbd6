"""Property-based pushes of semantically valid data: accepted, and every read afterwards conforms.

The schema-driven fuzzer rarely builds a summary the registry accepts (rates must sum to at most 1,
stake levels must fit in totalChecks, the agent must exist), so these strategies build only valid
pushes about known agents and check the answers, then the reads that show their effect.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime, timedelta
from typing import Any

import hypothesis
import pytest
from hypothesis import strategies as st

from config.celery import app as celery_app
from registry.schemas import STAKE_LEVELS, VERDICT_ALIASES
from tests.fuzz.fuzz_support import AGENT_IDS, CHECKS, FuzzWorld, api_schema, bounded

MAX_EXAMPLES = 12
RATE = st.floats(min_value=0, max_value=1, allow_nan=False)
PAST = st.integers(min_value=60, max_value=300 * 86400).map(
    lambda seconds: (datetime.now(UTC) - timedelta(seconds=seconds)).isoformat()
)

schema = api_schema()


def _outcome_id(outcome: Any) -> Any:
    """Outcome dictionaries are unique by their id (hypothesis types them as collections)."""
    return outcome["id"]


@pytest.fixture
def committed(django_capture_on_commit_callbacks: Any) -> Iterator[Callable[[], AbstractContextManager[Any]]]:
    """Run a push's on-commit callbacks (the score recompute, in-process and raising) as a commit would."""
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = celery_app.conf.task_eager_propagates = True
    yield lambda: django_capture_on_commit_callbacks(execute=True)
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = before


@st.composite
def summaries(draw: st.DrawFn) -> dict[str, Any]:
    allow = draw(RATE)
    block = draw(st.floats(min_value=0, max_value=1 - allow))
    total = draw(st.integers(min_value=0, max_value=10**9))
    body: dict[str, Any] = {
        "agent": draw(st.sampled_from(AGENT_IDS)),
        "allowRate": allow,
        "blockRate": block,
        "avgConfidence": draw(RATE),
        "totalChecks": total,
        "windowDays": draw(st.integers(min_value=1, max_value=365)),
    }
    if draw(st.booleans()):
        body["uncertainRate"] = draw(st.floats(min_value=0, max_value=max(0.0, 1 - allow - block)))
    if draw(st.booleans()):
        levels = draw(st.lists(st.sampled_from(STAKE_LEVELS), unique=True, max_size=4))
        left, stake = total, {}
        for level in levels:
            checks = draw(st.integers(min_value=0, max_value=left))
            left -= checks
            stake[level] = {"checks": checks}
        body["stakeDistribution"] = stake
    if draw(st.booleans()):
        body["updatedAt"] = draw(PAST)
    return body


OUTCOMES = st.fixed_dictionaries(
    {
        "agent": st.sampled_from(AGENT_IDS),
        "outcomes": st.lists(
            st.fixed_dictionaries(
                {
                    "id": st.text(
                        st.characters(codec="ascii", categories=["L", "N"]), min_size=1, max_size=40
                    ),
                    "verdict": st.sampled_from(sorted(VERDICT_ALIASES)),
                    "confidence": RATE,
                    "checkedAt": PAST,
                },
                optional={"stake": st.sampled_from(STAKE_LEVELS)},
            ),
            min_size=1,
            max_size=5,
            unique_by=_outcome_id,
        ),
    }
)


def _send(path: str, method: str, world: FuzzWorld, **kwargs: Any) -> int:
    operation = schema[path][method]
    case = operation.Case(**kwargs)
    response = case.call(headers={"Authorization": f"Bearer {world.provider_key}"})
    case.validate_response(response, checks=CHECKS)
    hypothesis.event(f"{method} {path} -> {response.status_code}")
    return response.status_code


def _reads_conform(world: FuzzWorld, agent: str) -> None:
    for path in (
        "/api/v1/agents/{subject_id}",
        "/api/v1/agents/{subject_id}/trust-score",
        "/api/v1/agents/{subject_id}/trust-score/history",
        "/api/v1/agents/{subject_id}/trust-score/explanation",
    ):
        assert _send(path, "GET", world, path_parameters={"subject_id": agent}) == 200
    # 409 not-rated: a summary can be left out (stale window), and no 0 is signed for an unrated agent.
    attestation = "/api/v1/agents/{subject_id}/trust-score/attestation"
    assert _send(attestation, "GET", world, path_parameters={"subject_id": agent}) in (200, 409)
    assert _send("/v1/stats/{agent_id}", "GET", world, path_parameters={"agent_id": agent}) in (200, 404)


def test_it_accepts_every_valid_summary_and_reads_stay_conforming(
    fuzz_world: FuzzWorld, committed: Callable[[], AbstractContextManager[Any]]
) -> None:
    @bounded(MAX_EXAMPLES)
    @hypothesis.given(body=summaries())
    def push(body: dict[str, Any]) -> None:
        # 409: the same window of the same agent was already pushed with other numbers.
        with committed():
            assert _send("/api/v1/summaries", "POST", fuzz_world, body=body) in (200, 201, 409)
        _reads_conform(fuzz_world, body["agent"])

    push()


def test_it_accepts_every_valid_summary_batch(fuzz_world: FuzzWorld) -> None:
    @bounded(MAX_EXAMPLES)
    @hypothesis.given(bodies=st.lists(summaries(), min_size=1, max_size=4))
    def push(bodies: list[dict[str, Any]]) -> None:
        status = _send("/api/v1/summaries/batch", "POST", fuzz_world, body={"summaries": bodies})
        assert status in (200, 201, 409)

    push()


def test_it_accepts_every_valid_outcome_batch_and_reads_stay_conforming(
    fuzz_world: FuzzWorld, committed: Callable[[], AbstractContextManager[Any]]
) -> None:
    @bounded(MAX_EXAMPLES)
    @hypothesis.given(body=OUTCOMES)
    def push(body: dict[str, Any]) -> None:
        # 409: an outcome id was already pushed with other content.
        with committed():
            assert _send("/api/v1/outcomes", "POST", fuzz_world, body=body) in (200, 201, 409)
        _reads_conform(fuzz_world, body["agent"])

    push()
