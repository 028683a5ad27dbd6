"""The pull collector against a real local HTTP server (SPEC section 3, "pull")."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from config.celery import app as celery_app
from registry.models import Provider, VerificationSummary
from registry.services.agents import agent_register
from registry.services.collector import TransientCollectError, provider_stats_collect
from registry.tasks import collect_all_provider_stats
from tests.registry.registry_support import output_verification

# Expected scores here are the SPEC 2.3 weighted mean: these tests pin that configuration (the
# default, the sybil-resistance floor, is tested in the *_sybil.py suites and the smoke test).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("weighted_mean_config")]

GOOD_SIGNAL = {
    "allowRate": 0.8,
    "blockRate": 0.15,
    "uncertainRate": 0.05,
    "avgConfidence": 0.9,
    "totalChecks": 400,
    "stakeDistribution": {"low": {"checks": 300}, "high": {"checks": 100}},
}


class StatsServer:
    """A provider's HCS-25 stats endpoint: one agent has a signal, one is unknown, one fails."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        self.answers: dict[str, tuple[int, Any]] = {
            "good-agent": (200, GOOD_SIGNAL),
            "unknown-agent": (404, {"detail": "no data"}),
            "broken-agent": (500, {"detail": "boom"}),
        }
        self.delay: dict[str, float] = {}
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                outer.requests.append(self.path)
                parts = urlsplit(self.path)
                agent = parts.path.removeprefix("/v1/stats/")
                if not parts.path.startswith("/v1/stats/") or parse_qs(parts.query).get("window") != ["7d"]:
                    status, payload = 400, {"detail": "bad request"}
                else:
                    status, payload = outer.answers.get(agent, (404, {"detail": "no data"}))
                time.sleep(outer.delay.get(agent, 0))
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StatsServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def local_endpoints_allowed(settings: Any) -> None:
    """The stats servers here listen on 127.0.0.1 over http, which production refuses."""
    settings.OUTBOUND_ALLOW_HTTP = True
    settings.OUTBOUND_ALLOW_PRIVATE = True


@pytest.fixture
def stats_server() -> Iterator[StatsServer]:
    with StatsServer() as server:
        yield server


@pytest.fixture
def providers(
    stats_server: StatsServer, make_provider: Callable[..., tuple[Provider, str]]
) -> dict[str, Provider]:
    # The unreachable provider is created first, so the fan-out meets its failure before the good one.
    broken, _ = make_provider("unreachable", stats_endpoint=closed_port_url())
    good, _ = make_provider("pullable", stats_endpoint=stats_server.url + "/")
    make_provider("push-only")
    for subject in ("good-agent", "unknown-agent", "broken-agent"):
        agent_register(subject_id=subject, registry="hcs-10")
    return {"good": good, "broken": broken}


def test_it_pulls_signals_and_stores_them_as_pull_summaries(
    providers: dict[str, Provider], stats_server: StatsServer
) -> None:
    report = provider_stats_collect(provider=providers["good"])
    assert report.to_dict() == {
        "provider": "pullable",
        "stored": 1,
        "unchanged": 0,
        "notFound": 1,
        "failed": {"broken-agent": "HTTP 500"},
    }
    assert sorted(stats_server.requests) == sorted(
        f"/v1/stats/{a}?window=7d" for a in ("good-agent", "unknown-agent", "broken-agent")
    )
    summary = VerificationSummary.objects.get()
    assert (summary.provider, summary.agent.subject_id, summary.source) == (
        providers["good"],
        "good-agent",
        "pull",
    )
    assert (summary.window_days, summary.total_checks, summary.block_rate) == (7, 400, 0.15)
    assert summary.stake_distribution == GOOD_SIGNAL["stakeDistribution"]


def test_it_stores_nothing_new_for_a_repeated_identical_answer(
    providers: dict[str, Provider], stats_server: StatsServer
) -> None:
    provider_stats_collect(provider=providers["good"])
    again = provider_stats_collect(provider=providers["good"])
    assert (again.stored, again.unchanged) == (0, 1)
    assert VerificationSummary.objects.count() == 1
    stats_server.answers["good-agent"] = (200, {**GOOD_SIGNAL, "totalChecks": 450})
    changed = provider_stats_collect(provider=providers["good"])
    assert changed.stored == 1
    assert VerificationSummary.objects.count() == 2


def test_it_replays_an_answer_that_carries_its_window(
    providers: dict[str, Provider], stats_server: StatsServer
) -> None:
    stats_server.answers["good-agent"] = (200, {**GOOD_SIGNAL, "updatedAt": "2026-11-20T00:00:00Z"})
    provider_stats_collect(provider=providers["good"])
    again = provider_stats_collect(provider=providers["good"])
    assert (again.stored, again.unchanged) == (0, 1)
    assert VerificationSummary.objects.get().window_end.isoformat() == "2026-11-20T00:00:00+00:00"


def test_it_counts_an_invalid_answer_as_a_failure_and_goes_on(
    providers: dict[str, Provider], stats_server: StatsServer
) -> None:
    stats_server.answers["unknown-agent"] = (200, {**GOOD_SIGNAL, "allowRate": 1.5})
    report = provider_stats_collect(provider=providers["good"])
    assert report.stored == 1
    assert set(report.failed) == {"unknown-agent", "broken-agent"}
    assert "allowRate" in report.failed["unknown-agent"]


def test_it_times_out_a_slow_agent_and_goes_on(
    providers: dict[str, Provider], stats_server: StatsServer, settings: Any
) -> None:
    settings.PULL_TIMEOUT_SECONDS = 0.3
    stats_server.answers["unknown-agent"] = (200, GOOD_SIGNAL)
    stats_server.delay["unknown-agent"] = 1.0
    report = provider_stats_collect(provider=providers["good"])
    assert report.stored == 1
    assert "unknown-agent" in report.failed and "Timeout" in report.failed["unknown-agent"]


def test_it_reports_an_unreachable_provider_as_transient(providers: dict[str, Provider]) -> None:
    with pytest.raises(TransientCollectError):
        provider_stats_collect(provider=providers["broken"])
    assert VerificationSummary.objects.count() == 0


def test_it_skips_a_suspended_provider(providers: dict[str, Provider], stats_server: StatsServer) -> None:
    Provider.objects.filter(pk=providers["good"].pk).update(status=Provider.Status.SUSPENDED)
    providers["good"].refresh_from_db()
    assert provider_stats_collect(provider=providers["good"]).stored == 0
    assert stats_server.requests == []


def test_it_collects_every_provider_from_the_beat_task_despite_one_failing(
    providers: dict[str, Provider],
    stats_server: StatsServer,
    committed: Callable[[Callable[[], Any]], Any],
    api: Any,
) -> None:
    # As on a worker, each provider's task fails on its own; its error does not reach the fan-out.
    celery_app.conf.task_eager_propagates = False
    fanned_out = committed(lambda: collect_all_provider_stats.delay().get())
    assert fanned_out == 2
    stored = VerificationSummary.objects.get()
    assert (stored.provider.slug, stored.source) == ("pullable", "pull")
    record = api.get("/api/v1/agents/good-agent/trust-score").json()
    assert record["trustScore"] == output_verification([GOOD_SIGNAL])["total"]
    committed(lambda: collect_all_provider_stats.delay().get())
    assert VerificationSummary.objects.count() == 1


def test_it_refuses_a_local_endpoint_by_default(
    providers: dict[str, Provider], stats_server: StatsServer, settings: Any
) -> None:
    settings.OUTBOUND_ALLOW_PRIVATE = False
    report = provider_stats_collect(provider=providers["good"])
    # One refusal stops the provider's round: every agent would be refused the same way.
    assert (report.stored, report.not_found) == (0, 0)
    assert list(report.failed.values()) == ["refused: 127.0.0.1 is a private or local address"]
    assert stats_server.requests == []
    settings.OUTBOUND_ALLOW_HTTP = False
    settings.OUTBOUND_ALLOW_PRIVATE = True
    report = provider_stats_collect(provider=providers["good"])
    assert list(report.failed.values()) == ["refused: scheme 'http' is not allowed; use https"]
    assert stats_server.requests == []


def test_it_gives_up_a_huge_answer_at_the_byte_cap(
    providers: dict[str, Provider], stats_server: StatsServer, settings: Any
) -> None:
    settings.PULL_MAX_BYTES = 4096
    stats_server.answers["good-agent"] = (200, {**GOOD_SIGNAL, "padding": "x" * 64 * 1024})
    report = provider_stats_collect(provider=providers["good"])
    assert report.stored == 0
    assert report.failed["good-agent"].startswith("OutboundTooLarge: the answer is larger than 4096 bytes")


def test_it_refuses_an_answer_nested_too_deep(
    providers: dict[str, Provider], stats_server: StatsServer
) -> None:
    deep: list[Any] = []
    for _ in range(80):  # past untrusted.jsonbounds.MAX_DEPTH (64)
        deep = [deep]
    stats_server.answers["good-agent"] = (200, deep)
    report = provider_stats_collect(provider=providers["good"])
    assert report.failed["good-agent"] == "the answer is not JSON (or nests too deep)"


def test_it_bounds_a_slow_answer_by_the_whole_deadline(
    providers: dict[str, Provider], stats_server: StatsServer, settings: Any
) -> None:
    settings.PULL_TIMEOUT_SECONDS = 0.5
    stats_server.delay["good-agent"] = 2.0
    started = time.monotonic()
    report = provider_stats_collect(provider=providers["good"])
    assert "OutboundTimeout" in report.failed["good-agent"]
    assert time.monotonic() - started < 1.5
