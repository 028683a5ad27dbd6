"""Collusion and capture signals in the provider audit (stored by the audit refresh, then read)."""

from __future__ import annotations

from typing import Any

import pytest

from registry.models import Provider
from registry.selectors import provider_collusion_signals
from registry.services.agents import agent_register
from registry.services.audit import provider_audit_refresh
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest

OWNER = "0x" + "ab" * 20


def push(provider: Provider, agent: str, allow: float, block: float) -> None:
    body: dict[str, Any] = {
        "agent": agent, "allowRate": allow, "blockRate": block, "avgConfidence": 0.8, "totalChecks": 50,
    }  # fmt: skip
    summaries_ingest(provider=provider, bodies=[body])


@pytest.fixture
def agents(db: None) -> list[str]:
    names = [f"agent-c{i}" for i in range(6)]
    for index, name in enumerate(names):
        agent_register(subject_id=name, owner_address=OWNER if index < 5 else "")
    return names


def test_it_flags_a_provider_whose_agents_mostly_share_one_owner(agents: list[str]) -> None:
    captive, _ = provider_create(name="Captive", slug="captive")
    for name in agents:
        push(captive, name, 0.9, 0.1)
    provider_audit_refresh()  # the signals are stored, recomputed by the refresh
    signals = provider_collusion_signals(provider_ids=[captive.pk])[captive.pk]
    assert signals.owner_concentration == pytest.approx(5 / 6)
    assert signals.top_owner == OWNER
    assert any("belong to" in flag for flag in signals.flags)


def test_it_flags_providers_that_report_identical_rates(agents: list[str]) -> None:
    first, _ = provider_create(name="First", slug="first")
    copier, _ = provider_create(name="Copier", slug="copier")
    honest, _ = provider_create(name="Honest", slug="honest")
    for index, name in enumerate(agents):
        rate = 0.7 + index * 0.04
        push(first, name, rate, 1 - rate)
        push(copier, name, rate, 1 - rate)
        push(honest, name, rate - 0.05, 1 - rate + 0.05)
    provider_audit_refresh()  # the signals are stored, recomputed by the refresh
    signals = provider_collusion_signals(provider_ids=[first.pk, copier.pk, honest.pk])
    assert [slug for slug, _, _ in signals[copier.pk].copies] == ["first"]
    assert signals[honest.pk].copies == []


def test_it_flags_a_provider_far_more_lenient_than_its_peers(agents: list[str]) -> None:
    strict, _ = provider_create(name="Strict", slug="strict")
    lenient, _ = provider_create(name="Lenient", slug="lenient")
    for name in agents:
        push(strict, name, 0.6, 0.4)
        push(lenient, name, 0.99, 0.0)
    provider_audit_refresh()  # the signals are stored, recomputed by the refresh
    signals = provider_collusion_signals(provider_ids=[strict.pk, lenient.pk])
    assert signals[lenient.pk].leniency == pytest.approx(0.39)
    assert any("allows" in flag for flag in signals[lenient.pk].flags)
    assert not any("allows" in flag for flag in signals[strict.pk].flags)
