"""What a newcomer reads on `make run` must not look like an error: the embedded default logs no warnings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# An eager task under the embedded default (no Redis, no broker): what `make run` does on every push.
EAGER_TASK = """
import django
django.setup()
from django.conf import settings
from config.celery import app

assert settings.CELERY_TASK_ALWAYS_EAGER, settings.CELERY_BROKER_URL

@app.task
def one():
    return 1

assert one.apply_async(countdown=1).get() == 1
"""


def _embedded_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_TASK_ALWAYS_EAGER", "DATABASE_URL")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "1",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            **extra,
        }
    )
    return env


def test_it_runs_eager_tasks_without_a_broker_warning(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", EAGER_TASK],
        cwd=ROOT,
        env=_embedded_env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    # kombu said "WARNING kombu.connection No hostname was supplied" for the host-less memory:// URL.
    assert "WARNING" not in result.stderr, result.stderr
