"""The IdentityRegistry through IdentityClient against anvil."""

from __future__ import annotations

import pytest
from eth_account import Account
from web3 import Web3
from web3.exceptions import ContractLogicError

from signing.chain.deploy import deploy_contract
from signing.chain.events import MetadataSet, Registered, URIUpdated
from signing.chain.identity import AGENT_WALLET_KEY, MetadataEntry, sign_agent_wallet


def _now(w3: Web3) -> int:
    return int(w3.eth.get_block("latest")["timestamp"])


def test_it_numbers_agents_from_zero(identity, new_account, transact) -> None:
    first, second = new_account(), new_account()
    ids = [
        identity.registered_agent_id(transact(first, identity.build_register)),
        identity.registered_agent_id(
            transact(second, identity.build_register, "https://b.example/agent.json")
        ),
        identity.registered_agent_id(transact(first, identity.build_register, "ipfs://cid")),
    ]
    assert ids == [0, 1, 2]
    assert [identity.owner_of(agent_id) for agent_id in ids] == [first.address, second.address, first.address]
    assert identity.agent_uri(1) == "https://b.example/agent.json"
    assert identity.contract.functions.balanceOf(first.address).call() == 2
    assert identity.version() == "2.0.0"
    assert identity.contract.functions.name().call() == "AgentIdentity"
    assert identity.contract.functions.symbol().call() == "AGENT"


def test_it_emits_registered_and_metadata_events(identity, new_account, transact) -> None:
    owner = new_account()
    receipt = transact(owner, identity.build_register, "data:,{}", [MetadataEntry("agentName", b"alice")])
    events = identity.events_in(receipt)
    registered = [event for event in events if isinstance(event, Registered)]
    assert len(registered) == 1
    assert (registered[0].agent_id, registered[0].agent_uri, registered[0].owner) == (
        0,
        "data:,{}",
        owner.address,
    )
    assert registered[0].block_number == receipt["blockNumber"]
    metadata = {
        event.metadata_key: event.metadata_value for event in events if isinstance(event, MetadataSet)
    }
    assert metadata["agentName"] == b"alice"
    assert identity.metadata(0, "agentName") == b"alice"


def test_it_starts_the_agent_wallet_at_the_owner_and_clears_it_on_transfer(
    identity, new_account, transact
) -> None:
    owner, buyer = new_account(), new_account()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    assert identity.agent_wallet(agent_id) == owner.address
    transfer = identity.contract.functions.transferFrom(owner.address, buyer.address, agent_id)
    transact(owner, lambda **kw: identity.build_call(transfer, **kw))
    assert identity.owner_of(agent_id) == buyer.address
    assert identity.agent_wallet(agent_id) is None


def test_it_sets_the_agent_wallet_with_the_new_wallets_eip712_signature(
    w3, identity, new_account, transact
) -> None:
    owner = new_account()
    wallet = Account.create()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    deadline = _now(w3) + 120
    signature = sign_agent_wallet(
        wallet.key,
        chain_id=w3.eth.chain_id,
        registry=identity.address,
        agent_id=agent_id,
        owner=owner.address,
        deadline=deadline,
    )
    transact(owner, identity.build_set_agent_wallet, agent_id, wallet.address, deadline, signature)
    assert identity.agent_wallet(agent_id) == wallet.address
    assert identity.metadata(agent_id, AGENT_WALLET_KEY) == bytes.fromhex(wallet.address[2:])


@pytest.mark.parametrize("accepted", [True, False])
def test_it_accepts_an_erc1271_contract_wallet(
    w3, identity, new_account, transact, prepare, accepted
) -> None:
    owner, wallet_owner, stranger = new_account(), new_account(), new_account()
    wallet = deploy_contract(w3, owner, "ERC1271WalletMock", wallet_owner.address)
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    deadline = _now(w3) + 120
    signature = sign_agent_wallet(
        (wallet_owner if accepted else stranger).key,
        chain_id=w3.eth.chain_id,
        registry=identity.address,
        agent_id=agent_id,
        owner=owner.address,
        deadline=deadline,
        wallet=wallet,
    )
    if accepted:
        transact(owner, identity.build_set_agent_wallet, agent_id, wallet, deadline, signature)
        assert identity.agent_wallet(agent_id) == wallet
    else:
        with pytest.raises(ContractLogicError, match="invalid wallet signature"):
            prepare(owner, identity.build_set_agent_wallet, agent_id, wallet, deadline, signature)
        assert identity.agent_wallet(agent_id) == owner.address


@pytest.mark.parametrize("problem", ["other-signer", "other-owner", "expired", "too-far", "other-chain"])
def test_it_refuses_a_bad_agent_wallet_signature(
    w3, identity, new_account, transact, prepare, problem
) -> None:
    owner, stranger = new_account(), new_account()
    wallet = Account.create()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    deadline = {"expired": _now(w3) - 1, "too-far": _now(w3) + 301}.get(problem, _now(w3) + 120)
    signature = sign_agent_wallet(
        stranger.key if problem == "other-signer" else wallet.key,
        chain_id=1 if problem == "other-chain" else w3.eth.chain_id,
        registry=identity.address,
        agent_id=agent_id,
        owner=stranger.address if problem == "other-owner" else owner.address,
        deadline=deadline,
    )
    with pytest.raises(ContractLogicError):
        prepare(owner, identity.build_set_agent_wallet, agent_id, wallet.address, deadline, signature)
    assert identity.agent_wallet(agent_id) == owner.address


def test_it_reserves_the_agent_wallet_metadata_key(w3, identity, new_account, transact, prepare) -> None:
    owner = new_account()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register))
    with pytest.raises(ContractLogicError, match="reserved key"):
        prepare(owner, identity.build_set_metadata, agent_id, AGENT_WALLET_KEY, b"\x01" * 20)
    with pytest.raises(ContractLogicError, match="reserved key"):
        prepare(owner, identity.build_register, "x", [MetadataEntry(AGENT_WALLET_KEY, b"\x01" * 20)])
    transact(owner, identity.build_set_metadata, agent_id, "agentName", b"bob")
    assert identity.metadata(agent_id, "agentName") == b"bob"
    assert identity.agent_wallet(agent_id) == owner.address


def test_it_lets_only_the_owner_or_an_operator_change_the_uri(
    w3, identity, new_account, transact, prepare
) -> None:
    owner, operator, stranger = new_account(), new_account(), new_account()
    agent_id = identity.registered_agent_id(transact(owner, identity.build_register, "https://old.example"))
    with pytest.raises(ContractLogicError, match="not authorized"):
        prepare(stranger, identity.build_set_agent_uri, agent_id, "https://evil.example")
    approve = identity.contract.functions.setApprovalForAll(operator.address, True)
    transact(owner, lambda **kw: identity.build_call(approve, **kw))
    receipt = transact(operator, identity.build_set_agent_uri, agent_id, "https://new.example")
    [updated] = [event for event in identity.events_in(receipt) if isinstance(event, URIUpdated)]
    assert (updated.agent_id, updated.new_uri, updated.updated_by) == (
        agent_id,
        "https://new.example",
        operator.address,
    )
    assert identity.agent_uri(agent_id) == "https://new.example"


def test_it_reverts_reads_of_unknown_agents(identity) -> None:
    with pytest.raises(ContractLogicError, match="unknown agent"):
        identity.owner_of(99)
    assert identity.agent_wallet(99) is None
