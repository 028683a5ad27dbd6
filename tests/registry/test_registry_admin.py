"""The admin: provider audit columns, rubber-stamp warning, suspend/reinstate, read-only evidence."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from registry.models import Provider, ProviderAuditEvent, TrustScore, VerificationSummary
from registry.services.agents import agent_register
from registry.services.audit import provider_audit_refresh
from tests.registry.registry_support import summary_body

pytestmark = pytest.mark.django_db

CELL = re.compile(r'class="field-(\w+)[^"]*"[^>]*>(.*?)</t[dh]>', re.S)


def changelist_rows(client: Client) -> dict[str, dict[str, str]]:
    """Provider slug -> {column: text} parsed from the changelist HTML."""
    response = client.get("/admin/registry/provider/")
    assert response.status_code == 200
    rows: dict[str, dict[str, str]] = {}
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", response.content.decode(), re.S):
        cells = {
            name: html.unescape(re.sub(r"<[^>]+>", "", value)).strip() for name, value in CELL.findall(row)
        }
        if "slug" in cells:
            rows[cells["slug"]] = cells
    return rows


@pytest.fixture
def reported(
    make_provider: Callable[..., tuple[Provider, str]],
    keyed_client: Callable[[str], APIClient],
    committed: Callable[[Callable[[], Any]], Any],
) -> dict[str, Provider]:
    """`honest` blocks some checks on two agents; `stamp` blocks nothing; `quiet` reports nothing."""
    for subject in ("a1", "a2", "a3"):
        agent_register(subject_id=subject)
    honest, honest_key = make_provider("honest")
    stamp, stamp_key = make_provider("stamp")
    quiet, _ = make_provider("quiet")
    pushes = [
        (honest_key, summary_body("a1", totalChecks=10, updatedAt="2026-11-01T00:00:00Z")),
        # a2's older summary must not count: only each agent's latest does.
        (
            honest_key,
            summary_body(
                "a2", totalChecks=500, blockRate=0.5, allowRate=0.5, updatedAt="2026-10-01T00:00:00Z"
            ),
        ),
        (
            honest_key,
            summary_body(
                "a2",
                totalChecks=30,
                blockRate=0.02,
                allowRate=0.9,
                uncertainRate=0.08,
                updatedAt="2026-11-02T00:00:00Z",
            ),
        ),
        (
            stamp_key,
            summary_body("a3", totalChecks=200, blockRate=0.0, allowRate=1.0, stakeDistribution=None),
        ),
    ]
    for key, body in pushes:
        response = committed(partial(keyed_client(key).post, "/api/v1/summaries", body, format="json"))
        assert response.status_code == 201, response.content
    # The admin shows the stored audit numbers: the beat's refresh, run here at once.
    provider_audit_refresh()
    return {"honest": honest, "stamp": stamp, "quiet": quiet}


def test_it_shows_each_providers_audit_columns(
    admin_client_logged_in: tuple[Client, Any], reported: dict[str, Provider]
) -> None:
    rows = changelist_rows(admin_client_logged_in[0])
    honest = rows["honest"]
    block_rate = (10 * 0.1 + 30 * 0.02) / 40
    assert honest["agents"] == "2"
    assert honest["checks"] == "40"
    assert honest["block_rate"] == f"{block_rate:.2%}"
    assert honest["discriminative_power"] == f"{min(1.0, block_rate / 0.05):.2f}"
    assert honest["rubber_stamp"] in ("", "-")
    assert honest["last_summary"] not in ("", "-")
    stamp = rows["stamp"]
    assert (stamp["agents"], stamp["checks"], stamp["block_rate"], stamp["discriminative_power"]) == (
        "1",
        "200",
        "0.00%",
        "0.00",
    )
    assert "blocks almost nothing" in stamp["rubber_stamp"]
    quiet = rows["quiet"]
    assert (quiet["agents"], quiet["checks"], quiet["block_rate"]) == ("0", "0", "–")
    assert "blocks almost nothing" not in quiet["rubber_stamp"]


def test_it_suspends_and_reinstates_providers_from_the_admin(
    admin_client_logged_in: tuple[Client, Any],
    reported: dict[str, Provider],
    committed: Callable[[Callable[[], Any]], Any],
) -> None:
    client, user = admin_client_logged_in
    ids = [reported["stamp"].pk, reported["quiet"].pk]
    response = committed(
        lambda: client.post(
            "/admin/registry/provider/", {"action": "suspend", "_selected_action": ids}, follow=True
        )
    )
    assert response.status_code == 200
    assert "2 provider(s) suspended" in response.content.decode()
    statuses = dict(Provider.objects.values_list("slug", "status"))
    assert statuses == {"honest": "active", "stamp": "suspended", "quiet": "suspended"}
    assert rows_status(client) == statuses
    events = ProviderAuditEvent.objects.filter(action="suspended").order_by("provider__slug")
    assert [(e.provider.slug, e.actor, e.actor_label) for e in events] == [
        ("quiet", user, "auditor"),
        ("stamp", user, "auditor"),
    ]
    # a3 was rescored without the suspended provider: nothing applicable left.
    assert TrustScore.objects.filter(agent__subject_id="a3").order_by("-id").first().trust_score == 0  # type: ignore[union-attr]

    change = client.get(f"/admin/registry/provider/{reported['stamp'].pk}/change/")
    assert change.status_code == 200
    assert "auditor" in change.content.decode() and "suspended" in change.content.decode()

    committed(
        lambda: client.post(
            "/admin/registry/provider/",
            {"action": "reinstate", "_selected_action": [reported["stamp"].pk]},
            follow=True,
        )
    )
    assert Provider.objects.get(slug="stamp").status == "active"
    assert (
        ProviderAuditEvent.objects.filter(provider__slug="stamp", action="reinstated", actor=user).count()
        == 1
    )


def rows_status(client: Client) -> dict[str, str]:
    return {slug: row["status"].lower() for slug, row in changelist_rows(client).items()}


@pytest.mark.parametrize("model", ["verificationsummary", "trustscore", "checkoutcome"])
def test_it_keeps_evidence_read_only_in_the_admin(
    model: str,
    admin_client_logged_in: tuple[Client, Any],
    reported: dict[str, Provider],
    provider_client: tuple[Provider, APIClient],
) -> None:
    provider_client[1].post(
        "/api/v1/outcomes",
        {
            "agent": "a1",
            "outcomes": [
                {"id": "x", "verdict": "ALLOW", "confidence": 0.5, "checkedAt": "2026-11-01T00:00:00Z"}
            ],
        },
        format="json",
    )
    client, _ = admin_client_logged_in
    base = f"/admin/registry/{model}/"
    listing = client.get(base)
    assert listing.status_code == 200
    text = listing.content.decode()
    assert f'href="{base}add/"' not in text
    assert "delete_selected" not in text
    assert client.get(f"{base}add/").status_code == 403
    assert client.post(f"{base}add/", {}).status_code == 403
    pk = re.findall(rf'href="{base}(\d+)/change/', text)[0]
    view = client.get(f"{base}{pk}/change/")
    assert view.status_code == 200
    assert 'name="_save"' not in view.content.decode()
    assert client.post(f"{base}{pk}/change/", {"total_checks": 1, "trust_score": 99}).status_code == 403
    assert client.get(f"{base}{pk}/delete/").status_code == 403
    assert client.post(f"{base}{pk}/delete/", {"post": "yes"}).status_code == 403
    assert VerificationSummary.objects.count() == 4
    assert TrustScore.objects.filter(trust_score=99).count() == 0


def test_it_lists_summaries_and_scores_for_auditors(
    admin_client_logged_in: tuple[Client, Any], reported: dict[str, Provider]
) -> None:
    client, _ = admin_client_logged_in
    summaries = client.get(
        f"/admin/registry/verificationsummary/?provider__id__exact={reported['honest'].pk}"
    )
    assert summaries.status_code == 200
    assert summaries.content.decode().count("/change/") >= 3
    assert client.get("/admin/registry/trustscore/").status_code == 200
    events = client.get("/admin/registry/providerauditevent/")
    assert events.status_code == 200 and "created" in events.content.decode()


@pytest.mark.parametrize(
    ("endpoint", "error"),
    [
        ("https://10.0.0.1/stats", "10.0.0.1 is a private or local address"),
        ("https://169.254.169.254/", "169.254.169.254 is a cloud metadata address"),
        ("http://93.184.215.14/", "scheme 'http' is not allowed; use https"),
        ("https://93.184.215.14/stats", None),
        ("", None),
    ],
)
def test_it_checks_the_stats_endpoint_in_the_admin_form(
    admin_client_logged_in: tuple[Client, Any], endpoint: str, error: str | None
) -> None:
    from django.contrib import admin
    from django.test import RequestFactory

    request = RequestFactory().get("/admin/registry/provider/add/")
    request.user = admin_client_logged_in[1]
    form_class = admin.site._registry[Provider].get_form(request)
    form = form_class(data={"name": "Edited", "slug": "edited", "stats_endpoint": endpoint})
    assert form.is_valid() == (error is None), form.errors
    if error is not None:
        assert form.errors["stats_endpoint"] == [error]


def test_it_shows_the_audit_numbers_on_the_provider_page_and_changes_status_with_a_reason(
    admin_client_logged_in: tuple[Client, Any],
    reported: dict[str, Provider],
    committed: Callable[[Callable[[], Any]], Any],
) -> None:
    client, user = admin_client_logged_in
    stamp = reported["stamp"]
    page = client.get(f"/admin/registry/provider/{stamp.pk}/change/").content.decode()
    assert "blocks almost nothing" in page and "0.00%" in page and "200" in page
    status_url = f"/admin/registry/provider/{stamp.pk}/status/"
    assert f'href="{status_url}?to=suspended"' in page

    # Without a reason nothing changes.
    refused = client.post(status_url, {"to": "suspended", "reason": "  "})
    assert refused.status_code == 200 and "This field is required" in refused.content.decode()
    assert Provider.objects.get(pk=stamp.pk).status == "active"

    done = committed(lambda: client.post(status_url, {"to": "suspended", "reason": "rubber stamp"}))
    assert done.status_code == 302 and done["Location"].endswith(f"/provider/{stamp.pk}/change/")
    assert Provider.objects.get(pk=stamp.pk).status == "suspended"
    event = ProviderAuditEvent.objects.get(provider=stamp, action="suspended")
    assert (event.actor, event.reason) == (user, "rubber stamp")
    page = client.get(f"/admin/registry/provider/{stamp.pk}/change/").content.decode()
    assert f'href="{status_url}?to=active"' in page

    committed(lambda: client.post(status_url, {"to": "active", "reason": "fixed"}))
    assert Provider.objects.get(pk=stamp.pk).status == "active"
    assert ProviderAuditEvent.objects.get(provider=stamp, action="reinstated").reason == "fixed"


def test_it_names_feedback_entries_and_links_an_agent_to_its_public_page(
    admin_client_logged_in: tuple[Client, Any],
) -> None:
    client, _ = admin_client_logged_in
    assert "Feedback entries" in client.get("/admin/").content.decode()
    agent = agent_register(subject_id="agent-linked")
    page = client.get(f"/admin/registry/agent/{agent.pk}/change/").content.decode()
    assert 'href="/agents/agent-linked"' in page


def test_it_shows_an_agents_breakdown_in_the_admin(
    admin_client_logged_in: tuple[Client, Any], reported: dict[str, Provider]
) -> None:
    from registry.models import Agent

    client, _ = admin_client_logged_in
    agent = Agent.objects.get(subject_id="a1")
    page = client.get(f"/admin/registry/agent/{agent.pk}/change/").content.decode()
    assert "output-verification" in page and "<td>honest</td>" in page and "quality" in page
    unrated = agent_register(subject_id="a-unrated")
    client.get("/agents/a-unrated")  # scores it: nothing counts
    page = client.get(f"/admin/registry/agent/{unrated.pk}/change/").content.decode()
    assert "not rated yet" in page


def test_it_refuses_the_status_page_to_a_staff_user_without_change_permission(
    db: None, reported: dict[str, Provider]
) -> None:
    from django.contrib.auth.models import User

    User.objects.create_user("viewer", password="pw-viewer-123", is_staff=True)
    client = Client()
    client.force_login(User.objects.get(username="viewer"))
    response = client.post(
        f"/admin/registry/provider/{reported['stamp'].pk}/status/", {"to": "suspended", "reason": "x"}
    )
    assert response.status_code == 403
    assert Provider.objects.get(pk=reported["stamp"].pk).status == "active"
