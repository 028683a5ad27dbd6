"""Refuse oversized bodies before anything reads them."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from .errors import ApplicationError, problem_response


class BodySizeLimitMiddleware:
    """Answer 413 with problem details when Content-Length exceeds MAX_BODY_BYTES.

    Django would otherwise raise RequestDataTooBig deep inside parsing and answer a bare 400.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_BODY_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length > limit:
            error = ApplicationError(
                f"The body has {length} bytes; the limit is {limit}.", status=413, problem="payload-too-large"
            )
            return problem_response(error, request)
        return self.get_response(request)
