"""Properties of the retry schedule and the receivers' verify helper."""

from __future__ import annotations

import random

import pytest
from django.test import override_settings
from hypothesis import given
from hypothesis import strategies as st

from provider_client.webhooks import WebhookVerificationError, sign_webhook, verify_webhook
from webhooks.services.deliveries import webhook_retry_delay

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


@given(attempt=st.integers(min_value=1, max_value=200), seed=st.integers(min_value=0, max_value=2**32))
@override_settings(WEBHOOK_BACKOFF_BASE_SECONDS=5.0, WEBHOOK_BACKOFF_MAX_SECONDS=3600.0)
def test_it_keeps_retry_delays_within_the_exponential_schedule(attempt, seed):
    ceiling = min(3600.0, 5.0 * 2 ** (attempt - 1))
    delay = webhook_retry_delay(attempt=attempt, rng=random.Random(seed))
    assert ceiling / 2 <= delay <= ceiling


@given(attempt=st.integers(min_value=1, max_value=30))
@override_settings(WEBHOOK_BACKOFF_BASE_SECONDS=5.0, WEBHOOK_BACKOFF_MAX_SECONDS=3600.0)
def test_it_never_shrinks_the_schedule_from_one_attempt_to_the_next(attempt):

    def lowest(n: int) -> float:
        return webhook_retry_delay(attempt=n, rng=_Zero())

    assert lowest(attempt + 1) >= lowest(attempt)


class _Zero(random.Random):
    def random(self) -> float:
        return 0.0


def test_it_spreads_retries_that_failed_together(settings):
    settings.WEBHOOK_BACKOFF_BASE_SECONDS = 5.0
    delays = {round(webhook_retry_delay(attempt=4, rng=random.Random(seed)), 3) for seed in range(50)}
    assert len(delays) > 40


def test_it_matches_the_standard_webhooks_test_vector():
    signature = sign_webhook(
        secret=SECRET,
        msg_id="msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp=1614265330,
        body=b'{"test": 2432232314}',
    )
    assert signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


@pytest.mark.parametrize("skew", [-301, 301, 10**6])
def test_it_refuses_a_stale_or_future_timestamp(skew):
    now = 1_700_000_000
    body = b"{}"
    headers = {
        "webhook-id": "msg_1",
        "webhook-timestamp": str(now + skew),
        "webhook-signature": sign_webhook(secret=SECRET, msg_id="msg_1", timestamp=now + skew, body=body),
    }
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret=SECRET, headers=headers, body=body, now=now)
    assert verify_webhook(secret=SECRET, headers=headers, body=body, now=now + skew) == {}


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"webhook-id": "msg_1", "webhook-timestamp": "soon", "webhook-signature": "v1,AAAA"},
        {"webhook-id": "msg_1", "webhook-timestamp": "1700000000"},
        {"webhook-id": "msg_1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,AAAA v2,BBBB"},
    ],
)
def test_it_refuses_missing_or_malformed_headers(headers):
    with pytest.raises(WebhookVerificationError):
        verify_webhook(secret=SECRET, headers=headers, body=b"{}", now=1_700_000_000)
