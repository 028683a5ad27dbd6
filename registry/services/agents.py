"""Agents: lookup and (optional) registration on first report."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import IntegrityError, transaction

from common.errors import ApplicationError, FieldError

from ..models import Agent, Provider


def agent_register(
    *,
    subject_id: str,
    registry: str = Agent.Registry.OTHER,
    protocol: str = "",
    name: str = "",
    owner_address: str = "",
    chain_id: int | None = None,
    erc8004_agent_id: int | None = None,
    auto_registered: bool = False,
) -> Agent:
    """Create an agent, or return the existing one with that subject id."""
    existing = Agent.objects.filter(subject_id=subject_id).first()
    if existing is not None:
        # Validating a copy of it would trip its own unique constraints (e.g. the on-chain id).
        return existing
    agent = Agent(
        subject_id=subject_id,
        registry=registry,
        protocol=protocol,
        name=name,
        owner_address=owner_address,
        chain_id=chain_id,
        erc8004_agent_id=erc8004_agent_id,
        auto_registered=auto_registered,
    )
    try:
        agent.full_clean()
    except ValidationError as exc:
        # A concurrent request registered it since the lookup above (full_clean's uniqueness check
        # sees its commit): that agent is the answer, not a 400 (issue 15's chaos run, two batches
        # naming the same new agent).
        raced = Agent.objects.filter(subject_id=subject_id).first()
        if raced is not None:
            return raced
        # The API validates formats first, so what is left is mostly a taken on-chain identity.
        conflict = NON_FIELD_ERRORS in exc.message_dict
        raise ApplicationError(
            f"Cannot register agent {subject_id!r}: {' '.join(exc.messages)}",
            status=409 if conflict else 400,
            problem="conflict" if conflict else "validation",
        ) from None
    try:
        with transaction.atomic():
            agent.save()
    except IntegrityError:
        return Agent.objects.get(subject_id=subject_id)
    return agent


# Subjects in the CAIP-10 eip155 namespace are ERC-8004 identities: only the chain indexer creates
# them, with the owner and agent id the chain says (providers could otherwise squat on them).
ONCHAIN_SUBJECT_PREFIX = "eip155:"
CHAIN_FACT_FIELDS = {
    "chainId": "chain_id",
    "erc8004AgentId": "erc8004_agent_id",
    "ownerAddress": "owner_address",
}


def is_onchain_subject(subject_id: str) -> bool:
    return subject_id[: len(ONCHAIN_SUBJECT_PREFIX)].lower() == ONCHAIN_SUBJECT_PREFIX


def _onchain_refused(pointer: str, subject_id: str) -> FieldError:
    return FieldError(
        pointer, f"{subject_id!r} is in the eip155 namespace: on-chain agents come only from the indexer."
    )


def agent_registration_authorize(*, provider: Provider, body: Any) -> None:
    """What a provider may register (checked on the request body, before its format).

    Providers name agents; they never set chain facts (`chainId`, `erc8004AgentId`, `ownerAddress`)
    or claim an `eip155:` subject, and a suspended provider registers nothing.
    """
    if not provider.is_active:
        raise ApplicationError(
            f"Provider {provider.slug!r} is suspended; it cannot register agents.",
            status=403,
            problem="provider-suspended",
        )
    if not isinstance(body, Mapping):
        return  # the format check names what is wrong
    errors = [
        FieldError(f"/{name}", "Set only from the chain by the indexer; providers cannot set it.")
        for name in CHAIN_FACT_FIELDS
        if name in body
    ]
    subject_id = body.get("subjectId")
    if isinstance(subject_id, str) and is_onchain_subject(subject_id):
        errors.append(_onchain_refused("/subjectId", subject_id))
    if errors:
        raise ApplicationError(
            "Providers cannot register on-chain identities.", status=400, problem="validation", errors=errors
        )


def agent_register_for_provider(*, provider: Provider, data: Mapping[str, Any]) -> tuple[Agent, bool]:
    """A provider registers an agent (POST /api/v1/agents); returns (agent, created)."""
    agent_registration_authorize(provider=provider, body=data)
    existed = Agent.objects.filter(subject_id=data["subjectId"]).exists()
    agent = agent_register(
        subject_id=data["subjectId"],
        name=data.get("name", ""),
        registry=data.get("registry", Agent.Registry.OTHER),
        protocol=data.get("protocol", ""),
    )
    return agent, not existed


def agents_resolve(
    *,
    subject_ids: Iterable[tuple[str, str | None, str | None, str]],
) -> dict[str, Agent]:
    """Map subject ids to agents, registering unknown ones when AUTO_REGISTER_AGENTS is on.

    `subject_ids` holds (subject id, registry hint, protocol hint, JSON pointer of the field).
    Unknown agents with auto-registration off are a 400 naming every offending field.
    """
    wanted = list(subject_ids)
    found = {a.subject_id: a for a in Agent.objects.filter(subject_id__in={s for s, _, _, _ in wanted})}
    missing = [(s, r, p, ptr) for s, r, p, ptr in wanted if s not in found]
    if not missing:
        return found
    onchain = [_onchain_refused(ptr, s) for s, _, _, ptr in missing if is_onchain_subject(s)]
    if onchain:
        raise ApplicationError(
            f"Unknown on-chain agent {missing[0][0]!r}: it is registered when the indexer sees it.",
            status=400,
            problem="unknown-agent",
            errors=onchain,
        )
    if not settings.AUTO_REGISTER_AGENTS:
        errors = [FieldError(ptr, f"Unknown agent {s!r}; register it first.") for s, _, _, ptr in missing]
        first = missing[0][0]
        raise ApplicationError(
            f"Unknown agent {first!r}: the registry does not auto-register agents.",
            status=400,
            problem="unknown-agent",
            errors=errors,
        )
    # In subject order: two batches registering the same new agents wait on each other's unique
    # index entries in one order, never in a cycle (a deadlock).
    for subject_id, registry, protocol, _ in sorted(missing, key=lambda item: item[0]):
        if subject_id not in found:
            found[subject_id] = agent_register(
                subject_id=subject_id,
                registry=registry or Agent.Registry.OTHER,
                protocol=protocol or "",
                auto_registered=True,
            )
    return found
