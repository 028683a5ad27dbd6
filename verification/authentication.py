"""Operator API keys (`Authorization: Bearer tro_…`) for the verification endpoints."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions, permissions
from rest_framework.request import Request

from common.authentication import BearerKeyAuthentication

from .models import OperatorApiKey
from .services.operators import operator_ensure_active
from .services.tools import OPERATOR_KEY_PREFIX, operator_by_key


@dataclass(frozen=True)
class OperatorPrincipal:
    operator: OperatorApiKey
    is_authenticated: bool = True


def request_operator_key(request: Request) -> OperatorApiKey | None:
    """The operator key a request was made with, or None (anonymous, or another kind of key)."""
    principal = request.user
    return principal.operator if isinstance(principal, OperatorPrincipal) else None


def request_operator_key_required(request: Request) -> OperatorApiKey:
    """The operator key of a request to a view that IsOperator guards (401 if there is none)."""
    key = request_operator_key(request)
    if key is None:
        raise exceptions.NotAuthenticated("An operator API key is required (Authorization: Bearer tro_…).")
    return key


class OperatorKeyAuthentication(BearerKeyAuthentication):
    realm = "verification"
    invalid_key_message = "The operator key is not valid or has been revoked."

    def claims(self, key: str) -> bool:
        return key.startswith(OPERATOR_KEY_PREFIX)

    def principal_for(self, key: str) -> OperatorPrincipal | None:
        operator = operator_by_key(plaintext=key)
        return None if operator is None else OperatorPrincipal(operator)


class IsOperator(permissions.BasePermission):
    """An operator's key, of an operator that is not suspended (403 `forbidden` when it is)."""

    message = "An operator API key is required (Authorization: Bearer tro_…)."

    def has_permission(self, request: Request, view: object) -> bool:
        principal = request.user
        if not isinstance(principal, OperatorPrincipal):
            return False
        operator_ensure_active(operator=principal.operator.owner)
        return True


class OperatorKeyScheme(OpenApiAuthenticationExtension):
    target_class = "verification.authentication.OperatorKeyAuthentication"
    name = "operatorKey"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "An agent operator's key (tro_…)."}
