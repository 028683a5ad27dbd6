"""Public web pages: an agent's trust score for people (marketplace users, auditors)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Exists, OuterRef
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

from common.errors import ApplicationError
from common.pagination import keyset_page
from common.throttling import throttle_page

from .api.filtersets import AGENT_ORDERINGS, DEFAULT_AGENT_ORDERING, AgentFilterSet, agent_keyset_ordering
from .models import Agent, Provider, TrustScore, VerificationSummary
from .selectors import (
    FULL_POWER_BLOCK_RATE,
    RUBBER_STAMP_BLOCK_RATE,
    agent_identities,
    provider_audit_stats,
    trust_score_explanation,
)
from .services.audit import CALIBRATION_WINDOW_DAYS
from .services.scoring import trust_score_compute
from .signals import agent_page_context

# The chart's drawing area in SVG user units; the SVG scales to its container's width.
CHART_WIDTH = 600
CHART_HEIGHT = 160
CHART_PAD = 24


@dataclass(frozen=True)
class ScoreChart:
    """A score-over-time line drawn on the server: no script, so the page's CSP stays strict."""

    points: str
    dots: list[tuple[float, float, TrustScore]]
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    pad: int = CHART_PAD


def score_chart(history: list[TrustScore]) -> ScoreChart | None:
    """The rated scores of `history` (oldest first) as SVG coordinates; None if fewer than two.

    Unrated records are left out: a 0 that means "no data" would draw a crash that never happened.
    """
    rated = [h for h in history if h.trust_confidence > 0]
    if len(rated) < 2:
        return None
    first, last = rated[0].computed_at, rated[-1].computed_at
    span = (last - first).total_seconds() or 1.0
    inner_w, inner_h = CHART_WIDTH - 2 * CHART_PAD, CHART_HEIGHT - 2 * CHART_PAD
    dots = []
    for h in rated:
        x = CHART_PAD + inner_w * (h.computed_at - first).total_seconds() / span
        y = CHART_PAD + inner_h * (1 - float(h.trust_score) / 100)
        dots.append((round(x, 1), round(y, 1), h))
    return ScoreChart(points=" ".join(f"{x},{y}" for x, y, _ in dots), dots=dots)


# One line per component for people reading the breakdown; the maths is on /docs/scoring.
COMPONENT_MEANINGS = {
    "output-verification.quality": (
        "How often independent verifiers let the agent's outputs through, weighted by their confidence, "
        "how much they block at all and the stakes checked; lowered when they disagree."
    ),
    "output-verification.coverage": "How many checks back the quality figure (full at about 300 checks).",
    "erc8004-feedback.rating": "The average on-chain ERC-8004 feedback rating.",
    "erc8004-feedback.volume": "How much on-chain feedback backs the rating (full at about 100 entries).",
    "erc8004-feedback.score": "No on-chain feedback yet (counts as 0 where the adapter applies).",
}
MODE_MEANINGS = {
    "universal": "applies to every agent; counts as 0 when it has nothing",
    "scoped": "applies to some registries or protocols; counts as 0 there when it has nothing",
    "conditional": "counts only when it has data",
}


@throttle_page
def agent_page(request: HttpRequest, subject_id: str) -> HttpResponse:
    agent = get_object_or_404(Agent.objects.select_related("latest_score__config"), subject_id=subject_id)
    score = agent.latest_score or trust_score_compute(agent=agent)[0]
    history = list(
        TrustScore.objects.filter(agent=agent).select_related("config").order_by("-computed_at", "-id")[:50]
    )
    record = score.record
    context = {
        "agent": agent,
        "score": score,
        "rated": score.trust_confidence > 0,
        "record": record,
        "adapters": [
            {
                **a,
                "modeMeaning": MODE_MEANINGS.get(a.get("contributionMode", ""), ""),
                "components": [
                    {**c, "meaning": COMPONENT_MEANINGS.get(c.get("key", ""), "")}
                    for c in a.get("components", [])
                ],
            }
            for a in record.get("breakdown", {}).get("adapters", [])
        ],
        # The HCS-25 v1.1 graph trace (computed for records stored before explanations existed).
        "trace": trust_score_explanation(score=score)["explanation"],
        # Reviewer standings (SPEC 2.4), when the configuration rates the raters; the first 100.
        "reviewers": _reviewers_shown(record.get("provenance", {}).get("reviewers")),
        "providers": record.get("provenance", {}).get("outputVerification", {}).get("providers", []),
        "excluded": record.get("provenance", {}).get("outputVerification", {}).get("excluded", []),
        "disagreement": record.get("provenance", {}).get("outputVerification", {}).get("disagreement"),
        # A provider whose discriminative power is this low blocks almost nothing (the admin's
        # rubber-stamp threshold, as a share of full power).
        "rubber_stamp_power": RUBBER_STAMP_BLOCK_RATE / FULL_POWER_BLOCK_RATE,
        "history": history[:20],
        "chart": score_chart(history[::-1]),
        "identities": agent_identities(agent=agent),
        # ERC-8004 (the owner's registration file, the chain's feedback, our publications): added by
        # the attestations app, which the registry does not import (registry/signals.py).
        **agent_page_context(agent=agent),
    }
    return render(request, "registry/agent.html", context)


def _reviewers_shown(reviewers: dict[str, Any] | None) -> dict[str, Any] | None:
    if not reviewers:
        return None
    return {**reviewers, "total": len(reviewers["standings"]), "standings": reviewers["standings"][:100]}


AGENTS_PER_PAGE = 25


@throttle_page
def agent_index(request: HttpRequest) -> HttpResponse:
    """The directory: the API's filters (search, registry, provider, score range, rated), its
    orderings and its cursor pages (registry/api/filtersets.py, common/pagination.py)."""
    base = Agent.objects.select_related("latest_score")
    filters = AgentFilterSet(request.GET or None, queryset=base)
    context: dict[str, Any] = {"filters": filters, "page": None, "registries": Agent.Registry.choices}
    if filters.is_bound and not filters.is_valid():
        return render(request, "registry/index.html", context, status=400)
    ordering_name = request.GET.get("ordering") or DEFAULT_AGENT_ORDERING
    try:
        page = keyset_page(
            filters.qs,
            ordering_name=ordering_name,
            ordering=agent_keyset_ordering(queryset=filters.qs, name=ordering_name),
            cursor=request.GET.get("cursor") or None,
            limit=AGENTS_PER_PAGE,
        )
    except ApplicationError as error:
        context["cursor_error"] = error.errors[0].detail if error.errors else error.detail
        return render(request, "registry/index.html", context, status=error.status)
    query = request.GET.copy()
    query.pop("cursor", None)
    context.update(
        {
            "page": page,
            "next_query": _with_cursor(query, page.next_cursor),
            "previous_query": _with_cursor(query, page.previous_cursor),
        }
    )
    return render(request, "registry/index.html", context)


def _with_cursor(query: QueryDict, cursor: str | None) -> str | None:
    """The directory's query string with `cursor` set, or None when there is no such page."""
    if cursor is None:
        return None
    linked = query.copy()
    linked["cursor"] = cursor
    return linked.urlencode()


PROVIDER_AGENTS_SHOWN = 50


@throttle_page
def provider_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A provider for people: methodology, status, its audit numbers and the agents it reports on.

    The audit numbers are the stored ones (registry.services.audit refreshes them), dated on the page.

    The collusion signals stay in the admin: they are leads for an auditor, not published findings.
    """
    provider = get_object_or_404(Provider, slug=slug)
    audit = provider_audit_stats(provider_ids=[provider.pk])[provider.pk]
    # The directory's provider filter and best-first ordering (a semi-join down one index).
    reported = VerificationSummary.objects.filter(agent=OuterRef("pk"), provider=provider)
    agents = (
        Agent.objects.filter(Exists(reported))
        .select_related("latest_score")
        .order_by(*AGENT_ORDERINGS[DEFAULT_AGENT_ORDERING].order_by())[:PROVIDER_AGENTS_SHOWN]
    )
    context = {
        "provider": provider,
        "audit": audit,
        "block_rate": "–" if audit.block_rate is None else f"{audit.block_rate:.2%}",
        "agents": agents,
        "shown": PROVIDER_AGENTS_SHOWN,
        "calibration_days": CALIBRATION_WINDOW_DAYS,
    }
    return render(request, "registry/provider.html", context)


# The methodology pages people reach from the agent pages and from providers' methodologyUrl (the
# engine provider points at /docs/tool-verification). Only these files are served, never a path
# taken from the request.
METHODOLOGY_DOCS = {
    "scoring": "scoring.md",
    "tool-verification": "tool-verification.md",
    "run-verification": "run-verification.md",
    "safety": "safety.md",
    "canaries": "canaries.md",
    "chain": "chain.md",
}
DOCS_DIR = Path(settings.BASE_DIR) / "docs"
_DOC_LINK = re.compile(
    r'href="(' + "|".join(re.escape(f) for f in METHODOLOGY_DOCS.values()) + r')(#[^"]*)?"'
)


@lru_cache(maxsize=len(METHODOLOGY_DOCS))
def methodology_html(slug: str) -> tuple[str, str]:
    """(title, body HTML) of one doc, rendered once per process; raw HTML in the source is escaped."""
    source = (DOCS_DIR / METHODOLOGY_DOCS[slug]).read_text(encoding="utf-8")
    title = next((line[2:].strip() for line in source.splitlines() if line.startswith("# ")), slug)
    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(source)
    # Links between the served docs stay on the site; other relative links point at nothing here.
    by_file = {f: s for s, f in METHODOLOGY_DOCS.items()}
    body = _DOC_LINK.sub(lambda m: f'href="/docs/{by_file[m.group(1)]}{m.group(2) or ""}"', body)
    return title, body


@throttle_page
def methodology_page(request: HttpRequest, slug: str) -> HttpResponse:
    if slug not in METHODOLOGY_DOCS:
        raise Http404("No such methodology page.")
    title, body = methodology_html(slug)
    # Safe to mark: rendered from our own docs/ with markdown-it's raw HTML switched off.
    context = {"title": title, "body": mark_safe(body), "pages": sorted(METHODOLOGY_DOCS)}
    return render(request, "registry/methodology.html", context)
