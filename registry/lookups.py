"""`field__any=[...]`: `column = ANY(%s)`, the values bound as one array parameter (PostgreSQL).

`field__in` writes one placeholder per value and prepares each value in Python: for the drain's
batches of hundreds of ids that was a long statement the driver re-parses on every call (too long
for its statement cache) plus hundreds of per-value conversions, on every query of every batch.
With one array parameter the statement text is the same whatever the batch size.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.db import connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Field, ForeignObject, Lookup, Q
from django.db.models.sql.compiler import SQLCompiler


class AnyOf(Lookup):  # type: ignore[type-arg]
    lookup_name = "any"
    # The list is bound as it is (one array), not prepared value by value as `in` does.
    prepare_rhs = False

    def get_db_prep_lookup(self, value: Any, connection: BaseDatabaseWrapper) -> tuple[str, tuple[Any, ...]]:
        return "%s", (list(value),)

    def as_sql(self, compiler: SQLCompiler, connection: BaseDatabaseWrapper) -> tuple[str, tuple[Any, ...]]:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs} = ANY({rhs})", (*lhs_params, *rhs_params)


Field.register_lookup(AnyOf)
# Related fields keep lookups of their own (`agent_id__any` is the foreign key's).
ForeignObject.register_lookup(AnyOf)


def any_of(field: str, values: Collection[Any]) -> Q:
    """`Q(field__any=values)` on PostgreSQL, `Q(field__in=values)` elsewhere (SQLite has no arrays)."""
    if connection.vendor == "postgresql":
        return Q(**{f"{field}__any": list(values)})
    return Q(**{f"{field}__in": values})
