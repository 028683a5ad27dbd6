"""Admin plumbing every app shares: read-only evidence tables that never count a huge table."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property

__all__ = ["EXACT_COUNT_CAP", "EstimatedCountPaginator", "LargeTableAdmin", "ReadOnlyAdmin", "ReadOnlyInline"]

# Changelists count matching rows exactly up to this many; beyond it, PostgreSQL's estimate.
EXACT_COUNT_CAP = 10_000


class EstimatedCountPaginator(Paginator):
    """A paginator whose count never scans a huge table.

    Django's admin counts the filtered rows on every page (COUNT(*): about 0.1 s at a million agents,
    seconds over millions of summaries). Here the count is exact up to EXACT_COUNT_CAP (a LIMITed
    subquery reads at most that many rows); above it, PostgreSQL's planner estimate for the same
    query stands in: the page says "about", and deep page numbers may be off by the estimate's error.
    """

    @cached_property
    def count(self) -> int:
        query: QuerySet[Any] = self.object_list  # type: ignore[assignment]  # the admin passes a queryset
        capped: int = query.order_by()[: EXACT_COUNT_CAP + 1].count()
        if capped <= EXACT_COUNT_CAP or connection.vendor != "postgresql":
            return capped if capped <= EXACT_COUNT_CAP else query.count()
        sql, params = query.order_by().query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
            plan = cursor.fetchone()[0]
        if isinstance(plan, str):
            plan = json.loads(plan)
        return max(capped, int(plan[0]["Plan"]["Plan Rows"]))


class LargeTableAdmin(admin.ModelAdmin):
    """A changelist over a table that grows with the registry: no full COUNT(*) per page."""

    paginator = EstimatedCountPaginator
    # The "N total" link would count the whole table on every page.
    show_full_result_count = False


class ReadOnlyAdmin(LargeTableAdmin):
    """Evidence (summaries, outcomes, scores, chain state): shown, never added, changed or deleted here."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
