"""The production layout (docker/compose.yaml, docker/Dockerfile, .dockerignore), read and run without Docker.

Docker is not available here, so the layout is checked in two ways: its files are parsed and held to what
every deployment needs (each package in the image, the contract artifacts, no Node, secrets, health
checks, restart policies, a one-off migration), and the web service's own health-check command runs, as
compose would run it, against docker/entrypoint.sh started with the compose environment.
"""

from __future__ import annotations

import fnmatch
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from dockerfile_parse import DockerfileParser
from eth_account import Account

ROOT = Path(__file__).resolve().parents[2]
DOCKER = ROOT / "docker"
ENTRYPOINT = DOCKER / "entrypoint.sh"
APP_SERVICES = ("web", "worker", "beat")
# The long-running services: each comes back after a crash or a host reboot.
LONG_RUNNING = (*APP_SERVICES, "postgres", "redis")


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DOCKER / "compose.yaml").read_text())
    return loaded


def _dockerfile() -> DockerfileParser:
    parser = DockerfileParser(fileobj=(DOCKER / "Dockerfile").open("rb"))
    return parser


def _stages() -> list[list[dict[str, Any]]]:
    """The Dockerfile's instructions, one list per FROM."""
    stages: list[list[dict[str, Any]]] = []
    for instruction in _dockerfile().structure:
        if instruction["instruction"] == "FROM":
            stages.append([])
        if stages:
            stages[-1].append(instruction)
    return stages


def _copied_sources(stage: list[dict[str, Any]]) -> set[str]:
    sources: set[str] = set()
    for instruction in stage:
        if instruction["instruction"] != "COPY" or "--from" in instruction["value"]:
            continue
        *paths, _destination = instruction["value"].split()
        sources.update(path.rstrip("/") for path in paths)
    return sources


def _packages() -> list[str]:
    """The top-level Python packages the project installs (pyproject's packages.find include)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include: list[str] = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    return sorted({pattern.rstrip("*").rstrip(".") for pattern in include})


def _interpolate(value: object, variables: dict[str, str]) -> str:
    """Compose's `${NAME:-default}` substitution, for the forms compose.yaml uses."""

    def substitute(match: re.Match[str]) -> str:
        return variables.get(match.group(1)) or (match.group(2) or "")

    return re.sub(r"\$\{(\w+)(?::-([^}]*))?\}", substitute, str(value))


def test_it_puts_every_package_the_templates_and_the_contract_artifacts_in_the_image() -> None:
    build, runtime = _stages()
    copied = _copied_sources(build)
    missing = [name for name in [*_packages(), "templates", "docs", "contracts/build"] if name not in copied]
    assert missing == [], f"the image's build stage does not copy {missing}"
    # The artifacts the chain clients load at run time are committed, so the image needs no Node.
    assert (ROOT / "contracts" / "build" / "IdentityRegistry.json").is_file()
    assert any(
        instruction["instruction"] == "COPY" and instruction["value"].startswith("--from=build /app /app")
        for instruction in runtime
    )


def test_it_installs_no_node_in_the_runtime_image() -> None:
    for stage in _stages():
        for instruction in stage:
            if instruction["instruction"] == "RUN":
                assert not re.search(r"\b(nodejs|npm)\b", instruction["value"]), instruction["content"]


def test_it_keeps_local_state_and_secrets_out_of_the_build_context() -> None:
    patterns = [
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for required in (".git", ".venv", "node_modules", "var", "docker/secrets", "docker/registry.env"):
        assert required in patterns, f".dockerignore lacks {required}"
    # ... and nothing the Dockerfile copies is excluded by one of them.
    for source in sorted(set().union(*(_copied_sources(stage) for stage in _stages()))):
        assert not [p for p in patterns if fnmatch.fnmatch(source, p)], f"{source} is in .dockerignore"


def test_it_keeps_the_compose_secrets_out_of_git() -> None:
    for path in (
        "docker/secrets/secret_key",
        "docker/secrets/signing_key",
        "docker/secrets/database_url",
        "docker/secrets/db_password",
        "docker/registry.env",
    ):
        ignored = subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT, check=False)
        assert ignored.returncode == 0, f"{path} is not ignored by git"


def test_it_gives_every_app_service_the_django_key_the_signing_key_and_the_database_url() -> None:
    compose = _compose()
    declared = compose["secrets"]
    assert declared["secret_key"]["file"] == "./secrets/secret_key"
    assert declared["signing_key"]["file"] == "./secrets/signing_key"
    assert declared["database_url"]["file"] == "./secrets/database_url"
    for name in (*APP_SERVICES, "migrate"):
        service = compose["services"][name]
        assert set(service["secrets"]) == {"secret_key", "signing_key", "database_url"}, name
        assert service["environment"]["SECRET_KEY_FILE"] == "/run/secrets/secret_key"
        assert service["environment"]["TRUST_REGISTRY_SIGNING_KEY_FILE"] == "/run/secrets/signing_key"
        # The URL carries PostgreSQL's password: never inline in the compose file.
        assert service["environment"]["DATABASE_URL_FILE"] == "/run/secrets/database_url"
        assert "DATABASE_URL" not in service["environment"], name


def test_it_keeps_the_database_password_in_a_secret_file() -> None:
    compose = _compose()
    postgres = compose["services"]["postgres"]
    assert compose["secrets"]["db_password"]["file"] == "./secrets/db_password"
    assert postgres["secrets"] == ["db_password"]
    assert postgres["environment"]["POSTGRES_PASSWORD_FILE"] == "/run/secrets/db_password"
    assert "POSTGRES_PASSWORD" not in postgres["environment"]


def test_it_restarts_long_running_services_and_migrates_once_before_them() -> None:
    services = _compose()["services"]
    for name in LONG_RUNNING:
        assert services[name]["restart"] == "unless-stopped", name
    migrate = services["migrate"]
    assert migrate["command"] == "migrate"
    assert migrate["restart"] == "no"
    for name in APP_SERVICES:
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}
    # The web processes themselves do not migrate (replicas would race).
    web_branch = ENTRYPOINT.read_text().split("web)", 1)[1].split(";;", 1)[0]
    commands = [line for line in web_branch.splitlines() if not line.strip().startswith("#")]
    assert not [line for line in commands if "manage.py migrate" in line]


def test_it_health_checks_web_worker_and_the_stores() -> None:
    services = _compose()["services"]
    for name in ("web", "worker", "beat", "postgres", "redis"):
        assert services[name]["healthcheck"]["test"][0] in ("CMD", "CMD-SHELL"), name
    worker_check = " ".join(services["worker"]["healthcheck"]["test"][1:])
    # $$ is compose's escape for a literal $: the container's shell expands HOSTNAME, the worker's node name.
    assert "inspect ping" in worker_check
    assert "celery@$$HOSTNAME" in worker_check


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def compose_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The web service's environment as compose builds it (defaults of every ${...}), on this machine.

    Only what cannot exist here is replaced: the secrets' mount point (/run/secrets) by files in a
    temporary directory, PostgreSQL by SQLite and the compose network's Redis by the test Redis.
    """
    work = tmp_path_factory.mktemp("compose")
    (work / "secret_key").write_text(secrets.token_urlsafe(50) + "\n")
    (work / "signing_key").write_text(secrets.token_hex(32) + "\n")
    web = _compose()["services"]["web"]
    env = {name: _interpolate(value, {}) for name, value in web["environment"].items()}
    env = {name: value.replace("/run/secrets/", f"{work}/") for name, value in env.items()}
    # The registry reads its database URL from the secret file, as in compose (SQLite stands in here).
    (work / "database_url").write_text(f"sqlite:///{work / 'db.sqlite3'}\n")
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        env.pop(name)
        if os.environ.get(name):
            env[name] = os.environ[name]
    env.update(
        {
            # The image's PATH puts its virtualenv first; so does this.
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": os.environ.get("HOME", "/tmp"),
            "PORT": str(_free_port()),
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": "1",
        }
    )
    for name in ("TRUST_REGISTRY_PURE_PYTHON", "TRUST_REGISTRY_CACHE_DIR"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


@pytest.fixture(scope="module")
def compose_web(compose_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # As `docker compose up`: the one-off migrate service first, then web.
    subprocess.run(
        ["sh", str(ENTRYPOINT), "migrate"], cwd=ROOT, env=compose_env, check=True, capture_output=True
    )
    log = tmp_path_factory.mktemp("compose-log") / "web.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "web"],
            cwd=ROOT,
            env=compose_env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    base = f"http://127.0.0.1:{compose_env['PORT']}"
    try:
        deadline = time.monotonic() + 90
        while True:
            assert proc.poll() is None, f"the entrypoint exited with {proc.returncode}:\n{log.read_text()}"
            try:
                socket.create_connection(("127.0.0.1", int(compose_env["PORT"])), timeout=1).close()
                break
            except OSError:
                pass
            assert time.monotonic() < deadline, f"no server on {base}:\n{log.read_text()}"
            time.sleep(0.3)
        yield base
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _run_healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    kind, *command = _compose()["services"]["web"]["healthcheck"]["test"]
    assert kind == "CMD"
    # The image's WORKDIR is /app, the checkout's root here.
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=False)


def test_it_passes_the_compose_web_health_check(compose_web: str, compose_env: dict[str, str]) -> None:
    deadline = time.monotonic() + 60
    while (result := _run_healthcheck(compose_env)).returncode != 0:
        assert time.monotonic() < deadline, result.stderr
        time.sleep(0.5)


def test_it_fails_the_health_check_when_nothing_answers(compose_env: dict[str, str]) -> None:
    result = _run_healthcheck({**compose_env, "PORT": str(_free_port())})
    assert result.returncode == 1
    assert "unhealthy" in result.stderr


def test_it_needs_the_allowed_host_in_the_health_check(compose_web: str) -> None:
    # What the old check did (GET http://127.0.0.1:8000/healthz): Django refuses the Host.
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{compose_web}/healthz", timeout=10)
    assert refused.value.code == 400


def test_it_signs_with_the_compose_signing_key(compose_web: str, compose_env: dict[str, str]) -> None:
    # As `docker compose run web python manage.py shell -c ...`, through the entrypoint's catch-all.
    shown = subprocess.run(
        ["sh", str(ENTRYPOINT), "python", "manage.py", "shell", "-c",
         "from attestations.services.keys import service_key; print(service_key().address)"],
        cwd=ROOT, env=compose_env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    expected = Account.from_key(Path(compose_env["TRUST_REGISTRY_SIGNING_KEY_FILE"]).read_text().strip())
    assert shown.stdout.strip().splitlines()[-1] == expected.address, shown.stdout + shown.stderr


def _run_worker_healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    kind, command = _compose()["services"]["worker"]["healthcheck"]["test"]
    assert kind == "CMD-SHELL"
    # Compose turns $$ into $ and runs the rest with the container's /bin/sh, whose HOSTNAME is the
    # container's host name: the one the worker puts in its node name.
    shell_env = {**env, "HOSTNAME": socket.gethostname()}
    return subprocess.run(
        ["/bin/sh", "-c", command.replace("$$", "$")],
        cwd=ROOT,
        env=shell_env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def worker_env(compose_env: dict[str, str]) -> dict[str, str]:
    # A broker of its own (the test Redis), as compose gives the worker the stack's Redis.
    broker = os.environ.get("CELERY_BROKER_URL") or os.environ.get("REDIS_URL")
    if not broker or not broker.startswith("redis"):
        pytest.skip("needs the test Redis (CELERY_BROKER_URL or REDIS_URL)")
    return {**compose_env, "CELERY_BROKER_URL": broker, "WORKER_CONCURRENCY": "1"}


def test_it_passes_the_compose_worker_health_check_only_while_the_worker_runs(
    worker_env: dict[str, str], tmp_path: Path
) -> None:
    assert _run_worker_healthcheck(worker_env).returncode != 0
    log = tmp_path / "worker.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "worker"],
            cwd=ROOT,
            env=worker_env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while (result := _run_worker_healthcheck(worker_env)).returncode != 0:
            assert proc.poll() is None, f"the worker exited with {proc.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, result.stdout + result.stderr + log.read_text()
            time.sleep(1)
        assert "pong" in result.stdout
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _run_beat_healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    kind, *command = _compose()["services"]["beat"]["healthcheck"]["test"]
    assert kind == "CMD"
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30, check=False)


def test_it_passes_the_compose_beat_health_check_only_while_beat_writes_its_schedule(
    worker_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**worker_env, "BEAT_SCHEDULE": str(tmp_path / "celerybeat-schedule")}
    assert "no schedule file" in _run_beat_healthcheck(env).stderr
    log = tmp_path / "beat.log"
    with log.open("wb") as sink:
        proc = subprocess.Popen(
            ["sh", str(ENTRYPOINT), "beat"],
            cwd=ROOT,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 90
        while (result := _run_beat_healthcheck(env)).returncode != 0:
            assert proc.poll() is None, f"beat exited with {proc.returncode}:\n{log.read_text()}"
            assert time.monotonic() < deadline, result.stderr + log.read_text()
            time.sleep(1)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        # Beat sent its due tasks to the test broker: leave no work behind for another test's worker.
        subprocess.run(
            ["celery", "-A", "config", "purge", "-f"], cwd=ROOT, env=env, capture_output=True, check=False
        )
    # A beat that stopped scheduling: its file ages past the bound.
    hour_ago = time.time() - 3600
    for path in tmp_path.glob("celerybeat-schedule*"):
        os.utime(path, (hour_ago, hour_ago))
    stale = _run_beat_healthcheck(env)
    assert stale.returncode == 1
    assert "last written" in stale.stderr
