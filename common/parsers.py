"""A JSON parser that lets NaN/Infinity literals through to validation.

DRF's strict parser refuses them with a bare "malformed JSON" problem that names no field; parsed
leniently, the summary validation refuses them with a problem naming the offending field.
"""

from __future__ import annotations

import io
from typing import Any

from rest_framework.parsers import JSONParser

from .errors import FieldError, json_pointer, validation_error


class LenientJSONParser(JSONParser):
    """Also refuses text no database column can hold (NUL, lone surrogates), naming where it is."""

    strict = False

    def parse(self, stream: Any, media_type: Any = None, parser_context: Any = None) -> Any:
        raw = stream.read()
        data = super().parse(io.BytesIO(raw), media_type, parser_context)
        # Parsed text can only hold a NUL or a lone surrogate if the body has a NUL byte (a raw NUL,
        # or any UTF-16/32 body) or a \u escape; most bodies have neither and skip the walk.
        if b"\x00" in raw or b"\\u" in raw:
            errors = _unstorable_text(data, [])
            if errors:
                raise validation_error(errors)
        return data


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
