"""Grant (or revoke) an operator's link to an agent: only linked operators' verifications count."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from registry.models import Agent
from verification.models import Operator, OperatorApiKey
from verification.services.operators import operator_agent_link_grant, operator_agent_link_revoke


def _operator(ref: str) -> Operator:
    """An operator by id, or by the prefix of one of its keys (tro_…, as `create_operator_key` prints)."""
    if ref.isdigit():
        found = Operator.objects.filter(pk=int(ref)).first()
    else:
        key = OperatorApiKey.objects.select_related("owner").filter(prefix=ref.rstrip("…")).first()
        found = key.owner if key is not None else None
    if found is None:
        raise CommandError(f"No operator {ref!r} (give its id or a key prefix like tro_AbCd1234).")
    return found


class Command(BaseCommand):
    help = "Link an operator to an agent (its verifications of the agent then count), or --revoke it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("operator", help="Operator id, or a prefix of one of its keys (tro_…)")
        parser.add_argument("agent", help="The agent's subject id")
        parser.add_argument("--reason", default="", help="Why (kept with the link)")
        parser.add_argument("--revoke", action="store_true", help="End the link instead of granting it")
        parser.add_argument("--by", default="command", help="Who grants it (kept with the link)")

    def handle(self, *args: Any, **options: Any) -> None:
        operator = _operator(options["operator"])
        agent = Agent.objects.filter(subject_id=options["agent"]).first()
        if agent is None:
            raise CommandError(f"No agent {options['agent']!r}.")
        if options["revoke"]:
            ended = operator_agent_link_revoke(operator=operator, agent=agent, reason=options["reason"])
            self.stdout.write(
                f"Revoked the link {operator.name} -> {agent.subject_id}."
                if ended
                else f"{operator.name} had no active link to {agent.subject_id}."
            )
            return
        link = operator_agent_link_grant(
            operator=operator, agent=agent, granted_by=options["by"], reason=options["reason"]
        )
        self.stdout.write(
            f"Linked {operator.name} (operator {operator.pk}) -> {agent.subject_id} (link {link.pk})."
        )
