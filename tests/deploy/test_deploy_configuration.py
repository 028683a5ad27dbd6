"""README's configuration table against what the code reads, so neither can drift from the other.

Every environment variable config/settings.py reads (through the config/env.py helpers or
django-environ) and every one docker/entrypoint.sh reads is a row of the table; every name in the
table's first column is read by one of them, is the `_FILE` variant of a name read through env_str, or
is the registry's signing key (read by signing.keys, outside settings on purpose).
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from signing.keys import DEFAULT_KEY_PREFIX

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"[A-Z][A-Z0-9_]*[A-Z0-9]")


def _settings_reads() -> tuple[set[str], set[str]]:
    """(every variable settings.py reads, those read through env_str, which also reads NAME_FILE)."""
    tree = ast.parse((ROOT / "config" / "settings.py").read_text())
    read: set[str] = set()
    with_file: set[str] = set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
            continue
        name = node.args[0].value
        function = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        # os.environ.setdefault(...) is the test settings' own default, not a read.
        if isinstance(name, str) and NAME.fullmatch(name) and function != "setdefault":
            read.add(name)
            if function == "env_str":
                with_file.add(name)
    return read, with_file


def _entrypoint_reads() -> set[str]:
    return set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)[:}-]", (ROOT / "docker" / "entrypoint.sh").read_text()))


def _table() -> set[str]:
    """The names in the first column of README's configuration table."""
    section = (ROOT / "README.md").read_text().split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names.update(name for name in re.findall(r"`([^`]+)`", first) if NAME.fullmatch(name))
    return names


def test_it_documents_every_variable_the_settings_and_the_entrypoint_read() -> None:
    read, _ = _settings_reads()
    assert read, "no variables found in config/settings.py"
    missing = sorted((read | _entrypoint_reads()) - _table())
    assert missing == [], f"README's configuration table lacks {missing}"


def test_it_documents_no_variable_nothing_reads() -> None:
    read, with_file = _settings_reads()
    known = read | _entrypoint_reads() | {f"{name}_FILE" for name in with_file}
    stale = sorted(name for name in _table() - known if not name.startswith(DEFAULT_KEY_PREFIX))
    assert stale == [], f"README documents variables nothing reads: {stale}"


def test_it_states_the_allowed_hosts_default_the_settings_use() -> None:
    readme = (ROOT / "README.md").read_text().splitlines()
    row = next(line for line in readme if line.startswith("| `ALLOWED_HOSTS`"))
    documented = row.split("|")[2].strip().strip("`").split(",")
    calls = [
        node
        for node in ast.walk(ast.parse((ROOT / "config" / "settings.py").read_text()))
        if isinstance(node, ast.Call)
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "ALLOWED_HOSTS"
    ]
    assert len(calls) == 1
    assert documented == ast.literal_eval(calls[0].args[1])


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("READ_RATE_LIMIT", "lots", "READ_RATE_LIMIT='lots' is not a rate"),
        ("LOG_LEVEL", "verbose", "LOG_LEVEL='verbose' is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        (
            "RUN_PROXY_DEFAULT_ACTION",
            "redact",
            "RUN_PROXY_DEFAULT_ACTION='redact' is not one of header, body",
        ),
        ("RUN_EMIT_THRESHOLD", "85", "RUN_EMIT_THRESHOLD=85.0 must be at most 1.0"),
        ("PULL_TIMEOUT_SECONDS", "nan", "PULL_TIMEOUT_SECONDS='nan' is not a finite number"),
        # Read outside settings (attestations), checked when the app starts: a 503 on each request before.
        (
            "TRUST_REGISTRY_SIGNING_KEY_FILE",
            "/nonexistent/key",
            "TRUST_REGISTRY_SIGNING_KEY_FILE: cannot read",
        ),
        ("CHAIN_NETWORK", "basee", "CHAIN_NETWORK: unknown network 'basee'"),
    ],
)
def test_it_stops_at_start_up_naming_a_bad_variable(
    tmp_path: Path, variable: str, value: str, message: str
) -> None:
    env = {
        key: item
        for key, item in os.environ.items()
        if not key.startswith(("TRUST_REGISTRY_SIGNING_KEY", "CHAIN_"))
        and key not in ("READ_RATE_LIMIT", "LOG_LEVEL", "RUN_PROXY_DEFAULT_ACTION", "RUN_EMIT_THRESHOLD")
    }
    env.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "1",
            "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
            variable: value,
        }
    )
    if variable.startswith("CHAIN_"):
        env.update({"CHAIN_ENABLED": "1", "CHAIN_RPC_URL": "http://127.0.0.1:8545"})
    started = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert started.returncode != 0
    last = started.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: ")
    assert message in last
