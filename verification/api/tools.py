"""REST for tool-result verification: verify calls, label them, read and edit tool profiles."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.casing import camelize
from common.errors import ApplicationError, FieldError, validation_error
from common.throttling import ReadThrottle

from ..authentication import (
    IsOperator,
    OperatorKeyAuthentication,
    request_operator_key,
    request_operator_key_required,
)
from ..models import ToolProfileRecord
from ..schemas import FEEDBACK_SCHEMA, TOOL_CALL_SCHEMA, TOOL_PROFILE_SCHEMA
from ..services.calibration import tool_calibration_report
from ..services.shadow import SHADOW_HEADER, shadow_requested
from ..services.tools import (
    TOOL_CALL_BATCH,
    tool_baseline,
    tool_calls_verify,
    tool_feedback_record,
    tool_profile_save,
    tool_profile_to_dict,
)
from .runs import SHADOW_PARAMETER

RESULT = {
    "type": "object",
    "description": "VerificationResult: verdict, confidence (P(hallucination)), signals (keyed by signal "
    "name), tierReached, explanation, prior, posterior, isHallucinated, plus the verification id for "
    "feedback.",
}


class ToolCallVerifyView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="verify_tool_call",
        summary='Verify one tool-call result, or a batch of them in order ({"calls": [...]})',
        parameters=[SHADOW_PARAMETER],
        request={"application/json": {"oneOf": [TOOL_CALL_SCHEMA, TOOL_CALL_BATCH.schema]}},
        responses={
            200: OpenApiResponse(response=RESULT),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            429: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request) -> Response:
        body = request.data
        shadow = shadow_requested(header=request.headers.get(SHADOW_HEADER))
        if isinstance(body, dict) and "calls" in body:
            calls = TOOL_CALL_BATCH.items(body, what="batch")
            return Response(
                camelize(
                    {
                        "results": tool_calls_verify(
                            operator=request_operator_key(request), calls=calls, batch=True, shadow=shadow
                        )
                    }
                )
            )
        if not isinstance(body, dict):
            raise validation_error([FieldError("", "Expected a tool call object.")], what="tool call")
        return Response(
            camelize(
                tool_calls_verify(
                    operator=request_operator_key(request), calls=[body], batch=False, shadow=shadow
                )[0]
            )
        )


class ToolFeedbackView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="verify_tool_call_feedback",
        summary="Label a verification as hallucinated or not; the tool's prior and threshold adapt",
        request={"application/json": FEEDBACK_SCHEMA},
        responses={
            200: OpenApiResponse(response={"type": "object"}),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            404: PROBLEM,
            409: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request, verification_id: str) -> Response:
        return Response(
            camelize(
                tool_feedback_record(
                    public_id=verification_id,
                    body=request.data,
                    operator=request_operator_key_required(request).owner,
                )
            )
        )


class ToolProfileListView(APIView):
    @extend_schema(
        operation_id="tool_profiles_list",
        summary="Registered tool profiles",
        responses={200: OpenApiResponse(response={"type": "array", "items": {"type": "object"}})},
        tags=["engine"],
    )
    def get(self, request: Request) -> Response:
        return Response([tool_profile_to_dict(r) for r in ToolProfileRecord.objects.all()])


class ToolProfileView(APIView):
    authentication_classes = [OperatorKeyAuthentication]

    def get_permissions(self) -> list[Any]:
        return [IsOperator()] if self.request.method == "PUT" else [AllowAny()]

    @extend_schema(
        operation_id="tool_profile_retrieve",
        summary="A tool's profile (unregistered tools use the defaults)",
        responses={200: OpenApiResponse(response={"type": "object"}), 404: PROBLEM},
        tags=["engine"],
    )
    def get(self, request: Request, tool: str) -> Response:
        record = ToolProfileRecord.objects.filter(tool_name=tool).first()
        if record is None:
            raise ApplicationError(
                f"No profile for {tool!r}; the defaults apply.", status=404, problem="not-found"
            )
        return Response(tool_profile_to_dict(record))

    @extend_schema(
        operation_id="tool_profile_update",
        summary="Create or update a tool's profile",
        request={"application/json": TOOL_PROFILE_SCHEMA},
        responses={
            200: OpenApiResponse(response={"type": "object"}),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
        },
        tags=["engine"],
    )
    def put(self, request: Request, tool: str) -> Response:
        operator = request_operator_key_required(request)
        record = tool_profile_save(
            tool_name=tool, data=request.data, actor=f"operator:{operator.name}", operator=operator.owner
        )
        return Response(tool_profile_to_dict(record))


class CalibrationView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="verify_calibration",
        summary="Calibration of the tool verifier from labelled feedback: reliability bins, Brier, ECE",
        responses={200: OpenApiResponse(response={"type": "object"})},
        tags=["engine"],
    )
    def get(self, request: Request) -> Response:
        return Response(camelize(tool_calibration_report()))


class ToolBaselineView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="tool_baseline",
        summary="A tool's learned baseline: latency, size, field frequencies, numeric fields, adaptation",
        responses={200: OpenApiResponse(response={"type": "object"})},
        tags=["engine"],
    )
    def get(self, request: Request, tool: str) -> Response:
        return Response(camelize(tool_baseline(tool=tool)))
