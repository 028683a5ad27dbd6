"""A server-side bound on every SQL statement (issue 13): PostgreSQL's statement_timeout, from
DB_STATEMENT_TIMEOUT_MS, set on each connection."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection


@pytest.mark.django_db
def test_it_sets_the_statement_timeout_on_postgresql_connections() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("statement_timeout is a PostgreSQL setting")
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('statement_timeout')")
        ms = settings.DB_STATEMENT_TIMEOUT_MS
        # PostgreSQL shows whole seconds as "30s", other values as "1500ms".
        assert cursor.fetchone()[0] in (f"{ms}ms", f"{ms // 1000}s")
        cursor.execute("SELECT setting FROM pg_settings WHERE name = 'statement_timeout'")
        assert int(cursor.fetchone()[0]) == ms > 0
