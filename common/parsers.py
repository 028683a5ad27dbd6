"""A JSON parser that bounds nesting and lets NaN/Infinity literals through to validation.

DRF's strict parser refuses NaN/Infinity with a bare "malformed JSON" problem that names no field;
parsed leniently, the summary validation refuses them with a problem naming the offending field.

Nesting is measured on the raw text before anything decodes it (untrusted.jsonbounds): CPython's
decoder recurses once per level, and with the recursion limit raised by a library a body of 20,000
`[` overflowed the C stack and killed the worker. A deeper body is a 400 "too-deep" problem.
"""

from __future__ import annotations

import io
import math
import re
from typing import Any

from django.conf import settings
from rest_framework.parsers import JSONParser

from untrusted.jsonbounds import TooDeep, TooMany, check_depth

from .errors import ApplicationError, FieldError, json_pointer, validation_error


class LenientJSONParser(JSONParser):
    """Also refuses text no database column can hold (NUL, lone surrogates), naming where it is."""

    strict = False

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        raw = stream.read() if stream is not None else b""
        # A view may accept less than MAX_BODY_BYTES (an anonymous endpoint that needs a few KiB).
        view_limit = getattr((parser_context or {}).get("view"), "max_body_bytes", None)
        if view_limit is not None and len(raw) > view_limit:
            raise ApplicationError(
                f"The body has {len(raw)} bytes; this endpoint accepts at most {view_limit}.",
                status=413,
                problem="payload-too-large",
            )
        body_depth_check(raw)
        data = super().parse(io.BytesIO(raw), media_type, parser_context)
        # Parsed text can only hold a NUL or a lone surrogate if the body has a NUL byte (a raw NUL,
        # or any UTF-16/32 body) or a \u escape; most bodies have neither and skip the walk.
        if b"\x00" in raw or b"\\u" in raw:
            errors = _unstorable_text(data, [])
            if errors:
                raise validation_error(errors)
        # NaN, Infinity and numbers past the float range (1e400 decodes to inf) reach no service:
        # refused here, naming the field, as the summary validation names them. Only bodies with such
        # a literal, a 3-digit exponent or a 309-digit run can hold one, so most skip the walk.
        if _MAYBE_NON_FINITE.search(raw):
            errors = _non_finite(data, [])
            if errors:
                raise validation_error(errors)
        return data


def body_depth_check(raw: bytes | str) -> None:
    """Raise the 400 "too-deep" problem when a request body nests deeper than JSON_MAX_DEPTH, and a
    413 when it holds more than JSON_MAX_CONTAINERS arrays and objects.

    The bytes are measured as they came: brackets and quotes are ASCII in UTF-8, and in UTF-16/32
    the other bytes of a bracket character are NUL, so no real nesting goes uncounted.
    """
    limit: int = settings.JSON_MAX_DEPTH
    most: int = settings.JSON_MAX_CONTAINERS
    try:
        check_depth(raw, limit, max_containers=most)
    except TooMany as exc:
        raise ApplicationError(
            f"The body holds {exc.count} arrays and objects; the limit is {most}.",
            status=413,
            problem="payload-too-large",
            errors=[FieldError("", f"More than {most} arrays and objects.")],
        ) from None
    except TooDeep as exc:
        raise ApplicationError(
            f"The body nests arrays and objects deeper than {limit} levels.",
            problem="too-deep",
            errors=[FieldError("", f"Nested deeper than {limit} levels at byte {exc.position}.")],
        ) from None


_MAYBE_NON_FINITE = re.compile(rb"NaN|Infinity|[eE]\+?0*[1-9][0-9]{2}|[0-9]{309}")


def _non_finite(value: Any, path: list[str | int]) -> list[FieldError]:
    if isinstance(value, float):
        return [] if math.isfinite(value) else [FieldError(json_pointer(path), "Must be a finite number.")]
    if isinstance(value, list):
        return [e for i, item in enumerate(value) for e in _non_finite(item, [*path, i])]
    if isinstance(value, dict):
        return [e for k, item in value.items() for e in _non_finite(item, [*path, k])]
    return []


def _unstorable_text(value: Any, path: list[str | int]) -> list[FieldError]:
    if isinstance(value, str):
        if "\x00" in value:
            return [FieldError(json_pointer(path), "NUL characters (\\u0000) are not allowed.")]
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return [FieldError(json_pointer(path), "Unpaired surrogates are not valid Unicode.")]
        return []
    if isinstance(value, list):
        return [e for i, item in enumerate(value) for e in _unstorable_text(item, [*path, i])]
    if isinstance(value, dict):
        out = [e for k in value for e in _unstorable_text(k, path)]
        return out + [e for k, item in value.items() for e in _unstorable_text(item, [*path, k])]
    return []


__all__ = ["LenientJSONParser", "body_depth_check"]
