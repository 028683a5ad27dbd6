"""Pagination that refuses bad values with a problem naming them, instead of ignoring them.

Limit/offset for the small lists; keyset (cursor) pages for the agent list and directory, whose cost
does not grow with the number of agents (see KeysetPagination).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.db.models import BooleanField, Expression, F, Model, QuerySet, Value
from django.db.models.expressions import OrderBy
from django.db.models.functions import Coalesce
from rest_framework.pagination import BasePagination, LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from .errors import ApplicationError, FieldError, validation_error

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


# --- Keyset (cursor) pagination --------------------------------------------------------------------
#
# A page is "the next `limit` rows after the last one shown" in an ordering whose sort keys end in a
# unique column, found with one row comparison that an index answers as a range: no OFFSET (whose
# cost grows with the depth) and no COUNT(*) (whose cost grows with the table). The cursor carries
# the ordering's name and the sort-key values of the row it continues from, signed with SECRET_KEY so
# a client can neither forge nor edit one (a tampered cursor is a 400 naming `cursor`).
#
# While scores change under a walk, keyset semantics hold: a row whose keys did not change is shown
# exactly once; a row whose key moves from ahead of the cursor to behind it is not shown, and one that
# moves from behind to ahead is shown again (unlike OFFSET, where one change shifts every later row).

CURSOR_SALT = "common.pagination.keyset"
# A cursor holds a few keys (a subject id is at most 255 characters): anything longer is not ours.
MAX_CURSOR_LENGTH = 2048


@dataclass(frozen=True)
class SortKey:
    """One sort key: the model attribute read from a row, and the SQL expression sorted on.

    `null_as` is the value a NULL stands for (past every real value in the direction sorted), so that
    NULLs sort last and the row comparison needs no OR; the model's index must COALESCE the same way.
    `column`, if given, is what is sorted on instead: an alias of the queryset holding the same key
    with NULL already replaced by `null_as` (another table's copy of it, with its own index).
    """

    attr: str
    null_as: Any = None
    column: str | None = None

    def expression(self) -> Any:
        if self.column is not None:
            return F(self.column)
        column = F(self.attr)
        return column if self.null_as is None else Coalesce(column, Value(self.null_as))

    def sql_value(self, value: Any) -> Any:
        return self.null_as if value is None else value


@dataclass(frozen=True)
class KeysetOrdering:
    """An ordering a cursor can follow: sort keys (the last one unique) all sorted one way."""

    keys: tuple[SortKey, ...]
    descending: bool

    def order_by(self, *, reverse: bool = False) -> list[OrderBy]:
        down = self.descending != reverse
        return [k.expression().desc() if down else k.expression().asc() for k in self.keys]

    def after(self, values: Sequence[Any], *, reverse: bool = False) -> RowCompare:
        """Rows strictly after `values` in this ordering (before them with `reverse`)."""
        down = self.descending != reverse
        return RowCompare(
            [k.expression() for k in self.keys],
            "<" if down else ">",
            [k.sql_value(v) for k, v in zip(self.keys, values, strict=True)],
        )

    def values_of(self, row: Any) -> list[Any]:
        """The sort-key values of a row: a model instance, or a dict from `values()` naming the keys."""
        if isinstance(row, dict):
            return [row[k.attr] for k in self.keys]
        return [getattr(row, k.attr) for k in self.keys]


class RowCompare(Expression):
    """`(a, b) < (x, y)`: a row comparison, which PostgreSQL and SQLite answer from a btree index."""

    output_field = BooleanField()
    conditional = True

    def __init__(self, left: list[Any], operator: str, right: list[Any]) -> None:
        super().__init__()
        if operator not in ("<", ">"):
            raise ValueError(operator)
        self.left = list(left)
        self.operator = operator
        self.right = [Value(v) for v in right]

    def get_source_expressions(self) -> list[Any]:
        return [*self.left, *self.right]

    def set_source_expressions(self, exprs: Sequence[Any]) -> None:
        self.left, self.right = list(exprs[: len(self.left)]), list(exprs[len(self.left) :])

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, Any]:
        sides: list[str] = []
        params: list[Any] = []
        for side in (self.left, self.right):
            parts = []
            for expression in side:
                sql, p = compiler.compile(expression)
                parts.append(sql)
                params.extend(p)
            sides.append(f"({', '.join(parts)})")
        return f"{sides[0]} {self.operator} {sides[1]}", tuple(params)


@dataclass(frozen=True)
class KeysetPage:
    """One page of rows and the cursors of its neighbours (None where there is none)."""

    rows: list[Any]
    next_cursor: str | None
    previous_cursor: str | None


def _cursor_error(detail: str) -> ApplicationError:
    return validation_error([FieldError("/cursor", detail)])


def cursor_encode(*, ordering_name: str, direction: str, values: Sequence[Any]) -> str:
    """An opaque, signed cursor: the ordering, the direction ("n" after, "p" before) and the keys."""
    # Decimals and datetimes as text (JSON has no such types); each key's field parses them back.
    plain = [v.isoformat() if isinstance(v, datetime) else v for v in values]
    plain = [v if v is None or isinstance(v, int | str) else str(v) for v in plain]
    return signing.dumps([ordering_name, direction, plain], salt=CURSOR_SALT, compress=True)


def cursor_decode(
    *, cursor: str, ordering_name: str, model: type[Model], ordering: KeysetOrdering
) -> tuple[str, list[Any]]:
    """(direction, typed key values) of a cursor made by :func:`cursor_encode` for this ordering."""
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise _cursor_error("Not a cursor this service made.")
    try:
        name, direction, plain = signing.loads(cursor, salt=CURSOR_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        raise _cursor_error("Not a cursor this service made (or it was changed).") from None
    if name != ordering_name:
        raise _cursor_error(f"This cursor continues ordering={name}, not ordering={ordering_name}.")
    if direction not in ("n", "p") or not isinstance(plain, list) or len(plain) != len(ordering.keys):
        raise _cursor_error("Not a cursor this service made.")
    values = []
    for key, value in zip(ordering.keys, plain, strict=True):
        field: Any = model._meta.pk if key.attr == "pk" else model._meta.get_field(key.attr)
        try:
            values.append(None if value is None else field.to_python(value))
        except ValidationError:
            raise _cursor_error("Not a cursor this service made.") from None
    return direction, values


def keyset_page(
    queryset: QuerySet[Any],
    *,
    ordering_name: str,
    ordering: KeysetOrdering,
    cursor: str | None,
    limit: int,
) -> KeysetPage:
    """The page of `queryset` that `cursor` points at (the first page without one): limit+1 rows read."""
    if cursor is None:
        rows = list(queryset.order_by(*ordering.order_by())[: limit + 1])
        more, rows = len(rows) > limit, rows[:limit]
        after = more and rows
        return KeysetPage(
            rows=rows,
            next_cursor=cursor_encode(
                ordering_name=ordering_name, direction="n", values=ordering.values_of(rows[-1])
            )
            if after
            else None,
            previous_cursor=None,
        )
    direction, values = cursor_decode(
        cursor=cursor, ordering_name=ordering_name, model=queryset.model, ordering=ordering
    )
    backwards = direction == "p"
    found = list(
        queryset.filter(ordering.after(values, reverse=backwards)).order_by(
            *ordering.order_by(reverse=backwards)
        )[: limit + 1]
    )
    more, rows = len(found) > limit, found[:limit]
    if backwards:
        rows.reverse()
    # Going forward there is a page behind (the one we came from) and one ahead if a row was left
    # over; going back, the other way round.
    has_next = (not backwards and more) or (backwards and bool(rows))
    has_previous = (backwards and more) or (not backwards and bool(rows))
    return KeysetPage(
        rows=rows,
        next_cursor=cursor_encode(
            ordering_name=ordering_name, direction="n", values=ordering.values_of(rows[-1])
        )
        if has_next
        else None,
        previous_cursor=cursor_encode(
            ordering_name=ordering_name, direction="p", values=ordering.values_of(rows[0])
        )
        if has_previous
        else None,
    )


class KeysetPagination(BasePagination):
    """Cursor pages for a view naming `keyset_orderings` ({ordering param: KeysetOrdering}) and
    `default_ordering`; a view's `keyset_ordering(queryset=, name=)`, if it has one, picks the
    KeysetOrdering for the filtered queryset (its name still one of `keyset_orderings`).

    - `cursor`: the opaque `next` / `previous` value of an earlier page; 400 if changed or made for
      another ordering.
    - `limit`: 1 to `max_limit` rows (default PAGE_SIZE).
    - `count=exact`: adds `count`, the number of matching rows counted up to `count_cap`, and
      `countCapped` (true when there are more). Without it no row is counted.
    - `offset`: kept for old clients, bounded: 0 to `max_offset` (400 beyond), not with `cursor`;
      such pages carry `count` as with `count=exact`, and offset links.
    """

    max_limit = 1000
    max_offset = 10_000
    count_cap = 10_000
    cursor_query_param = "cursor"
    limit_query_param = "limit"
    offset_query_param = "offset"
    count_query_param = "count"

    def paginate_queryset(self, queryset: Any, request: Request, view: Any = None) -> list[Any]:
        self.request = request
        params = request.query_params
        limit = StrictLimitOffsetPagination._bounded(request, self.limit_query_param, 1, self.max_limit)
        page_size: Any = settings.REST_FRAMEWORK.get("PAGE_SIZE") or 50
        self.limit = limit or int(page_size)
        count = params.get(self.count_query_param)
        if count not in (None, "", "exact"):
            raise validation_error([FieldError("/count", "Expected exact (or no count).")])
        ordering_name = params.get("ordering") or view.default_ordering
        if ordering_name not in view.keyset_orderings:
            raise validation_error([FieldError("/ordering", "Not an ordering of this list.")])
        ordering: KeysetOrdering = (
            view.keyset_ordering(queryset=queryset, name=ordering_name)
            if hasattr(view, "keyset_ordering")
            else view.keyset_orderings[ordering_name]
        )
        self.count: int | None = None
        self.offset: int | None = None
        offset = StrictLimitOffsetPagination._bounded(request, self.offset_query_param, 0, self.max_offset)
        cursor = params.get(self.cursor_query_param) or None
        if offset is not None and cursor is not None:
            raise _cursor_error("Give a cursor or an offset, not both.")
        if count == "exact" or offset is not None:
            self.count = queryset.order_by()[: self.count_cap + 1].count()
        if offset is not None:
            self.offset = offset
            rows = list(queryset.order_by(*ordering.order_by())[offset : offset + self.limit + 1])
            self.page = KeysetPage(rows=rows[: self.limit], next_cursor=None, previous_cursor=None)
            self.more = len(rows) > self.limit
            return self.page.rows
        self.page = keyset_page(
            queryset, ordering_name=ordering_name, ordering=ordering, cursor=cursor, limit=self.limit
        )
        return self.page.rows

    def _link(self, cursor: str | None) -> str | None:
        if cursor is None:
            return None
        url = remove_query_param(self.request.build_absolute_uri(), self.offset_query_param)
        return replace_query_param(url, self.cursor_query_param, cursor)

    def _offset_link(self, offset: int | None) -> str | None:
        if offset is None:
            return None
        url = replace_query_param(self.request.build_absolute_uri(), self.limit_query_param, self.limit)
        return replace_query_param(url, self.offset_query_param, offset)

    def get_paginated_response(self, data: Any) -> Response:
        if self.offset is not None:
            following = self.offset + self.limit
            next_link = self._offset_link(following if self.more and following <= self.max_offset else None)
            previous_link = self._offset_link(max(self.offset - self.limit, 0) if self.offset else None)
        else:
            next_link, previous_link = (
                self._link(self.page.next_cursor),
                self._link(self.page.previous_cursor),
            )
        body: OrderedDict[str, Any] = OrderedDict()
        if self.count is not None:
            body["count"] = min(self.count, self.count_cap)
            body["countCapped"] = self.count > self.count_cap
        body["next"] = next_link
        body["previous"] = previous_link
        body["results"] = data
        return Response(body)

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        link = {"type": "string", "nullable": True, "format": "uri"}
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {
                "count": {
                    "type": "integer",
                    "description": f"With count=exact (or offset): matching rows, up to {self.count_cap}.",
                },
                "countCapped": {"type": "boolean", "description": "True when more rows match than `count`."},
                "next": {**link, "description": "The next page (a cursor link), or null on the last page."},
                "previous": {**link, "description": "The previous page, or null on the first page."},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        return [
            {
                "name": self.cursor_query_param,
                "required": False,
                "in": "query",
                "description": "The opaque cursor of the `next` or `previous` link of an earlier page.",
                "schema": {"type": "string", "maxLength": MAX_CURSOR_LENGTH},
            },
            {
                "name": self.limit_query_param,
                "required": False,
                "in": "query",
                "description": "Rows per page.",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_limit},
            },
            {
                "name": self.count_query_param,
                "required": False,
                "in": "query",
                "description": f"`exact` adds `count` (up to {self.count_cap}) and `countCapped`.",
                "schema": {"type": "string", "enum": ["exact"]},
            },
            {
                "name": self.offset_query_param,
                "required": False,
                "in": "query",
                "description": "Deprecated, for old clients: rows to skip (not with `cursor`); use `cursor`.",
                "deprecated": True,
                "schema": {"type": "integer", "minimum": 0, "maximum": self.max_offset},
            },
        ]
