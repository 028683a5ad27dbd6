"""`make` checks what installing needs before it builds anything, with the Debian package for each gap.

Each case runs .ci/check-prereqs (what `make install` and `make prereqs` run first) with a PATH that
lacks the piece: a fresh Debian 12 without the README's set-up commands.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / ".ci" / "check-prereqs"


def _bin(tmp_path: Path, *tools: str) -> Path:
    """A directory holding only `tools` (links to the real ones): the PATH of a machine without the rest."""
    directory = tmp_path / "bin"
    directory.mkdir(exist_ok=True)
    for tool in tools:
        found = _interpreter() if tool == "python3.11" else shutil.which(tool)
        if found is None:
            pytest.skip(f"{tool} is not installed here")
        (directory / tool).symlink_to(found)
    return directory


def _interpreter() -> str | None:
    """The real python3.11 binary (a pyenv shim on PATH would look for pyenv on the PATH we shrink)."""
    if shutil.which("python3.11") is None:
        return None
    shown = subprocess.run(
        ["python3.11", "-c", "import os, sys; print(os.path.realpath(sys._base_executable))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return shown.stdout.strip()


def _check(path: Path | str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {"PATH": str(path), "HOME": os.environ.get("HOME", "/tmp"), **env}
    return subprocess.run(
        ["/bin/sh", str(CHECK), *args], env=environ, capture_output=True, text=True, check=False, timeout=60
    )


def test_it_passes_quietly_where_everything_is_installed() -> None:
    result = _check(os.environ["PATH"], "ci")
    assert (result.returncode, result.stderr) == (0, "")


def test_it_names_each_missing_piece_and_its_package(tmp_path: Path) -> None:
    result = _check(_bin(tmp_path), "ci")
    assert result.returncode == 1
    for needed in (
        "missing: python3.11 on PATH",
        "sudo apt-get install python3.11 python3.11-venv python3.11-dev",
        "missing: a C compiler",
        "sudo apt-get install build-essential",
        "missing: Node.js >= 20",
        "missing: pg_isready",
        "sudo apt-get install postgresql-client",
        "missing: redis-cli",
        "sudo apt-get install redis-tools",
    ):
        assert needed in result.stderr


def test_it_needs_no_compiler_when_the_engine_is_not_compiled(tmp_path: Path) -> None:
    path = _bin(tmp_path, "python3.11", "node", "npm")
    assert "C compiler" in _check(path).stderr
    assert _check(path, TRUST_REGISTRY_PURE_PYTHON="1").returncode == 0


def test_it_refuses_debians_own_node_18(tmp_path: Path) -> None:
    # Debian 12's nodejs package: what `node --version` and `node -p process.versions.node` say there.
    path = _bin(tmp_path, "python3.11", "cc", "npm")
    node = path / "node"
    node.write_text('#!/bin/sh\ncase "$*" in *versions*) echo 18 ;; *) echo v18.19.0 ;; esac\n')
    node.chmod(0o755)
    result = _check(path)
    assert result.returncode == 1
    assert "missing: Node.js >= 20 (found v18.19.0)" in result.stderr


def test_it_stops_make_before_building(tmp_path: Path) -> None:
    # `make prereqs` (and `make install`, `make run`, `make test` through it) with no Node on PATH.
    path = _bin(tmp_path, "sh", "make", "python3.11", "cc")
    environ = {"PATH": str(path), "HOME": os.environ.get("HOME", "/tmp")}
    result = subprocess.run(
        ["make", "-s", "prereqs"], cwd=ROOT, env=environ, capture_output=True, text=True, check=False
    )
    assert result.returncode != 0
    assert "missing: Node.js >= 20" in result.stderr


def test_it_says_make_test_needs_redis_when_nothing_listens(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: a connection is refused
        result = _check(os.environ["PATH"], "test", PREREQS_REDIS_PORT=str(port))
    assert result.returncode == 1
    assert f"missing: Redis on 127.0.0.1:{port} (make test needs it)" in result.stderr
    assert "sudo apt-get install redis-server" in result.stderr
