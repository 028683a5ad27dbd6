"""REST for an operator's own identity: who it is, which agents it may act for, its proven wallet."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api import PROBLEM
from common.casing import camelize
from common.errors import FieldError, validation_error

from ..authentication import IsOperator, OperatorKeyAuthentication, OperatorPrincipal
from ..models import Operator
from ..services.operators import operator_summary, operator_wallet_challenge, operator_wallet_prove

_ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
_SIGNATURE = re.compile(r"^0x[0-9a-fA-F]{130}$")
WALLET_CHALLENGE_IN = {
    "type": "object",
    "title": "WalletChallengeIn",
    "properties": {"address": {"type": "string", "pattern": _ADDRESS.pattern}},
    "required": ["address"],
}
WALLET_PROOF_IN = {
    "type": "object",
    "title": "WalletProofIn",
    "properties": {
        "address": {"type": "string", "pattern": _ADDRESS.pattern},
        "signature": {
            "type": "string",
            "pattern": _SIGNATURE.pattern,
            "description": "EIP-191 personal_sign",
        },
    },
    "required": ["address", "signature"],
}


def _me(request: Request) -> Operator:
    principal = request.user
    assert isinstance(principal, OperatorPrincipal)
    return principal.operator.owner


def _field(body: Any, name: str, pattern: re.Pattern[str], what: str) -> str:
    value = body.get(name) if isinstance(body, dict) else None
    if not isinstance(value, str) or not pattern.match(value):
        raise validation_error([FieldError(f"/{name}", f"Expected {what}.")], what="wallet proof")
    return value


class OperatorMeView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="operator_me",
        summary="This operator: status, proven wallet, the agents it may act for, shadow-mode counters",
        responses={200: OpenApiResponse(response={"type": "object"}), 401: PROBLEM, 403: PROBLEM},
        tags=["engine"],
    )
    def get(self, request: Request) -> Response:
        return Response(camelize(operator_summary(operator=_me(request))))


class WalletChallengeView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="operator_wallet_challenge",
        summary="A one-time message for the wallet to sign (proves on-chain ownership of agents)",
        request={"application/json": WALLET_CHALLENGE_IN},
        responses={
            200: OpenApiResponse(response={"type": "object"}),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request) -> Response:
        address = _field(request.data, "address", _ADDRESS, "an 0x-prefixed 20-byte hex address")
        return Response(camelize(operator_wallet_challenge(operator=_me(request), address=address)))


class WalletProofView(APIView):
    authentication_classes = [OperatorKeyAuthentication]
    permission_classes = [IsOperator]

    @extend_schema(
        operation_id="operator_wallet_prove",
        summary="Prove the wallet with its signature of the challenge; its on-chain agents become linked",
        request={"application/json": WALLET_PROOF_IN},
        responses={
            200: OpenApiResponse(response={"type": "object"}),
            400: PROBLEM,
            401: PROBLEM,
            403: PROBLEM,
            409: PROBLEM,
        },
        tags=["engine"],
    )
    def post(self, request: Request) -> Response:
        address = _field(request.data, "address", _ADDRESS, "an 0x-prefixed 20-byte hex address")
        signature = _field(request.data, "signature", _SIGNATURE, "a 65-byte 0x-prefixed hex signature")
        operator = operator_wallet_prove(operator=_me(request), address=address, signature=signature)
        return Response(camelize(operator_summary(operator=operator)))
