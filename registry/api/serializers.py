"""Response shapes for reads. Writes are validated by the JSON Schemas in registry.schemas."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from datetime import datetime, tzinfo
from typing import Any

from django.db import connection
from django.db.models import CharField, Func, QuerySet
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import Agent, Provider, ProviderAccuracy, ScoringConfig, TrustScore
from ..selectors import agent_identities


class AgentSerializer(serializers.ModelSerializer):
    subjectId = serializers.CharField(source="subject_id")
    chainId = serializers.IntegerField(source="chain_id", allow_null=True)
    erc8004AgentId = serializers.CharField(source="erc8004_agent_id", allow_null=True)
    ownerAddress = serializers.CharField(source="owner_address")
    trustScore = serializers.FloatField(source="trust_score", allow_null=True)
    trustScoreUpdatedAt = serializers.DateTimeField(source="trust_score_updated_at", allow_null=True)
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Agent
        fields = [
            "subjectId",
            "name",
            "registry",
            "protocol",
            "chainId",
            "erc8004AgentId",
            "ownerAddress",
            "trustScore",
            "trustScoreUpdatedAt",
            "createdAt",
        ]


# The columns one row of the agent list shows, plus the sort keys its cursor carries (trust_rank, pk).
AGENT_LIST_COLUMNS = (
    "subject_id",
    "name",
    "registry",
    "protocol",
    "chain_id",
    "erc8004_agent_id",
    "owner_address",
    "trust_score",
    "trust_rank",
    "pk",
)
_LIST_TIMES = ("trust_score_updated_at", "created_at")


class _UtcIsoText(Func):
    """A timestamptz as DRF's DateTimeField writes it in UTC (PostgreSQL): ISO 8601, microseconds
    only when there are any, and "Z"."""

    template = (
        "(replace(to_char(%(expressions)s AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US'), "
        "'.000000', '') || 'Z')"
    )
    output_field = CharField()


def agent_list_values(*, queryset: QuerySet[Agent], ordering_name: str) -> QuerySet[Agent, dict[str, Any]]:
    """The list's rows as dicts for agent_list_items: AGENT_LIST_COLUMNS and the two times.

    On PostgreSQL in UTC (the setting) PostgreSQL writes the times as text: loading 100 timestamps per
    page and formatting them again was a fifth of the page's CPU. The updated orderings also read the
    raw time, their cursor's key.
    """
    if connection.vendor != "postgresql" or timezone.get_current_timezone_name() != "UTC":
        return queryset.values(*AGENT_LIST_COLUMNS, *_LIST_TIMES)
    keys = ("trust_score_updated_at",) if ordering_name.lstrip("-") == "updated" else ()
    return queryset.values(
        *AGENT_LIST_COLUMNS, *keys, **{f"{name}_text": _UtcIsoText(name) for name in _LIST_TIMES}
    )


def _datetime_text(value: datetime | None, zone: tzinfo) -> str | None:
    # What DRF's DateTimeField writes with the default ISO 8601 format: the time in the current time
    # zone, "+00:00" written as "Z".
    if value is None:
        return None
    text = (
        value.astimezone(zone) if timezone.is_aware(value) else timezone.make_aware(value, zone)
    ).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def _time(row: dict[str, Any], name: str, zone: tzinfo) -> str | None:
    text_name = name + "_text"
    return row[text_name] if text_name in row else _datetime_text(row[name], zone)


def agent_list_items(*, rows: Iterable[dict[str, Any]]) -> list[OrderedDict[str, Any]]:
    """AgentSerializer(many=True).data of agent_list_values rows, without DRF's fields.

    The list is the busiest read: running the serializer's ten fields per row cost about half of a
    page's CPU. Each value here is converted as that serializer's field converts it (a test compares
    the two on every ordering), so the rendered body is the same bytes.
    """
    zone = timezone.get_current_timezone()
    items = []
    for row in rows:
        chain_id = row["chain_id"]
        agent_id = row["erc8004_agent_id"]
        score = row["trust_score"]
        items.append(
            OrderedDict(
                (
                    ("subjectId", row["subject_id"]),
                    ("name", row["name"]),
                    ("registry", row["registry"]),
                    ("protocol", row["protocol"]),
                    ("chainId", None if chain_id is None else int(chain_id)),
                    ("erc8004AgentId", None if agent_id is None else str(agent_id)),
                    ("ownerAddress", row["owner_address"]),
                    ("trustScore", None if score is None else float(score)),
                    ("trustScoreUpdatedAt", _time(row, "trust_score_updated_at", zone)),
                    ("createdAt", _time(row, "created_at", zone)),
                )
            )
        )
    return items


class AgentIdentitySerializer(serializers.ModelSerializer):
    subjectId = serializers.CharField(source="subject_id")
    chainId = serializers.IntegerField(source="chain_id", allow_null=True)
    erc8004AgentId = serializers.CharField(source="erc8004_agent_id", allow_null=True)

    class Meta:
        model = Agent
        fields = ["subjectId", "chainId", "erc8004AgentId"]


class AgentDetailSerializer(AgentSerializer):
    identities = serializers.SerializerMethodField(
        help_text="The agent's identities on every chain (ERC-8004 registrations with the same owner that "
        "the chains or its registration file link), the primary first; just this one when unlinked."
    )

    class Meta(AgentSerializer.Meta):
        fields = [*AgentSerializer.Meta.fields, "identities"]

    @extend_schema_field(AgentIdentitySerializer(many=True))
    def get_identities(self, obj: Agent) -> list[dict[str, Any]]:
        return list(AgentIdentitySerializer(agent_identities(agent=obj), many=True).data)


class _StrictStrings:
    """DRF's CharField turns numbers into strings; the schema says string, so anything else is a 400."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("invalid")  # type: ignore[attr-defined]
        return super().to_internal_value(data)  # type: ignore[misc]


class StrictCharField(_StrictStrings, serializers.CharField):
    pass


class StrictRegexField(_StrictStrings, serializers.RegexField):
    pass


class AgentCreateSerializer(serializers.Serializer):
    subjectId = StrictRegexField(r"^[A-Za-z0-9._:;=@+\-]{1,255}$")
    name = StrictCharField(required=False, allow_blank=True, max_length=200)
    registry = serializers.ChoiceField(choices=Agent.Registry.values, default=Agent.Registry.OTHER)
    protocol = StrictCharField(required=False, allow_blank=True, max_length=64)
    # No chainId / erc8004AgentId / ownerAddress: chain facts come only from the indexer, and a body
    # that sends them is refused (registry.services.agents.agent_registration_authorize).


class ProviderAccuracySerializer(serializers.ModelSerializer):
    """A provider's error rates on canary cases (known answers) with 95 % Wilson intervals."""

    windowDays = serializers.IntegerField(source="window_days")
    faithfulAnswered = serializers.IntegerField(source="faithful_answered")
    fabricatedAnswered = serializers.IntegerField(source="fabricated_answered")
    falsePositives = serializers.IntegerField(source="false_positives")
    falseNegatives = serializers.IntegerField(source="false_negatives")
    falsePositiveRate = serializers.FloatField(source="false_positive_rate", allow_null=True)
    falsePositiveInterval = serializers.SerializerMethodField()
    falseNegativeRate = serializers.FloatField(source="false_negative_rate", allow_null=True)
    falseNegativeInterval = serializers.SerializerMethodField()
    lastCaseAt = serializers.DateTimeField(source="last_case_at", allow_null=True)
    computedAt = serializers.DateTimeField(source="computed_at")

    class Meta:
        model = ProviderAccuracy
        fields = [
            "windowDays",
            "cases",
            "faithfulAnswered",
            "fabricatedAnswered",
            "falsePositives",
            "falseNegatives",
            "abstentions",
            "failures",
            "falsePositiveRate",
            "falsePositiveInterval",
            "falseNegativeRate",
            "falseNegativeInterval",
            "lastCaseAt",
            "computedAt",
        ]

    def get_falsePositiveInterval(self, obj: ProviderAccuracy) -> list[float]:
        return [obj.false_positive_low, obj.false_positive_high]

    def get_falseNegativeInterval(self, obj: ProviderAccuracy) -> list[float]:
        return [obj.false_negative_low, obj.false_negative_high]


class ProviderSerializer(serializers.ModelSerializer):
    methodologyUrl = serializers.CharField(source="methodology_url", help_text="A URL, or empty.")
    signerAddress = serializers.CharField(source="signer_address")
    independenceStatement = serializers.CharField(source="independence_statement")
    createdAt = serializers.DateTimeField(source="created_at")
    accuracy = ProviderAccuracySerializer(
        read_only=True,
        allow_null=True,
        help_text="Error rates on the registry's canary cases; null until the provider has a check endpoint "
        "and has been sent cases.",
    )

    class Meta:
        model = Provider
        fields = [
            "name",
            "slug",
            "methodologyUrl",
            "signerAddress",
            "status",
            "independenceStatement",
            "createdAt",
            "accuracy",
        ]


class ScoringConfigSerializer(serializers.ModelSerializer):
    trustScoreConfigVersion = serializers.IntegerField(source="version")
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = ScoringConfig
        fields = ["trustScoreConfigVersion", "params", "digest", "note", "createdAt"]


class TrustScoreHistorySerializer(serializers.ModelSerializer):
    trustScore = serializers.FloatField(source="trust_score")
    trustConfidence = serializers.FloatField(source="trust_confidence")
    rated = serializers.SerializerMethodField(help_text="False when no input counted (score 0 is no data)")
    trustScoreConfigVersion = serializers.IntegerField(source="config.version")
    trustScores = serializers.JSONField(source="record.trustScores")
    inputsDigest = serializers.CharField(source="inputs_digest")
    computedAt = serializers.DateTimeField(source="computed_at")
    newestInputAt = serializers.DateTimeField(source="newest_input_at", allow_null=True)

    def get_rated(self, obj: TrustScore) -> bool:
        return obj.trust_confidence > 0

    class Meta:
        model = TrustScore
        fields = [
            "id",
            "trustScore",
            "trustScores",
            "trustConfidence",
            "rated",
            "trustScoreConfigVersion",
            "inputsDigest",
            "computedAt",
            "newestInputAt",
        ]
