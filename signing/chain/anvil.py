"""Start and stop a local anvil node (from the npm package @foundry-rs/anvil) for tests and development.

>>> node = start_anvil()  # doctest: +SKIP
>>> node.rpc_url  # doctest: +SKIP
'http://127.0.0.1:40123'
>>> node.stop()  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx

__all__ = ["DEFAULT_ANVIL", "AnvilNode", "AnvilNotFound", "find_anvil", "free_port", "start_anvil"]

DEFAULT_ANVIL = Path(__file__).resolve().parents[2] / "node_modules" / ".bin" / "anvil"


class AnvilNotFound(FileNotFoundError):
    """The anvil binary is missing: the npm dependencies are not installed."""


@dataclass
class AnvilNode:
    """A running anvil process; :meth:`stop` ends exactly this process, by its pid."""

    pid: int
    rpc_url: str
    chain_id: int
    log_path: Path
    _process: subprocess.Popen[bytes] = field(repr=False)

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the node (SIGTERM, SIGKILL after ``timeout`` s), then any process left in its group.

        >>> start_anvil().stop()  # doctest: +SKIP
        """
        if self._process.poll() is None:
            # The wrapper passes SIGTERM on to anvil and reaps it; the group kill below is the fallback.
            os.kill(self.pid, signal.SIGTERM)
            try:
                self._process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.kill(self.pid, signal.SIGKILL)
                self._process.wait(timeout=timeout)
        self._kill_group()
        self.log_path.unlink(missing_ok=True)

    def _kill_group(self) -> None:
        # ProcessLookupError: nothing of the group is left, which is the usual case.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)


def find_anvil(binary: Path | None = None) -> Path:
    """Return the anvil executable, or raise AnvilNotFound saying how to install it.

    >>> find_anvil(Path("/nonexistent/anvil"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    signing.chain.anvil.AnvilNotFound: anvil not found at /nonexistent/anvil: run `npm ci` ...
    """
    path = binary or DEFAULT_ANVIL
    if not (path.exists() and os.access(path, os.X_OK)):
        raise AnvilNotFound(f"anvil not found at {path}: run `npm ci` in the repository root")
    return path


def free_port(host: str = "127.0.0.1") -> int:
    """Ask the kernel for a TCP port that is free right now on ``host``.

    >>> 0 < free_port() < 65536
    True
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def start_anvil(
    *,
    binary: Path | None = None,
    chain_id: int = 8453,
    host: str = "127.0.0.1",
    timeout: float = 30.0,
    extra_args: Sequence[str] = (),
    attempts: int = 3,
) -> AnvilNode:
    """Start anvil on a free port of ``host`` and wait until it answers ``eth_chainId``.

    A port found free can be taken before anvil binds it, so a node that exits early is retried on a
    new port up to ``attempts`` times.

    >>> node = start_anvil(chain_id=8453)  # doctest: +SKIP
    >>> node.chain_id  # doctest: +SKIP
    8453
    """
    executable = find_anvil(binary)
    failures: list[str] = []
    for _ in range(attempts):
        port = free_port(host)
        handle, log_name = tempfile.mkstemp(prefix="anvil-", suffix=".log")
        log_path = Path(log_name)
        with os.fdopen(handle, "wb") as log:
            process = subprocess.Popen(
                [
                    str(executable),
                    "--host",
                    host,
                    "--port",
                    str(port),
                    "--chain-id",
                    str(chain_id),
                    *extra_args,
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                # Its own process group: node_modules/.bin/anvil is a node wrapper around the real binary,
                # and stopping the group (whose id is this pid) stops both.
                start_new_session=True,
            )
        node = AnvilNode(process.pid, f"http://{host}:{port}", chain_id, log_path, process)
        if _wait_ready(node, process, timeout):
            return node
        failures.append(log_path.read_text(errors="replace")[-2000:])
        node.stop()
    raise RuntimeError(f"anvil did not start after {attempts} attempts; last output:\n{failures[-1]}")


def _wait_ready(node: AnvilNode, process: subprocess.Popen[bytes], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    request = {"jsonrpc": "2.0", "id": 1, "method": "eth_chainId", "params": []}
    with httpx.Client(timeout=2.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                answer = client.post(node.rpc_url, json=request).json()
                if int(answer["result"], 16) == node.chain_id:
                    return True
            except (httpx.HTTPError, ValueError, KeyError):
                pass
            time.sleep(0.1)
    return False
