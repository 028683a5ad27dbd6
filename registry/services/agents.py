"""Agents: lookup and (optional) registration on first report."""

from __future__ import annotations

from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import IntegrityError, transaction

from common.errors import ApplicationError, FieldError

from ..models import Agent


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
    if not settings.AUTO_REGISTER_AGENTS:
        errors = [FieldError(ptr, f"Unknown agent {s!r}; register it first.") for s, _, _, ptr in missing]
        first = missing[0][0]
        raise ApplicationError(
            f"Unknown agent {first!r}: the registry does not auto-register agents.",
            status=400,
            problem="unknown-agent",
            errors=errors,
        )
    for subject_id, registry, protocol, _ in missing:
        if subject_id not in found:
            found[subject_id] = agent_register(
                subject_id=subject_id,
                registry=registry or Agent.Registry.OTHER,
                protocol=protocol or "",
                auto_registered=True,
            )
    return found
