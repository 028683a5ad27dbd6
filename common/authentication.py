"""The one way an API key authenticates a request: a bearer key, looked up by the app that issued it.

Provider keys (``trk_…``, registry) and operator keys (``tro_…``, verification) differ only in where
the key may be sent, which keys a class claims, how it is looked up and what the 401 says; the rest
(a key nobody holds is charged to the failed-authentication throttle and answered 401) is here once.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rest_framework import authentication, exceptions
from rest_framework.request import Request

from common.throttling import failed_authentication_charge

__all__ = ["BearerKeyAuthentication"]


class BearerKeyAuthentication(authentication.BaseAuthentication):
    """``Authorization: Bearer <key>`` (and ``X-API-Key: <key>`` when ``accepts_x_api_key``)."""

    realm: ClassVar[str]
    invalid_key_message: ClassVar[str]
    accepts_x_api_key: ClassVar[bool] = False

    def claims(self, key: str) -> bool:
        """Whether the key is of this class's kind; other keys are left to the next class (no 401)."""
        raise NotImplementedError

    def principal_for(self, key: str) -> Any | None:
        """What `request.user` holds for a valid key, or None when no active key matches."""
        raise NotImplementedError

    def authenticate(self, request: Request) -> tuple[Any, str] | None:
        header = request.META.get("HTTP_AUTHORIZATION", "")
        key = ""
        if header.lower().startswith("bearer "):
            key = header[7:].strip()
        elif self.accepts_x_api_key and request.META.get("HTTP_X_API_KEY"):
            key = request.META["HTTP_X_API_KEY"].strip()
        if not key or not self.claims(key):
            return None
        principal = self.principal_for(key)
        if principal is None:
            failed_authentication_charge(request)
            raise exceptions.AuthenticationFailed(self.invalid_key_message)
        return principal, key

    def authenticate_header(self, request: Request) -> str:
        return f'Bearer realm="{self.realm}"'
