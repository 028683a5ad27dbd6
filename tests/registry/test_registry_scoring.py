"""Scoring through the API: conformance vectors, eligibility, history, versions (SPEC section 2)."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from registry.models import Agent, FeedbackEntry, Provider, ProviderAuditEvent, RecomputeRun, TrustScore
from registry.services.agents import agent_register
from registry.services.scoring import scoring_config_create, scoring_config_current
from registry.tasks import recompute_aging_scores, recompute_trust_score
from tests.registry.registry_support import (
    VECTORS,
    composite,
    erc8004_feedback,
    output_verification,
    summary_body,
)

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]

OWNER = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01"
MakeProvider = Callable[..., tuple[Provider, str]]


@pytest.fixture
def push(committed: Callable[[Callable[[], Any]], Any], keyed_client: Callable[[str], APIClient]) -> Any:
    """POST one summary with a provider key and let the on-commit recompute run."""

    def run(key: str, body: dict[str, Any]) -> Any:
        response = committed(lambda: keyed_client(key).post("/api/v1/summaries", body, format="json"))
        assert response.status_code in (200, 201), response.content
        return response

    return run


def record_of(api: APIClient, subject: str) -> dict[str, Any]:
    response = api.get(f"/api/v1/agents/{subject}/trust-score")
    assert response.status_code == 200, response.content
    data: dict[str, Any] = response.json()
    return data


def add_feedback(agent: Agent, average: float, count: int) -> None:
    """`count` starred ratings averaging `average` (fixed point), plus rows that must not count."""
    values = [average - 1.5, average + 1.5] * (count // 2) + [average] * (count % 2)
    for i, value in enumerate(values):
        decimals = 1 + i % 2
        FeedbackEntry.objects.create(
            agent=agent,
            client_address=f"0x{i + 1:040x}",
            feedback_index=i,
            tag1="starred",
            value=round(value * 10**decimals),
            value_decimals=decimals,
        )
    FeedbackEntry.objects.create(
        agent=agent, client_address=f"0x{999:040x}", feedback_index=0, tag1="starred", value=0, revoked=True
    )
    FeedbackEntry.objects.create(
        agent=agent, client_address=f"0x{999:040x}", feedback_index=1, tag1="reachable", value=0
    )


OV_VECTORS = VECTORS["outputVerification"]


@pytest.mark.parametrize("vector", OV_VECTORS, ids=[v["name"] for v in OV_VECTORS])
def test_it_reproduces_the_output_verification_vectors_from_several_providers(
    vector: dict[str, Any], make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    expected = vector["expected"]
    assert output_verification(vector["providers"]) == expected  # the reference agrees with the vectors
    agent_register(subject_id="ov-agent", registry="hcs-10")
    for index, signal in enumerate(vector["providers"]):
        _, key = make_provider(f"verifier-{index}")
        push(key, {"agent": "ov-agent", **signal})
    record = record_of(api, "ov-agent")
    adapter = next(a for a in record["breakdown"]["adapters"] if a["adapterId"] == "output-verification")
    assert adapter["applicable"] is expected["applicable"]
    if expected["applicable"]:
        assert record["trustScores"]["output-verification.quality"] == expected["quality"]
        assert record["trustScores"]["output-verification.coverage"] == expected["coverage"]
        assert record["trustScore"] == expected["total"]
        contributions = record["provenance"]["outputVerification"]["providers"]
        by_slug = {c["providerId"]: c for c in contributions}
        for index, signal in enumerate(vector["providers"]):
            weight = by_slug[f"verifier-{index}"]["weight"]
            assert math.isclose(weight, math.log10(signal["totalChecks"] + 1), abs_tol=1e-6)
        if len(vector["providers"]) > 1:
            assert record["provenance"]["outputVerification"]["disagreement"] is not None
    else:
        assert record["trustScore"] == 0.0
        assert not any(k.startswith("output-verification.") for k in record["trustScores"])
        assert adapter["inDenominator"] is False


COMPOSITE_VECTORS = VECTORS["composite"]


@pytest.mark.parametrize("vector", COMPOSITE_VECTORS, ids=[v["name"] for v in COMPOSITE_VECTORS])
def test_it_reproduces_the_composite_vectors_with_feedback_rows(
    vector: dict[str, Any], make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="cx-agent", registry=vector["registry"])
    if vector["erc8004Feedback"]:
        add_feedback(
            agent, vector["erc8004Feedback"]["averageScore"], vector["erc8004Feedback"]["totalFeedbacks"]
        )
    for index, signal in enumerate(vector["outputVerification"]):
        _, key = make_provider(f"verifier-{index}")
        push(key, {"agent": "cx-agent", **signal})
    record = record_of(api, "cx-agent")
    expected = vector["expected"]
    assert record["trustScore"] == expected["trustScore"]
    assert record["trustScores"] == expected["trustScores"]
    assert record["trustConfidence"] == expected["trustConfidence"]
    listed = api.get("/api/v1/agents/cx-agent").json()
    assert listed["trustScore"] == expected["trustScore"]


FEEDBACK_VECTORS = VECTORS["erc8004Feedback"]


@pytest.mark.parametrize("vector", FEEDBACK_VECTORS, ids=[v["name"] for v in FEEDBACK_VECTORS])
def test_it_reproduces_the_erc8004_feedback_vectors(vector: dict[str, Any], api: APIClient) -> None:
    agent = agent_register(subject_id="fb-agent", registry=vector["registry"])
    if vector["summary"]:
        add_feedback(agent, vector["summary"]["averageScore"], vector["summary"]["totalFeedbacks"])
    record = record_of(api, "fb-agent")
    adapter = next(a for a in record["breakdown"]["adapters"] if a["adapterId"] == "erc8004-feedback")
    expected = vector["expected"]
    assert adapter["applicable"] is expected["applicable"]
    assert {c["key"]: c["value"] for c in adapter["components"]} == expected["components"]
    assert adapter["total"] == expected["total"]
    if vector["summary"] and expected["applicable"]:
        reference = erc8004_feedback(vector["summary"]["averageScore"], vector["summary"]["totalFeedbacks"])
        assert reference["total"] == expected["total"]


def test_it_ignores_revoked_and_untagged_feedback(api: APIClient) -> None:
    agent = agent_register(subject_id="fb-only-noise", registry="erc-8004")
    FeedbackEntry.objects.create(
        agent=agent, client_address=f"0x{1:040x}", feedback_index=0, tag1="starred", value=90, revoked=True
    )
    FeedbackEntry.objects.create(
        agent=agent, client_address=f"0x{1:040x}", feedback_index=1, tag1="uptime", value=90
    )
    record = record_of(api, "fb-only-noise")
    assert record["trustScores"] == {"erc8004-feedback.score": 0.0, "total": 0.0}
    adapter = next(a for a in record["breakdown"]["adapters"] if a["adapterId"] == "erc8004-feedback")
    assert adapter["components"][0]["status"] == "missing"


@pytest.mark.parametrize("link", ["operator-address", "provider-is-the-agent"])
def test_it_leaves_self_reported_summaries_out(
    link: str, make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="selfie", registry="hcs-10", owner_address=OWNER)
    if link == "operator-address":
        _, own_key = make_provider("own-verifier", operator_address=OWNER.lower())
    else:
        own, own_key = make_provider("own-verifier")
        Provider.objects.filter(pk=own.pk).update(agent=agent)
    _, independent_key = make_provider("independent")
    glowing = summary_body(
        "selfie",
        allowRate=1.0,
        blockRate=0.0,
        uncertainRate=0.0,
        avgConfidence=1.0,
        totalChecks=5000,
        stakeDistribution={"critical": {"checks": 5000}},
    )
    push(own_key, glowing)
    push(independent_key, summary_body("selfie"))
    record = record_of(api, "selfie")
    expected = output_verification([summary_body("selfie")])
    assert record["trustScore"] == expected["total"] == VECTORS["outputVerification"][0]["expected"]["total"]
    provenance = record["provenance"]["outputVerification"]
    assert provenance["excluded"] == [{"providerId": "own-verifier", "reason": "self-reported"}]
    assert [p["providerId"] for p in provenance["providers"]] == ["independent"]


def test_it_leaves_stale_summaries_out_and_says_so(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent_register(subject_id="ageing", registry="hcs-10")
    _, old_key = make_provider("old-news")
    _, fresh_key = make_provider("fresh")
    long_ago = (timezone.now() - timedelta(days=31)).isoformat().replace("+00:00", "Z")
    push(old_key, summary_body("ageing", totalChecks=1000, updatedAt=long_ago))
    fresh = summary_body("ageing", allowRate=0.7, blockRate=0.2, uncertainRate=0.1, totalChecks=40)
    push(fresh_key, fresh)
    record = record_of(api, "ageing")
    assert record["provenance"]["outputVerification"]["excluded"] == [
        {"providerId": "old-news", "reason": "stale"}
    ]
    assert record["trustScore"] == output_verification([fresh])["total"]


def test_it_counts_a_summary_just_inside_the_maximum_age(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent_register(subject_id="recent", registry="hcs-10")
    _, key = make_provider("steady")
    recent = (timezone.now() - timedelta(days=29)).isoformat().replace("+00:00", "Z")
    push(key, summary_body("recent", updatedAt=recent))
    record = record_of(api, "recent")
    assert record["provenance"]["outputVerification"]["excluded"] == []
    assert record["trustScore"] == output_verification([summary_body("recent")])["total"]


def test_it_drops_a_suspended_provider_at_the_next_recompute_and_logs_who(
    make_provider: MakeProvider,
    push: Any,
    api: APIClient,
    committed: Callable[[Callable[[], Any]], Any],
    admin_client_logged_in: tuple[Client, Any],
) -> None:
    agent_register(subject_id="two-sources", registry="hcs-10")
    strict, strict_key = make_provider("strict")
    _, lenient_key = make_provider("lenient")
    a = summary_body("two-sources", totalChecks=100, stakeDistribution=None)
    b = summary_body(
        "two-sources", allowRate=0.5, blockRate=0.5, avgConfidence=0.6, totalChecks=10, stakeDistribution=None
    )
    push(strict_key, a)
    push(lenient_key, b)
    both = output_verification([a, b])["total"]
    assert record_of(api, "two-sources")["trustScore"] == both

    client, user = admin_client_logged_in
    before = timezone.now()
    response = committed(
        lambda: client.post(
            "/admin/registry/provider/", {"action": "suspend", "_selected_action": [strict.pk]}, follow=True
        )
    )
    assert response.status_code == 200
    record = record_of(api, "two-sources")
    assert record["trustScore"] == output_verification([b])["total"] != both
    assert record["provenance"]["outputVerification"]["excluded"] == [
        {"providerId": "strict", "reason": "suspended"}
    ]
    event = ProviderAuditEvent.objects.get(provider=strict, action="suspended")
    assert event.actor == user
    assert event.actor_label == "auditor"
    assert before <= event.at <= timezone.now()

    committed(
        lambda: client.post(
            "/admin/registry/provider/", {"action": "reinstate", "_selected_action": [strict.pk]}, follow=True
        )
    )
    assert record_of(api, "two-sources")["trustScore"] == both
    assert ProviderAuditEvent.objects.filter(provider=strict, action="reinstated", actor=user).exists()
    history = api.get("/api/v1/agents/two-sources/trust-score/history").json()["results"]
    scores = [h["trustScore"] for h in history]
    # Newest first: both again, strict suspended, both, lenient alone, strict alone.
    assert scores[:3] == [both, output_verification([b])["total"], both]
    assert history[0]["inputsDigest"] == history[2]["inputsDigest"] != history[1]["inputsDigest"]


def test_it_keeps_every_distinct_score_in_the_history(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent_register(subject_id="moving", registry="hcs-10")
    _, key = make_provider("tracker")
    bodies = [
        summary_body("moving", updatedAt="2026-11-01T00:00:00Z"),
        summary_body(
            "moving",
            updatedAt="2026-11-02T00:00:00Z",
            totalChecks=240,
            blockRate=0.08,
            uncertainRate=0.02,
            avgConfidence=0.85,
            stakeDistribution={"low": {"checks": 200}, "high": {"checks": 40}},
        ),
        summary_body("moving", updatedAt="2026-11-03T00:00:00Z", totalChecks=50),
    ]
    for body in bodies:
        push(key, body)
    history = api.get("/api/v1/agents/moving/trust-score/history").json()
    assert history["count"] == 3
    assert [h["trustScore"] for h in history["results"]] == [
        output_verification([b])["total"] for b in reversed(bodies)
    ]
    assert TrustScore.objects.filter(agent__subject_id="moving").count() == 3


def test_it_stores_nothing_new_when_a_recompute_changes_nothing(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="steady-state", registry="hcs-10")
    _, key = make_provider("tracker")
    push(key, summary_body("steady-state", updatedAt="2026-11-01T00:00:00Z"))
    first = record_of(api, "steady-state")
    runs = RecomputeRun.objects.filter(agent=agent).count()
    recompute_trust_score.delay(agent.pk)
    push(key, summary_body("steady-state", updatedAt="2026-11-01T00:00:00Z"))  # a replay: no recompute queued
    assert TrustScore.objects.filter(agent=agent).count() == 1
    assert RecomputeRun.objects.filter(agent=agent).count() == runs + 1
    assert RecomputeRun.objects.filter(agent=agent).order_by("-id").first().changed is False  # type: ignore[union-attr]
    assert record_of(api, "steady-state") == first


def test_it_puts_version_times_and_provenance_in_the_record(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent_register(subject_id="recorded", registry="hcs-10")
    _, key = make_provider("tracker")
    before = timezone.now()
    answer = push(key, summary_body("recorded")).json()
    record = record_of(api, "recorded")
    assert record["subjectId"] == "recorded"
    assert record["trustScoreConfigVersion"] == scoring_config_current().version == 1
    updated = datetime.fromisoformat(record["trustScoreUpdatedAt"].replace("Z", "+00:00"))
    assert before <= updated <= timezone.now()
    assert updated.tzinfo is not None and updated.utcoffset() == timedelta(0)
    provenance = record["provenance"]
    assert provenance["inputsDigest"].startswith("sha256:") and len(provenance["inputsDigest"]) == 71
    assert provenance["newestInputAt"] == answer["receivedAt"]
    history = api.get("/api/v1/agents/recorded/trust-score/history").json()["results"]
    assert history[0]["inputsDigest"] == provenance["inputsDigest"]
    assert history[0]["trustScoreConfigVersion"] == 1
    newest = datetime.fromisoformat(history[0]["newestInputAt"].replace("Z", "+00:00"))
    assert newest == datetime.fromisoformat(answer["receivedAt"].replace("Z", "+00:00")).astimezone(UTC)


def test_it_scores_with_a_new_config_version_and_keeps_the_old_record(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="versioned", registry="erc-8004")
    add_feedback(agent, 88, 10)
    _, key = make_provider("tracker")
    push(key, summary_body("versioned", updatedAt="2026-11-01T00:00:00Z"))
    v1 = record_of(api, "versioned")
    assert v1["trustScoreConfigVersion"] == 1
    ov, fb = output_verification([summary_body("versioned")]), erc8004_feedback(88, 10)
    assert v1["trustScore"] == composite([(ov["total"], 1), (fb["total"], 1)])

    params = scoring_config_current().params
    for adapter in params["adapters"]:
        adapter["weight"] = {"output-verification": 3.0, "erc8004-feedback": 2.0}[adapter["adapter_id"]]
    v2 = scoring_config_create(params=params, note="weigh verification more")
    assert v2.version == 2
    again = scoring_config_create(params=dict(reversed(list(params.items()))))
    assert (again.pk, again.version) == (v2.pk, 2)

    push(key, summary_body("versioned", updatedAt="2026-11-02T00:00:00Z"))
    current = record_of(api, "versioned")
    assert current["trustScoreConfigVersion"] == 2
    assert current["trustScore"] == composite([(ov["total"], 3), (fb["total"], 2)]) != v1["trustScore"]
    history = api.get("/api/v1/agents/versioned/trust-score/history").json()["results"]
    assert [h["trustScoreConfigVersion"] for h in history] == [2, 1]
    assert [h["trustScore"] for h in history] == [current["trustScore"], v1["trustScore"]]
    oldest = TrustScore.objects.filter(agent=agent).order_by("id").first()
    assert oldest is not None and oldest.record["trustScoreConfigVersion"] == 1

    assert api.get("/api/v1/scoring-config").json()["trustScoreConfigVersion"] == 2
    listed = api.get("/api/v1/scoring-configs").json()
    assert [c["trustScoreConfigVersion"] for c in listed["results"]] == [2, 1]
    first = api.get("/api/v1/scoring-configs/1").json()
    assert [a["weight"] for a in first["params"]["adapters"]] == [1.0, 1.0]
    missing = api.get("/api/v1/scoring-configs/99")
    assert missing.status_code == 404
    assert missing["Content-Type"].startswith("application/problem+json")


def test_it_rescores_with_the_new_version_even_without_new_input(
    make_provider: MakeProvider, push: Any, api: APIClient
) -> None:
    agent = agent_register(subject_id="same-inputs", registry="hcs-10")
    _, key = make_provider("tracker")
    push(key, summary_body("same-inputs"))
    params = scoring_config_current().params
    params["output_verification"]["quality_weight"] = 0.5
    params["output_verification"]["coverage_weight"] = 0.5
    scoring_config_create(params=params)
    recompute_trust_score.delay(agent.pk)
    record = record_of(api, "same-inputs")
    assert record["trustScoreConfigVersion"] == 2
    base = output_verification([summary_body("same-inputs")])
    assert record["trustScore"] == round((base["quality"] + base["coverage"]) / 2 + 1e-9, 2)


def test_it_serves_the_current_scoring_config(api: APIClient) -> None:
    response = api.get("/api/v1/scoring-config")
    assert response.status_code == 200
    data = response.json()
    assert data["trustScoreConfigVersion"] == 1
    assert data["digest"].startswith("sha256:")
    ov = data["params"]["output_verification"]
    assert (ov["full_power_block_rate"], ov["min_checks"], ov["max_age_days"]) == (0.05, 10, 30.0)
    assert api.get("/api/v1/scoring-configs/1").json() == data


def test_it_rescores_an_agent_whose_counted_summary_turns_stale(
    make_provider: MakeProvider,
    push: Any,
    api: APIClient,
    committed: Callable[[Callable[[], Any]], Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent_register(subject_id="fading", registry="hcs-10")
    _, key = make_provider("once")
    push(key, summary_body("fading"))
    first = record_of(api, "fading")
    assert first["trustScore"] == output_verification([summary_body("fading")])["total"]
    changes_at = datetime.fromisoformat(first["provenance"]["changesAt"].replace("Z", "+00:00"))
    assert timedelta(days=29) < changes_at - timezone.now() <= timedelta(days=30)

    assert committed(lambda: recompute_aging_scores.delay().get()) == 0  # nothing has aged yet
    later = timezone.now() + timedelta(days=31)
    monkeypatch.setattr(timezone, "now", lambda: later)
    assert committed(lambda: recompute_aging_scores.delay().get()) == 1
    record = record_of(api, "fading")
    assert record["provenance"]["outputVerification"]["excluded"] == [
        {"providerId": "once", "reason": "stale"}
    ]
    assert record["trustScore"] == 0.0
    assert committed(lambda: recompute_aging_scores.delay().get()) == 0


def test_it_keeps_a_failing_agent_pending_and_still_drains_the_others(
    db: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from registry.models import PendingRecompute
    from registry.services import scoring
    from registry.services.agents import agent_register
    from registry.services.recompute import recompute_drain

    good = agent_register(subject_id="agent-drain-ok")
    bad = agent_register(subject_id="agent-drain-bad")
    real = scoring._inputs_from

    def flaky(agent: Any, *args: Any) -> Any:
        if agent.pk == bad.pk:
            raise RuntimeError("boom")
        return real(agent, *args)

    # Both agents are claimed together: the batch fails as a whole, then each is retried on its own.
    monkeypatch.setattr(scoring, "_inputs_from", flaky)
    PendingRecompute.objects.bulk_create(
        [PendingRecompute(agent_id=good.pk), PendingRecompute(agent_id=bad.pk)]
    )
    assert recompute_drain(batch=10) == 1
    assert list(PendingRecompute.objects.values_list("agent_id", flat=True)) == [bad.pk]
    good.refresh_from_db()
    assert good.latest_score_id is not None


def test_it_scores_many_pending_agents_in_one_drain_without_mixing_their_inputs(
    make_provider: MakeProvider, api: APIClient
) -> None:
    # One agent per composite vector, all pending at once: the drain reads every agent's summaries and
    # feedback together and must still give each agent exactly its own vector's numbers.
    from registry.models import PendingRecompute
    from registry.services.recompute import recompute_drain
    from registry.services.summaries import summaries_ingest

    providers = [make_provider(f"verifier-{i}")[0] for i in range(4)]
    for n, vector in enumerate(COMPOSITE_VECTORS):
        agent = agent_register(subject_id=f"drain-{n}", registry=vector["registry"])
        if vector["erc8004Feedback"]:
            feedback = vector["erc8004Feedback"]
            add_feedback(agent, feedback["averageScore"], feedback["totalFeedbacks"])
        for index, signal in enumerate(vector["outputVerification"]):
            summaries_ingest(provider=providers[index], bodies=[{"agent": agent.subject_id, **signal}])
        PendingRecompute.objects.get_or_create(agent=agent)
    runs_before = RecomputeRun.objects.count()

    assert recompute_drain(batch=len(COMPOSITE_VECTORS) + 5) == len(COMPOSITE_VECTORS)

    assert RecomputeRun.objects.count() - runs_before == len(COMPOSITE_VECTORS)
    assert not PendingRecompute.objects.exists()
    for n, vector in enumerate(COMPOSITE_VECTORS):
        record = record_of(api, f"drain-{n}")
        assert record["subjectId"] == f"drain-{n}"
        assert record["trustScore"] == vector["expected"]["trustScore"]
        assert record["trustScores"] == vector["expected"]["trustScores"]
        assert record["trustConfidence"] == vector["expected"]["trustConfidence"]
