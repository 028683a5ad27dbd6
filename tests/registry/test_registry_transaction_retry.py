"""A deadlock victim's transaction is rolled back whole and run again (registry/services/transactions.py)."""

from __future__ import annotations

import threading

import pytest
from django.db import DatabaseError, connection

from registry.models import Agent
from registry.services.transactions import transaction_run_retrying


@pytest.mark.django_db(transaction=True)
def test_it_reruns_the_deadlock_victim_and_both_transactions_commit() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("deadlock detection is PostgreSQL behaviour")
    first, second = Agent.objects.create(subject_id="lock-a"), Agent.objects.create(subject_id="lock-b")
    both_hold_one = threading.Barrier(2)
    attempts: list[str] = []
    errors: list[BaseException] = []

    def work(name: str, order: list[Agent]) -> str:
        attempts.append(name)
        Agent.objects.select_for_update().get(pk=order[0].pk)
        if attempts.count(name) == 1:
            both_hold_one.wait(timeout=30)  # each holds one row and wants the other's: a deadlock
        Agent.objects.select_for_update().get(pk=order[1].pk)
        Agent.objects.filter(pk=order[0].pk).update(name=f"{order[0].name}{name}")
        return name

    def run(name: str, order: list[Agent]) -> None:
        try:
            transaction_run_retrying(work=lambda: work(name, order))
        except BaseException as exc:  # collected and re-raised in the test thread
            errors.append(exc)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=run, args=("x", [first, second])),
        threading.Thread(target=run, args=("y", [second, first])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert sorted(attempts) in (["x", "x", "y"], ["x", "y", "y"])  # one victim, run once more
    assert Agent.objects.get(pk=first.pk).name == "x" and Agent.objects.get(pk=second.pk).name == "y"


@pytest.mark.django_db(transaction=True)
def test_it_does_not_rerun_other_database_errors() -> None:
    calls: list[int] = []

    def work() -> None:
        calls.append(1)
        with connection.cursor() as cursor:
            cursor.execute("SELECT * FROM no_such_table")

    with pytest.raises(DatabaseError):
        transaction_run_retrying(work=work)
    assert calls == [1]
