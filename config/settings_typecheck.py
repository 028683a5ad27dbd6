"""Settings for static analysis only: mypy's Django plugin imports settings to learn the models.

It must work on a machine with no environment at all, so it supplies a throwaway secret key.
"""

import os

os.environ.setdefault("SECRET_KEY", "typecheck-only")

from .settings import *  # noqa: F403
