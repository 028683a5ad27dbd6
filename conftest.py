"""Test-wide set-up: settings the suite needs before Django loads."""

import os

os.environ.setdefault("SECRET_KEY", "test-secret-key-not-for-production")
os.environ.setdefault("READ_RATE_LIMIT", "100000/minute")
