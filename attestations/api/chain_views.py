"""ERC-8004 publication status over REST."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.throttling import ReadThrottle
from registry.models import Agent

from ..models import ScorePublication
from ..services.publishing import score_publications_list


def publication_representation(publication: ScorePublication) -> dict[str, Any]:
    return {
        "id": publication.pk,
        "scoreId": publication.score_id,
        "trustScore": float(publication.score.trust_score),
        "chainId": publication.chain_id,
        "status": publication.status,
        "value": publication.value,
        "valueDecimals": publication.value_decimals,
        "tag1": publication.tag1,
        "tag2": publication.tag2,
        "endpoint": publication.endpoint,
        "feedbackURI": publication.feedback_uri,
        "feedbackHash": publication.feedback_hash,
        "sender": publication.sender_address or None,
        "nonce": publication.nonce,
        "txHash": publication.tx_hash or None,
        "blockNumber": publication.block_number,
        "attempts": publication.attempts,
        "lastError": publication.last_error or None,
        "createdAt": publication.created_at.isoformat(),
        "sentAt": publication.sent_at.isoformat() if publication.sent_at else None,
        "confirmedAt": publication.confirmed_at.isoformat() if publication.confirmed_at else None,
    }


class ScorePublicationsView(APIView):
    throttle_classes = [ReadThrottle]

    @extend_schema(
        operation_id="agents_trust_score_publications",
        summary="Where the agent's trust scores were published on ERC-8004 (giveFeedback) and their status",
        responses={200: OpenApiResponse(response={"type": "object"}), 404: PROBLEM},
        tags=["attestations"],
    )
    def get(self, request: Request, subject_id: str) -> Response:
        agent = get_object_or_404(Agent, subject_id=subject_id)
        publications = score_publications_list(agent=agent)
        return Response(
            {"agent": agent.subject_id, "publications": [publication_representation(p) for p in publications]}
        )
