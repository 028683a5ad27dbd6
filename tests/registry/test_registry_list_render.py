"""The agent list's lean rendering (values() rows, no DRF fields) answers the same bytes as AgentSerializer.

Random agents (unicode and line-separator names, nulls everywhere a column allows them, huge ERC-8004
ids, scores with and without confidence, microsecond times) are listed through the API and through the
generic DRF list (ListModelMixin.list with AgentSerializer, what the view ran before), page by page,
for every ordering and filter; the two bodies must be equal byte for byte, cursor links included.
"""

from __future__ import annotations

import itertools
import json
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import pytest
from django.core import signing
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework import mixins
from rest_framework.test import APIClient, APIRequestFactory

from common.pagination import CURSOR_SALT
from registry.api.filtersets import AGENT_ORDERINGS, AgentFilterSet, AgentListFilterSet
from registry.api.views import AgentListView
from registry.models import Agent, TrustScore
from registry.services.scoring import scoring_config_current

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
_tags = itertools.count()
# Appended to every ERC-8004 id so that (chain, id) stays unique across examples.
_serials = itertools.count()


class SerializerAgentListView(AgentListView):
    """The list as DRF's generic view renders it: model instances through AgentSerializer."""

    list = mixins.ListModelMixin.list  # type: ignore[assignment]


agent_rows = st.lists(
    st.fixed_dictionaries(
        {
            "name": st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12),
            "chain_id": st.one_of(st.none(), st.integers(1, 2**63 - 1)),
            "erc8004": st.one_of(st.none(), st.integers(0, 10**70)),
            "owner": st.sampled_from(["", "0x" + "ab" * 20]),
            # None: never scored; else (score, rated, microseconds after T0)
            "score": st.one_of(
                st.none(),
                st.tuples(
                    st.decimals(min_value=0, max_value=100, places=2, allow_nan=False),
                    st.booleans(),
                    st.integers(0, 10**9),
                ),
            ),
            "created_us": st.integers(0, 10**10),
        }
    ),
    min_size=0,
    max_size=9,
)


def make_agents(rows: list[dict[str, Any]]) -> str:
    tag = f"render{next(_tags)}"
    config = scoring_config_current()
    for i, row in enumerate(rows):
        agent = Agent.objects.create(
            subject_id=f"{tag}-{i:02d}",
            name=row["name"],
            registry=["other", "hcs-10", "erc-8004"][i % 3],
            protocol=tag,
            chain_id=row["chain_id"],
            erc8004_agent_id=None
            if row["erc8004"] is None
            else Decimal(f"{row['erc8004']}{next(_serials):06d}"),
            owner_address=row["owner"],
        )
        created = T0 - timedelta(microseconds=row["created_us"])
        updates: dict[str, Any] = {"created_at": created}
        if row["score"] is not None:
            score, rated, micros = row["score"]
            at = T0 + timedelta(microseconds=micros)
            record = TrustScore.objects.create(
                agent=agent,
                config=config,
                trust_score=score,
                trust_confidence=Decimal("0.5") if rated else Decimal("0"),
                record={"trustScore": float(score)},
                inputs={},
                inputs_digest="sha256:" + "0" * 64,
                computed_at=at,
            )
            updates.update(latest_score=record, trust_score=score, trust_score_updated_at=at)
        Agent.objects.filter(pk=agent.pk).update(**updates)
    return tag


def _cursors_opened(body: bytes) -> bytes:
    # A cursor is signed with a timestamp (seconds), so two renderings a second apart differ there:
    # the cursors are compared by what they carry.
    def opened(match: re.Match[bytes]) -> bytes:
        payload = signing.loads(unquote(match.group(1).decode()), salt=CURSOR_SALT)
        return b"cursor=" + json.dumps(payload).encode()

    return re.sub(rb'cursor=([^&"]+)', opened, body)


def both(url: str) -> tuple[bytes, bytes]:
    """(the API's body, the serializer view's body) for one GET, cursors opened."""
    lean = APIClient().get(url)
    reference = SerializerAgentListView.as_view()(APIRequestFactory().get(url))
    reference.render()
    assert lean.status_code == reference.status_code == 200, lean.content
    assert lean["Content-Type"] == reference["Content-Type"]
    return _cursors_opened(lean.content), _cursors_opened(reference.content)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=agent_rows, ordering=st.sampled_from(sorted(AGENT_ORDERINGS)), limit=st.integers(1, 4))
def test_it_renders_every_page_as_the_serializer_did(
    rows: list[dict[str, Any]], ordering: str, limit: int
) -> None:
    tag = make_agents(rows)
    url: str | None = f"http://testserver/api/v1/agents?protocol={tag}&ordering={ordering}&limit={limit}"
    pages = 0
    while url is not None:
        lean, reference = both(url)
        assert lean == reference
        lean_raw = APIClient().get(url).content
        url = json.loads(lean_raw)["next"]
        pages += 1
        assert pages < 20
    assert pages >= 1


@pytest.mark.parametrize(
    "query",
    [
        "rated=false",
        "rated=true&ordering=score",
        "scored=true&min_score=10&max_score=90",
        "count=exact",
        "offset=2&limit=3",
        "q=%C3%BC",
        "registry=hcs-10&ordering=-updated",
    ],
)
def test_it_renders_filtered_pages_as_the_serializer_did(query: str) -> None:
    rows = [
        {
            "name": name,
            "chain_id": chain,
            "erc8004": ident,
            "owner": "",
            "score": score,
            "created_us": 7 * i,
        }
        for i, (name, chain, ident, score) in enumerate(
            [
                ("Wetter\u2028Bot ü", None, None, None),
                ("", 1, 10**70, (Decimal("99.99"), True, 1)),
                ("日本語", 8453, 0, (Decimal("0"), False, 999_999)),
                ("plain", None, None, (Decimal("12.50"), True, 5)),
                ("ü-agent", 11155111, 42, (Decimal("12.50"), True, 5)),
            ]
        )
    ]
    tag = make_agents(rows)
    lean, reference = both(f"http://testserver/api/v1/agents?protocol={tag}&{query}")
    assert lean == reference
    assert tag.encode() in lean or b'"results":[]' in lean


@pytest.mark.parametrize(
    "query",
    [
        "min_score=high",
        "registry=nope&rated=true",
        "ordering=best&max_score=1e999x&protocol=a2a",
        "scored=true&q=x&min_score=abc&registry=hcs-10",
    ],
)
def test_it_refuses_bad_filter_values_as_the_full_filterset_does(query: str) -> None:
    # AgentListFilterSet validates only the named filters: a refusal names the same fields, in the
    # same problem, as AgentFilterSet validating every field.
    lean = APIClient().get(f"/api/v1/agents?{query}")
    reference = SerializerAgentListView.as_view(filterset_class=AgentFilterSet)(
        APIRequestFactory().get(f"/api/v1/agents?{query}")
    )
    reference.render()
    assert lean.status_code == reference.status_code == 400
    assert lean.content == reference.content
    named = {part.split("=")[0] for part in query.split("&")}
    assert {e["field"] for e in lean.json()["errors"]} <= named
    assert lean.json()["errors"]


def test_it_builds_one_form_class_per_set_of_named_filters() -> None:
    make_agents([])
    first = AgentListFilterSet({"ordering": "-score", "rated": "true"}, queryset=Agent.objects.all())
    second = AgentListFilterSet({"rated": "false", "ordering": "score"}, queryset=Agent.objects.all())
    assert first.is_valid() and second.is_valid()
    assert set(first.filters) == {"ordering", "rated"}
    assert first.form.__class__ is second.form.__class__
    assert set(first.form.fields) == {"ordering", "rated"}
    # The copies are the filterset's own: a method filter calls its own filterset.
    assert all(f.parent is second for f in second.filters.values())
    unbound = AgentListFilterSet(None, queryset=Agent.objects.all())
    assert set(unbound.filters) == set(AgentFilterSet.base_filters)
