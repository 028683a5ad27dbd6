"""Test-wide set-up: settings the suite needs before Django loads."""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")
os.environ.setdefault("READ_RATE_LIMIT", "100000/minute")
# Tasks run in-process unless a test starts a real worker (which sets its own environment).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
