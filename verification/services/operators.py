"""Who an operator is and what it may do: links to agents, proven wallets, daily quotas, ownership.

The rule (docs/security.md): an operator acts only for agents it is linked to. A link is granted by
an admin, or follows from the chain: an `eip155:` agent (only the indexer creates those) whose
indexed owner is a wallet the operator proved it controls. Verifications naming any other agent are
refused with a 403 `forbidden` problem naming the `agent` field, so an operator cannot move a score
it does not own.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from eth_account import Account
from eth_account.messages import encode_defunct

from common.errors import ApplicationError, FieldError
from registry.models import Agent
from registry.services.agents import agents_resolve

from ..models import Operator, OperatorAgentLink, OperatorApiKey, OperatorDailyUsage, ToolProfileRecord
from .shadow import shadow_counters

ONCHAIN_PREFIX = "eip155:"
WALLET_CHALLENGE_SECONDS = 600


def operator_of(key: OperatorApiKey | None) -> Operator | None:
    return key.owner if key is not None else None


def operator_ensure_active(*, operator: Operator) -> None:
    """A suspended operator writes nothing, whichever of its keys it uses."""
    if not operator.is_active:
        raise ApplicationError(
            f"Operator {operator.name!r} is suspended; its requests are not accepted.",
            status=403,
            problem="forbidden",
        )


# --- links -----------------------------------------------------------------------------------------


def operator_agent_link_grant(
    *, operator: Operator, agent: Agent, granted_by: str, reason: str = ""
) -> OperatorAgentLink:
    """Link an operator to an agent (idempotent: an active link is returned as it is)."""
    existing = OperatorAgentLink.objects.filter(
        operator=operator, agent=agent, revoked_at__isnull=True
    ).first()
    if existing is not None:
        return existing
    try:
        with transaction.atomic():
            return OperatorAgentLink.objects.create(
                operator=operator, agent=agent, granted_by=granted_by, reason=reason
            )
    except IntegrityError:  # granted concurrently
        return OperatorAgentLink.objects.get(operator=operator, agent=agent, revoked_at__isnull=True)


def operator_agent_link_revoke(*, operator: Operator, agent: Agent, reason: str = "") -> int:
    """End the operator's active link to the agent; returns how many links ended (0 or 1)."""
    links = OperatorAgentLink.objects.filter(operator=operator, agent=agent, revoked_at__isnull=True)
    updates: dict[str, object] = {"revoked_at": timezone.now()}
    if reason:
        updates["reason"] = reason
    return links.update(**updates)


def operator_agents_resolve(*, operator: Operator | None, wanted: list[tuple[str, str]]) -> dict[str, Agent]:
    """The agents named by (subject id, JSON pointer), registering unknown ones as summaries do.

    Unknown agents go through the registry's own `agents_resolve`: with AUTO_REGISTER_AGENTS off they are
    a 400 `unknown-agent` naming every field, and `eip155:` subjects are never created (only the indexer
    does). An agent registered here is linked to the operator that named it first (its only claimant so
    far; an admin can revoke the link), so its next verifications count; every other operator still
    needs a link of its own.
    """
    with transaction.atomic():
        named = {s for s, _ in wanted}
        known = set(Agent.objects.filter(subject_id__in=named).values_list("subject_id", flat=True))
        agents = agents_resolve(subject_ids=[(s, None, None, pointer) for s, pointer in wanted])
        if operator is not None:
            for subject_id in sorted(set(agents) - known):
                operator_agent_link_grant(
                    operator=operator,
                    agent=agents[subject_id],
                    granted_by="auto-registration",
                    reason="registered by this operator's request naming it (AUTO_REGISTER_AGENTS)",
                )
    return agents


def _owns_on_chain(operator: Operator, agent: Agent) -> bool:
    # Only eip155: subjects carry chain facts: providers cannot create them or set owner fields, so
    # their owner_address is what the indexer read from the chain.
    return bool(
        agent.subject_id.startswith(ONCHAIN_PREFIX)
        and agent.owner_address
        and operator.wallet_address
        and operator.wallet_verified_at is not None
        and agent.owner_address.lower() == operator.wallet_address.lower()
    )


def operator_may_act_for(*, operator: Operator, agent: Agent) -> bool:
    if _owns_on_chain(operator, agent):
        return True
    return OperatorAgentLink.objects.filter(operator=operator, agent=agent, revoked_at__isnull=True).exists()


def operator_agent_authorize(*, operator: Operator, agent: Agent, pointer: str, name: str = "agent") -> None:
    """403 `forbidden` naming the agent field (`name` in the detail) unless the operator may act for it."""
    if not operator_may_act_for(operator=operator, agent=agent):
        raise ApplicationError(
            f"This operator is not linked to agent {agent.subject_id!r} ({name}); ask an admin for a "
            "link or prove the agent's on-chain owner wallet.",
            status=403,
            problem="forbidden",
            errors=[FieldError(pointer, "Not linked to this operator.")],
        )


# --- quotas ----------------------------------------------------------------------------------------


def _next_utc_midnight(now: datetime) -> datetime:
    return (now + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)


def operator_quota_consume(*, operator: Operator, count: int = 1, now: datetime | None = None) -> None:
    """Count `count` verifications against today's OPERATOR_DAILY_QUOTA (UTC days; 0 = unlimited).

    One conditional UPDATE does the check and the increment, so concurrent requests cannot both
    take the last unit.
    """
    quota = settings.OPERATOR_DAILY_QUOTA
    if quota <= 0:
        return
    now = now or timezone.now()
    day = now.astimezone(UTC).date()
    if count <= quota:
        for _ in range(2):
            taken = OperatorDailyUsage.objects.filter(
                operator=operator, day=day, count__lte=quota - count
            ).update(count=F("count") + count)
            if taken:
                return
            try:
                with transaction.atomic():
                    OperatorDailyUsage.objects.create(operator=operator, day=day, count=0)
            except IntegrityError:  # the row exists: the update above really was over quota
                break
    retry_after = max(1, int((_next_utc_midnight(now.astimezone(UTC)) - now).total_seconds()))
    raise ApplicationError(
        f"This operator's daily quota of {quota} verifications is used up; it resets at 00:00 UTC.",
        status=429,
        problem="rate-limited",
        headers={"Retry-After": str(retry_after)},
        extra={"quota": quota},
    )


# --- ownership -------------------------------------------------------------------------------------


def _forbidden(detail: str) -> ApplicationError:
    return ApplicationError(detail, status=403, problem="forbidden")


def tool_profile_authorize_edit(*, operator: Operator, record: ToolProfileRecord | None) -> None:
    """A profile is edited by the operator that created it; ownerless (older) profiles by admins only."""
    if record is None or record.pk is None:
        return
    if record.created_by_id != operator.pk:
        raise _forbidden(
            f"The profile of {record.tool_name!r} belongs to another operator (or only admins edit it)."
        )


# --- wallet proof ----------------------------------------------------------------------------------


def _challenge_message(operator: Operator, address: str, nonce: str) -> str:
    return (
        f"{settings.SITE_URL} operator wallet proof\n"
        f"Operator: {operator.pk}\nAddress: {address.lower()}\nNonce: {nonce}"
    )


def operator_wallet_challenge(*, operator: Operator, address: str) -> dict[str, str]:
    """A one-time message the wallet signs (EIP-191 personal_sign) to prove the operator controls it."""
    nonce = secrets.token_hex(16)
    expires = timezone.now() + timedelta(seconds=WALLET_CHALLENGE_SECONDS)
    Operator.objects.filter(pk=operator.pk).update(
        wallet_challenge=f"{address.lower()}:{nonce}", wallet_challenge_expires_at=expires
    )
    return {
        "address": address,
        "message": _challenge_message(operator, address, nonce),
        "expiresAt": expires.isoformat().replace("+00:00", "Z"),
    }


def operator_wallet_prove(*, operator: Operator, address: str, signature: str) -> Operator:
    """Record `address` as the operator's wallet when `signature` signs its pending challenge."""
    with transaction.atomic():
        current = Operator.objects.select_for_update().get(pk=operator.pk)
        pending_address, _, nonce = current.wallet_challenge.partition(":")
        if (
            not nonce
            or pending_address != address.lower()
            or current.wallet_challenge_expires_at is None
            or current.wallet_challenge_expires_at < timezone.now()
        ):
            raise ApplicationError(
                "No pending challenge for this address (or it expired): ask for a new one.",
                status=409,
                problem="conflict",
                errors=[FieldError("/address", "No pending challenge.")],
            )
        message = encode_defunct(text=_challenge_message(current, address, nonce))
        try:
            signer = Account.recover_message(message, signature=signature)
        except Exception:  # eth-account raises several types for malformed signatures
            signer = ""
        if signer.lower() != address.lower():
            raise ApplicationError(
                "The signature does not recover to this address.",
                errors=[FieldError("/signature", "Not a signature of the challenge by this address.")],
            )
        current.wallet_address = signer
        current.wallet_verified_at = timezone.now()
        current.wallet_challenge = ""  # used once
        current.wallet_challenge_expires_at = None
        current.save(
            update_fields=[
                "wallet_address",
                "wallet_verified_at",
                "wallet_challenge",
                "wallet_challenge_expires_at",
            ]
        )
    return current


def operator_summary(*, operator: Operator) -> dict[str, object]:
    """What GET /api/v1/operators/me answers: the operator and the agents it may act for."""
    links = OperatorAgentLink.objects.filter(operator=operator, revoked_at__isnull=True).select_related(
        "agent"
    )
    onchain = (
        Agent.objects.filter(
            subject_id__startswith=ONCHAIN_PREFIX, owner_address__iexact=operator.wallet_address
        ).values_list("subject_id", flat=True)
        if operator.wallet_address and operator.wallet_verified_at is not None
        else []
    )
    return {
        "id": operator.pk,
        "name": operator.name,
        "status": operator.status,
        "walletAddress": operator.wallet_address or None,
        "walletVerifiedAt": (
            operator.wallet_verified_at.isoformat().replace("+00:00", "Z")
            if operator.wallet_verified_at
            else None
        ),
        "linkedAgents": sorted({link.agent.subject_id for link in links} | set(onchain)),
        "dailyQuota": settings.OPERATOR_DAILY_QUOTA,
        "shadow": shadow_counters(operator=operator),
    }
