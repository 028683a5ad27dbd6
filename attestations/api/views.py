"""Signed scores over REST: fetch an agent's attestation, fetch one by id, verify one."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.throttling import ReadThrottle
from registry.models import Agent
from registry.services.scoring import trust_score_compute

from ..services.keys import service_key
from ..services.publishing import score_publication_feedback
from ..services.scores import (
    attestation_document,
    attestation_domain,
    attestation_verify,
    score_attestation_issue,
)

ATTESTATION = {
    "type": "object",
    "description": "EIP-712 typed data of a TrustScoreAttestation, its signature and the signer address.",
    "properties": {
        "typedData": {"type": "object"},
        "signature": {"type": "string"},
        "signer": {"type": "string"},
        "scoreUrl": {"type": "string"},
    },
}
VERIFY_IN = {
    "type": "object",
    "properties": {"typedData": {"type": "object"}, "signature": {"type": "string"}},
    "required": ["typedData", "signature"],
}


def _document_response(document: str, attestation_id: int, document_hash: str) -> HttpResponse:
    response = HttpResponse(document, content_type="application/json")
    response["Link"] = f'</api/v1/attestations/{attestation_id}>; rel="canonical"'
    response["X-Document-Keccak256"] = document_hash
    return response


class AgentAttestationView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="agents_trust_score_attestation",
        summary="The agent's current trust score as an EIP-712 attestation signed by this registry",
        description="An agent that is not rated yet (no input counted) gets a 409 not-rated problem.",
        responses={200: ATTESTATION, 404: PROBLEM, 409: PROBLEM, 503: PROBLEM},
        tags=["attestations"],
    )
    def get(self, request: Request, subject_id: str) -> HttpResponse:
        agent = get_object_or_404(Agent.objects.select_related("latest_score__config"), subject_id=subject_id)
        score = agent.latest_score or trust_score_compute(agent=agent)[0]
        attestation = score_attestation_issue(score=score)
        return _document_response(attestation.document, attestation.pk, attestation.document_hash)


class AttestationDocumentView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="attestations_retrieve",
        summary="One attestation, byte for byte as published (its keccak256 is the on-chain feedbackHash)",
        responses={200: ATTESTATION, 404: PROBLEM},
        tags=["attestations"],
    )
    def get(self, request: Request, attestation_id: int) -> HttpResponse:
        attestation = attestation_document(attestation_id=attestation_id)
        return _document_response(attestation.document, attestation.pk, attestation.document_hash)


FEEDBACK_FILE = {
    "type": "object",
    "description": (
        "The ERC-8004 off-chain feedback file of one published score (RFC 8785 canonical JSON; its "
        "keccak256 is the feedbackHash on chain): agentRegistry, agentId, clientAddress, createdAt, value, "
        "valueDecimals, tag1, tag2, endpoint, and the signed attestation of the score."
    ),
    "required": ["agentRegistry", "agentId", "clientAddress", "createdAt", "value", "valueDecimals"],
    "properties": {
        "agentRegistry": {
            "type": "string",
            "example": "eip155:8453:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
        },
        "agentId": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
        "clientAddress": {"type": "string"},
        "createdAt": {"type": "string", "format": "date-time"},
        "value": {"type": "integer"},
        "valueDecimals": {"type": "integer"},
        "tag1": {"type": "string"},
        "tag2": {"type": "string"},
        "endpoint": {"type": "string"},
        "attestation": ATTESTATION,
    },
}


class FeedbackFileView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="feedback_file_retrieve",
        summary="The ERC-8004 feedback file at a published feedbackURI, byte for byte",
        responses={200: FEEDBACK_FILE, 404: PROBLEM},
        tags=["attestations"],
    )
    def get(self, request: Request, publication_id: int) -> HttpResponse:
        publication = score_publication_feedback(publication_id=publication_id)
        response = HttpResponse(publication.feedback_document, content_type="application/json")
        response["X-Document-Keccak256"] = publication.feedback_hash
        return response


class AttestationVerifyView(APIView):
    throttle_classes = [ReadThrottle]
    # Anyone may call this, and an attestation document is about 2 KiB: a body cap far below
    # MAX_BODY_BYTES keeps an anonymous request's decoding cost small.
    max_body_bytes = 64 * 1024

    @extend_schema(
        operation_id="attestations_verify",
        summary="Check an attestation: who signed it, whether it was this registry, whether it is current",
        request={"application/json": VERIFY_IN},
        responses={200: OpenApiResponse(response={"type": "object"}), 400: PROBLEM, 413: PROBLEM},
        tags=["attestations"],
    )
    def post(self, request: Request) -> Response:
        body = request.data if isinstance(request.data, dict) else {}
        return Response(attestation_verify(typed=body.get("typedData"), signature=body.get("signature")))


class SignerView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="attestations_signer",
        summary="This registry's signer address and EIP-712 domain",
        responses={200: OpenApiResponse(response={"type": "object"})},
        tags=["attestations"],
    )
    def get(self, request: Request) -> Response:
        key = service_key(required=False)
        return Response(
            {
                "signer": key.address if key is not None else None,
                "domain": attestation_domain().as_dict(),
                "ttlSeconds": settings.ATTESTATION_TTL_SECONDS,
            }
        )
