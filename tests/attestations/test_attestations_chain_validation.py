"""Validation requests answered once with the score; providers' validation responses; agent-wallet checks."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings
from django.utils import timezone
from eth_account.signers.local import LocalAccount
from eth_utils import keccak
from rest_framework.test import APIClient
from web3 import Web3

from attestations.models import OutgoingStatus, ProviderWalletCheck, ValidationAnswer
from attestations.services.chain import chain_settings_from_django
from attestations.services.validation_responder import (
    validation_answer_send,
    validation_answers_resume,
    validation_response_value,
)
from attestations.services.wallets import provider_wallets_check
from registry.models import Agent, CheckOutcome
from registry.services.providers import provider_create
from registry.services.scoring import trust_score_compute
from signing.chain.events import ValidationResponse
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from signing.chain.validation import ValidationClient
from tests.chain_fixtures import index_with_tasks as _index
from tests.chain_fixtures import set_agent_wallet

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.chain, pytest.mark.usefixtures("weighted_mean_config")]


def _responses(w3: Web3, validation: ValidationClient, request_hash: str) -> list[ValidationResponse]:
    logs = w3.eth.get_logs({"address": validation.address, "fromBlock": 0, "toBlock": "latest"})
    decoded = [validation._decoder.decode(log) for log in logs]
    return [e for e in decoded if isinstance(e, ValidationResponse) and e.request_hash == request_hash]


def test_it_answers_a_validation_request_once_with_the_agents_score(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    validation: ValidationClient,
    reputation: ReputationClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = new_account()
    agent_id = register_agent(owner)
    # Rated by someone, so the registry has a score it is willing to sign.
    transact(new_account(), reputation.build_give_feedback, agent_id, 87, 0, tag1="starred")
    request_hash = "0x" + keccak(os.urandom(32)).hex()
    other_hash = "0x" + keccak(os.urandom(32)).hex()
    transact(
        owner,
        validation.build_validation_request,
        service_account.address,
        agent_id,
        "https://r",
        request_hash,
    )
    # A request for another validator is not ours to answer.
    transact(owner, validation.build_validation_request, owner.address, agent_id, "https://o", other_hash)
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)
    answer = ValidationAnswer.objects.get()
    assert answer.request_hash == request_hash
    assert int(answer.erc8004_agent_id) == agent_id

    sent = validation_answer_send(answer_id=answer.pk, chain=chain, w3=w3, signer=service_account)
    assert sent.status == OutgoingStatus.CONFIRMED, sent.last_error
    agent = Agent.objects.get(erc8004_agent_id=agent_id)
    assert agent.latest_score is not None
    status = validation.get_validation_status(request_hash)
    assert status.response == validation_response_value(agent.latest_score.trust_score)
    assert status.tag == "hcs-25"
    served = APIClient().get(f"/api/v1/attestations/{sent.attestation_id}")
    assert status.response_hash == "0x" + keccak(served.content).hex()

    # Sending again, a sweep, or re-reading the request: still exactly one response on chain.
    validation_answer_send(answer_id=answer.pk, chain=chain, w3=w3, signer=service_account)
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)
    assert ValidationAnswer.objects.count() == 1
    assert len(_responses(w3, validation, request_hash)) == 1


def test_it_defers_a_validation_request_about_an_unrated_agent_until_it_is_rated(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    validation: ValidationClient,
    reputation: ReputationClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner = new_account()
    agent_id = register_agent(owner)
    request_hash = "0x" + keccak(os.urandom(32)).hex()
    transact(
        owner,
        validation.build_validation_request,
        service_account.address,
        agent_id,
        "https://r",
        request_hash,
    )
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)
    answer = ValidationAnswer.objects.get()

    # Nobody rated the agent: no 0 is signed or sent, the answer waits, and no attempt is spent.
    for _ in range(3):
        deferred = validation_answer_send(answer_id=answer.pk, chain=chain, w3=w3, signer=service_account)
        assert (deferred.status, deferred.attempts) == (OutgoingStatus.DEFERRED, 0)
    assert deferred.attestation_id is None and deferred.response is None and not deferred.tx_hash
    assert _responses(w3, validation, request_hash) == []
    assert validation_answers_resume(chain=chain) == 0  # still unrated: stays deferred

    # Rated now (on-chain feedback, indexed and scored): the sweep hands it back and it is answered.
    transact(new_account(), reputation.build_give_feedback, agent_id, 64, 0, tag1="starred")
    _index(chain, w3, django_capture_on_commit_callbacks, validator=service_account.address)
    agent = Agent.objects.get(erc8004_agent_id=agent_id)
    trust_score_compute(agent=agent)
    agent.refresh_from_db()
    assert agent.latest_score is not None and agent.latest_score.trust_confidence > 0
    assert validation_answers_resume(chain=chain) == 1
    sent = validation_answer_send(answer_id=answer.pk, chain=chain, w3=w3, signer=service_account)
    assert sent.status == OutgoingStatus.CONFIRMED, sent.last_error
    status = validation.get_validation_status(request_hash)
    assert status.response == validation_response_value(agent.latest_score.trust_score)
    assert len(_responses(w3, validation, request_hash)) == 1


def test_it_records_a_registered_providers_validation_response_as_its_outcome(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    validation: ValidationClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, verifier = new_account(), new_account()
    provider, _ = provider_create(name="Verifier", slug="verifier", signer_address=verifier.address)
    agent_id = register_agent(owner)
    hashes = ["0x" + keccak(os.urandom(32)).hex() for _ in range(2)]
    for request_hash, response in zip(hashes, (90, 20), strict=True):
        transact(
            owner, validation.build_validation_request, verifier.address, agent_id, "https://r", request_hash
        )
        transact(verifier, validation.build_validation_response, request_hash, response, tag="quality")
    _index(chain, w3, django_capture_on_commit_callbacks)
    outcomes = {
        o.outcome_id.rsplit(":", 1)[1]: (o.verdict, o.confidence)
        for o in CheckOutcome.objects.filter(provider=provider)
    }
    assert outcomes == {hashes[0]: ("ALLOW", 0.9), hashes[1]: ("BLOCK", 0.8)}
    _index(chain, w3, django_capture_on_commit_callbacks)
    assert CheckOutcome.objects.filter(provider=provider).count() == 2


def test_it_flags_a_provider_whose_signer_is_no_longer_its_agents_wallet(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    identity: IdentityClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, signer, other = new_account(), new_account(), new_account()
    agent_id = register_agent(owner)
    set_agent_wallet(w3, identity, transact, owner, agent_id, signer)
    _index(chain, w3, django_capture_on_commit_callbacks)
    provider, _ = provider_create(name="Linked", slug="linked", signer_address=signer.address)
    provider.agent = Agent.objects.get(erc8004_agent_id=agent_id)
    provider.save(update_fields=["agent"])

    (check,) = provider_wallets_check(chain=chain, w3=w3)
    assert (check.matches, check.registered_wallet) == (True, signer.address)

    set_agent_wallet(w3, identity, transact, owner, agent_id, other)
    (check,) = provider_wallets_check(chain=chain, w3=w3)
    assert (check.matches, check.registered_wallet) == (False, other.address)
    assert ProviderWalletCheck.objects.get(provider=provider).matches is False


def test_it_builds_chain_settings_from_the_django_settings_block() -> None:
    with override_settings(
        CHAIN_ENABLED=True,
        CHAIN_NETWORK="base-sepolia",
        CHAIN_RPC_URL="https://sepolia.base.org",
        CHAIN_START_BLOCK=123,
        CHAIN_CONFIRMATIONS=None,
        CHAIN_VALIDATION_REGISTRY="0x8004Cb1BF31DAf7788923b405b754f57acEB4272",
    ):
        chain = chain_settings_from_django()
    assert (chain.enabled, chain.chain_id, chain.start_block) == (True, 84532, 123)
    assert chain.reputation_registry == "0x8004B663056A597Dffe9eCcC1965A193B7388713"
    assert chain.validation_registry == "0x8004Cb1BF31DAf7788923b405b754f57acEB4272"
    assert chain.confirmations == 12
    with override_settings(CHAIN_ENABLED=False):
        assert chain_settings_from_django().enabled is False


def test_it_shows_wallet_mismatches_and_chain_state_read_only_in_the_admin(admin_client: Any) -> None:
    checked = timezone.now()
    for slug, matches in (("drifted", False), ("steady", True)):
        provider, _ = provider_create(name=slug.title(), slug=slug, signer_address="0x" + "11" * 20)
        ProviderWalletCheck.objects.create(
            provider=provider,
            chain_id=8453,
            erc8004_agent_id=1,
            signer_address=provider.signer_address,
            registered_wallet="0x" + ("22" if not matches else "11") * 20,
            matches=matches,
            checked_at=checked,
        )
    page = admin_client.get("/admin/attestations/providerwalletcheck/?matches__exact=0")
    assert page.status_code == 200
    assert b"Drifted" in page.content and b"Steady" not in page.content
    for model in ("scorepublication", "validationanswer", "chaincursor", "chainevent", "scoreattestation"):
        assert admin_client.get(f"/admin/attestations/{model}/").status_code == 200
    assert admin_client.get("/admin/attestations/scorepublication/add/").status_code == 403
