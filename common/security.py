"""The Content-Security-Policy header, on documents only."""

from __future__ import annotations

from csp.middleware import CSPMiddleware
from django.http import HttpRequest, HttpResponseBase

# JSON answers are never rendered as documents (application/json with nosniff), so a policy on them
# protects nothing, and django-csp builds the header (~70 µs) before it looks at its own exclusions:
# a measurable share of the hottest reads. The Swagger UI and schema under /api/ keep the policy.
API_PREFIXES = ("/api/v1/", "/v1/")


class DocumentCSPMiddleware(CSPMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if request.path_info.startswith(API_PREFIXES):
            return response
        return super().process_response(request, response)
