"""The on-chain verifier (contracts/src/TrustScoreVerifier.sol) against attestations the service signs.

Every attestation here comes from the API (GET …/trust-score/attestation) or the service's own issuing
function, signed by the service key; the contracts run on the session's anvil node.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.conf import settings
from django.utils import timezone
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_account.signers.local import LocalAccount
from eth_utils import keccak
from rest_framework.test import APIClient
from web3 import Web3
from web3.contract import Contract
from web3.exceptions import ContractCustomError

from attestations.services.keys import service_key_reset
from attestations.services.scores import score_attestation_issue
from registry.models import Agent
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from registry.services.summaries import summaries_ingest
from signing.chain.artifacts import load_artifact
from signing.chain.deploy import deploy_contract
from signing.chain.tx import next_nonce, send_transaction, suggest_fees, wait_for_receipt
from signing.chain.verifier import (
    AttestationRefused,
    TrustScoreVerifierClient,
    attestation_arguments,
    decode_custom_error,
    deploy_verifier,
)

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.chain, pytest.mark.usefixtures("weighted_mean_config")]

# Secp256k1 group order: (r, n - s, v ^ 1) is the malleable twin of a valid signature.
_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_ONE_HOUR = 3600


def _mine(w3: Web3) -> None:
    """A block at the wall clock, so calls at "latest" see the time the service just signed at (the node's
    own clock lags after evm_revert)."""
    latest = int(w3.eth.get_block("latest")["timestamp"])
    w3.provider.make_request("evm_mine", [max(latest + 1, int(time.time()) + 1)])  # type: ignore[arg-type]


@pytest.fixture
def rated_agents(db: None, django_capture_on_commit_callbacks: Any) -> list[str]:
    """Two agents rated from real summaries: a good one and a poor one (lower allow rate)."""
    provider, _ = provider_create(name="P", slug="p")
    rates = {"good-agent": (0.95, 0.05), "poor-agent": (0.4, 0.6)}
    for subject_id in rates:
        agent_register(subject_id=subject_id, registry="hcs-10")
    with django_capture_on_commit_callbacks(execute=True):
        summaries_ingest(
            provider=provider,
            bodies=[
                {
                    "agent": subject_id,
                    "allowRate": allow,
                    "blockRate": block,
                    "avgConfidence": 0.8,
                    "totalChecks": 200,
                }
                for subject_id, (allow, block) in rates.items()
            ],
        )
    return list(rates)


def _attestation(subject_id: str) -> dict[str, Any]:
    response = APIClient().get(f"/api/v1/agents/{subject_id}/trust-score/attestation")
    assert response.status_code == 200, response.content
    document: dict[str, Any] = response.json()
    return document


@pytest.fixture
def verifier(
    w3: Web3, service_account: LocalAccount, new_account: Callable[[], LocalAccount]
) -> Iterator[tuple[TrustScoreVerifierClient, LocalAccount]]:
    """A verifier built from what the registry publishes (its signer and EIP-712 domain); yields it and
    its owner."""
    published = APIClient().get("/api/v1/attestations/signer").json()
    assert published["signer"] == service_account.address
    domain = published["domain"]
    assert domain["chainId"] == settings.ATTESTATION_CHAIN_ID and "verifyingContract" not in domain
    owner = new_account()
    address = deploy_verifier(
        w3,
        owner,
        signers=[published["signer"]],
        chain_id=domain["chainId"],
        name=domain["name"],
        version=domain["version"],
    )
    yield TrustScoreVerifierClient(w3, address), owner


def _refusal(run: Callable[[], Any]) -> AttestationRefused:
    with pytest.raises(AttestationRefused) as caught:
        run()
    return caught.value


def _units(document: dict[str, Any]) -> int:
    return int(document["typedData"]["message"]["score"])


def test_it_hashes_the_attestation_as_eth_account_does(
    w3: Web3, verifier: tuple[TrustScoreVerifierClient, LocalAccount], rated_agents: list[str]
) -> None:
    client, _ = verifier
    document = _attestation(rated_agents[0])
    signable = encode_typed_data(full_message=document["typedData"])
    assert client.digest(document) == keccak(b"\x19" + signable.version + signable.header + signable.body)


def test_it_passes_a_service_signed_attestation_at_its_own_score_and_refuses_one_point_more(
    w3: Web3,
    service_account: LocalAccount,
    verifier: tuple[TrustScoreVerifierClient, LocalAccount],
    rated_agents: list[str],
) -> None:
    client, _ = verifier
    for subject_id in rated_agents:
        document = _attestation(subject_id)
        score = APIClient().get(f"/api/v1/agents/{subject_id}/trust-score").json()["trustScore"]
        assert _units(document) == round(score * 100)
        _mine(w3)
        assert client.require_min_score(document, min_score=_units(document), max_age=_ONE_HOUR) == (
            service_account.address
        )
        refused = _refusal(
            partial(client.require_min_score, document, min_score=_units(document) + 1, max_age=_ONE_HOUR)
        )
        assert refused == AttestationRefused("ScoreTooLow", (_units(document), _units(document) + 1))


@pytest.mark.parametrize(
    ("member", "change"),
    [
        ("agentId", lambda value: value + "x"),
        ("score", lambda value: value + 1),
        ("trustScoresDigest", lambda value: "0x" + "00" * 32),
        ("configVersion", lambda value: value + 1),
        ("inputsDigest", lambda value: "0x" + "ff" * 32),
        ("issuedAt", lambda value: value - 1),
        ("expiresAt", lambda value: value + 86_400),
    ],
)
def test_it_refuses_an_attestation_with_any_member_tampered(
    w3: Web3,
    service_account: LocalAccount,
    verifier: tuple[TrustScoreVerifierClient, LocalAccount],
    rated_agents: list[str],
    member: str,
    change: Callable[[Any], Any],
) -> None:
    client, _ = verifier
    document = _attestation(rated_agents[0])
    _mine(w3)
    client.require_min_score(document, min_score=0, max_age=_ONE_HOUR)
    message = document["typedData"]["message"]
    message[member] = change(message[member])
    refused = _refusal(lambda: client.require_min_score(document, min_score=0, max_age=_ONE_HOUR))
    assert refused.name == "UntrustedSigner"
    assert refused.arguments[0] != service_account.address


def test_it_refuses_malformed_and_malleable_signatures(
    w3: Web3, verifier: tuple[TrustScoreVerifierClient, LocalAccount], rated_agents: list[str]
) -> None:
    client, _ = verifier
    document = _attestation(rated_agents[0])
    _mine(w3)
    raw = bytes.fromhex(document["signature"].removeprefix("0x"))
    r, s, v = raw[:32], int.from_bytes(raw[32:64], "big"), raw[64]
    twin = r + (_SECP256K1_N - s).to_bytes(32, "big") + bytes([v ^ 1])
    bad_v = raw[:64] + bytes([v + 2])
    for signature in (raw[:64], raw + b"\x00", twin, bad_v, b"\x00" * 65):
        forged = {**document, "signature": "0x" + signature.hex()}
        refused = _refusal(partial(client.require_min_score, forged, min_score=0, max_age=_ONE_HOUR))
        assert refused.name == "InvalidSignature", signature.hex()


def test_it_refuses_another_signer_until_the_owner_trusts_it_and_the_old_one_after_revocation(
    w3: Web3,
    monkeypatch: pytest.MonkeyPatch,
    service_account: LocalAccount,
    verifier: tuple[TrustScoreVerifierClient, LocalAccount],
    new_account: Callable[[], LocalAccount],
    rated_agents: list[str],
) -> None:
    """Key rotation: a new service key's attestations pass once trusted; revoking the old key refuses
    its own."""
    client, owner = verifier
    old_document = _attestation(rated_agents[0])
    new_key: LocalAccount = Account.create()
    monkeypatch.setenv("TRUST_REGISTRY_SIGNING_KEY", "0x" + bytes(new_key.key).hex())
    service_key_reset()
    new_document = _attestation(rated_agents[1])
    assert new_document["signer"] == new_key.address
    _mine(w3)
    refused = _refusal(lambda: client.require_min_score(new_document, min_score=0, max_age=_ONE_HOUR))
    assert refused == AttestationRefused("UntrustedSigner", (new_key.address,))

    stranger = new_account()
    with pytest.raises(ContractCustomError) as caught:
        _send(w3, stranger, client.contract.functions.trustSigner(new_key.address))
    assert decode_custom_error(str(caught.value.data)).name == "NotOwner"

    _send(w3, owner, client.contract.functions.trustSigner(new_key.address))
    assert client.require_min_score(new_document, min_score=0, max_age=_ONE_HOUR) == new_key.address
    assert client.require_min_score(old_document, min_score=0, max_age=_ONE_HOUR) == service_account.address

    _send(w3, owner, client.contract.functions.revokeSigner(service_account.address))
    refused = _refusal(lambda: client.require_min_score(old_document, min_score=0, max_age=_ONE_HOUR))
    assert refused == AttestationRefused("UntrustedSigner", (service_account.address,))
    assert client.contract.functions.trustedSignerCount().call() == 1


def test_it_refuses_an_expired_attestation_and_one_older_than_max_age(
    w3: Web3, verifier: tuple[TrustScoreVerifierClient, LocalAccount], rated_agents: list[str]
) -> None:
    client, _ = verifier
    agent = Agent.objects.select_related("latest_score__config").get(subject_id=rated_agents[0])
    assert agent.latest_score is not None
    ttl = settings.ATTESTATION_TTL_SECONDS
    expired = score_attestation_issue(
        score=agent.latest_score, now=timezone.now() - timedelta(seconds=ttl + 60)
    )
    _mine(w3)
    refused = _refusal(
        lambda: client.require_min_score(_loads(expired.document), min_score=0, max_age=10 * ttl)
    )
    assert refused.name == "Expired"
    assert refused.arguments[0] == int(expired.expires_at.timestamp())

    aged = score_attestation_issue(score=agent.latest_score, now=timezone.now() - timedelta(seconds=600))
    document = _loads(aged.document)
    _mine(w3)
    assert client.require_min_score(document, min_score=0, max_age=_ONE_HOUR)
    refused = _refusal(lambda: client.require_min_score(document, min_score=0, max_age=300))
    assert (refused.name, refused.arguments[:2]) == ("TooOld", (int(aged.issued_at.timestamp()), 300))


def test_it_refuses_a_minimum_above_100_and_an_attestation_not_valid_yet(
    w3: Web3, verifier: tuple[TrustScoreVerifierClient, LocalAccount], rated_agents: list[str]
) -> None:
    client, _ = verifier
    document = _attestation(rated_agents[0])
    _mine(w3)
    refused = _refusal(lambda: client.require_min_score(document, min_score=10_001, max_age=_ONE_HOUR))
    assert refused == AttestationRefused("MinScoreOutOfRange", (10_001,))
    agent = Agent.objects.select_related("latest_score__config").get(subject_id=rated_agents[0])
    assert agent.latest_score is not None
    # A full TTL ahead, so the current attestation (fresh for that long) is not the one handed back.
    ahead = timezone.now() + timedelta(seconds=settings.ATTESTATION_TTL_SECONDS)
    future = score_attestation_issue(score=agent.latest_score, now=ahead)
    assert future.issued_at == ahead.replace(microsecond=0)
    refused = _refusal(
        lambda: client.require_min_score(_loads(future.document), min_score=0, max_age=_ONE_HOUR)
    )
    assert refused.name == "NotYetValid"


def test_it_never_gets_an_unrated_agent_signed(
    db: None, service_account: LocalAccount, rated_agents: list[str]
) -> None:
    """The typed data carries no confidence: the contract relies on the service refusing unrated agents."""
    agent_register(subject_id="unrated-agent", registry="hcs-10")
    response = APIClient().get("/api/v1/agents/unrated-agent/trust-score/attestation")
    assert response.status_code == 409
    assert response.json()["type"].endswith("not-rated")


def test_it_pays_through_the_escrow_only_for_the_right_agent_above_the_minimum(
    w3: Web3,
    verifier: tuple[TrustScoreVerifierClient, LocalAccount],
    new_account: Callable[[], LocalAccount],
    rated_agents: list[str],
) -> None:
    client, _ = verifier
    good, poor = (_attestation(subject_id) for subject_id in rated_agents)
    threshold = (_units(good) + _units(poor) + 1) // 2
    assert _units(poor) < threshold <= _units(good)
    payer, payee = new_account(), new_account()
    escrow = _deploy_escrow(w3, payer, client.address, threshold, _ONE_HOUR)
    amount = Web3.to_wei(1, "ether")

    deposits = []
    for subject_id in rated_agents:
        receipt = _send(w3, payer, escrow.functions.deposit(subject_id, payee.address), value=amount)
        (logged,) = escrow.events.Deposited().process_receipt(receipt)
        deposits.append(int(logged["args"]["depositId"]))
    _mine(w3)

    with pytest.raises(ContractCustomError) as caught:
        _send(w3, payee, escrow.functions.release(deposits[1], *attestation_arguments(poor)))
    assert decode_custom_error(str(caught.value.data)) == AttestationRefused(
        "ScoreTooLow", (_units(poor), threshold)
    )
    with pytest.raises(ContractCustomError) as caught:
        _send(w3, payee, escrow.functions.release(deposits[1], *attestation_arguments(good)))
    assert decode_custom_error(str(caught.value.data)).name == "AgentMismatch"

    before = w3.eth.get_balance(payee.address)
    receipt = _send(w3, payer, escrow.functions.release(deposits[0], *attestation_arguments(good)))
    assert w3.eth.get_balance(payee.address) - before == amount
    (released,) = escrow.events.Released().process_receipt(receipt)
    assert released["args"]["score"] == _units(good)
    print(f"\nTrustGatedEscrow.release gasUsed: {receipt['gasUsed']}")
    with pytest.raises(ContractCustomError) as caught:
        _send(w3, payer, escrow.functions.release(deposits[0], *attestation_arguments(good)))
    assert decode_custom_error(str(caught.value.data)).name == "UnknownDeposit"

    before = w3.eth.get_balance(escrow.address)
    _send(w3, payer, escrow.functions.refund(deposits[1]))
    assert before - w3.eth.get_balance(escrow.address) == amount


def test_it_checks_an_attestation_for_a_bounded_amount_of_gas(
    w3: Web3, verifier: tuple[TrustScoreVerifierClient, LocalAccount], rated_agents: list[str]
) -> None:
    """A cost bound, not a timing: gas is deterministic. The measured figures are in docs/chain.md."""
    client, _ = verifier
    document = _attestation(rated_agents[0])
    _mine(w3)
    gas = client.estimate_gas(document, min_score=0, max_age=_ONE_HOUR)
    print(f"\nrequireMinScore eth_estimateGas (agentId {rated_agents[0]!r}): {gas}")
    assert 21_000 < gas < 60_000


def _loads(document: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(document)
    return loaded


def _deploy_escrow(w3: Web3, deployer: LocalAccount, verifier: str, min_score: int, max_age: int) -> Contract:
    address = deploy_contract(w3, deployer, "TrustGatedEscrow", verifier, min_score, max_age)
    return w3.eth.contract(
        address=Web3.to_checksum_address(address), abi=load_artifact("TrustGatedEscrow").abi
    )


def _send(w3: Web3, account: LocalAccount, call: Any, *, value: int = 0) -> Any:
    """Send ``call`` from ``account`` with ``value`` wei; a revert raises ContractCustomError (estimate)."""
    fees = suggest_fees(w3)
    params: dict[str, Any] = {
        "from": account.address,
        "nonce": next_nonce(w3, account.address),
        "chainId": w3.eth.chain_id,
        "type": 2,
        "value": value,
        **fees.as_params(),
    }
    params["gas"] = call.estimate_gas(params) * 125 // 100
    return wait_for_receipt(w3, send_transaction(w3, account, call.build_transaction(params)))
