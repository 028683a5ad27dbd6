"""The Celery application; tasks live in each app's tasks.py and are found by autodiscovery."""

import os
from typing import Any

from celery import Celery
from celery.signals import worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("trust_registry")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_ready.connect
@worker_process_init.connect
def _recursion_limit_restore(**kwargs: Any) -> None:
    """Tasks are imported after Django's set-up: put the recursion limit back once they all are."""
    from common.recursion import recursion_limit_restore

    recursion_limit_restore()
