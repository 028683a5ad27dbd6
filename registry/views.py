"""Public web pages: an agent's trust score for people (marketplace users, auditors)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from common.throttling import throttle_page

from .models import Agent, TrustScore
from .services.scoring import trust_score_compute


@throttle_page
def agent_page(request: HttpRequest, subject_id: str) -> HttpResponse:
    agent = get_object_or_404(Agent.objects.select_related("latest_score__config"), subject_id=subject_id)
    score = agent.latest_score or trust_score_compute(agent=agent)[0]
    history = TrustScore.objects.filter(agent=agent).order_by("-computed_at", "-id")[:20]
    record = score.record
    context = {
        "agent": agent,
        "score": score,
        "record": record,
        "adapters": record.get("breakdown", {}).get("adapters", []),
        "providers": record.get("provenance", {}).get("outputVerification", {}).get("providers", []),
        "excluded": record.get("provenance", {}).get("outputVerification", {}).get("excluded", []),
        "history": history,
    }
    return render(request, "registry/agent.html", context)


@throttle_page
def agent_index(request: HttpRequest) -> HttpResponse:
    agents = Agent.objects.filter(trust_score__isnull=False).order_by("-trust_score", "pk")[:100]
    return render(request, "registry/index.html", {"agents": agents})
