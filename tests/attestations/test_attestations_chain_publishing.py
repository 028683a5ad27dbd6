"""Publishing trust scores as ERC-8004 feedback on anvil: content, exactly once under races and crashes."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from io import StringIO
from typing import Any

import pytest
import requests
import rfc8785
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client, override_settings
from django.utils import timezone
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_account.signers.local import LocalAccount
from eth_utils import keccak
from hexbytes import HexBytes
from rest_framework.test import APIClient
from web3 import Web3

from attestations.models import OutgoingStatus, ScorePublication
from attestations.services import outbox
from attestations.services.indexer import chain_index_run
from attestations.services.outbox import outgoing_claim
from attestations.services.publishing import score_publication_request, score_publication_send
from attestations.tasks import chain_index
from registry.models import Agent, TrustScore
from registry.services.scoring import trust_score_compute
from signing.chain.events import NewFeedback
from signing.chain.reputation import ReputationClient
from signing.chain.settings import ChainSettings
from signing.chain.tx import suggest_fees

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.chain, pytest.mark.usefixtures("weighted_mean_config")]


class WorkerDied(BaseException):
    """Stands for a worker killed mid-task: nothing in the service may catch it."""


@pytest.fixture
def onchain_score(
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> TrustScore:
    """An indexed on-chain agent with one rating, so its trust score is not 0."""
    agent_id = register_agent(new_account())
    transact(new_account(), reputation.build_give_feedback, agent_id, 87, 0, tag1="starred")
    with django_capture_on_commit_callbacks(execute=True):
        chain_index_run(chain=chain, w3=w3)
    agent = Agent.objects.get(erc8004_agent_id=agent_id)
    score, _ = trust_score_compute(agent=agent)
    assert score.trust_score > 0
    return score


def _sent_by(w3: Web3, account: LocalAccount) -> int:
    return int(w3.eth.get_transaction_count(account.address))


def _feedback_count(reputation: ReputationClient, score: TrustScore, account: LocalAccount) -> int:
    assert score.agent.erc8004_agent_id is not None
    return reputation.get_last_index(int(score.agent.erc8004_agent_id), account.address)


def test_it_publishes_the_score_times_100_with_tags_and_the_attestation_hash(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    sent = score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    assert sent.status == OutgoingStatus.CONFIRMED, sent.last_error
    agent_id = int(onchain_score.agent.erc8004_agent_id or 0)
    stored = reputation.read_feedback(agent_id, service_account.address, 1)
    assert stored.value == int(onchain_score.trust_score * 100)
    assert stored.value_decimals == 2
    assert (stored.tag1, stored.tag2) == (settings.CHAIN_FEEDBACK_TAG1, settings.CHAIN_FEEDBACK_TAG2)
    assert stored.tag1 == "hcs-25"

    receipt = w3.eth.get_transaction_receipt(HexBytes(sent.tx_hash))
    (event,) = [e for e in reputation.events_in(receipt) if isinstance(e, NewFeedback)]
    assert event.endpoint == f"{settings.SITE_URL}/api/v1/agents/{onchain_score.agent.subject_id}/trust-score"
    assert event.feedback_uri == f"{settings.SITE_URL}/api/v1/feedback/{sent.pk}"
    served = APIClient().get(event.feedback_uri.removeprefix(settings.SITE_URL))
    assert served.status_code == 200
    assert event.feedback_hash == "0x" + keccak(served.content).hex()

    listed = APIClient().get(f"/api/v1/agents/{onchain_score.agent.subject_id}/trust-score/publications")
    assert listed.status_code == 200
    (row,) = listed.json()["publications"]
    assert (row["status"], row["txHash"], row["value"]) == ("confirmed", sent.tx_hash, stored.value)


def test_it_lets_only_one_of_two_racing_claims_win(
    db: None, chain: ChainSettings, onchain_score: TrustScore
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    tokens = [outgoing_claim(model=ScorePublication, pk=publication.pk) for _ in range(2)]
    assert sum(token is not None for token in tokens) == 1


def test_it_sends_one_transaction_when_two_workers_race(
    transactional_db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    nonce_before = _sent_by(w3, service_account)
    barrier = threading.Barrier(2)
    results: list[str] = []
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            barrier.wait()
            row = score_publication_send(
                publication_id=publication.pk, chain=chain, w3=w3, signer=service_account
            )
            results.append(row.status)
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert _sent_by(w3, service_account) == nonce_before + 1
    assert _feedback_count(reputation, onchain_score, service_account) == 1
    assert ScorePublication.objects.get(pk=publication.pk).status == OutgoingStatus.CONFIRMED


@pytest.mark.parametrize("dies", ["before_broadcast", "after_broadcast", "before_receipt"])
def test_it_never_sends_twice_when_a_worker_dies_and_another_retries(
    dies: str,
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    nonce_before = _sent_by(w3, service_account)
    real_broadcast, real_wait = outbox._broadcast, outbox.wait_for_receipt

    def broadcast(w3: Web3, raw_hex: str) -> None:
        if dies == "before_broadcast":
            raise WorkerDied
        real_broadcast(w3, raw_hex)
        if dies == "after_broadcast":
            raise WorkerDied

    def wait(*args: Any, **kwargs: Any) -> Any:
        raise WorkerDied

    monkeypatch.setattr(outbox, "_broadcast", broadcast)
    if dies == "before_receipt":
        monkeypatch.setattr(outbox, "wait_for_receipt", wait)
    with pytest.raises(WorkerDied):
        score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    stored = ScorePublication.objects.get(pk=publication.pk)
    assert stored.tx_hash and stored.raw_transaction and stored.nonce == nonce_before

    monkeypatch.setattr(outbox, "_broadcast", real_broadcast)
    monkeypatch.setattr(outbox, "wait_for_receipt", real_wait)
    # While the dead worker's claim is within its lease, nobody else touches the row.
    held = score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    assert held.claim_token == stored.claim_token != ""
    assert held.status == stored.status != OutgoingStatus.CONFIRMED
    ScorePublication.objects.filter(pk=publication.pk).update(
        claimed_at=timezone.now() - timedelta(seconds=settings.CHAIN_CLAIM_LEASE_SECONDS + 1)
    )
    retried = score_publication_send(
        publication_id=publication.pk, chain=chain, w3=w3, signer=service_account
    )
    assert retried.status == OutgoingStatus.CONFIRMED, retried.last_error
    assert retried.tx_hash == stored.tx_hash
    assert _sent_by(w3, service_account) == nonce_before + 1
    assert _feedback_count(reputation, onchain_score, service_account) == 1
    # And a confirmed publication is never claimed again.
    again = score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    assert again.status == OutgoingStatus.CONFIRMED
    assert _sent_by(w3, service_account) == nonce_before + 1


def test_it_marks_a_publication_failed_when_the_registry_refuses_it(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    identity: Any,
    transact: Callable[..., Any],
    new_account: Callable[[], LocalAccount],
    reputation: ReputationClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    # The service owns this agent: the registry refuses self-feedback, so retrying is pointless.
    receipt = transact(service_account, identity.build_register, "ipfs://own")
    agent_id = identity.registered_agent_id(receipt)
    # Someone else rates it, so it has a score the registry is willing to sign.
    transact(new_account(), reputation.build_give_feedback, agent_id, 87, 0, tag1="starred")
    with django_capture_on_commit_callbacks(execute=True):
        chain_index_run(chain=chain, w3=w3)
    score, _ = trust_score_compute(agent=Agent.objects.get(erc8004_agent_id=agent_id))
    nonce_before = _sent_by(w3, service_account)
    publication = score_publication_request(score=score, chain=chain)
    sent = score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    assert sent.status == OutgoingStatus.FAILED
    assert "Self-feedback" in sent.last_error
    assert sent.nonce is None and _sent_by(w3, service_account) == nonce_before


def test_it_gives_concurrent_publications_of_one_sender_distinct_nonces(
    transactional_db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., Any],
) -> None:
    publications = []
    with override_settings(CHAIN_ENABLED=False):
        for _ in range(2):
            agent_id = register_agent(new_account())
            transact(new_account(), reputation.build_give_feedback, agent_id, 87, 0, tag1="starred")
            chain_index_run(chain=chain, w3=w3)
            score, _ = trust_score_compute(agent=Agent.objects.get(erc8004_agent_id=agent_id))
            publications.append(score_publication_request(score=score, chain=chain))
    nonce_before = _sent_by(w3, service_account)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def worker(publication_id: int) -> None:
        try:
            barrier.wait()
            score_publication_send(publication_id=publication_id, chain=chain, w3=w3, signer=service_account)
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(p.pk,)) for p in publications]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    rows = list(ScorePublication.objects.order_by("nonce"))
    assert [r.status for r in rows] == [OutgoingStatus.CONFIRMED] * 2
    assert [r.nonce for r in rows] == [nonce_before, nonce_before + 1]
    assert _sent_by(w3, service_account) == nonce_before + 2


def test_it_publishes_through_the_command_and_celery_when_the_chain_is_configured(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    reputation: ReputationClient,
    transact: Callable[..., Any],
    django_capture_on_commit_callbacks: Any,
) -> None:
    agent_id = register_agent(new_account())
    transact(new_account(), reputation.build_give_feedback, agent_id, 87, 0, tag1="starred")
    configured = {
        "CHAIN_ENABLED": True,
        "CHAIN_NETWORK": "local",
        "CHAIN_ID": chain.chain_id,
        "CHAIN_RPC_URL": chain.rpc_url,
        "CHAIN_IDENTITY_REGISTRY": chain.identity_registry,
        "CHAIN_REPUTATION_REGISTRY": chain.reputation_registry,
        "CHAIN_VALIDATION_REGISTRY": chain.validation_registry,
        "CHAIN_START_BLOCK": chain.start_block,
        "CHAIN_CONFIRMATIONS": 0,
    }
    with override_settings(CHAIN_ENABLED=False):
        assert chain_index.delay().get() is None
        with pytest.raises(CommandError, match="chain is off"):
            call_command("publish_score", "anything")
    with override_settings(**configured), django_capture_on_commit_callbacks(execute=True):
        indexed = chain_index.delay().get()
        assert indexed["new"] >= 1
        subject_id = Agent.objects.get(erc8004_agent_id=agent_id).subject_id
        out = StringIO()
        call_command("publish_score", subject_id, stdout=out)
    publication = ScorePublication.objects.get(agent__subject_id=subject_id)
    assert publication.status == OutgoingStatus.CONFIRMED, publication.last_error
    assert reputation.get_last_index(agent_id, service_account.address) == 1
    assert f"publication {publication.pk}" in out.getvalue()


def test_it_releases_the_claim_and_retries_after_a_node_error(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)

    def unreachable(w3: Web3, raw_hex: str) -> None:
        raise requests.exceptions.ConnectionError("node unreachable")

    monkeypatch.setattr(outbox, "_broadcast", unreachable)
    with pytest.raises(outbox.TransientChainError):
        score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    failed_once = ScorePublication.objects.get(pk=publication.pk)
    assert (failed_once.attempts, failed_once.claim_token) == (1, "")
    assert "node unreachable" in failed_once.last_error

    monkeypatch.undo()
    retried = score_publication_send(
        publication_id=publication.pk, chain=chain, w3=w3, signer=service_account
    )
    assert retried.status == OutgoingStatus.CONFIRMED
    assert retried.tx_hash == failed_once.tx_hash
    assert _feedback_count(reputation, onchain_score, service_account) == 1


def test_it_signs_again_only_when_its_nonce_was_taken_by_another_transaction(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)

    def died(w3: Web3, raw_hex: str) -> None:
        raise WorkerDied

    monkeypatch.setattr(outbox, "_broadcast", died)
    with pytest.raises(WorkerDied):
        score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    monkeypatch.undo()
    stored = ScorePublication.objects.get(pk=publication.pk)
    # Someone else spends that nonce (e.g. an operator using the same key by hand).
    w3.eth.send_raw_transaction(
        service_account.sign_transaction(
            {
                "to": service_account.address,
                "value": 0,
                "gas": 21000,
                "nonce": stored.nonce or 0,
                "chainId": chain.chain_id,
                **suggest_fees(w3).as_params(),
            }
        ).raw_transaction
    )
    ScorePublication.objects.filter(pk=publication.pk).update(
        claimed_at=timezone.now() - timedelta(seconds=settings.CHAIN_CLAIM_LEASE_SECONDS + 1)
    )
    retried = score_publication_send(
        publication_id=publication.pk, chain=chain, w3=w3, signer=service_account
    )
    assert retried.status == OutgoingStatus.CONFIRMED, retried.last_error
    assert retried.tx_hash != stored.tx_hash
    assert retried.nonce == (stored.nonce or 0) + 1
    assert _feedback_count(reputation, onchain_score, service_account) == 1


def test_it_auto_publishes_new_scores_that_moved_enough(
    db: None, chain: ChainSettings, onchain_score: TrustScore, django_capture_on_commit_callbacks: Any
) -> None:
    from django.test import override_settings

    from attestations.services.publishing import score_publications_auto_request

    assert score_publications_auto_request(chain=chain) == 0  # off by default
    with override_settings(
        CHAIN_AUTO_PUBLISH=True, CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS=0, CHAIN_AUTO_PUBLISH_MIN_CHANGE=1.0
    ):
        assert score_publications_auto_request(chain=chain) == 1
        # The same score is never published twice.
        assert score_publications_auto_request(chain=chain) == 0
    assert ScorePublication.objects.filter(score=onchain_score, chain_id=chain.chain_id).count() == 1
    with override_settings(CHAIN_AUTO_PUBLISH=True, CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS=3600):
        assert score_publications_auto_request(chain=chain) == 0


def test_it_refuses_to_publish_the_score_of_an_agent_that_is_not_rated(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    new_account: Callable[[], LocalAccount],
    register_agent: Callable[[LocalAccount], int],
    django_capture_on_commit_callbacks: Any,
) -> None:
    from django.test import override_settings

    from attestations.services.publishing import score_publications_auto_request
    from common.errors import ApplicationError

    agent_id = register_agent(new_account())
    with django_capture_on_commit_callbacks(execute=True):
        chain_index_run(chain=chain, w3=w3)
    score, _ = trust_score_compute(agent=Agent.objects.get(erc8004_agent_id=agent_id))
    assert score.trust_confidence == 0
    with pytest.raises(ApplicationError) as refused:
        score_publication_request(score=score, chain=chain)
    assert refused.value.status == 409 and refused.value.problem == "not-rated"
    with override_settings(
        CHAIN_AUTO_PUBLISH=True, CHAIN_AUTO_PUBLISH_MIN_INTERVAL_SECONDS=0, CHAIN_AUTO_PUBLISH_MIN_CHANGE=0.0
    ):
        assert score_publications_auto_request(chain=chain) == 0
    assert not ScorePublication.objects.filter(score=score).exists()


def test_it_serves_at_the_feedback_uri_an_erc8004_feedback_file_carrying_the_signed_attestation(
    db: None,
    chain: ChainSettings,
    w3: Web3,
    service_account: LocalAccount,
    onchain_score: TrustScore,
    reputation: ReputationClient,
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    before = timezone.now().replace(microsecond=0)
    sent = score_publication_send(publication_id=publication.pk, chain=chain, w3=w3, signer=service_account)
    assert sent.status == OutgoingStatus.CONFIRMED, sent.last_error
    receipt = w3.eth.get_transaction_receipt(HexBytes(sent.tx_hash))
    (event,) = [e for e in reputation.events_in(receipt) if isinstance(e, NewFeedback)]

    served = APIClient().get(event.feedback_uri.removeprefix(settings.SITE_URL))
    assert served.status_code == 200
    assert served["Content-Type"] == "application/json"
    # The chain's hash is of the exact bytes served, and those bytes are canonical (RFC 8785).
    assert event.feedback_hash == "0x" + keccak(served.content).hex()
    file = json.loads(served.content)
    assert rfc8785.dumps(file) == served.content

    # Every field the ERC requires, each agreeing with the transaction and the chain.
    agent_id = int(onchain_score.agent.erc8004_agent_id or 0)
    assert file["agentRegistry"] == f"eip155:{chain.chain_id}:{chain.identity_registry}"
    assert file["agentId"] == agent_id == event.agent_id
    assert file["clientAddress"] == f"eip155:{chain.chain_id}:{service_account.address}"
    assert event.client_address.lower() == service_account.address.lower()
    created = datetime.strptime(file["createdAt"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    assert before <= created <= timezone.now()
    assert (file["value"], file["valueDecimals"]) == (event.value, event.value_decimals)
    assert (file["tag1"], file["tag2"], file["endpoint"]) == (event.tag1, event.tag2, event.endpoint)

    # The signed attestation inside checks out against this registry's signer and the score.
    attestation = file["attestation"]
    assert attestation["signer"] == service_account.address
    signer = Account.recover_message(
        encode_typed_data(full_message=attestation["typedData"]), signature=attestation["signature"]
    )
    assert signer == service_account.address
    assert attestation["typedData"]["message"]["score"] == event.value
    assert attestation["typedData"]["message"]["agentId"] == onchain_score.agent.subject_id

    # The agent page lists the publication with its transaction hash and the feedback file.
    page = Client().get(f"/agents/{onchain_score.agent.subject_id}").content.decode()
    assert sent.tx_hash in page and f'href="{event.feedback_uri}"' in page


def test_it_answers_404_for_a_feedback_file_that_was_never_prepared(
    db: None, chain: ChainSettings, onchain_score: TrustScore
) -> None:
    publication = score_publication_request(score=onchain_score, chain=chain)
    for path in (f"/api/v1/feedback/{publication.pk}", "/api/v1/feedback/999999"):
        answer = APIClient().get(path)
        assert answer.status_code == 404
        assert answer["Content-Type"].startswith("application/problem+json")
