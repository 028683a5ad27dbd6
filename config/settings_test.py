"""Settings for the test suite: the production settings with test defaults for what is unset.

The environment still wins (CI points DATABASE_URL at PostgreSQL and REDIS_URL at Redis).
"""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")
os.environ.setdefault("READ_RATE_LIMIT", "100000/minute")
# Tasks run in-process unless a test starts a real worker (which gets its own environment).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")

from .settings import *  # noqa: F403
