"""The pull collector: fetch summaries from providers that publish an HCS-25 stats endpoint.

For each agent, `GET {stats_endpoint}/v1/stats/{agent_id}?window=7d` answers an
output-verification signal. Each provider is collected in its own task, so one slow or broken
provider never holds up the others; within a provider, one agent's failure is counted and the
rest go on. A 404 means the provider has nothing on that agent.

The endpoint is a URL a provider gave us, so every request goes through untrusted.fetch: https only
(unless OUTBOUND_ALLOW_HTTP), no private, local or metadata addresses (unless OUTBOUND_ALLOW_PRIVATE),
checked again at connect time against the address connected to, no redirects, at most
PULL_MAX_BYTES read and PULL_TIMEOUT_SECONDS for the whole answer; the JSON is depth-bounded.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from django.conf import settings

from common.errors import ApplicationError
from signing.canonical import canonical_digest
from untrusted.fetch import OutboundFailed, OutboundRefused, fetch

from ..models import Agent, Provider, VerificationSummary
from .summaries import summaries_ingest

logger = logging.getLogger(__name__)


class TransientCollectError(Exception):
    """The provider's endpoint is unreachable as a whole; the task retries with backoff."""


@dataclass
class CollectReport:
    provider: str
    stored: int = 0
    unchanged: int = 0
    not_found: int = 0
    failed: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "stored": self.stored,
            "unchanged": self.unchanged,
            "notFound": self.not_found,
            "failed": self.failed,
        }


def stats_url(base: str, subject_id: str, window_days: int) -> str:
    """The reference endpoint's URL for one agent.

    >>> stats_url("https://p.example/api/", "agent:1", 7)
    'https://p.example/api/v1/stats/agent:1?window=7d'
    """
    return f"{base.rstrip('/')}/v1/stats/{quote(subject_id, safe=':@;=+.-_')}?window={window_days}d"


def provider_stats_collect(*, provider: Provider, window_days: int = 7) -> CollectReport:
    """Pull one provider's stats for every registered agent and store what changed."""
    report = CollectReport(provider=provider.slug)
    if not provider.stats_endpoint or not provider.is_active:
        return report
    connect_failures = 0
    agents = Agent.objects.order_by("pk").values_list("subject_id", flat=True)[
        : settings.PULL_MAX_AGENTS_PER_PROVIDER
    ]
    for subject_id in agents:
        url = stats_url(provider.stats_endpoint, subject_id, window_days)
        try:
            response = fetch(
                url,
                max_bytes=settings.PULL_MAX_BYTES,
                deadline_seconds=settings.PULL_TIMEOUT_SECONDS,
                allow_http=settings.OUTBOUND_ALLOW_HTTP,
                allow_private=settings.OUTBOUND_ALLOW_PRIVATE,
            )
        except OutboundRefused as exc:
            # The endpoint itself is not allowed (or redirects): every agent would get the same.
            report.failed[subject_id] = f"refused: {exc}"
            logger.warning("collector %s: endpoint refused: %s", provider.slug, exc)
            break
        except OutboundFailed as exc:
            connect_failures += 1
            report.failed[subject_id] = f"{type(exc).__name__}: {exc}"
            if connect_failures >= 3 and report.stored == 0 and report.unchanged == 0:
                raise TransientCollectError(f"{provider.slug}: endpoint unreachable ({exc})") from exc
            continue
        if response.status == 404:
            report.not_found += 1
            continue
        if response.status != 200:
            report.failed[subject_id] = f"HTTP {response.status}"
            continue
        try:
            payload = response.json()
        except ValueError:  # invalid JSON, or nested past untrusted.jsonbounds.MAX_DEPTH
            report.failed[subject_id] = "the answer is not JSON (or nests too deep)"
            continue
        if not isinstance(payload, dict):
            report.failed[subject_id] = "the answer is not a JSON object"
            continue
        body = {**payload, "agent": subject_id}
        body.setdefault("windowDays", window_days)
        if "updatedAt" not in body and _same_as_last_pull(provider, subject_id, body):
            # Without updatedAt every answer would open a new window; an unchanged one is no news.
            report.unchanged += 1
            continue
        try:
            status, _ = summaries_ingest(
                provider=provider, bodies=[body], source=VerificationSummary.Source.PULL
            )
        except ApplicationError as exc:
            report.failed[subject_id] = exc.detail
            continue
        if status == 201:
            report.stored += 1
        else:
            report.unchanged += 1
    if report.failed:
        logger.warning(
            "collector %s: %d agents failed: %s",
            provider.slug,
            len(report.failed),
            list(report.failed.items())[:5],
        )
    return report


def _same_as_last_pull(provider: Provider, subject_id: str, body: dict[str, Any]) -> bool:
    """Whether the provider's newest pulled summary of the agent has exactly this body."""
    last = (
        VerificationSummary.objects.filter(
            provider=provider, agent__subject_id=subject_id, source=VerificationSummary.Source.PULL
        )
        .order_by("-window_end", "-id")
        .values_list("body_digest", flat=True)
        .first()
    )
    return last == canonical_digest(body)
