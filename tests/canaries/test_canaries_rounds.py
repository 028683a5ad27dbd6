"""Canary rounds end to end: real check endpoints on loopback, PostgreSQL, the API, the pages, the admin."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from canaries.models import CanaryCase
from canaries.services.accuracy import provider_accuracy_refresh
from canaries.services.sending import canary_answer_parse, canary_round_run
from canaries.tasks import canary_rounds_schedule
from common.errors import ApplicationError
from registry.models import Provider, ProviderAccuracy
from registry.services.providers import provider_create, provider_set_status
from verification.engine.runs.config import RunVerifierConfig
from verification.engine.runs.verify import verify_run

pytestmark = pytest.mark.django_db

# The check_endpoint fixture (conftest.py) starts a server that answers with one of these.
Answer = Callable[[dict[str, Any]], tuple[int, bytes]]
Start = Callable[[Answer], Any]


def engine_verdict(run: dict[str, Any]) -> tuple[int, bytes]:
    """A provider that really verifies: our own run verifier, BLOCK when it finds a hallucination."""
    report = verify_run(run["messages"], run.get("tools") or [], config=RunVerifierConfig()).to_dict()
    verdict = "BLOCK" if report["hallucination_detected"] else "ALLOW"
    return 200, json.dumps({"verdict": verdict, "confidence": 0.9}).encode()


def rubber_stamp(run: dict[str, Any]) -> tuple[int, bytes]:
    return 200, b'{"verdict": "ALLOW", "confidence": 0.99}'


def blocks_everything(run: dict[str, Any]) -> tuple[int, bytes]:
    return 200, b'{"verdict": "OBJECT"}'


def undecided(run: dict[str, Any]) -> tuple[int, bytes]:
    return 200, b'{"verdict": "HOLD", "confidence": 0.5}'


def sleeps(seconds: float) -> Answer:
    def answer(run: dict[str, Any]) -> tuple[int, bytes]:
        time.sleep(seconds)
        return 200, b'{"verdict": "ALLOW"}'

    return answer


def _provider(slug: str, url: str) -> Provider:
    provider, _ = provider_create(name=slug.title(), slug=slug, check_endpoint=url, with_key=False)
    return provider


def _counts(provider: Provider) -> dict[str, int]:
    cases = CanaryCase.objects.filter(provider=provider)
    return {
        "faithful": cases.filter(label="faithful").count(),
        "fabricated": cases.filter(label="fabricated").count(),
    }


def test_it_charges_a_rubber_stamp_every_fabrication_and_no_false_alarm(check_endpoint: Start) -> None:
    endpoint = check_endpoint(rubber_stamp)
    provider = _provider("stamp", endpoint.url)
    sent = canary_round_run(provider=provider, cases=24)
    counts = _counts(provider)
    accuracy = ProviderAccuracy.objects.get(provider=provider)
    assert len(sent) == len(endpoint.requests) == 24 == accuracy.cases
    assert accuracy.false_positives == 0 and accuracy.false_positive_rate == (
        0.0 if counts["faithful"] else None
    )
    assert accuracy.false_negatives == accuracy.fabricated_answered == counts["fabricated"]
    assert accuracy.false_negative_rate == (1.0 if counts["fabricated"] else None)
    assert accuracy.false_negative_high == 1.0 and accuracy.false_negative_low > 0.5


def test_it_charges_a_provider_that_blocks_everything_every_faithful_run(check_endpoint: Start) -> None:
    provider = _provider("paranoid", check_endpoint(blocks_everything).url)
    canary_round_run(provider=provider, cases=20)
    accuracy = ProviderAccuracy.objects.get(provider=provider)
    # OBJECT is the outcome vocabulary's BLOCK (SPEC section 3).
    assert accuracy.false_positives == accuracy.faithful_answered == _counts(provider)["faithful"]
    assert accuracy.false_negatives == 0


def test_it_measures_a_real_verifier_as_mostly_right(check_endpoint: Start) -> None:
    provider = _provider("engine", check_endpoint(engine_verdict).url)
    canary_round_run(provider=provider, cases=40)
    accuracy = ProviderAccuracy.objects.get(provider=provider)
    assert accuracy.failures == 0 and accuracy.faithful_answered + accuracy.fabricated_answered == 40
    assert accuracy.false_positives <= 2
    assert accuracy.false_negatives < accuracy.fabricated_answered / 2


def test_it_counts_uncertain_answers_apart_from_the_rates(check_endpoint: Start) -> None:
    provider = _provider("unsure", check_endpoint(undecided).url)
    canary_round_run(provider=provider, cases=6)
    accuracy = ProviderAccuracy.objects.get(provider=provider)
    assert accuracy.abstentions == 6
    assert accuracy.false_positive_rate is None and accuracy.false_negative_rate is None
    assert (accuracy.false_positive_low, accuracy.false_positive_high) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (lambda run: (200, b"not json"), "not JSON"),
        (lambda run: (200, b'["ALLOW"]'), "not a JSON object"),
        (lambda run: (200, b'{"verdict": "MAYBE"}'), "verdict must be one of"),
        (lambda run: (200, b'{"verdict": "ALLOW", "confidence": 7}'), "confidence"),
        (lambda run: (500, b"{}"), "HTTP 500"),
        (lambda run: (200, b'{"verdict": "ALLOW", "pad": "' + b"x" * 20_000 + b'"}'), "larger than"),
        (sleeps(3.0), "OutboundTimeout"),
    ],
)
def test_it_records_a_case_without_a_usable_answer_as_a_failure(
    check_endpoint: Start, answer: Callable[[dict[str, Any]], tuple[int, bytes]], error: str
) -> None:
    provider = _provider("broken", check_endpoint(answer).url)
    (case,) = canary_round_run(provider=provider, cases=1)
    assert case.status == CanaryCase.Status.FAILED and error in case.error
    accuracy = ProviderAccuracy.objects.get(provider=provider)
    assert (
        accuracy.failures == 1
        and accuracy.false_positive_rate is None
        and accuracy.false_negative_rate is None
    )


def test_it_sends_nothing_that_marks_the_run_as_a_canary(check_endpoint: Start) -> None:
    endpoint = check_endpoint(rubber_stamp)
    canary_round_run(provider=_provider("watcher", endpoint.url), cases=10)
    for headers, body in endpoint.requests:
        run = json.loads(body)
        assert set(run) == {"messages", "tools"}
        assert "canary" not in body.decode().lower()
        assert not any("canary" in f"{k}: {v}".lower() for k, v in headers.items())


def test_it_never_sends_the_same_case_twice_to_anyone(check_endpoint: Start) -> None:
    a = _provider("alpha", check_endpoint(rubber_stamp).url)
    b = _provider("beta", check_endpoint(rubber_stamp).url)
    for _ in range(3):
        canary_round_run(provider=a, cases=10)
        canary_round_run(provider=b, cases=10)
    digests = list(CanaryCase.objects.values_list("digest", flat=True))
    assert len(digests) == 60 == len(set(digests))


def test_it_refuses_a_private_check_endpoint_in_production(check_endpoint: Start, settings: Any) -> None:
    provider = _provider("inside", check_endpoint(rubber_stamp).url)
    settings.OUTBOUND_ALLOW_HTTP = False
    settings.OUTBOUND_ALLOW_PRIVATE = False
    (case,) = canary_round_run(provider=provider, cases=1)
    assert case.status == CanaryCase.Status.FAILED and "OutboundRefused" in case.error
    with pytest.raises(ApplicationError) as caught:
        provider_create(name="Meta", slug="meta", check_endpoint="http://169.254.169.254/v1/check")
    assert caught.value.status == 400 and caught.value.errors[0].pointer == "/checkEndpoint"


def test_it_skips_suspended_providers_and_providers_without_an_endpoint(check_endpoint: Start) -> None:
    endpoint = check_endpoint(rubber_stamp)
    active = _provider("active", endpoint.url)
    suspended = _provider("resting", endpoint.url)
    provider_set_status(provider=suspended, status=Provider.Status.SUSPENDED, reason="test")
    provider_create(name="Quiet", slug="quiet", with_key=False)
    # Celery runs eagerly in the tests: the scheduled rounds run now, whatever their countdown.
    assert canary_rounds_schedule.apply().get() == 1
    assert set(CanaryCase.objects.values_list("provider__slug", flat=True)) == {"active"}
    assert CanaryCase.objects.filter(provider=active).count() == len(endpoint.requests) > 0
    assert canary_round_run(provider=suspended, cases=3) == []


def test_it_counts_only_the_window(check_endpoint: Start) -> None:
    provider = _provider("aging", check_endpoint(rubber_stamp).url)
    canary_round_run(provider=provider, cases=8)
    from datetime import timedelta

    from django.utils import timezone

    CanaryCase.objects.filter(pk__in=CanaryCase.objects.filter(provider=provider).values("pk")[:5]).update(
        sent_at=timezone.now() - timedelta(days=40)
    )
    assert provider_accuracy_refresh(provider=provider).cases == 3


def test_it_parses_the_outcome_vocabulary() -> None:
    assert canary_answer_parse(content=b'{"verdict": "hold", "confidence": 0.25}') == ("UNCERTAIN", 0.25)
    assert canary_answer_parse(content=b'{"verdict": "DISSENT"}') == ("UNCERTAIN", None)
    with pytest.raises(ValueError, match="confidence"):
        canary_answer_parse(content=b'{"verdict": "ALLOW", "confidence": NaN}')
    with pytest.raises(ValueError, match="confidence"):
        canary_answer_parse(content=b'{"verdict": "ALLOW", "confidence": true}')


def test_it_publishes_the_rates_in_the_api_the_page_and_the_admin(check_endpoint: Start) -> None:
    provider = _provider("public", check_endpoint(rubber_stamp).url)
    unmeasured = _provider("unmeasured", "")
    canary_round_run(provider=provider, cases=12)
    accuracy = ProviderAccuracy.objects.get(provider=provider)

    body = APIClient().get("/api/v1/providers/public").json()
    assert body["accuracy"]["cases"] == 12
    assert body["accuracy"]["falseNegatives"] == accuracy.false_negatives
    assert body["accuracy"]["falseNegativeInterval"] == [
        accuracy.false_negative_low,
        accuracy.false_negative_high,
    ]
    assert APIClient().get(f"/api/v1/providers/{unmeasured.slug}").json()["accuracy"] is None
    listed = {p["slug"]: p["accuracy"] for p in APIClient().get("/api/v1/providers").json()["results"]}
    assert listed["public"]["cases"] == 12 and listed["unmeasured"] is None

    page = Client().get("/providers/public").content.decode()
    assert (
        "Accuracy on canary cases" in page
        and f"{accuracy.false_negatives} of {accuracy.fabricated_answered}" in page
    )
    assert "Not measured" in Client().get("/providers/unmeasured").content.decode()

    staff = Client()
    staff.force_login(
        get_user_model().objects.create_superuser("auditor", "a@example.com", "pw-not-secret-123")
    )
    change = staff.get(f"/admin/registry/provider/{provider.pk}/change/").content.decode()
    assert "accuracy on canary cases" in change.lower() and accuracy.summary() in change
    cases = staff.get("/admin/canaries/canarycase/")
    assert cases.status_code == 200 and "public" in cases.content.decode()


def test_it_measures_the_in_repo_engine_in_process_like_any_provider(settings: Any) -> None:
    from verification.services.engine_provider import engine_provider

    engine = engine_provider()
    # It has no check endpoint: the beat still gives it a round, answered by the run verifier itself.
    assert canary_rounds_schedule.apply().get() == 1
    accuracy = ProviderAccuracy.objects.get(provider=engine)
    assert accuracy.cases == settings.CANARY_CASES_PER_ROUND and accuracy.failures == 0
    sent = canary_round_run(provider=engine, cases=30)
    assert {case.verdict for case in sent} <= {"ALLOW", "BLOCK", "UNCERTAIN"}
    accuracy.refresh_from_db()
    assert accuracy.false_positives <= 1
    assert (
        accuracy.false_negatives + accuracy.abstentions < sum(c.label == "fabricated" for c in sent) / 2 + 1
    )
    settings.CANARY_ENGINE = False
    assert canary_round_run(provider=engine, cases=3) == []
    assert canary_rounds_schedule.apply().get() == 0
