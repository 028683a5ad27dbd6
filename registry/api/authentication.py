"""Provider API keys: `Authorization: Bearer trk_…` (or `X-API-Key: trk_…`)."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions, permissions
from rest_framework.request import Request

from common.throttling import failed_authentication_charge

from ..models import Provider
from ..services.providers import provider_by_api_key

# verification.services.tools.OPERATOR_KEY_PREFIX (the registry does not import the engine's app).
OPERATOR_KEY_PREFIX = "tro_"


@dataclass(frozen=True)
class ProviderPrincipal:
    """What `request.user` holds for a request made with a provider's key."""

    provider: Provider
    is_authenticated: bool = True


class ProviderKeyAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[ProviderPrincipal, str] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        key = ""
        if header.lower().startswith("bearer "):
            key = header[7:].strip()
        elif request.META.get("HTTP_X_API_KEY"):
            key = request.META["HTTP_X_API_KEY"].strip()
        if not key or key.startswith(OPERATOR_KEY_PREFIX):
            # An operator's key is not a provider's: its holder reads public endpoints as anyone does
            # (instead of a 401), and provider-only endpoints still answer 401.
            return None
        provider = provider_by_api_key(plaintext=key)
        if provider is None:
            failed_authentication_charge(request)
            raise exceptions.AuthenticationFailed("The API key is not valid or has been revoked.")
        return ProviderPrincipal(provider), key

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class IsProvider(permissions.BasePermission):
    message = "A provider API key is required (Authorization: Bearer trk_…)."

    def has_permission(self, request: Request, view: object) -> bool:
        return isinstance(request.user, ProviderPrincipal)


class ProviderKeyScheme(OpenApiAuthenticationExtension):
    target_class = "registry.api.authentication.ProviderKeyAuthentication"
    name = "providerKey"

    def get_security_definition(self, auto_schema: object) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "A provider API key (trk_…)."}
