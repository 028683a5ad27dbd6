"""Suite-wide fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# The chain tests' set-up (anvil, the ERC-8004 registries, accounts, snapshots), in one module.
pytest_plugins = ["tests.chain_fixtures"]

# Compiled hyperscan databases (verification/engine/safety/multiscan.py) go to the checkout, not the
# home directory; child processes the tests start inherit it and load what this process built.
os.environ.setdefault("TRUST_REGISTRY_CACHE_DIR", str(ROOT / ".cache"))


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test stale compiled modules: an extension module is imported in place of its source.

    setup.py compiles some engine modules with mypyc next to their sources. After a source is edited,
    Python would keep importing the old compiled module, and the tests would pass or fail on code that
    is no longer in the tree. `make test` rebuilds; running pytest directly needs `pip install -e .`.
    """
    # The code is in one shared library (setup.py's group); the per-module .so files are small stubs
    # that an install may re-copy with their old times, so the library's time is the build's time.
    libraries = list(ROOT.glob("trust_registry_compiled__mypyc*.so"))
    built = min((lib.stat().st_mtime for lib in libraries), default=0.0)
    stale = [
        str(source.relative_to(ROOT))
        for so in ROOT.glob("verification/**/*.so")
        if (source := so.with_name(so.name.split(".")[0] + ".py")).exists() and source.stat().st_mtime > built
    ]
    if stale:
        raise pytest.UsageError(
            f"compiled modules are older than these sources: {', '.join(sorted(stale))}; "
            "rebuild them with `.venv/bin/pip install -e .` (make test does it)"
        )


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    """Each test starts with an empty cache: cached score documents and rate-limit counters from
    another test's database must not leak into this one."""
    from django.conf import settings

    if settings.configured:  # pure suites run with -p no:django have no cache to clear
        from django.core.cache import cache

        cache.clear()
    yield


@pytest.fixture(autouse=True)
def _fresh_key_lookups() -> Iterator[None]:
    """API-key lookups are cached per process for a few seconds; tests start without that cache."""
    from django.conf import settings

    if settings.configured:
        from registry.services.providers import api_key_cache_clear

        api_key_cache_clear()
    yield


@pytest.fixture
def weighted_mean_config(db: None) -> object:
    """Score under the SPEC 2.3 weighted mean (version 1 of a registry made before SPEC 2.4).

    The default configuration is the sybil-resistance floor, which caps an agent with one provider and
    no established reviewers at 16.67. Tests of the weighted mean itself (the composite, the queue, the
    reads) pin this configuration, as the HCS-25 conformance vectors pin theirs; the floor's own tests
    (tests/*/test_*_sybil.py) use the default.
    """
    from adapters import ScoringParams
    from registry.services.scoring import scoring_config_create

    return scoring_config_create(params=ScoringParams().to_dict(), note="SPEC 2.3 weighted mean")
