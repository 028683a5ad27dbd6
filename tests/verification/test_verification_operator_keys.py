"""Operator keys can be revoked (command and admin action) and are refused from the next request on."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from rest_framework.test import APIClient

from verification.models import OperatorApiKey

pytestmark = pytest.mark.django_db

KEY_LINE = re.compile(r"API key \(store it now; it is not shown again\): (tro_\S+)")


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def issued_key(name: str) -> str:
    found = KEY_LINE.search(run("create_operator_key", "--name", name))
    assert found is not None
    return found.group(1)


def scan(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client.post("/api/v1/scan", {"text": "Nothing to see."}, format="json").status_code


@pytest.mark.parametrize("form", ["prefix", "whole key"])
def test_it_revokes_an_operator_key_from_the_command(form: str) -> None:
    kept = issued_key("Kept operator")
    doomed = issued_key("Doomed operator")
    assert scan(doomed) == 200
    printed = run("revoke_operator_key", doomed[:12] if form == "prefix" else doomed)
    assert "Doomed operator" in printed
    assert scan(doomed) == 401
    assert scan(kept) == 200
    assert OperatorApiKey.objects.get(name="Doomed operator").revoked_at is not None
    with pytest.raises(CommandError, match="No active operator key"):
        run("revoke_operator_key", doomed)


@pytest.mark.parametrize("prefix", ["tro_nothere", "tro_", ""])
def test_it_refuses_to_revoke_an_unknown_or_vague_operator_key(prefix: str) -> None:
    issued_key("The only operator")
    with pytest.raises(CommandError):
        run("revoke_operator_key", prefix)
    assert OperatorApiKey.objects.get().revoked_at is None


def test_it_revokes_selected_operator_keys_in_the_admin() -> None:
    doomed = issued_key("Admin-revoked operator")
    kept = issued_key("Untouched operator")
    assert scan(doomed) == 200
    user: Any = get_user_model().objects.create_superuser("ops", "ops@example.com", "pw-not-secret-123")
    admin = Client()
    admin.force_login(user)
    record = OperatorApiKey.objects.get(name="Admin-revoked operator")
    response = admin.post(
        "/admin/verification/operatorapikey/",
        {"action": "revoke_keys", "_selected_action": [record.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "1 operator key(s) revoked" in response.content.decode()
    assert scan(doomed) == 401
    assert scan(kept) == 200
    # The admin's own history records who revoked it.
    from django.contrib.admin.models import LogEntry

    entry = LogEntry.objects.get(object_id=str(record.pk))
    assert entry.user == user and "Revoked" in entry.get_change_message()


def test_it_does_not_offer_revocation_to_view_only_staff() -> None:
    from django.contrib.auth.models import Permission

    issued_key("Viewed operator")
    staff: Any = get_user_model().objects.create_user("viewer", password="pw-not-secret-123", is_staff=True)
    staff.user_permissions.add(Permission.objects.get(codename="view_operatorapikey"))
    client = Client()
    client.force_login(staff)
    page = client.get("/admin/verification/operatorapikey/")
    assert page.status_code == 200
    assert "revoke_keys" not in page.content.decode()
