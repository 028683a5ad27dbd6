"""REST for agent-run verification, and the OpenAI-compatible verifying proxy (HaluGate's shape)."""

from __future__ import annotations

from django.http import HttpResponseBase, StreamingHttpResponse
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.casing import camelize

from ..authentication import IsOperator, OperatorKeyAuthentication, request_operator_key
from ..services.runs import ProxyStream, proxy_chat_completion, run_verify
from ..services.shadow import SHADOW_HEADER, shadow_requested

RUN_IN = {
    "type": "object",
    "title": "AgentRunIn",
    "properties": {
        "messages": {
            "type": "array",
            "description": "The run in the OpenAI chat-completions message format.",
        },
        "tools": {"type": "array", "description": "The declared tools (function JSON Schemas)."},
        "agent": {
            "type": "string",
            "description": "Subject id of an agent this operator is linked to; its score counts the outcome.",
        },
        "probeAnswers": {"description": "Self-consistency probe answers, instead of a probe endpoint."},
    },
    "required": ["messages"],
}
REPORT = {
    "type": "object",
    "description": "HallucinationReport (runId, claims, toolCallValidations, ...).",
}


SHADOW_PARAMETER = OpenApiParameter(
    SHADOW_HEADER,
    str,
    OpenApiParameter.HEADER,
    enum=["true", "false"],
    description="Shadow mode: verify and count, enforce nothing (always on with ENGINE_SHADOW_MODE); "
    "x-vsr-shadow-would says what enforcement would have done.",
)


class RunVerifyView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="verify_run",
        summary="Verify an agent run for hallucinations; the report also comes as x-vsr-* headers",
        parameters=[SHADOW_PARAMETER],
        request={"application/json": RUN_IN},
        # 413: a size cap (answer, run, checkable values, comparisons); 422: the CPU budget ran out.
        responses={
            200: OpenApiResponse(response=REPORT),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            413: PROBLEM,
            422: PROBLEM,
            429: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request) -> Response:
        verified = run_verify(
            operator=request_operator_key(request),
            body=request.data,
            shadow=shadow_requested(header=request.headers.get(SHADOW_HEADER)),
        )
        return Response(camelize(verified.body()), headers=verified.headers)


class ChatCompletionsProxyView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="proxy_chat_completions",
        summary="OpenAI-compatible proxy: forwards upstream, verifies the answer against the tool messages",
        parameters=[
            OpenApiParameter(
                "x-hallucination-action",
                str,
                OpenApiParameter.HEADER,
                enum=["header", "body", "block", "none", "revise"],
                description="What to do with a flagged answer (default RUN_PROXY_DEFAULT_ACTION); "
                "`revise` re-asks the upstream model with the gate's revise message.",
            ),
            OpenApiParameter(
                "x-agent-id", str, OpenApiParameter.HEADER, description="Count the run for this agent"
            ),
            SHADOW_PARAMETER,
        ],
        request={"application/json": {"type": "object", "description": "A chat-completions request."}},
        responses={
            (200, "application/json"): OpenApiResponse(response={"type": "object"}),
            # With stream: true: the upstream's chunks, then a vsr.verification event, then [DONE].
            (200, "text/event-stream"): OpenApiResponse(
                response={"type": "string"}, description="Server-sent events (stream: true)"
            ),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            413: PROBLEM,
            # A blocked answer (OpenAI-style error body), or budget-exceeded (problem details).
            422: OpenApiResponse(response={"type": "object"}),
            429: PROBLEM,
            502: PROBLEM,
            503: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request) -> HttpResponseBase:
        answer = proxy_chat_completion(
            operator=request_operator_key(request),
            body=request.data,
            action=request.headers.get("x-hallucination-action"),
            agent_id=request.headers.get("x-agent-id"),
            shadow=shadow_requested(header=request.headers.get(SHADOW_HEADER)),
        )
        if isinstance(answer, ProxyStream):
            streamed = StreamingHttpResponse(answer.events, content_type="text/event-stream")
            # No caching, and no buffering in a reverse proxy in front (nginx reads X-Accel-Buffering).
            headers = {**answer.headers, "Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
            for name, value in headers.items():
                streamed[name] = value
            return streamed
        return Response(answer.body, status=answer.status, headers=answer.headers)
