"""How services queue Celery tasks: by the task's name, after the caller's transaction commits.

A service must not import its app's tasks.py, because tasks.py imports the services (tasks only
call services): that import would close a circle. Services name the task instead, and Celery's own
registry (every app's tasks.py, found by autodiscovery) gives it back. The task runs after commit so
a worker never looks for a row that is not committed yet, and a rolled-back change queues nothing.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from celery import Task, current_app
from django.db import transaction

__all__ = ["task_enqueue_on_commit", "task_named"]


def task_named(name: str) -> Task:
    """The registered task called `name` ("app.tasks.function"), importing the apps' tasks if needed.

    The web process never starts a worker, so nothing has imported the tasks modules yet the first
    time a service asks; Celery's autodiscovery does that on demand.
    """
    try:
        return current_app.tasks[name]
    except KeyError:
        current_app.loader.import_default_modules()
        return current_app.tasks[name]


def task_enqueue_on_commit(name: str, *args: Any) -> None:
    """Queue the task `name` with `args` once the caller's transaction commits (now, outside one)."""
    transaction.on_commit(partial(_delay, name, args))


def _delay(name: str, args: tuple[Any, ...]) -> None:
    task_named(name).delay(*args)
