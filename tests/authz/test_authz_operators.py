"""Operators act only for agents they are linked to (issue 13, "High": an operator key moved any
agent's score with made-up runs), quotas, ownership of tool profiles and feedback, wallet proofs."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from eth_account import Account
from eth_account.messages import encode_defunct
from rest_framework.test import APIClient

from common.errors import ApplicationError
from registry.models import Agent, CheckOutcome
from registry.services.agents import agent_register
from tests.authz.authz_support import LINKED, TOOL, TOOLS, VICTIM, World, bearer, made_up_run
from verification.models import (
    HealthBaselineRecord,
    OperatorAgentLink,
    OperatorApiKey,
    RunVerification,
    ToolProfileRecord,
    ToolVerification,
)
from verification.services.engine_provider import ENGINE_SLUG
from verification.services.operators import operator_quota_consume
from verification.services.tools import operator_key_create, tool_profile_save

ATTACKS = 30


def _score(subject_id: str) -> Any:
    return APIClient().get(f"/api/v1/agents/{subject_id}/trust-score").json()["trustScore"]


def _engine_outcomes(subject_id: str) -> int:
    return CheckOutcome.objects.filter(provider__slug=ENGINE_SLUG, agent__subject_id=subject_id).count()


def _forbidden_naming(response: Any, pointer: str) -> None:
    assert response.status_code == 403, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["type"] == "/problems/forbidden"
    assert [e["pointer"] for e in problem["errors"]] == [pointer]


def test_it_leaves_a_victims_score_alone_under_the_issues_attack(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    attacker = world.clients["other_operator"]
    before = _score(VICTIM)
    with django_capture_on_commit_callbacks(execute=True):
        for index in range(ATTACKS):
            run = attacker.post(
                "/api/v1/verify/run",
                {"messages": made_up_run(), "tools": TOOLS, "agent": VICTIM},
                format="json",
            )
            _forbidden_naming(run, "/agent")
            call = attacker.post(
                "/api/v1/verify/tool-call",
                {"tool": TOOL, "result": {"humidity": index}, "executionTimeMs": 5, "agent": VICTIM},
                format="json",
            )
            _forbidden_naming(call, "/agent")
            proxied = attacker.post(
                "/v1/chat/completions",
                {"model": "m", "messages": made_up_run()[:3], "tools": TOOLS},
                format="json",
                headers={"x-agent-id": VICTIM},
            )
            assert proxied.status_code == 403 and "x-agent-id" in proxied.json()["detail"]
    assert _score(VICTIM) == before
    assert _engine_outcomes(VICTIM) == 0
    assert not RunVerification.objects.filter(agent__subject_id=VICTIM).exists()
    assert not ToolVerification.objects.filter(agent__subject_id=VICTIM).exists()


def test_it_names_every_unlinked_agent_of_a_batch(world: World) -> None:
    calls = [
        {"tool": TOOL, "result": {"temperature": 1}, "executionTimeMs": 5, "agent": LINKED},
        {"tool": TOOL, "result": {"temperature": 2}, "executionTimeMs": 5, "agent": VICTIM},
    ]
    response = world.clients["operator"].post("/api/v1/verify/tool-call", {"calls": calls}, format="json")
    _forbidden_naming(response, "/calls/1/agent")
    assert not ToolVerification.objects.filter(agent__subject_id=LINKED).exists()  # all or nothing


def test_it_counts_a_linked_operators_runs_and_stops_when_the_link_is_revoked(
    world: World, django_capture_on_commit_callbacks: Any
) -> None:
    operator = world.clients["operator"]
    body = {"messages": made_up_run(), "tools": TOOLS, "agent": LINKED}
    before = _engine_outcomes(LINKED)
    with django_capture_on_commit_callbacks(execute=True):
        assert operator.post("/api/v1/verify/run", body, format="json").status_code == 200
    assert _engine_outcomes(LINKED) == before + 1
    call_command("link_operator_agent", str(world.operator.pk), LINKED, "--revoke", "--reason", "test")
    _forbidden_naming(operator.post("/api/v1/verify/run", body, format="json"), "/agent")
    assert OperatorAgentLink.objects.get(operator=world.operator, agent=world.linked).reason == "test"


def test_it_grants_links_by_command_and_they_survive_key_rotation(world: World) -> None:
    body = {"messages": made_up_run(), "tools": TOOLS, "agent": VICTIM}
    _forbidden_naming(
        world.clients["other_operator"].post("/api/v1/verify/run", body, format="json"), "/agent"
    )
    call_command("link_operator_agent", world.other_operator_key.record.prefix, VICTIM, "--by", "ops")
    assert world.clients["other_operator"].post("/api/v1/verify/run", body, format="json").status_code == 200
    rotated = operator_key_create(name="Another operator, new key", owner=world.other_operator)
    OperatorApiKey.objects.filter(pk=world.other_operator_key.record.pk).update(revoked_at=datetime.now(UTC))
    assert bearer(rotated.plaintext).post("/api/v1/verify/run", body, format="json").status_code == 200
    assert world.clients["other_operator"].post("/api/v1/verify/run", body, format="json").status_code == 401


def test_it_keeps_runtime_baselines_to_linked_operators(world: World) -> None:
    url = f"/api/v1/agents/{VICTIM}/runtime-observations"
    response = world.clients["other_operator"].post(url, {"model": "m", "latencyMs": 5}, format="json")
    assert response.status_code == 403
    assert not HealthBaselineRecord.objects.filter(agent=world.victim).exists()


def test_it_refuses_unknown_agents_to_operators_without_auto_registration(
    world: World, settings: Any
) -> None:
    settings.AUTO_REGISTER_AGENTS = False
    operator = world.clients["operator"]
    run = operator.post(
        "/api/v1/verify/run", {"messages": made_up_run(), "agent": "agent-invented"}, format="json"
    )
    assert run.status_code == 400 and run.json()["type"] == "/problems/unknown-agent"
    assert [e["field"] for e in run.json()["errors"]] == ["agent"]
    observation = operator.post(
        "/api/v1/agents/agent-invented/runtime-observations", {"model": "m", "latencyMs": 5}, format="json"
    )
    assert observation.status_code == 404
    assert not Agent.objects.filter(subject_id="agent-invented").exists()


def test_it_registers_an_operators_unknown_agent_as_summaries_do_and_links_only_that_operator(
    world: World, settings: Any
) -> None:
    settings.AUTO_REGISTER_AGENTS = True
    operator, other = world.clients["operator"], world.clients["other_operator"]
    body = {"tool": TOOL, "result": {"ok": True}, "executionTimeMs": 10, "agent": "agent-invented"}
    first = operator.post("/api/v1/verify/tool-call", body, format="json")
    assert first.status_code == 200, first.content
    agent = Agent.objects.get(subject_id="agent-invented")
    assert agent.auto_registered is True
    links = OperatorAgentLink.objects.filter(agent=agent, revoked_at__isnull=True)
    assert [link.granted_by for link in links] == ["auto-registration"]
    # Another operator naming the same agent is not its claimant: no link, nothing counted.
    _forbidden_naming(other.post("/api/v1/verify/tool-call", body, format="json"), "/agent")
    run = other.post(
        "/api/v1/verify/run", {"messages": made_up_run(), "agent": "agent-invented"}, format="json"
    )
    _forbidden_naming(run, "/agent")
    observed = operator.post(
        "/api/v1/agents/agent-observed/runtime-observations", {"model": "m", "latencyMs": 5}, format="json"
    )
    assert observed.status_code == 200, observed.content
    assert Agent.objects.filter(subject_id="agent-observed", auto_registered=True).exists()
    # On-chain subjects are never created by anyone but the indexer.
    onchain = operator.post(
        "/api/v1/verify/run", {"messages": made_up_run(), "agent": ONCHAIN}, format="json"
    )
    assert onchain.status_code == 400 and onchain.json()["type"] == "/problems/unknown-agent"
    assert not Agent.objects.filter(subject_id=ONCHAIN).exists()


# --- on-chain ownership: a proven wallet -----------------------------------------------------------

WALLET = Account.from_key("0x" + "7b" * 32)
ONCHAIN = "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432:7"


def _prove(client: APIClient, account: Any = WALLET, signer: Any = WALLET) -> Any:
    challenge = client.post(
        "/api/v1/operators/me/wallet/challenge", {"address": account.address}, format="json"
    )
    assert challenge.status_code == 200, challenge.content
    signature = signer.sign_message(encode_defunct(text=challenge.json()["message"])).signature.hex()
    return client.post(
        "/api/v1/operators/me/wallet",
        {"address": account.address, "signature": "0x" + signature},
        format="json",
    )


def test_it_links_the_agents_a_proven_wallet_owns_on_chain(world: World) -> None:
    # As the indexer registers it: an eip155 subject with the owner the chain reported.
    agent_register(subject_id=ONCHAIN, registry="erc-8004", owner_address=WALLET.address, chain_id=8453)
    client = world.clients["other_operator"]
    body = {"messages": made_up_run(), "tools": TOOLS, "agent": ONCHAIN}
    _forbidden_naming(client.post("/api/v1/verify/run", body, format="json"), "/agent")
    proven = _prove(client)
    assert proven.status_code == 200, proven.content
    assert proven.json()["walletAddress"] == WALLET.address
    assert ONCHAIN in proven.json()["linkedAgents"]
    assert client.post("/api/v1/verify/run", body, format="json").status_code == 200


def test_it_refuses_a_wallet_proof_signed_by_someone_else_or_replayed(world: World) -> None:
    client = world.clients["other_operator"]
    forged = _prove(client, signer=Account.from_key("0x" + "7c" * 32))
    assert forged.status_code == 400 and forged.json()["errors"][0]["pointer"] == "/signature"
    first = client.post("/api/v1/operators/me/wallet/challenge", {"address": WALLET.address}, format="json")
    signature = WALLET.sign_message(encode_defunct(text=first.json()["message"])).signature.hex()
    proof = {"address": WALLET.address, "signature": "0x" + signature}
    assert client.post("/api/v1/operators/me/wallet", proof, format="json").status_code == 200
    assert client.post("/api/v1/operators/me/wallet", proof, format="json").status_code == 409  # used once


def test_it_ignores_owner_addresses_outside_the_eip155_namespace(world: World) -> None:
    """Only the indexer's agents carry chain facts; an owner on any other record proves nothing."""
    agent_register(subject_id="agent-claimed", owner_address=WALLET.address)
    client = world.clients["other_operator"]
    assert _prove(client).status_code == 200
    body = {"messages": made_up_run(), "agent": "agent-claimed"}
    _forbidden_naming(client.post("/api/v1/verify/run", body, format="json"), "/agent")


# --- quotas ----------------------------------------------------------------------------------------


def test_it_refuses_verifications_over_the_daily_quota_with_retry_after(world: World, settings: Any) -> None:
    settings.OPERATOR_DAILY_QUOTA = 3
    operator, other = world.clients["operator"], world.clients["other_operator"]
    for _ in range(2):
        assert operator.post("/api/v1/scan", {"text": "hi"}, format="json").status_code == 200
    batch = {"calls": [{"tool": TOOL, "result": {"temperature": n}, "executionTimeMs": 5} for n in range(2)]}
    over = operator.post("/api/v1/verify/tool-call", batch, format="json")  # 2 more than the 1 left
    assert over.status_code == 429, over.content
    assert over["Content-Type"].startswith("application/problem+json")
    assert 0 < int(over["Retry-After"]) <= 86_400
    assert operator.post("/api/v1/scan", {"text": "hi"}, format="json").status_code == 200
    assert operator.post("/api/v1/scan", {"text": "hi"}, format="json").status_code == 429
    assert other.post("/api/v1/scan", {"text": "hi"}, format="json").status_code == 200  # per operator


def test_it_resets_the_quota_at_midnight_utc_and_zero_means_unlimited(world: World, settings: Any) -> None:
    settings.OPERATOR_DAILY_QUOTA = 1
    late = datetime(2026, 11, 26, 23, 59, 30, tzinfo=UTC)
    operator_quota_consume(operator=world.operator, now=late)
    with pytest.raises(ApplicationError) as refused:
        operator_quota_consume(operator=world.operator, now=late)
    assert refused.value.status == 429 and refused.value.headers["Retry-After"] == "30"
    operator_quota_consume(operator=world.operator, now=datetime(2026, 11, 27, 0, 0, 1, tzinfo=UTC))
    settings.OPERATOR_DAILY_QUOTA = 0
    for _ in range(5):
        operator_quota_consume(operator=world.operator, now=late)


@pytest.mark.django_db(transaction=True)
def test_it_never_grants_more_than_the_quota_to_concurrent_requests(settings: Any) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrent writers need PostgreSQL")
    settings.OPERATOR_DAILY_QUOTA = 10
    owner = operator_key_create(name="Concurrent").record.owner

    def take(_: int) -> bool:
        try:
            operator_quota_consume(operator=owner)
            return True
        except ApplicationError:
            return False
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=8) as pool:
        granted = sum(pool.map(take, range(40)))
    assert granted == 10


# --- ownership: tool profiles and feedback ---------------------------------------------------------


def test_it_lets_only_a_profiles_creator_edit_it(world: World) -> None:
    other = world.clients["other_operator"]
    refused = other.put(f"/api/v1/tools/{TOOL}/profile", {"responsePatterns": ["x"]}, format="json")
    assert refused.status_code == 403 and refused.json()["type"] == "/problems/forbidden"
    assert ToolProfileRecord.objects.get(tool_name=TOOL).response_patterns == []
    assert other.put("/api/v1/tools/tool-other/profile", {"stake": "low"}, format="json").status_code == 200
    assert ToolProfileRecord.objects.get(tool_name="tool-other").created_by == world.other_operator
    edited = world.clients["operator"].put(f"/api/v1/tools/{TOOL}/profile", {"stake": "high"}, format="json")
    assert edited.status_code == 200 and edited.json()["stake"] == "high"


def test_it_leaves_profiles_without_an_owner_to_admins(world: World, client: Any) -> None:
    tool_profile_save(tool_name="tool-legacy", data={"stake": "low"}, actor="admin")  # no operator
    for principal in ("operator", "other_operator"):
        response = world.clients[principal].put(
            "/api/v1/tools/tool-legacy/profile", {"stake": "high"}, format="json"
        )
        assert response.status_code == 403
    record = tool_profile_save(tool_name="tool-legacy", data={"stake": "critical"}, actor="admin")
    assert record.stake == "critical"


def test_it_lets_only_the_verifying_operator_label_a_verification(world: World) -> None:
    url = f"/api/v1/verify/tool-call/{world.verification_id}/feedback"
    refused = world.clients["other_operator"].post(url, {"wasHallucination": True}, format="json")
    assert refused.status_code == 403 and refused.json()["type"] == "/problems/forbidden"
    assert ToolVerification.objects.get(public_id=world.verification_id).was_hallucination is None
    labelled = world.clients["operator"].post(url, {"wasHallucination": True}, format="json")
    assert labelled.status_code == 200, labelled.content
    assert ToolVerification.objects.get(public_id=world.verification_id).was_hallucination is True


def test_it_leaves_verifications_without_an_operator_to_admins(world: World) -> None:
    ToolVerification.objects.filter(public_id=world.verification_id).update(operator=None)
    url = f"/api/v1/verify/tool-call/{world.verification_id}/feedback"
    response = world.clients["operator"].post(url, {"wasHallucination": True}, format="json")
    assert response.status_code == 403


def test_it_refuses_every_write_of_a_suspended_operator(world: World) -> None:
    suspended = world.clients["suspended_operator"]
    writes: list[tuple[str, str, dict[str, Any]]] = [
        ("post", "/api/v1/verify/run", {"messages": made_up_run(), "agent": LINKED}),
        (
            "post",
            "/api/v1/verify/tool-call",
            {"tool": TOOL, "result": {"temperature": 1}, "executionTimeMs": 5},
        ),
        ("post", "/api/v1/scan", {"text": "hi"}),
        ("post", f"/api/v1/agents/{LINKED}/runtime-observations", {"model": "m", "latencyMs": 5}),
        ("put", "/api/v1/tools/tool-suspended/profile", {"stake": "low"}),
        ("post", f"/api/v1/verify/tool-call/{world.verification_id}/feedback", {"wasHallucination": True}),
        ("post", "/v1/chat/completions", {"model": "m", "messages": made_up_run()[:3]}),
        ("post", "/api/v1/operators/me/wallet/challenge", {"address": WALLET.address}),
    ]
    for method, url, body in writes:
        response = getattr(suspended, method)(url, body, format="json")
        assert response.status_code == 403, (url, response.content)
        assert response.json()["type"] == "/problems/forbidden"
    assert not RunVerification.objects.exists()
    assert not ToolProfileRecord.objects.filter(tool_name="tool-suspended").exists()
    assert not HealthBaselineRecord.objects.exists()


def test_it_shows_an_operator_its_links(world: World) -> None:
    me = world.clients["operator"].get("/api/v1/operators/me").json()
    assert me["linkedAgents"] == [LINKED] and me["status"] == "active"
    assert world.clients["other_operator"].get("/api/v1/operators/me").json()["linkedAgents"] == []


def test_it_issues_a_rotated_key_to_an_existing_operator_by_command(world: World) -> None:
    out = StringIO()
    call_command("create_operator_key", "--name", "rotated", "--operator", str(world.operator.pk), stdout=out)
    plaintext = out.getvalue().split(": ")[-1].strip()
    body = {"messages": made_up_run(), "tools": TOOLS, "agent": LINKED}
    assert bearer(plaintext).post("/api/v1/verify/run", body, format="json").status_code == 200
    assert OperatorApiKey.objects.filter(owner=world.operator).count() == 2


def test_it_lets_an_admin_hand_an_ownerless_profile_to_an_operator(world: World, admin_client: Any) -> None:
    record = tool_profile_save(tool_name="tool-legacy", data={"stake": "low"}, actor="admin")
    url = f"/admin/verification/toolprofilerecord/{record.pk}/change/"
    form = {
        "tool_name": "tool-legacy",
        "expected_latency_min_ms": "50",
        "expected_latency_max_ms": "30000",
        "required_fields": "[]",
        "forbidden_fields": "[]",
        "response_patterns": "[]",
        "likelihood_ratios": "{}",
        "has_network_io": "on",
        "stake": "low",
        "created_by": str(world.other_operator.pk),
    }
    assert admin_client.post(url, form).status_code == 302
    assert ToolProfileRecord.objects.get(pk=record.pk).created_by == world.other_operator
    response = world.clients["other_operator"].put(
        "/api/v1/tools/tool-legacy/profile", {"stake": "high"}, format="json"
    )
    assert response.status_code == 200


def test_it_answers_409_when_another_operator_creates_the_profile_first(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two operators creating one tool at once: the loser gets a conflict, never someone else's profile."""
    from verification.services import tools

    check = tools.tool_profile_authorize_edit

    def racing(*, operator: Any, record: Any) -> None:
        check(operator=operator, record=record)
        monkeypatch.setattr(tools, "tool_profile_authorize_edit", check)  # one competitor
        tool_profile_save(tool_name="tool-race", data={"stake": "low"}, operator=world.other_operator)

    monkeypatch.setattr(tools, "tool_profile_authorize_edit", racing)
    response = world.clients["operator"].put(
        "/api/v1/tools/tool-race/profile", {"stake": "high"}, format="json"
    )
    assert response.status_code == 409 and response.json()["type"] == "/problems/conflict"
    monkeypatch.undo()
    assert ToolProfileRecord.objects.get(tool_name="tool-race").created_by == world.other_operator


def test_it_lets_an_admin_grant_and_revoke_links_in_the_admin(world: World, admin_client: Any) -> None:
    assert (
        admin_client.get(f"/admin/verification/operator/{world.other_operator.pk}/change/").status_code == 200
    )
    added = admin_client.post(
        "/admin/verification/operatoragentlink/add/",
        {
            "operator": str(world.other_operator.pk),
            "agent": str(world.victim.pk),
            "reason": "support ticket 7",
        },
    )
    assert added.status_code == 302, added.content[:2000]
    link = OperatorAgentLink.objects.get(operator=world.other_operator, agent=world.victim)
    assert link.granted_by == "admin:admin" and link.revoked_at is None
    body = {"messages": made_up_run(), "tools": TOOLS, "agent": VICTIM}
    assert world.clients["other_operator"].post("/api/v1/verify/run", body, format="json").status_code == 200
    revoked = admin_client.post(
        "/admin/verification/operatoragentlink/",
        {"action": "revoke_links", "_selected_action": [str(link.pk)]},
    )
    assert revoked.status_code == 302
    _forbidden_naming(
        world.clients["other_operator"].post("/api/v1/verify/run", body, format="json"), "/agent"
    )
