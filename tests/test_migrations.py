"""Every model change has its migration: a missing one would leave the production schema behind the code."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_it_has_a_migration_for_every_model_change() -> None:
    out = StringIO()
    try:
        call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    except SystemExit as exc:  # --check exits non-zero when a migration is missing
        pytest.fail(f"models changed without a migration (exit {exc.code}):\n{out.getvalue()}")
