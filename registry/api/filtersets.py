"""Filters shared by the API, the public directory (/agents/) and the admin."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

import django_filters
from django.db import connection
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce
from drf_spectacular.contrib.django_filters import DjangoFilterExtension

from common.pagination import KeysetOrdering, SortKey

from ..models import (
    RANK_NULL_ASC,
    RANK_NULL_DESC,
    UPDATED_NULL_ASC,
    UPDATED_NULL_DESC,
    Agent,
    Provider,
    VerificationSummary,
)
from ..search import (
    SEARCH_AGENT,
    SEARCH_HELP,
    SEARCH_MAX_LENGTH,
    SEARCH_RANK,
    agent_search,
    search_text_validate,
)

# The list orderings (the `ordering` parameter): each ends in a unique key and matches one index of
# Agent (registry/models.py), NULL keys standing past every real value so they come last both ways.
# Score orderings sort on trust_rank (NULL for unrated agents), so unrated agents come last, as
# `rated=false` selects them; ties break by id in the ordering's direction.
AGENT_ORDERINGS: dict[str, KeysetOrdering] = {
    "-score": KeysetOrdering((SortKey("trust_rank", RANK_NULL_DESC), SortKey("pk")), descending=True),
    "score": KeysetOrdering((SortKey("trust_rank", RANK_NULL_ASC), SortKey("pk")), descending=False),
    "-updated": KeysetOrdering(
        (SortKey("trust_score_updated_at", UPDATED_NULL_DESC), SortKey("pk")), descending=True
    ),
    "updated": KeysetOrdering(
        (SortKey("trust_score_updated_at", UPDATED_NULL_ASC), SortKey("pk")), descending=False
    ),
    # subject_id is unique: its own index orders it.
    "-subject": KeysetOrdering((SortKey("subject_id"),), descending=True),
    "subject": KeysetOrdering((SortKey("subject_id"),), descending=False),
}
DEFAULT_AGENT_ORDERING = "-score"
# A search whose page is a range of the word index (registry/search.py) sorts on the index row's copy
# of the keys (the same values: its rank is COALESCE(trust_rank, -1), its agent the id), so its
# cursors are those of the plain ordering.
AGENT_SEARCH_ORDERINGS: dict[str, KeysetOrdering] = {
    "-score": KeysetOrdering(
        (SortKey("trust_rank", RANK_NULL_DESC, column=SEARCH_RANK), SortKey("pk", column=SEARCH_AGENT)),
        descending=True,
    ),
}


def agent_keyset_ordering(*, queryset: QuerySet[Any], name: str) -> KeysetOrdering:
    """The keyset ordering `name` of an agent queryset (filtered by AgentFilterSet)."""
    if name in AGENT_SEARCH_ORDERINGS and SEARCH_RANK in queryset.query.annotations:
        return AGENT_SEARCH_ORDERINGS[name]
    return AGENT_ORDERINGS[name]


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
    q = django_filters.CharFilter(
        method="filter_q",
        label=SEARCH_HELP,
        max_length=SEARCH_MAX_LENGTH,
        validators=[search_text_validate],
    )
    ordering = django_filters.ChoiceFilter(
        choices=[(name, name) for name in AGENT_ORDERINGS],
        method="filter_ordering",
        label="Sort order (default -score: best first; unrated and unscored agents last either way)",
    )

    class Meta:
        model = Agent
        fields = ["registry", "protocol"]

    def filter_provider(self, queryset: QuerySet[Agent], name: str, value: str) -> QuerySet[Agent]:
        # A semi-join: EXISTS probes the (agent, provider, window) index once per agent considered,
        # where a join would read every summary of the provider and de-duplicate agents.
        provider_id = Provider.objects.filter(slug=value).values_list("pk", flat=True).first()
        if provider_id is None:
            return queryset.none()
        reported = VerificationSummary.objects.filter(agent=OuterRef("pk"), provider_id=provider_id)
        return queryset.filter(Exists(reported))

    def filter_queryset(self, queryset: QuerySet[Agent]) -> QuerySet[Agent]:
        queryset = super().filter_queryset(queryset)
        # A bound on the score that the walk reads from the best down (max_score under -score) or from
        # the worst up (min_score under score) skips every agent before it one by one: at 1 M that was
        # a sequential scan. Said again on the ordering's index key, it starts the index range at the
        # bound. It selects the same agents: a rated agent's key is its score (the trust_rank trigger),
        # and an unrated agent's key (below every score for -score, above every score for score)
        # passes any bound in range, leaving the trust_score condition to decide as before.
        data = self.form.cleaned_data
        ordering = data.get("ordering") or DEFAULT_AGENT_ORDERING
        upper: Decimal | None = data.get("max_score")
        lower: Decimal | None = data.get("min_score")
        if ordering == "-score" and upper is not None and upper >= RANK_NULL_DESC:
            key = Coalesce(F("trust_rank"), Value(RANK_NULL_DESC))
            queryset = queryset.alias(_rank_bound=key).filter(_rank_bound__lte=upper)
        elif ordering == "score" and lower is not None and lower <= RANK_NULL_ASC:
            key = Coalesce(F("trust_rank"), Value(RANK_NULL_ASC))
            queryset = queryset.alias(_rank_bound=key).filter(_rank_bound__gte=lower)
        return queryset

    def filter_rated(self, queryset: QuerySet[Agent], name: str, value: bool | None) -> QuerySet[Agent]:
        if value is None:
            return queryset
        # trust_rank is set exactly when the newest score is rated (its trigger, migration 0004).
        if value:
            return queryset.filter(trust_rank__isnull=False)
        # Unrated agents are the NULL end of the score index the page walks: said with that index's
        # own expression (scores are never below 0 nor 1000), it bounds the index range instead of
        # filtering every rated agent read before them, and its statistics give the planner the share.
        ordering = self.data.get("ordering") or DEFAULT_AGENT_ORDERING
        null_as = RANK_NULL_ASC if ordering == "score" else RANK_NULL_DESC
        return queryset.alias(_rank=Coalesce(F("trust_rank"), Value(null_as))).filter(_rank=null_as)

    def filter_q(self, queryset: QuerySet[Agent], name: str, value: str) -> QuerySet[Agent]:
        if connection.vendor != "postgresql":
            # SQLite (`make run`): a substring match, its size needing no index.
            return queryset.filter(Q(subject_id__icontains=value) | Q(name__icontains=value))
        ordering = self.data.get("ordering") or DEFAULT_AGENT_ORDERING
        # rated=false (filtered before this) reads only the unrated entries of the word index.
        unrated = self.form.cleaned_data.get("rated") is False
        return agent_search(queryset=queryset, text=value, ordering=ordering, unrated=unrated)

    def filter_ordering(self, queryset: QuerySet[Agent], name: str, value: str) -> QuerySet[Agent]:
        return queryset.order_by(*AGENT_ORDERINGS[value].order_by())


class AgentListFilterSet(AgentFilterSet):
    """AgentFilterSet for the API list: only the filters a request names are copied and validated.

    django-filter deep-copies every filter and builds a form class and a form of every field for each
    request: on the busiest list that was a third of a page's CPU, for parameters mostly absent. A
    filter that is not named has nothing to do (an absent value is an empty one, which every filter
    here passes through), so the filters copied are the named ones, and the form class for each set
    of names is built once. The public directory keeps AgentFilterSet: it renders every field.
    """

    _form_classes: ClassVar[dict[frozenset[str], Any]] = {}

    def __init__(
        self, data: Any = None, queryset: Any = None, *, request: Any = None, prefix: Any = None
    ) -> None:
        # Read by the base __init__, which deep-copies it into self.filters.
        cls: Any = type(self)
        named = cls.base_filters
        if data is not None:
            self.base_filters = {name: f for name, f in named.items() if name in data}
        super().__init__(data, queryset, request=request, prefix=prefix)

    def get_form_class(self) -> Any:
        names = frozenset(self.filters)
        form = self._form_classes.get(names)
        if form is None:
            # At most one class per subset of the ten filters' names.
            form = self._form_classes[names] = super().get_form_class()
        return form


class EmptyFilterValueExtension(DjangoFilterExtension):
    """Documents what django-filter does: an empty filter value (`?registry=`) means "not filtered"."""

    priority = 1

    def get_schema_operation_parameters(self, auto_schema: Any, *args: Any, **kwargs: Any) -> list[Any]:
        parameters = super().get_schema_operation_parameters(auto_schema, *args, **kwargs)
        return [{**p, "allowEmptyValue": True} if p.get("in") == "query" else p for p in parameters]
