"""Web plumbing every app's API shares: the documented RFC 9457 problem body.

Throttles live in :mod:`common.throttling`, errors in :mod:`common.errors`; this module holds what
the views put in their OpenAPI descriptions, so no app imports another app's ``api`` for it.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse

__all__ = ["PROBLEM"]

# The body common.errors renders for every ApplicationError, as the OpenAPI schema documents it.
PROBLEM = OpenApiResponse(
    response={
        "type": "object",
        "description": "RFC 9457 problem details, with `errors[]` naming each field.",
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer"},
            "detail": {"type": "string"},
            "instance": {"type": "string"},
            "errors": {"type": "array", "items": {"type": "object"}},
        },
        "required": ["type", "title", "status", "detail"],
    },
    description="Problem details",
)
