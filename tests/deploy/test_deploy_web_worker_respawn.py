"""A killed granian web worker costs no request (issue 15, point 8; docs/reliability.md).

docker/entrypoint.sh runs granian with two workers and --respawn-failed-workers, against a fresh
SQLite database. One worker is killed with SIGKILL while a client holds a keep-alive connection;
requests keep succeeding (a client that finds its idle connection reset reconnects, as every
HTTP client pool does), granian starts a replacement, and once it is up the *other* original worker
is killed too: the requests that follow can only be served by the replacement or its own successor,
so they show a respawned worker takes traffic from new connections. Connections the kernel had
queued on a killed worker's own listening socket are reset; the clients here send such a request
again, as a proxy does (nginx's proxy_next_upstream for GETs; POSTs carry an Idempotency-Key).
"""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.test_deploy_entrypoint import ENTRYPOINT, PROXIED, ROOT, _free_port, container_env  # noqa: F401 - a fixture

REQUESTS = 30


@pytest.fixture
def web_two_workers(
    container_env: dict[str, str],  # noqa: F811 - the fixture imported above
    tmp_path: Path,
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    env = {**container_env, "WEB_CONCURRENCY": "2", "PORT": str(_free_port())}
    subprocess.run(["sh", str(ENTRYPOINT), "migrate"], cwd=ROOT, env=env, check=True, capture_output=True)
    log = tmp_path / "web.log"
    with log.open("wb") as sink:
        # The entrypoint execs granian: this process is granian's main process.
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "web"],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    port = int(env["PORT"])
    try:
        _wait(lambda: _healthz(port) and len(_listening(port, proc.pid)) == 2, proc, log)
        yield port, proc
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _wait(ready: object, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Poll `ready` until true; the deadline only stops a hang, it asserts nothing about speed."""
    deadline = time.monotonic() + 90
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, f"granian exited with {proc.returncode}:\n{log.read_text()}"
        assert time.monotonic() < deadline, f"not ready:\n{log.read_text()}"
        time.sleep(0.2)


def _workers(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return sorted(int(line) for line in out.stdout.split())


def _listening(port: int, granian: int) -> list[int]:
    """The workers with a listening socket on the port (each has its own: SO_REUSEPORT)."""
    out = subprocess.run(
        ["ss", "-Htlnp", f"( sport = :{port} )"], capture_output=True, text=True, check=True
    ).stdout
    return [pid for pid in _workers(granian) if f"pid={pid}," in out]


def _healthz(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", "/healthz")
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


class KeepAliveClient:
    """One persistent connection; a request that finds it dead is sent again on a new one.

    Up to twice: right after a worker is killed, the new connection can itself be reset, having been
    queued on the dead worker's own listening socket (see ``_fresh_get``). Such a request never
    reached the application, so sending it again is what any client or proxy does.
    """

    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        self.reconnects = 0

    def get(self, path: str) -> int:
        for attempt in range(3):
            try:
                self.conn.request("GET", path, headers=PROXIED)
                answer = self.conn.getresponse()
                answer.read()
                return answer.status
            except (OSError, http.client.HTTPException):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
                self.reconnects += 1
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def _fresh_get(port: int, path: str) -> int:
    """A request on a new connection, sent again once if the connection is reset before any answer.

    granian gives each worker its own SO_REUSEPORT listening socket: connections the kernel had
    already queued on the killed worker's socket are reset when it closes (docs/reliability.md). Such
    a request never reached the application, so a client (or proxy) may send it again.
    """
    for attempt in range(2):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            conn.request("GET", path, headers=PROXIED)
            answer = conn.getresponse()
            answer.read()
            return answer.status
        except (ConnectionResetError, http.client.RemoteDisconnected):
            if attempt:
                raise
        finally:
            conn.close()
    raise AssertionError("unreachable")


def test_it_keeps_answering_when_a_web_worker_is_killed(
    web_two_workers: tuple[int, subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    port, proc = web_two_workers
    client = KeepAliveClient(port)
    assert client.get("/healthz") == 200
    first, second = _workers(proc.pid)

    os.kill(first, signal.SIGKILL)
    assert [client.get("/healthz") for _ in range(REQUESTS)] == [200] * REQUESTS
    assert [_fresh_get(port, "/api/v1/agents") for _ in range(REQUESTS)] == [200] * REQUESTS

    # granian replaces the dead worker (--respawn-failed-workers in docker/entrypoint.sh); the
    # replacement opens its own listening socket once the application is loaded.
    log = tmp_path / "web.log"
    _wait(lambda: len(_listening(port, proc.pid)) == 2 and first not in _listening(port, proc.pid), proc, log)
    (replacement,) = [pid for pid in _listening(port, proc.pid) if pid != second]

    # With the other original worker gone as well, what answers is the replacement (or the worker
    # that replaces the second one): a respawned worker takes new connections.
    os.kill(second, signal.SIGKILL)
    assert [_fresh_get(port, "/api/v1/agents") for _ in range(REQUESTS)] == [200] * REQUESTS
    assert [client.get("/healthz") for _ in range(REQUESTS)] == [200] * REQUESTS
    assert replacement in _workers(proc.pid)
    assert proc.poll() is None
