"""Reviewer independence in the registry (SPEC 2.4): the owner and the agent's own provider wallets."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from registry.models import AgentLink, FeedbackEntry, Provider
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


def test_it_rates_the_reviewers_of_linked_identities_as_one_subject(
    make_provider: Callable[..., tuple[Provider, str]],
) -> None:
    call_command("scoring_config_sybil_floor")
    base = agent_register(
        subject_id="one-agent-base", registry="erc-8004", owner_address=OWNER, chain_id=8453
    )
    other = agent_register(
        subject_id="one-agent-sepolia", registry="erc-8004", owner_address=OWNER, chain_id=84532
    )
    AgentLink.objects.create(agent=other, primary=base, reason=AgentLink.Reason.SAME_OWNER)
    # The agent's own provider is registered as its identity on the other chain: its signer is not
    # independent of either identity.
    provider, _ = make_provider("self-run-elsewhere")
    provider.agent = other
    provider.signer_address = SIGNER
    provider.save(update_fields=["agent", "signer_address"])
    elsewhere = [agent_register(subject_id=f"rated-{i}", registry="erc-8004") for i in range(8)]
    for index, address in enumerate([SIGNER, *HONEST]):
        # Half the reviewers rated the identity on one chain, half the one on the other.
        rated = base if index % 2 else other
        FeedbackEntry.objects.create(
            agent=rated, client_address=address, feedback_index=1, tag1="starred", value=90
        )
        for spread in elsewhere[index : index + 2]:
            FeedbackEntry.objects.create(
                agent=spread, client_address=address, feedback_index=1, tag1="starred", value=70 + index % 2
            )
    # Established reviewers: seen on chain 200 days before they rated either identity (age is the
    # wallet's age when it first rated the subject).
    FeedbackEntry.objects.filter(agent__in=elsewhere).update(created_at=timezone.now() - timedelta(days=200))
    FeedbackEntry.objects.filter(agent__in=[base, other]).update(
        created_at=timezone.now() - timedelta(days=1)
    )
    for identity in (base, other):
        score, _ = trust_score_compute(agent=identity)
        reviewers = score.record["provenance"]["reviewers"]
        standing = {s["reviewer"]: s for s in reviewers["standings"]}
        assert set(standing) == {SIGNER.lower(), *HONEST}
        assert (standing[SIGNER.lower()]["independent"], standing[SIGNER.lower()]["standing"]) == (False, 0)
        assert reviewers["clientAddresses"] == sorted(HONEST)
        assert [i["count"] for i in score.record["provenance"]["feedbackIdentities"]] == [2, 3]
