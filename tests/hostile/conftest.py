"""The production server, started as docker/entrypoint.sh starts it, for the hostile-input suite.

granian with DEBUG off, one worker (so "the worker survived" means one process id), PostgreSQL when
DATABASE_URL points at it (a database of its own, `<name>_hostile`, recreated per run), SQLite
otherwise. Keys are made in the same database by the server's own `manage.py shell`, as an operator
would, before the server starts. Two local listeners: the proxy's upstream model, and a canary that
must never be called (it is the SSRF target of the suite).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.hostile.hostile_support import AGENT, Listener, Server

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"

SETUP_SCRIPT = f"""
import json
from registry.services.agents import agent_register
from registry.services.providers import provider_create
from verification.services.tools import operator_key_create

_, provider = provider_create(name="Hostile provider", slug="hostile-provider")
_, signing = provider_create(
    name="Signing provider", slug="signing-provider", signer_address="0x" + "ab" * 20
)
operator = operator_key_create(name="hostile operator")
agent_register(subject_id={AGENT!r}, name="Hostile agent")
print("KEYS=" + json.dumps({{
    "provider": provider.plaintext, "signing": signing.plaintext, "operator": operator.plaintext
}}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _listen(answer: bytes) -> tuple[ThreadingHTTPServer, Listener]:
    record = Listener(url="")

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            record.hits.append(f"{self.command} {self.path}")
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        do_GET = do_POST = _answer

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    record.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, record


@pytest.fixture(scope="module")
def upstream() -> Iterator[Listener]:
    """The proxy's upstream model: a chat completion with a short answer."""
    completion = {
        "id": "chatcmpl-hostile",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is 12 degrees."}}],
    }
    server, record = _listen(json.dumps(completion).encode())
    yield record
    server.shutdown()


@pytest.fixture(scope="module")
def canary() -> Iterator[Listener]:
    """An address inside the network that no request of the suite may make the server call."""
    server, record = _listen(b'{"allowRate": 1, "blockRate": 0, "avgConfidence": 1, "totalChecks": 1}')
    yield record
    server.shutdown()


def _database_url(work: Path) -> str:
    """A database of the server's own: `<name>_hostile` next to DATABASE_URL's PostgreSQL, else SQLite."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        return f"sqlite:///{work / 'db.sqlite3'}"
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/") + "_hostile"
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


@pytest.fixture(scope="module")
def server(
    tmp_path_factory: pytest.TempPathFactory, upstream: Listener, canary: Listener
) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("hostile")
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "CELERY_BROKER_URL")
    }
    port = _free_port()
    env.update(
        {
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "DEBUG": "0",
            "SECRET_KEY": "hostile-test-secret-key-0123456789abcdefghijklmnop",
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": _database_url(work),
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "HOST": "127.0.0.1",
            "PORT": str(port),
            "WEB_CONCURRENCY": "1",
            "READ_RATE_LIMIT": "1000000/minute",
            "TRUST_REGISTRY_SIGNING_KEY": "0x" + "6b" * 32,
            "TOOL_ENGINE_NAMESPACE": f"hostile-tools-{port}",
            "RUN_PROXY_UPSTREAM_URL": f"{upstream.url}/v1",
            "RUN_PROBE_ENDPOINT": "",
        }
    )
    subprocess.run(
        ["sh", str(ENTRYPOINT), "python", "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    made = subprocess.run(
        ["sh", str(ENTRYPOINT), "python", "manage.py", "shell", "-c", SETUP_SCRIPT],
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    line = next(row for row in made.stdout.splitlines() if row.startswith("KEYS="))
    keys = json.loads(line.removeprefix("KEYS="))
    log = work / "web.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "web"],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, f"the entrypoint exited with {proc.returncode}:\n{log.read_text()}"
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no answer on {base}:\n{log.read_text()}"
            time.sleep(0.3)
        yield Server(base=base, pid=proc.pid, log=log, keys=keys)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
