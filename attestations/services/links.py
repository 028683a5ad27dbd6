"""One agent on many chains: linking its identities (registry.AgentLink).

ERC-8004 is deployed on many networks, and an agent may register on several: each registration is its
own identity (`eip155:{chainId}:{identityRegistry}:{agentId}`), with its own feedback. Two identities are
the same agent when the chains and the files say so, and only when they have the same owner:

- **registration file**: the agent's registration file lists the other identity in `registrations`
  (ERC-8004's way to name an agent's other registrations), and both identities have the same owner;
- **same owner**: the owner has exactly one agent on each of the two chains (with several, nothing says
  which goes with which, and nothing is linked).

A link never joins identities with different owners, so nobody can attach their agent to someone else's
(or borrow another agent's feedback). Each group of linked identities has one primary, the earliest
registered; every other identity links to it. When an owner changes (a transfer), the agent's links
are worked out again.

Linked identities' ERC-8004 feedback is merged into each one's score (registry.services.scoring,
`feedback_merged_many`), so whenever a group changes every identity that was or is in it is rescored.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count

from registry.models import Agent, AgentLink
from registry.selectors import agent_identity_ids
from registry.services.recompute import recompute_mark


def _same_owner(a: Agent, b: Agent) -> bool:
    return bool(a.owner_address) and a.owner_address.lower() == b.owner_address.lower()


def _named_by_registration(agent: Agent) -> list[Agent]:
    others = (
        Agent.objects.filter(pk=agent.pk).values_list("registration__other_identities", flat=True).first()
    )
    if not others:
        return []
    return list(Agent.objects.filter(subject_id__in=[str(s) for s in others][:64]).exclude(pk=agent.pk))


def _sole_agents_of_owner(agent: Agent) -> list[Agent]:
    """The owner's agents on other chains, when the owner has exactly one agent per chain involved."""
    if not agent.owner_address or agent.chain_id is None:
        return []
    per_chain = dict(
        Agent.objects.filter(registry=Agent.Registry.ERC8004, owner_address__iexact=agent.owner_address)
        .exclude(chain_id=None)
        .values_list("chain_id")
        .annotate(n=Count("pk"))
        .values_list("chain_id", "n")
    )
    if per_chain.get(agent.chain_id) != 1:
        return []
    sole_chains = [chain for chain, n in per_chain.items() if n == 1 and chain != agent.chain_id]
    return list(
        Agent.objects.filter(
            registry=Agent.Registry.ERC8004,
            owner_address__iexact=agent.owner_address,
            chain_id__in=sole_chains,
        )
    )


@transaction.atomic
def agent_links_refresh(*, agent: Agent) -> list[AgentLink]:
    """Work out `agent`'s links again from its owner and registration file; returns its group's links.

    First drops any link of the agent's group whose two sides no longer share an owner (a transfer),
    then links the identities the rules find, and re-points the whole group at its earliest identity.
    When the group's members change, every identity of the old and the new group is queued for a
    rescore: their merged feedback changed. (A new primary alone changes nothing that is scored.)
    """
    before = agent_identity_ids(agent=agent)
    links = _links_refresh(agent=agent)
    after = agent_identity_ids(agent=agent)
    if before != after:
        recompute_mark(agent_ids=before | after)
    return links


def _links_refresh(*, agent: Agent) -> list[AgentLink]:
    agent.refresh_from_db()
    # A transfer breaks links: every link between identities of different owners goes.
    for link in AgentLink.objects.select_related("agent", "primary").filter(
        primary__in=agent_identity_ids(agent=agent)
    ):
        if not _same_owner(link.agent, link.primary):
            link.delete()
    found: dict[int, str] = {}
    for other in _named_by_registration(agent):
        if _same_owner(agent, other):
            found[other.pk] = AgentLink.Reason.REGISTRATION_FILE
    for other in _sole_agents_of_owner(agent):
        found.setdefault(other.pk, AgentLink.Reason.SAME_OWNER)
    members = agent_identity_ids(agent=agent)
    for other_id in found:
        members |= agent_identity_ids(agent=Agent.objects.get(pk=other_id))
    if len(members) == 1:
        return []
    kept = dict(AgentLink.objects.filter(agent_id__in=members).values_list("agent_id", "reason"))
    # The agent's own link says why it joined; every other identity keeps the reason it was linked for.
    own = (
        AgentLink.Reason.REGISTRATION_FILE
        if AgentLink.Reason.REGISTRATION_FILE in found.values()
        else AgentLink.Reason.SAME_OWNER
    )
    ordered = list(Agent.objects.filter(pk__in=members).order_by("created_at", "pk"))
    primary = ordered[0]
    AgentLink.objects.filter(agent=primary).delete()
    links = []
    for member in ordered[1:]:
        if member.pk == agent.pk:
            reason = own if found else kept.get(member.pk, own)
        else:
            reason = found.get(member.pk) or kept.get(member.pk) or own
        link, _ = AgentLink.objects.update_or_create(
            agent=member, defaults={"primary": primary, "reason": reason}
        )
        links.append(link)
    return links
