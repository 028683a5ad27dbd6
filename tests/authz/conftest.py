"""Fixtures for the authorization tests: one of every principal (see authz_support)."""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator
from decimal import Decimal
from http.server import ThreadingHTTPServer
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import override_settings
from django.utils import timezone
from rest_framework.test import APIClient

from attestations.services.keys import service_key_reset
from registry.models import Provider
from registry.services.agents import agent_register
from registry.services.providers import provider_create, provider_set_status
from registry.services.scoring import trust_score_compute
from registry.services.summaries import summaries_ingest
from tests.authz.authz_support import (
    LINKED,
    SIGNING_KEY,
    TOOL,
    VICTIM,
    UpstreamModel,
    World,
    bearer,
    summary,
)
from verification.models import Operator, ToolVerification
from verification.services.engine_provider import engine_outcome_record
from verification.services.operators import operator_agent_link_grant
from verification.services.tools import operator_key_create, tool_engine_reset, tool_profile_save
from webhooks.services.subscriptions import webhook_subscription_create


@pytest.fixture(scope="session")
def upstream_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), UpstreamModel)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def world(
    db: None, upstream_url: str, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> Iterator[World]:
    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", SIGNING_KEY)
    service_key_reset()
    with override_settings(
        TOOL_ENGINE_NAMESPACE=f"authz-tools-{uuid.uuid4().hex}",
        RUN_PROXY_UPSTREAM_URL=upstream_url,
        RUN_PROBE_ENDPOINT="",
    ):
        tool_engine_reset()
        provider, provider_key = provider_create(name="Provider", slug="provider")
        suspended, suspended_key = provider_create(name="Suspended", slug="suspended")
        assert provider_key is not None and suspended_key is not None
        provider_set_status(provider=suspended, status=Provider.Status.SUSPENDED, reason="test")
        operator_key = operator_key_create(name="Linked operator")
        other_key = operator_key_create(name="Another operator")
        suspended_operator_key = operator_key_create(name="Suspended operator")
        Operator.objects.filter(pk=suspended_operator_key.record.owner_id).update(
            status=Operator.Status.SUSPENDED, status_changed_at=timezone.now()
        )
        linked = agent_register(subject_id=LINKED, name="Linked agent")
        victim = agent_register(subject_id=VICTIM, name="Victim agent")
        # The suspended operator was linked before its suspension: the link does not let it write.
        for key in (operator_key, suspended_operator_key):
            operator_agent_link_grant(operator=key.record.owner, agent=linked, granted_by="test")
        with django_capture_on_commit_callbacks(execute=True):
            summaries_ingest(provider=provider, bodies=[summary(LINKED), summary(VICTIM)])
            engine_outcome_record(
                agent=LINKED, verification_id="seed", verdict="accept", confidence=0.9, stake="low"
            )
        for agent in (linked, victim):
            trust_score_compute(agent=agent)
        tool_profile_save(
            tool_name=TOOL,
            data={"requiredFields": ["temperature"], "stake": "low"},
            actor="test",
            operator=operator_key.record.owner,
        )
        verification = ToolVerification.objects.create(
            operator=operator_key.record,
            tool=TOOL,
            verdict="accept",
            posterior=0.1,
            prior=0.1,
            confidence=0.9,
            tier_reached=1,
            signals={},
            explanation="seed",
            execution_time_ms=100.0,
        )
        subscription = webhook_subscription_create(
            operator=operator_key.record.owner,
            url="https://93.184.215.14/hook",
            events=["score.changed"],
            agents=[],
            min_change=Decimal(1),
        )
        attestation = APIClient().get(f"/api/v1/agents/{LINKED}/trust-score/attestation")
        assert attestation.status_code == 200, attestation.content
        attestation_id = int(attestation["Link"].split("/attestations/")[1].split(">")[0])
        admin = APIClient()
        admin.force_login(
            get_user_model().objects.create_superuser("authz-admin", "a@example.com", "pw-not-secret-123")
        )
        clients = {
            "anonymous": APIClient(),
            "provider": bearer(provider_key.plaintext),
            "suspended_provider": bearer(suspended_key.plaintext),
            "operator": bearer(operator_key.plaintext),
            "other_operator": bearer(other_key.plaintext),
            "suspended_operator": bearer(suspended_operator_key.plaintext),
            "admin": admin,
        }
        yield World(
            provider=provider,
            operator=operator_key.record.owner,
            other_operator=other_key.record.owner,
            operator_key=operator_key,
            other_operator_key=other_key,
            linked=linked,
            victim=victim,
            verification_id=str(verification.public_id),
            attestation_id=attestation_id,
            attestation=json.loads(attestation.content),
            clients=clients,
            webhook_subscription_id=subscription.pk,
        )
        tool_engine_reset(clear_state=True)
    service_key_reset()


@pytest.fixture
def client_for(world: World) -> Callable[[str], APIClient]:
    return lambda principal: world.clients[principal]
