"""Settings for the test suite: the production settings with test defaults for what is unset.

The environment still wins (CI points DATABASE_URL at PostgreSQL and REDIS_URL at Redis).
"""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")
os.environ.setdefault("READ_RATE_LIMIT", "100000/minute")
os.environ.setdefault("READ_RATE_LIMIT_AUTHENTICATED", "100000/minute")
os.environ.setdefault("WRITE_RATE_LIMIT", "100000/minute")
# The suite talks plain HTTP to the test client; production defaults would redirect it to https.
os.environ.setdefault("SECURE_SSL_REDIRECT", "0")
# Tasks run in-process unless a test starts a real worker (which gets its own environment).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")

from .settings import *  # noqa: F403
