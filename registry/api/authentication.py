"""Provider API keys: `Authorization: Bearer trk_…` (or `X-API-Key: trk_…`)."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import permissions
from rest_framework.request import Request

from common.authentication import BearerKeyAuthentication

from ..models import Provider
from ..services.providers import provider_by_api_key

# verification.services.tools.OPERATOR_KEY_PREFIX (the registry does not import the engine's app).
OPERATOR_KEY_PREFIX = "tro_"


@dataclass(frozen=True)
class ProviderPrincipal:
    """What `request.user` holds for a request made with a provider's key."""

    provider: Provider
    is_authenticated: bool = True


class ProviderKeyAuthentication(BearerKeyAuthentication):
    realm = "api"
    invalid_key_message = "The API key is not valid or has been revoked."
    accepts_x_api_key = True

    def claims(self, key: str) -> bool:
        # An operator's key is not a provider's: its holder reads public endpoints as anyone does
        # (instead of a 401), and provider-only endpoints still answer 401.
        return not key.startswith(OPERATOR_KEY_PREFIX)

    def principal_for(self, key: str) -> ProviderPrincipal | None:
        provider = provider_by_api_key(plaintext=key)
        return None if provider is None else ProviderPrincipal(provider)


class IsProvider(permissions.BasePermission):
    message = "A provider API key is required (Authorization: Bearer trk_…)."

    def has_permission(self, request: Request, view: object) -> bool:
        return isinstance(request.user, ProviderPrincipal)


class ProviderKeyScheme(OpenApiAuthenticationExtension):
    target_class = "registry.api.authentication.ProviderKeyAuthentication"
    name = "providerKey"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "A provider API key (trk_…)."}
