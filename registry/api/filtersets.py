"""Filters shared by the API, the public directory (/agents/) and the admin."""

from __future__ import annotations

from typing import Any

import django_filters
from django.db.models import F, Q, QuerySet
from drf_spectacular.contrib.django_filters import DjangoFilterExtension

from ..models import Agent


class NullsLastOrderingFilter(django_filters.OrderingFilter):
    """Unscored agents sort last whichever way the score is ordered."""

    def filter(self, qs: QuerySet[Agent], value: list[str] | None) -> QuerySet[Agent]:
        if not value:
            return qs
        exprs = []
        for param in value:
            field = self.get_ordering_value(param)
            if field.startswith("-"):
                exprs.append(F(field[1:]).desc(nulls_last=True))
            else:
                exprs.append(F(field).asc(nulls_last=True))
        return qs.order_by(*exprs, "pk")


class AgentFilterSet(django_filters.FilterSet):
    registry = django_filters.ChoiceFilter(choices=Agent.Registry.choices)
    protocol = django_filters.CharFilter()
    provider = django_filters.CharFilter(method="filter_provider", label="Reported on by the provider (slug)")
    min_score = django_filters.NumberFilter(field_name="trust_score", lookup_expr="gte")
    max_score = django_filters.NumberFilter(field_name="trust_score", lookup_expr="lte")
    scored = django_filters.BooleanFilter(field_name="trust_score", lookup_expr="isnull", exclude=True)
    rated = django_filters.BooleanFilter(
        method="filter_rated", label="Rated (an input counted: confidence above 0) or not yet rated"
    )
    q = django_filters.CharFilter(method="filter_q", label="Subject id or name contains")
    ordering = NullsLastOrderingFilter(
        fields=(("trust_score", "score"), ("subject_id", "subject"), ("trust_score_updated_at", "updated")),
    )

    class Meta:
        model = Agent
        fields = ["registry", "protocol"]

    def filter_provider(self, queryset: QuerySet[Agent], name: str, value: str) -> QuerySet[Agent]:
        return queryset.filter(summaries__provider__slug=value).distinct()

    def filter_rated(self, queryset: QuerySet[Agent], name: str, value: bool | None) -> QuerySet[Agent]:
        if value is None:
            return queryset
        rated = Q(latest_score__trust_confidence__gt=0)
        return queryset.filter(rated) if value else queryset.exclude(rated)

    def filter_q(self, queryset: QuerySet[Agent], name: str, value: str) -> QuerySet[Agent]:
        return queryset.filter(Q(subject_id__icontains=value) | Q(name__icontains=value))


class EmptyFilterValueExtension(DjangoFilterExtension):
    """Documents what django-filter does: an empty filter value (`?registry=`) means "not filtered"."""

    priority = 1

    def get_schema_operation_parameters(self, auto_schema: Any, *args: Any, **kwargs: Any) -> list[Any]:
        parameters = super().get_schema_operation_parameters(auto_schema, *args, **kwargs)
        return [{**p, "allowEmptyValue": True} if p.get("in") == "query" else p for p in parameters]
