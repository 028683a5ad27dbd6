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


@pytest.mark.django_db(transaction=True)
def test_it_answers_a_statement_cut_short_by_the_timeout_with_a_503_problem() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("statement_timeout is a PostgreSQL setting")
    from django.db import OperationalError

    from common.errors import problem_exception_handler

    with connection.cursor() as cursor:
        cursor.execute("SET statement_timeout = 50")
        try:
            with pytest.raises(OperationalError) as cut:
                cursor.execute("SELECT pg_sleep(2)")
        finally:
            cursor.execute(f"SET statement_timeout = {settings.DB_STATEMENT_TIMEOUT_MS}")
    response = problem_exception_handler(cut.value, {})
    assert response is not None
    assert response.status_code == 503
    assert response.data["type"] == "/problems/timeout"
    assert response.headers["Retry-After"] == "5"
    # An operational error with any other SQLSTATE is still a bug to log and answer 500 (declined).
    internal = OperationalError("internal error")
    internal.__cause__ = type("InternalError", (Exception,), {"sqlstate": "XX000"})()
    assert problem_exception_handler(internal, {}) is None


@pytest.mark.django_db
def test_it_answers_a_database_it_cannot_reach_with_a_503_problem() -> None:
    """A PostgreSQL restart (issue 15's chaos run): requests failed with 500 while it was down. A real
    connection attempt to a port nothing listens on is what the web process sees then."""
    import socket

    from django.db import OperationalError, connection, connections
    from django.test import RequestFactory

    from common.errors import problem_exception_handler
    from common.middleware import ProblemErrorsMiddleware

    if connection.vendor != "postgresql":
        pytest.skip("connects with the PostgreSQL backend")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    default = connections["default"]
    down = type(default)({**default.settings_dict, "HOST": "127.0.0.1", "PORT": closed}, alias="down")
    with pytest.raises(OperationalError) as refused:
        down.ensure_connection()
    response = problem_exception_handler(refused.value, {})
    assert response is not None
    assert response.status_code == 503
    assert response.data["type"] == "/problems/unavailable"
    assert response.headers["Retry-After"] == "5"
    # Outside DRF (a session lookup on an API path), the middleware answers the same way...
    middleware = ProblemErrorsMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    answer = middleware.process_exception(RequestFactory().get("/api/v1/agents"), refused.value)
    assert answer is not None and answer.status_code == 503
    # ... and leaves pages for people to Django's 500 page.
    assert middleware.process_exception(RequestFactory().get("/agents/"), refused.value) is None


@pytest.mark.django_db(transaction=True)
def test_it_answers_a_deadlock_victim_with_a_503_problem() -> None:
    """Two transactions that lock two rows in opposite orders: PostgreSQL aborts one of them."""
    if connection.vendor != "postgresql":
        pytest.skip("needs two PostgreSQL connections")
    import threading

    from django.db import OperationalError, connections

    from common.errors import problem_exception_handler

    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE deadlock_probe (id int PRIMARY KEY)")
        cursor.execute("INSERT INTO deadlock_probe VALUES (1), (2)")
    victims: list[OperationalError] = []
    both_locked_first = threading.Barrier(2)

    def lock(first: int, second: int) -> None:
        try:
            with connections["default"].cursor() as cursor:
                cursor.execute("BEGIN")
                cursor.execute("SELECT 1 FROM deadlock_probe WHERE id = %s FOR UPDATE", [first])
                both_locked_first.wait()
                cursor.execute("SELECT 1 FROM deadlock_probe WHERE id = %s FOR UPDATE", [second])
                cursor.execute("COMMIT")
        except OperationalError as exc:
            victims.append(exc)
            with connections["default"].cursor() as cursor:
                cursor.execute("ROLLBACK")
        finally:
            connections["default"].close()

    try:
        threads = [threading.Thread(target=lock, args=pair) for pair in ((1, 2), (2, 1))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE deadlock_probe")
    assert len(victims) == 1
    response = problem_exception_handler(victims[0], {})
    assert response is not None
    assert response.status_code == 503
    assert response.data["type"] == "/problems/timeout"
