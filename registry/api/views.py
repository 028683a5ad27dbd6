"""The REST API: thin views over services and selectors."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.errors import ApplicationError, FieldError, validation_error
from common.pagination import KeysetPagination
from common.throttling import ReadThrottle

from ..models import Agent, Provider, ScoringConfig, TrustScore
from ..schemas import SUMMARY_SCHEMA
from ..selectors import trust_score_document, trust_score_explanation
from ..services.agents import agent_register_for_provider, agent_registration_authorize
from ..services.outcomes import outcomes_ingest
from ..services.scoring import scoring_config_current, trust_score_compute
from ..services.signatures import SignatureHeaders
from ..services.summaries import summaries_ingest
from ..services.validation import OUTCOME_BATCH, SUMMARY_BATCH
from .authentication import IsProvider, ProviderPrincipal
from .filtersets import AGENT_ORDERINGS, DEFAULT_AGENT_ORDERING, AgentListFilterSet, agent_keyset_ordering
from .serializers import (
    AgentCreateSerializer,
    AgentDetailSerializer,
    AgentSerializer,
    ProviderSerializer,
    ScoringConfigSerializer,
    TrustScoreHistorySerializer,
    agent_list_items,
    agent_list_values,
)

SIGNATURE_HEADERS = [
    OpenApiParameter(
        "X-Signature",
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        description="EIP-712 signature (0x, 65 bytes) of ProviderSummary{provider, agentId, bodyDigest, "
        "nonce, deadline}; required when the provider has a registered signer.",
    ),
    OpenApiParameter(
        "X-Signature-Nonce", OpenApiTypes.INT, OpenApiParameter.HEADER, description="Used once."
    ),
    OpenApiParameter(
        "X-Signature-Deadline", OpenApiTypes.INT, OpenApiParameter.HEADER, description="Unix seconds."
    ),
]
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="Makes the request safe to retry: the same key and body replay the stored answer (200).",
)
INGEST_RESULT = {
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "status": {"type": "string", "enum": ["created", "replayed"]},
        "agent": {"type": "string"},
        "provider": {"type": "string"},
        "windowDays": {"type": "integer"},
        "windowEnd": {"type": "string", "format": "date-time"},
        "receivedAt": {"type": "string", "format": "date-time"},
        "bodyDigest": {"type": "string"},
    },
}
TRUST_SCORE_RECORD = {
    "type": "object",
    "description": "The HCS-25 trust-score record with breakdown and provenance.",
    "properties": {
        "subjectId": {"type": "string"},
        "trustScore": {"type": "number"},
        "trustScores": {"type": "object", "additionalProperties": {"type": "number"}},
        "trustScoreConfigVersion": {"type": "integer"},
        "trustScoreUpdatedAt": {"type": "string", "format": "date-time"},
        "trustConfidence": {"type": "number"},
        "rated": {
            "type": "boolean",
            "description": "False when no input counted yet: trustScore 0 then means no data, not a verdict.",
        },
        "compositionGraphId": {
            "type": "string",
            "description": "The HCS-25 v1.1 composition graph the score was made with "
            "(`hcs25-composite`: the composite, no graph configured).",
        },
        "breakdown": {"type": "object"},
        "explanation": {
            "type": "object",
            "description": "The graph trace that recomputes trustScores.total.",
        },
        "provenance": {"type": "object"},
    },
}
TRUST_SCORE_EXPLANATION = {
    "type": "object",
    "description": "What recomputing the agent's current trustScores.total takes: the graph of the "
    "score's configuration, the published breakdown and the node-by-node trace.",
    "properties": {
        "subjectId": {"type": "string"},
        "trustScore": {"type": "number"},
        "trustScoreConfigVersion": {"type": "integer"},
        "trustScoreUpdatedAt": {"type": "string", "format": "date-time"},
        "compositionGraphId": {"type": "string"},
        "graph": {"type": "object"},
        "staleMultiplier": {"type": "number"},
        "breakdown": {"type": "object"},
        "explanation": {"type": "object"},
    },
}


def _idempotency_key(request: Request) -> str | None:
    key = request.headers.get("Idempotency-Key")
    if key is not None and not 1 <= len(key) <= 255:
        raise validation_error([FieldError.for_header("Idempotency-Key", "Must be 1 to 255 characters.")])
    return key


def _provider(request: Request) -> Provider:
    principal = request.user
    assert isinstance(principal, ProviderPrincipal)
    return principal.provider


class SummaryCreateView(APIView):
    permission_classes = [IsProvider]

    @extend_schema(
        operation_id="summaries_create",
        summary="Push one verification summary",
        request={"application/json": SUMMARY_SCHEMA},
        parameters=[IDEMPOTENCY_KEY, *SIGNATURE_HEADERS],
        responses={
            201: INGEST_RESULT,
            200: INGEST_RESULT,
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
            413: PROBLEM,
        },
        tags=["providers"],
    )
    def post(self, request: Request) -> Response:
        body = request.data
        if not isinstance(body, dict):
            raise validation_error(
                [FieldError("", "Expected one summary object; send lists to /summaries/batch.")]
            )
        code, answer = summaries_ingest(
            provider=_provider(request),
            bodies=[body],
            idempotency_key=_idempotency_key(request),
            signature=SignatureHeaders.from_headers(request.headers),
        )
        return Response(answer, status=code)


class SummaryBatchView(APIView):
    permission_classes = [IsProvider]

    @extend_schema(
        operation_id="summaries_batch",
        summary="Push many summaries at once (all or nothing)",
        request={"application/json": SUMMARY_BATCH.schema},
        parameters=[IDEMPOTENCY_KEY, *SIGNATURE_HEADERS],
        responses={
            201: OpenApiTypes.OBJECT,
            200: OpenApiTypes.OBJECT,
            400: PROBLEM,
            401: PROBLEM,
            409: PROBLEM,
            413: PROBLEM,
        },
        tags=["providers"],
    )
    def post(self, request: Request) -> Response:
        code, answer = summaries_ingest(
            provider=_provider(request),
            bodies=SUMMARY_BATCH.items(request.data),
            idempotency_key=_idempotency_key(request),
            batch_key="summaries",
            signature=SignatureHeaders.from_headers(request.headers),
        )
        return Response(answer, status=code)


class OutcomesView(APIView):
    permission_classes = [IsProvider]

    @extend_schema(
        operation_id="outcomes_create",
        summary="Push raw per-check outcomes (rolled up into the provider's windowed summary)",
        request={"application/json": OUTCOME_BATCH.schema},
        parameters=[IDEMPOTENCY_KEY, *SIGNATURE_HEADERS],
        responses={
            201: OpenApiTypes.OBJECT,
            200: OpenApiTypes.OBJECT,
            400: PROBLEM,
            401: PROBLEM,
            409: PROBLEM,
        },
        tags=["providers"],
    )
    def post(self, request: Request) -> Response:
        code, answer = outcomes_ingest(
            provider=_provider(request),
            body=request.data,
            idempotency_key=_idempotency_key(request),
            signature=SignatureHeaders.from_headers(request.headers),
        )
        return Response(answer, status=code)


class AgentListView(generics.ListCreateAPIView):
    serializer_class = AgentSerializer
    filterset_class = AgentListFilterSet
    throttle_classes = [ReadThrottle]
    # Cursor pages: each page is one index range, whatever the number of agents (common/pagination.py).
    pagination_class = KeysetPagination
    keyset_orderings = AGENT_ORDERINGS
    default_ordering = DEFAULT_AGENT_ORDERING
    # A search may sort on its word index's copy of the keys (registry/search.py).
    keyset_ordering = staticmethod(agent_keyset_ordering)

    def get_queryset(self) -> QuerySet[Agent]:
        return Agent.objects.order_by(*AGENT_ORDERINGS[DEFAULT_AGENT_ORDERING].order_by())

    def get_permissions(self) -> list[Any]:
        return [IsProvider()] if self.request.method == "POST" else [AllowAny()]

    @extend_schema(
        summary="List agents, filtered and ordered by score, registry and provider",
        tags=["agents"],
        responses={200: AgentSerializer, 400: PROBLEM},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # Rows as dicts of just the shown columns and the cursor's keys, turned into the serializer's
        # output directly (agent_list_items): model instances and DRF fields were most of a page's CPU.
        rows = self.paginate_queryset(
            agent_list_values(
                queryset=self.filter_queryset(self.get_queryset()),
                ordering_name=request.query_params.get("ordering") or self.default_ordering,
            )
        )
        assert rows is not None
        return self.get_paginated_response(agent_list_items(rows=rows))

    @extend_schema(
        summary="Register an agent",
        request=AgentCreateSerializer,
        responses={201: AgentSerializer, 200: AgentSerializer, 400: PROBLEM, 401: PROBLEM, 403: PROBLEM},
        tags=["agents"],
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        provider = _provider(request)
        # Refusals first (suspended, chain facts, eip155): the serializer does not know those fields.
        agent_registration_authorize(provider=provider, body=request.data)
        data = AgentCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        agent, created = agent_register_for_provider(provider=provider, data=data.validated_data)
        return Response(
            AgentSerializer(agent).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


@extend_schema_view(
    get=extend_schema(
        summary="One agent", tags=["agents"], responses={200: AgentDetailSerializer, 404: PROBLEM}
    )
)
class AgentDetailView(generics.RetrieveAPIView):
    serializer_class = AgentDetailSerializer
    throttle_classes = [ReadThrottle]
    queryset = Agent.objects.all()
    lookup_field = "subject_id"


class TrustScoreView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="agents_trust_score",
        summary="An agent's current HCS-25 trust score with breakdown and provenance",
        responses={200: TRUST_SCORE_RECORD, 404: PROBLEM},
        tags=["agents"],
    )
    def get(self, request: Request, subject_id: str) -> HttpResponse:
        # The hottest endpoint: the record is served as stored bytes (cached), not re-serialised.
        try:
            document = trust_score_document(subject_id=subject_id)
        except Agent.DoesNotExist:
            raise ApplicationError("Not found.", status=404, problem="not-found") from None
        if document is None:
            # Registered but never scored: score now so the answer is a real record, not a guess.
            trust_score_compute(agent=Agent.objects.select_related("latest_score").get(subject_id=subject_id))
            document = trust_score_document(subject_id=subject_id)
            assert document is not None
        if request.headers.get("If-None-Match") == document.etag:
            response = HttpResponse(status=304)
        else:
            response = HttpResponse(document.body, content_type="application/json")
        response["ETag"] = document.etag
        response["Cache-Control"] = "public, max-age=5"
        return response


class TrustScoreExplanationView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="agents_trust_score_explanation",
        summary="How an agent's current trust score is composed (HCS-25 v1.1 score explanation)",
        responses={200: TRUST_SCORE_EXPLANATION, 404: PROBLEM},
        tags=["agents"],
    )
    def get(self, request: Request, subject_id: str) -> Response:
        # Public like the score itself; the cost is one row and a graph of at most
        # MAX_GRAPH_NODES x MAX_GRAPH_INPUTS references.
        agent = Agent.objects.select_related("latest_score__config").filter(subject_id=subject_id).first()
        if agent is None:
            raise ApplicationError("Not found.", status=404, problem="not-found")
        if agent.latest_score is None:
            trust_score_compute(agent=agent)
            agent = Agent.objects.select_related("latest_score__config").get(pk=agent.pk)
        assert agent.latest_score is not None
        return Response(trust_score_explanation(score=agent.latest_score))


@extend_schema_view(
    get=extend_schema(
        summary="An agent's trust-score history, newest first",
        tags=["agents"],
        responses={200: TrustScoreHistorySerializer, 400: PROBLEM, 404: PROBLEM},
    )
)
class TrustScoreHistoryView(generics.ListAPIView):
    serializer_class = TrustScoreHistorySerializer
    throttle_classes = [ReadThrottle]

    def get_queryset(self) -> QuerySet[TrustScore]:
        if getattr(self, "swagger_fake_view", False):
            return TrustScore.objects.none()
        agent = get_object_or_404(Agent, subject_id=self.kwargs["subject_id"])
        return TrustScore.objects.filter(agent=agent).select_related("config").order_by("-computed_at", "-id")


@extend_schema_view(
    get=extend_schema(
        summary="Verification providers (public fields)",
        tags=["providers"],
        responses={200: ProviderSerializer, 400: PROBLEM},
    )
)
class ProviderListView(generics.ListAPIView):
    serializer_class = ProviderSerializer
    throttle_classes = [ReadThrottle]
    queryset = Provider.objects.select_related("accuracy").order_by("slug")
    filterset_fields = ["status"]


@extend_schema_view(
    get=extend_schema(
        summary="One provider (public fields)",
        tags=["providers"],
        responses={200: ProviderSerializer, 404: PROBLEM},
    )
)
class ProviderDetailView(generics.RetrieveAPIView):
    serializer_class = ProviderSerializer
    throttle_classes = [ReadThrottle]
    queryset = Provider.objects.select_related("accuracy")
    lookup_field = "slug"


class ScoringConfigCurrentView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        summary="The current scoring configuration",
        responses={200: ScoringConfigSerializer},
        tags=["scoring"],
    )
    def get(self, request: Request) -> Response:
        return Response(ScoringConfigSerializer(scoring_config_current()).data)


@extend_schema_view(
    get=extend_schema(
        summary="Every scoring configuration version, newest first",
        tags=["scoring"],
        responses={200: ScoringConfigSerializer, 400: PROBLEM},
    )
)
class ScoringConfigListView(generics.ListAPIView):
    serializer_class = ScoringConfigSerializer
    throttle_classes = [ReadThrottle]
    queryset = ScoringConfig.objects.order_by("-version")


@extend_schema_view(
    get=extend_schema(
        summary="One scoring configuration version",
        tags=["scoring"],
        responses={200: ScoringConfigSerializer, 404: PROBLEM},
    )
)
class ScoringConfigDetailView(generics.RetrieveAPIView):
    serializer_class = ScoringConfigSerializer
    throttle_classes = [ReadThrottle]
    queryset = ScoringConfig.objects.all()
    lookup_field = "version"
