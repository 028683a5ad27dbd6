"""What this app adds to the registry's pages, through the registry's signals (registry/signals.py).

The registry cannot import this app; the agent page asks `agent_page_shown` for more context and
this receiver answers with the agent's ERC-8004 side.
"""

from __future__ import annotations

from typing import Any

from registry.models import Agent

from .selectors import agent_feedback_summarize, agent_publications_list, agent_registration_get


def agent_page_chain_context(*, agent: Agent, **_: Any) -> dict[str, Any]:
    """ERC-8004: the owner's registration file, the chain's feedback, our publications."""
    return {
        "registration": agent_registration_get(agent=agent),
        "feedback": agent_feedback_summarize(agent=agent),
        "publications": agent_publications_list(agent=agent),
    }
