"""Limit/offset pagination that refuses bad values with a problem naming them, instead of ignoring them."""

from __future__ import annotations

import re
from typing import Any

from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

from .errors import FieldError, validation_error

_DIGITS = re.compile(r"^[0-9]{1,12}$")


class StrictLimitOffsetPagination(LimitOffsetPagination):
    max_limit = 1000
    max_offset = 1_000_000_000

    def get_limit(self, request: Request) -> int | None:
        value = self._bounded(request, self.limit_query_param, 1, self.max_limit)
        return self.default_limit if value is None else value

    def get_offset(self, request: Request) -> int:
        value = self._bounded(request, self.offset_query_param, 0, self.max_offset)
        return 0 if value is None else value

    @staticmethod
    def _bounded(request: Request, name: str, low: int, high: int) -> int | None:
        raw = request.query_params.get(name)
        if raw is None:
            return None
        if not _DIGITS.match(raw) or not low <= int(raw) <= high:
            raise validation_error([FieldError(f"/{name}", f"Expected an integer from {low} to {high}.")])
        return int(raw)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        bounds = {
            self.limit_query_param: (1, self.max_limit),
            self.offset_query_param: (0, self.max_offset),
        }
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
        return parameters
