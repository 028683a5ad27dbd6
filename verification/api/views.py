"""The engine as an HCS-25 provider: `GET /v1/stats/{agent_id}?window=Nd` (the reference endpoint)."""

from __future__ import annotations

import re

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.errors import ApplicationError, FieldError
from common.throttling import ReadThrottle
from registry.models import Agent
from registry.schemas import SIGNAL_SCHEMA

from ..services.engine_provider import engine_stats

WINDOW_RE = re.compile(r"^([1-9][0-9]{0,2})d$")
MAX_WINDOW_DAYS = 90


class EngineStatsView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="engine_stats",
        summary="The in-repo engine's output-verification signal for an agent (HCS-25 stats endpoint)",
        parameters=[
            OpenApiParameter(
                "window", OpenApiTypes.STR, OpenApiParameter.QUERY, description="e.g. 7d (1d to 90d)"
            )
        ],
        responses={200: OpenApiResponse(response=SIGNAL_SCHEMA), 404: PROBLEM, 400: PROBLEM},
        tags=["engine"],
    )
    def get(self, request: Request, agent_id: str) -> Response:
        raw = request.query_params.get("window", "7d")
        match = WINDOW_RE.match(raw)
        if match is None or int(match.group(1)) > MAX_WINDOW_DAYS:
            raise ApplicationError(
                f"window must look like 7d, from 1d to {MAX_WINDOW_DAYS}d; got {raw!r}.",
                errors=[FieldError("/window", "expected <days>d")],
            )
        agent = get_object_or_404(Agent, subject_id=agent_id)
        stats = engine_stats(agent=agent, window_days=int(match.group(1)))
        if stats is None:
            raise ApplicationError(
                "The engine has no verifications of this agent in that window.",
                status=404,
                problem="not-found",
            )
        return Response(stats)
