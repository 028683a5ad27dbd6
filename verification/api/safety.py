"""REST for the safety engines: scan a text; post and read agents' runtime health."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.casing import camelize
from common.throttling import ReadThrottle
from registry.models import Agent

from ..authentication import IsOperator, OperatorKeyAuthentication, request_operator_key
from ..services.safety import (
    OBSERVATION_SCHEMA,
    SCAN_SCHEMA,
    agent_health,
    runtime_observation_agent,
    runtime_observation_record,
    text_scan,
)

OBJECT = OpenApiResponse(response={"type": "object"})


class ScanView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="scan_text",
        summary="Scan a text for prompt injection (9 categories), PII (redactable) and hallucination risk",
        request={"application/json": SCAN_SCHEMA},
        responses={200: OBJECT, 400: PROBLEM, 401: PROBLEM, 403: PROBLEM, 413: PROBLEM, 429: PROBLEM},
        tags=["engine"],
    )
    def post(self, request: Request) -> Response:
        return Response(camelize(text_scan(body=request.data, operator=request_operator_key(request))))


class RuntimeObservationView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="runtime_observation_create",
        summary="Report one model call (latency, tokens, answer) and get its health against the baseline",
        request={"application/json": OBSERVATION_SCHEMA},
        responses={
            200: OBJECT,
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            404: PROBLEM,
            413: PROBLEM,
            429: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request, subject_id: str) -> Response:
        operator = request_operator_key(request)
        agent = runtime_observation_agent(subject_id=subject_id, operator=operator)
        return Response(
            camelize(runtime_observation_record(agent=agent, body=request.data, operator=operator))
        )


class AgentHealthView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="agent_health",
        summary="An agent's runtime health per model: baseline and recent observations",
        responses={200: OBJECT, 404: PROBLEM},
        tags=["engine"],
    )
    def get(self, request: Request, subject_id: str) -> Response:
        return Response(camelize(agent_health(agent=get_object_or_404(Agent, subject_id=subject_id))))
