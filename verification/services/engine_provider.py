"""The in-repo engine reports into the registry like any other provider (SPEC section 4.3).

Every verification the engine makes for an agent becomes one outcome of the engine's own
Provider: accept/emit -> ALLOW, flag/revise -> UNCERTAIN, block -> BLOCK, with the confidence in
the verdict and a stake level. Outcomes roll up into the engine's windowed summary of the agent and
so into its trust score, through the same pipeline external providers use.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from registry.models import Agent, CheckOutcome, Provider
from registry.services.agents import agents_resolve
from registry.services.outcomes import outcomes_record, outcomes_summarise
from registry.services.providers import provider_create
from registry.services.transactions import transaction_run_retrying
from registry.services.validation import NormalisedOutcome

ENGINE_SLUG = "trust-registry-engine"
ENGINE_NAME = "Trust registry verification engine"

VERDICT_TO_OUTCOME = {
    "accept": "ALLOW",
    "emit": "ALLOW",
    "flag": "UNCERTAIN",
    "revise": "UNCERTAIN",
    "block": "BLOCK",
}


def engine_provider() -> Provider:
    """The engine's Provider row, created on first use."""
    provider = Provider.objects.filter(slug=ENGINE_SLUG).first()
    if provider is not None:
        return provider
    provider, _ = provider_create(
        name=ENGINE_NAME,
        slug=ENGINE_SLUG,
        methodology_url=f"{settings.SITE_URL}/docs/tool-verification",
        independence_statement=(
            "Operated by the registry itself; it verifies agents' tool results and runs and is owned by "
            "no agent operator."
        ),
        with_key=False,
    )
    return provider


def engine_outcome_record(
    *,
    agent: str,
    verification_id: str,
    verdict: str,
    confidence: float,
    stake: str,
    checked_at: datetime | None = None,
) -> dict[str, Any]:
    """Record one verification as the engine's outcome for `agent` (a subject id)."""
    if verdict not in VERDICT_TO_OUTCOME:
        raise ValueError(f"verdict must be one of {sorted(VERDICT_TO_OUTCOME)}, got {verdict!r}")
    outcome = NormalisedOutcome(
        outcome_id=verification_id,
        verdict=VERDICT_TO_OUTCOME[verdict],
        reported_verdict=VERDICT_TO_OUTCOME[verdict],
        confidence=max(0.0, min(1.0, float(confidence))),
        stake=stake,
        checked_at=checked_at or timezone.now(),
    )
    provider = engine_provider()

    def record() -> dict[str, Any]:
        # The typed service: no JSON body to fabricate and validate again. An unknown subject id is
        # registered (or refused) as for any provider, in the same transaction as the outcome.
        subject = agents_resolve(subject_ids=[(agent, None, None, "/agent")])[agent]
        return outcomes_record(provider=provider, agent=subject, outcomes=[outcome]).to_dict()

    return transaction_run_retrying(work=record)


def engine_stats(*, agent: Agent, window_days: int, now: datetime | None = None) -> dict[str, Any] | None:
    """The engine's HCS-25 output-verification signal for `agent` over the trailing window, or None."""
    now = now or timezone.now()
    provider = Provider.objects.filter(slug=ENGINE_SLUG).first()
    if provider is None:
        return None
    rows = list(
        CheckOutcome.objects.filter(
            provider=provider, agent=agent, checked_at__gt=now - timedelta(days=window_days)
        ).values_list("verdict", "confidence", "stake")
    )
    if not rows:
        return None
    body = outcomes_summarise(rows)
    body.update(
        {
            "windowDays": window_days,
            "updatedAt": now.isoformat().replace("+00:00", "Z"),
            "providers": [
                {
                    "id": ENGINE_SLUG,
                    "methodologyUrl": provider.methodology_url,
                    "checksContributed": body["totalChecks"],
                    **({"signerAddress": provider.signer_address} if provider.signer_address else {}),
                }
            ],
        }
    )
    return body
