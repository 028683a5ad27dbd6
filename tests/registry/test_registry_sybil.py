"""Reviewer independence in the registry (SPEC 2.4): the owner and the agent's own provider wallets."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from registry.models import FeedbackEntry, Provider
from registry.services.agents import agent_register
from registry.services.scoring import trust_score_compute

pytestmark = pytest.mark.django_db

OWNER = "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01"
SIGNER = "0x1111111111111111111111111111111111111111"
OPERATOR = "0x2222222222222222222222222222222222222222"
WALLET = "0x3333333333333333333333333333333333333333"
HONEST = [f"0x{i + 0x30:040x}" for i in range(4)]


def test_it_gives_the_owner_the_agents_wallet_and_its_own_provider_wallets_no_standing(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    # The default configuration is the floor; the command leaves it in force.
    call_command("scoring_config_sybil_floor")
    agent = agent_register(subject_id="own-wallets", registry="erc-8004")
    agent.owner_address = OWNER
    agent.wallet_address = WALLET
    agent.save(update_fields=["owner_address", "wallet_address"])
    # Each reviewer also rated its own pair of other agents (an honest spread, not a co-rating ring).
    others = [agent_register(subject_id=f"elsewhere-{i}", registry="erc-8004") for i in range(9)]
    provider, _ = make_provider("self-run")
    provider.agent = agent
    provider.signer_address = SIGNER
    provider.save(update_fields=["agent", "signer_address"])
    sibling, _ = make_provider("same-owner")
    sibling.operator_address = OWNER.lower()
    sibling.signer_address = OPERATOR
    sibling.save(update_fields=["operator_address", "signer_address"])
    for index, address in enumerate([OWNER, SIGNER, OPERATOR, WALLET, *HONEST]):
        FeedbackEntry.objects.create(
            agent=agent, client_address=address, feedback_index=1, tag1="starred", value=100
        )
        for other in others[index : index + 2]:
            FeedbackEntry.objects.create(
                agent=other, client_address=address, feedback_index=1, tag1="starred", value=60 + index % 2
            )
    # Every reviewer rated elsewhere 200 days before it rated this agent: all are established wallets.
    FeedbackEntry.objects.exclude(agent=agent).update(created_at=timezone.now() - timedelta(days=200))
    score, _ = trust_score_compute(agent=agent)
    reviewers = score.record["provenance"]["reviewers"]
    standing = {s["reviewer"]: s for s in reviewers["standings"]}
    for address in (OWNER, SIGNER, OPERATOR, WALLET):
        assert (standing[address.lower()]["independent"], standing[address.lower()]["standing"]) == (False, 0)
    assert reviewers["clientAddresses"] == sorted(HONEST)
    assert all(standing[a]["independent"] and standing[a]["standing"] > 0.2 for a in HONEST)
    page = Client().get("/agents/own-wallets").content.decode()
    assert "Rating the raters: 4 of 8" in page
    assert f"<code>{SIGNER}</code>" in page
