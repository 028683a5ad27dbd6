"""What the registry tells the apps built on it, so it never imports them (import-linter holds that).

`registry` is the floor the other apps stand on: it cannot call up into `webhooks` or `attestations`.
Where a change here must reach them, the registry sends one of these signals and the app that cares
connects a receiver in its AppConfig.ready:

- `score_changes`: new scores were stored, sent inside the storing transaction with
  `changes=[ScoreChange, ...]` (webhooks writes its outbox rows in that same transaction, so a
  rolled-back score sends nothing).
- `provider_suspended`: a provider was suspended, sent inside the suspending transaction with
  `provider=` and `reason=` (webhooks emits provider.suspended).
- `agent_page_shown`: the public agent page is being rendered; each receiver returns a dict of
  template context for `agent=` (attestations adds the agent's ERC-8004 registration file, chain
  feedback and on-chain publications).

Receivers run synchronously (`send`, not `send_robust`): an error in one fails the caller's
transaction, as a direct call did.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.dispatch import Signal

score_changes = Signal()
provider_suspended = Signal()
agent_page_shown = Signal()


@dataclass(frozen=True)
class ScoreChange:
    """One agent's new score against the one it replaces (None: the agent had no score)."""

    agent_id: int
    subject_id: str
    previous_score: Decimal | None
    previous_rated: bool | None
    trust_score: Decimal
    trust_confidence: Decimal
    rated: bool
    computed_at: datetime


def agent_page_context(*, agent: Any) -> dict[str, Any]:
    """The template context the apps built on the registry add to an agent's page."""
    context: dict[str, Any] = {}
    for _receiver, extra in agent_page_shown.send(sender=type(agent), agent=agent):
        if isinstance(extra, dict):  # a receiver with nothing to add may answer None
            context.update(extra)
    return context
