"""The container's entrypoint, run as the image runs it: migrate once, collect static files, serve (granian).

The image itself is not built here (no registry access), but everything it runs is: docker/entrypoint.sh
with the project's own granian, against a fresh SQLite database. This catches a wrong module path, a
flag granian no longer accepts, or static files the server does not find.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"
# What the TLS-terminating proxy in front of the container adds to each request.
PROXIED = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def container_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    work = tmp_path_factory.mktemp("entrypoint")
    env = {
        key: value
        for key, value in os.environ.items()
        # SECURE_SSL_REDIRECT: the test settings turn it off in this process; the container keeps its default.
        if key
        not in (
            "DJANGO_SETTINGS_MODULE",
            "DATABASE_URL",
            "REDIS_URL",
            "CELERY_BROKER_URL",
            "SECURE_SSL_REDIRECT",
        )
    }
    env.update(
        {
            # The project's interpreter and granian come first, as they do in the image.
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            "DEBUG": "0",
            "SECRET_KEY": "entrypoint-test-secret-key-0123456789abcdefghijklmnop",
            "ALLOWED_HOSTS": "127.0.0.1",
            "DATABASE_URL": f"sqlite:///{work / 'db.sqlite3'}",
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "HOST": "127.0.0.1",
            "PORT": str(_free_port()),
            "WEB_CONCURRENCY": "1",
            # As deployed: behind one TLS-terminating proxy that says so in X-Forwarded-Proto (the
            # production defaults redirect plain HTTP to https, except /healthz).
            "TRUSTED_PROXY_COUNT": "1",
        }
    )
    return env


@pytest.fixture(scope="module")
def web(container_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # The web branch does not migrate (the one-off `migrate` command does, as compose's migrate service).
    subprocess.run(
        ["sh", str(ENTRYPOINT), "migrate"], cwd=ROOT, env=container_env, check=True, capture_output=True
    )
    log = tmp_path_factory.mktemp("entrypoint-log") / "web.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "web"],
            cwd=ROOT,
            env=container_env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{container_env['PORT']}"
    try:
        deadline = time.monotonic() + 90
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
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, Message, bytes]:
    """(status, headers looked up case-insensitively, body); granian sends lower-case header names."""
    request = urllib.request.Request(url, headers={**PROXIED, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_it_serves_the_api_and_its_schema(web: str) -> None:
    status, headers, body = _get(f"{web}/api/v1/providers")
    assert status == 200
    assert headers["Content-Type"].startswith("application/json")
    assert json.loads(body)["count"] == 0
    status, _, body = _get(f"{web}/api/schema/", {"Accept": "application/vnd.oai.openapi+json"})
    assert status == 200
    assert b"/api/v1/summaries" in body


def test_it_serves_the_collected_static_files_itself(web: str) -> None:
    # DEBUG is off, so Django would not serve these: granian does, from the collected directory.
    status, headers, body = _get(f"{web}/static/admin/css/base.css")
    assert status == 200
    assert headers["Content-Type"].startswith("text/css")
    assert len(body) > 1000


def test_it_answers_errors_as_problem_details_behind_the_server(web: str) -> None:
    status, headers, body = _get(f"{web}/api/v1/agents/nobody-here/trust-score")
    assert status == 404
    assert headers["Content-Type"].startswith("application/problem+json")
    assert json.loads(body)["status"] == 404


def test_it_accepts_a_pushed_summary_end_to_end(web: str, container_env: dict[str, str]) -> None:
    # Management commands go through the same entrypoint (its catch-all branch), as `docker compose run`.
    created = subprocess.run(
        ["sh", str(ENTRYPOINT), "python", "manage.py", "create_provider", "--name", "Box", "--slug", "box"],
        cwd=ROOT,
        env=container_env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = re.search(r"(trk_\S+)", created.stdout)
    assert found is not None, created.stdout
    subprocess.run(
        ["sh", str(ENTRYPOINT), "python", "manage.py", "shell", "-c",
         "from registry.services.agents import agent_register; agent_register(subject_id='boxed-agent')"],
        cwd=ROOT, env=container_env, check=True, capture_output=True,
    )  # fmt: skip
    body = {
        "agent": "boxed-agent",
        "allowRate": 0.9,
        "blockRate": 0.1,
        "avgConfidence": 0.8,
        "totalChecks": 40,
        "updatedAt": "2026-11-20T00:00:00Z",
    }
    request = urllib.request.Request(
        f"{web}/api/v1/summaries",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {found.group(1)}", **PROXIED},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
        assert json.loads(answer.read())["agent"] == "boxed-agent"
    status, _, record = _get(f"{web}/api/v1/agents/boxed-agent/trust-score")
    assert status == 200
    assert json.loads(record)["subjectId"] == "boxed-agent"


def test_it_redirects_plain_http_to_https_but_answers_health_checks(web: str) -> None:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: object, **kwargs: object) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    with pytest.raises(urllib.error.HTTPError) as plain:
        opener.open(f"{web}/api/v1/providers", timeout=10)
    assert plain.value.code == 301
    assert plain.value.headers["Location"].startswith("https://")
    with opener.open(f"{web}/healthz", timeout=10) as health:
        assert health.status == 200
    status, headers, _ = _get(f"{web}/agents/")
    assert status == 200
    assert "max-age=31536000" in headers["Strict-Transport-Security"]
    assert "default-src 'self'" in headers["Content-Security-Policy"]
