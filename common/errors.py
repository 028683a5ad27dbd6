"""One error type and one exception handler, so every API error has the same shape.

Errors are RFC 9457 problem details (`application/problem+json`): `type`, `title`, `status`,
`detail`, `instance`, plus an `errors` list naming each offending field by JSON pointer, so a
client can tell which value of which summary in a batch was wrong.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.db import DataError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from rest_framework import exceptions as drf
from rest_framework.response import Response

logger = logging.getLogger(__name__)

PROBLEM_CONTENT_TYPE = "application/problem+json"

# slug -> human title. The type URI of a problem is "/problems/<slug>", documented at that path.
PROBLEM_TYPES: dict[str, str] = {
    "validation": "Your request is not valid",
    "malformed-json": "The body is not valid JSON",
    "too-deep": "The body nests too deeply",
    "unsupported-media-type": "Unsupported media type",
    "payload-too-large": "The body is too large",
    "budget-exceeded": "The request used up its time budget",
    "unauthenticated": "Authentication required",
    "forbidden": "Not allowed",
    "not-found": "Not found",
    "method-not-allowed": "Method not allowed",
    "conflict": "Conflicts with an earlier request",
    "rate-limited": "Too many requests",
    "unknown-agent": "Unknown agent",
    "not-rated": "The agent is not rated yet",
    "provider-suspended": "Provider suspended",
    "signature-required": "This provider must sign its submissions",
    "invalid-signature": "The signature is not valid for this provider",
    "signature-expired": "The signature's deadline has passed",
    "nonce-replayed": "The signature nonce was already used",
    "server-error": "Internal server error",
    "timeout": "The request took too long",
    "unavailable": "Service unavailable",
}


@dataclass(frozen=True)
class FieldError:
    """One invalid value: `pointer` is an RFC 6901 JSON pointer into the request body, or, for a bad
    request header, `header` names it (and is the error's `field`; the pointer is then empty)."""

    pointer: str
    detail: str
    header: str = ""

    @classmethod
    def for_header(cls, name: str, detail: str) -> FieldError:
        """The error of a request header: `field` and `header` name it."""
        return cls("", detail, header=name)

    @property
    def field(self) -> str:
        return self.header or pointer_to_field(self.pointer)

    def to_dict(self) -> dict[str, str]:
        out = {"field": self.field, "pointer": self.pointer, "detail": self.detail}
        if self.header:
            out["header"] = self.header
        return out


@dataclass
class ApplicationError(Exception):
    """The one exception services raise for anything a client can fix or should know about."""

    detail: str
    status: int = 400
    problem: str = "validation"
    errors: list[FieldError] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.detail

    def to_problem(self, instance: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "type": f"/problems/{self.problem}",
            "title": PROBLEM_TYPES.get(self.problem, "Error"),
            "status": self.status,
            "detail": self.detail,
        }
        if instance:
            body["instance"] = instance
        if self.errors:
            body["errors"] = [e.to_dict() for e in self.errors]
        body.update(self.extra)
        return body


def pointer_to_field(pointer: str) -> str:
    """`/summaries/3/stakeDistribution/low/checks` -> `summaries[3].stakeDistribution.low.checks`."""
    out = ""
    for part in pointer.lstrip("/").split("/") if pointer not in ("", "/") else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if part.isdigit():
            out += f"[{part}]"
        else:
            out += f".{part}" if out else part
    return out


def json_pointer(path: Iterable[str | int]) -> str:
    """Build a JSON pointer from path parts: ["a", 0, "b/c"] -> "/a/0/b~1c"."""
    parts = [str(p).replace("~", "~0").replace("/", "~1") for p in path]
    return "/" + "/".join(parts) if parts else ""


def validation_error(errors: list[FieldError], *, what: str = "request") -> ApplicationError:
    """An ApplicationError whose detail names the first offending field."""
    first = errors[0]
    where = first.field or "body"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return ApplicationError(f"Invalid {what}: {where}: {first.detail}{more}", errors=errors)


def problem_response(error: ApplicationError, request: HttpRequest | None = None) -> JsonResponse:
    """A plain Django response carrying the problem, for code outside DRF views."""
    instance = request.path if request is not None else None
    response = JsonResponse(
        error.to_problem(instance), status=error.status, content_type=PROBLEM_CONTENT_TYPE
    )
    for key, value in error.headers.items():
        response[key] = value
    return response


def _drf_field_errors(detail: Any, path: list[str | int]) -> list[FieldError]:
    if isinstance(detail, Mapping):
        out: list[FieldError] = []
        for key, value in detail.items():
            sub = path if key in ("non_field_errors", "__all__") else [*path, key]
            out.extend(_drf_field_errors(value, sub))
        return out
    if isinstance(detail, list):
        if all(isinstance(item, str) for item in detail):
            return [FieldError(json_pointer(path), str(item)) for item in detail]
        out = []
        for index, item in enumerate(detail):
            if item:
                out.extend(_drf_field_errors(item, [*path, index]))
        return out
    return [FieldError(json_pointer(path), str(detail))]


def _from_drf(exc: drf.APIException) -> ApplicationError:
    if isinstance(exc, drf.ValidationError):
        errors = _drf_field_errors(exc.detail, []) or [FieldError("", "invalid")]
        return validation_error(errors)
    if isinstance(exc, drf.ParseError):
        return ApplicationError(f"The body could not be parsed: {exc.detail}", problem="malformed-json")
    if isinstance(exc, drf.UnsupportedMediaType):
        return ApplicationError(str(exc.detail), status=415, problem="unsupported-media-type")
    if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
        return ApplicationError(
            str(exc.detail), status=401, problem="unauthenticated", headers={"WWW-Authenticate": "Bearer"}
        )
    if isinstance(exc, drf.PermissionDenied):
        return ApplicationError(str(exc.detail), status=403, problem="forbidden")
    if isinstance(exc, drf.NotFound):
        return ApplicationError(str(exc.detail), status=404, problem="not-found")
    if isinstance(exc, drf.MethodNotAllowed):
        return ApplicationError(str(exc.detail), status=405, problem="method-not-allowed")
    if isinstance(exc, drf.Throttled):
        # Always a Retry-After, in whole seconds and never 0 (a client told 0 retries at once).
        wait = getattr(exc, "wait", None)
        headers = {"Retry-After": str(max(1, math.ceil(wait)) if wait is not None else 60)}
        return ApplicationError(str(exc.detail), status=429, problem="rate-limited", headers=headers)
    return ApplicationError(str(exc.detail), status=exc.status_code, problem="validation")


def _retryable_database_error(exc: BaseException) -> bool:
    """Whether a database error is PostgreSQL giving up on a statement that may succeed if retried:
    cancelled by the statement timeout (57014), a deadlock victim (40P01) or a serialization
    failure (40001)."""
    cause = exc.__cause__
    return getattr(cause, "sqlstate", None) in ("57014", "40P01", "40001")


# SQLSTATEs of a database that is not there: connection exceptions (class 08) and a server shutting
# down or starting up (57P01-57P03).
_UNAVAILABLE_SQLSTATES = ("57P01", "57P02", "57P03")


def database_unavailable(exc: BaseException) -> bool:
    """Whether a database error means the database cannot be reached (restarting, down, starting up)
    rather than a bug: no SQLSTATE at all (the connection failed or was lost) or a connection class one."""
    if not isinstance(exc, OperationalError):
        return False
    state = getattr(exc.__cause__, "sqlstate", None)
    return state is None or state.startswith("08") or state in _UNAVAILABLE_SQLSTATES


def unavailable_error() -> ApplicationError:
    return ApplicationError(
        "The database is unavailable (restarting or unreachable); nothing was stored. Try again shortly.",
        status=503,
        problem="unavailable",
        headers={"Retry-After": "5"},
    )


def problem_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF's EXCEPTION_HANDLER: every error leaves as problem details."""
    if isinstance(exc, Http404):
        error = ApplicationError("Not found.", status=404, problem="not-found")
    elif isinstance(exc, PermissionDenied):
        error = ApplicationError("You do not have permission to perform this action.", 403, "forbidden")
    elif isinstance(exc, ApplicationError):
        error = exc
    elif isinstance(exc, drf.APIException):
        error = _from_drf(exc)
    elif isinstance(exc, DataError):
        # A value the database cannot store (an integer past its column's range, text past its
        # length) that validation let through: the client's input, so a 400, never a 500. Services
        # should refuse such values by name first; this keeps a missed bound from being a crash.
        # The database's own message may quote the value, so it is logged, not answered.
        from rest_framework.views import set_rollback  # here: at import time it would be circular

        logger.warning("Refused a value the database cannot store: %s", exc)
        set_rollback()
        error = ApplicationError(
            "A value in the request is outside what the registry can store (too large or too long).",
            errors=[FieldError("", "A value is out of range for storage.")],
        )
    elif isinstance(exc, OperationalError) and _retryable_database_error(exc):
        # DB_STATEMENT_TIMEOUT_MS cut a query short, or PostgreSQL chose this transaction as a
        # deadlock or serialization victim: nothing was stored, and the same request may succeed
        # when retried. Answered like every other bound, so a client can back off and retry.
        from rest_framework.views import set_rollback

        logger.warning("The database gave up on a statement (timeout, deadlock): %s", exc)
        set_rollback()
        error = ApplicationError(
            "The database gave up on the request (it took too long, or conflicted with another); "
            "nothing was stored. Try again later, or ask for less.",
            status=503,
            problem="timeout",
            headers={"Retry-After": "5"},
        )
    elif database_unavailable(exc):
        # A PostgreSQL restart (issue 15's chaos run answered 500s): the client should retry.
        logger.warning("The database is unavailable: %s", exc)
        error = unavailable_error()
    else:
        return None  # a bug: let Django log it and answer 500 through handler500
    request = context.get("request")
    response = Response(
        error.to_problem(request.path if request is not None else None),
        status=error.status,
        content_type=PROBLEM_CONTENT_TYPE,
        headers=error.headers or None,
    )
    return response


#: Paths whose every answer is for programs: errors there are problem details, never HTML.
API_PATH_PREFIXES = ("/api/", "/v1/")


def is_api_path(path: str) -> bool:
    return path.startswith(API_PATH_PREFIXES)


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's answer to SuspiciousOperation and BadRequest raised outside DRF views.

    A disallowed Host header, a body over DATA_UPLOAD_MAX_MEMORY_SIZE read without a Content-Length
    (chunked), too many fields: problem details on API paths, Django's page elsewhere. The detail
    stays generic: the exception's text can echo attacker-chosen input (the Host header).
    """
    if isinstance(exception, RequestDataTooBig):
        error = ApplicationError("The body is too large.", status=413, problem="payload-too-large")
        if is_api_path(request.path):
            return problem_response(error, request)
        return HttpResponse("The body is too large.", status=413, content_type="text/plain")
    if not is_api_path(request.path):
        return defaults.bad_request(request, exception or Exception())
    return problem_response(
        ApplicationError("The request is not acceptable (malformed or not allowed)."), request
    )


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if not is_api_path(request.path):
        return defaults.permission_denied(request, exception or Exception())
    return problem_response(
        ApplicationError(
            "You do not have permission to perform this action.", status=403, problem="forbidden"
        ),
        request,
    )


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Problem details for API clients; an HTML page (templates/404.html) for a person's browser."""
    if not is_api_path(request.path):
        return defaults.page_not_found(request, exception or Exception())
    return problem_response(ApplicationError("Not found.", status=404, problem="not-found"), request)


def handler500(request: HttpRequest) -> HttpResponse:
    """Problem details for API clients; templates/500.html (standalone, no context) for a person."""
    if not is_api_path(request.path):
        return defaults.server_error(request)
    return problem_response(
        ApplicationError("The server failed; the error has been logged.", status=500, problem="server-error"),
        request,
    )
