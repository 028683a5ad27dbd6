"""Refuse oversized bodies before anything reads them; keep every error on API paths problem+json."""

from __future__ import annotations

import io
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest

from .errors import (
    ApplicationError,
    FieldError,
    database_unavailable,
    is_api_path,
    problem_response,
    unavailable_error,
)

# Problem type of an error answer that reached the client without one (slug by status code).
_PROBLEM_BY_STATUS = {
    400: "validation",
    401: "unauthenticated",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    413: "payload-too-large",
    415: "unsupported-media-type",
    429: "rate-limited",
}
# Headers of the original answer that still mean something on the problem that replaces it.
_KEPT_HEADERS = ("Allow", "Retry-After", "WWW-Authenticate")


class BodySizeLimitMiddleware:
    """Answer 413 with problem details when the body is larger than MAX_BODY_BYTES.

    Django would otherwise raise RequestDataTooBig deep inside parsing and answer a bare 400. A body
    announced by Content-Length is refused before it is read. A body without one (chunked transfer
    encoding) would be read by Django as empty, so it is read here, at most one byte past the limit.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        limit = settings.MAX_BODY_BYTES
        raw_length = request.META.get("CONTENT_LENGTH") or ""
        try:
            length = int(raw_length) if raw_length else None
        except ValueError:
            length = 0
        if length is None and "chunked" in request.META.get("HTTP_TRANSFER_ENCODING", "").lower():
            stream = request.META.get("wsgi.input")
            body = stream.read(limit + 1) if stream is not None else b""
            length = len(body)
            if length <= limit:
                # Hand Django the body it would otherwise not see, as if it had a Content-Length.
                request.META["CONTENT_LENGTH"] = str(length)
                request._stream = io.BytesIO(body)  # type: ignore[attr-defined]
            else:
                return self._too_large(
                    request, f"The body has more than {limit} bytes; the limit is {limit}."
                )
        if length is not None and length > limit:
            return self._too_large(request, f"The body has {length} bytes; the limit is {limit}.")
        return self.get_response(request)

    @staticmethod
    def _too_large(request: HttpRequest, detail: str) -> HttpResponse:
        return problem_response(ApplicationError(detail, status=413, problem="payload-too-large"), request)


class ProblemErrorsMiddleware:
    """On API paths, turn any error answer that is not JSON into problem details.

    DRF views and the URLconf's handlers already answer with problems; this catches what Django
    answers by itself (405 from a plain view, the CSRF failure page, a bare 4xx from a library)
    so a client of /api/ or /v1/ never has to parse HTML. JSON error bodies are left alone (the
    OpenAI-compatible proxy answers in OpenAI's error format on purpose).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        """A database that cannot be reached outside a DRF view (a session or admin lookup on an API
        path) is a 503 the client may retry, as inside one (common.errors.problem_exception_handler)."""
        if is_api_path(request.path) and database_unavailable(exception):
            return problem_response(unavailable_error(), request)
        return None

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code < 400 or response.streaming or not is_api_path(request.path):
            return response
        if "json" in response.get("Content-Type", "").lower():
            return response
        status = response.status_code
        if status >= 500 and settings.DEBUG:
            return response  # Django's technical error page is for the developer reading it
        problem = "server-error" if status >= 500 else _PROBLEM_BY_STATUS.get(status, "validation")
        detail = response.reason_phrase or "The request failed."
        replacement = problem_response(
            ApplicationError(f"{detail}.", status=status, problem=problem), request
        )
        for name in _KEPT_HEADERS:
            if name in response:
                replacement[name] = response[name]
        return replacement


class UnstorableRequestTextMiddleware:
    """Refuse a NUL character in the path or the query string before any view looks it up.

    No PostgreSQL text column can hold NUL: a lookup by `/api/v1/agents/a%00b` or `?agent=a%00b`
    made the database driver raise and the request answer 500. No identifier of ours contains one,
    so the request is refused outright: a 400 problem on API paths, Django's 400 page elsewhere.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        where = ""
        if "\x00" in request.path:
            where = "path"
        elif "%00" in request.META.get("QUERY_STRING", "") or any(
            "\x00" in key or any("\x00" in value for value in values) for key, values in request.GET.lists()
        ):
            where = "query string"
        if not where:
            return self.get_response(request)
        if not is_api_path(request.path):
            return HttpResponseBadRequest(
                "NUL characters are not allowed in URLs.", content_type="text/plain"
            )
        error = ApplicationError(
            f"The {where} contains a NUL character (%00), which no identifier holds.",
            errors=[FieldError("", f"NUL character in the {where}.")],
        )
        return problem_response(error, request)
