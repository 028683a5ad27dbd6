import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from verification.engine.runs import RunVerifierConfig, verify_run
from verification.engine.runs.probes import agreement


class _ChatServer:
    """A local chat-completions endpoint that answers every request with a fixed text."""

    def __init__(self, reply):
        outer = self
        self.requests: list[tuple[str, str | None, dict]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, self.headers.get("Authorization"), body))
                data = json.dumps(
                    {
                        "id": "x",
                        "object": "chat.completion",
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": reply},
                                "finish_reason": "stop",
                            }
                        ],
                    }
                )
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(data.encode())

            def log_message(self, *args):
                pass

        self.httpd = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()


@pytest.fixture
def server_factory():
    servers = []

    def make(reply):
        servers.append(_ChatServer(reply))
        return servers[-1]

    yield make
    for s in servers:
        s.close()


def test_it_probes_critical_claims_through_the_endpoint(server_factory, run_of):
    server = server_factory("It was completed in 1889.")
    cfg = RunVerifierConfig(probe_endpoint=server.url, probe_api_key="k", probe_count=2)
    r = verify_run(
        run_of("When was it completed?", [{"completed": 1889}], "It was completed in 1889."), config=cfg
    )
    assert [(p.claim, p.agreement, len(p.probe_answers)) for p in r.consistency_probes] == [("1889", 1.0, 2)]
    path, auth, body = server.requests[0]
    assert path == "/v1/chat/completions" and auth == "Bearer k" and "1889" in body["messages"][0]["content"]
    assert r.action == "emit"


def test_it_revises_when_probes_disagree(server_factory, run_of):
    server = server_factory("I believe it was completed in 1890.")
    cfg = RunVerifierConfig(probe_endpoint=server.url)
    r = verify_run(run_of("When?", [{"completed": 1889}], "It was completed in 1889."), config=cfg)
    assert r.consistency_probes[0].agreement == 0.0
    assert r.action == "revise"


def test_it_records_probe_failures_without_failing(run_of):
    cfg = RunVerifierConfig(probe_endpoint="http://127.0.0.1:9/v1", probe_timeout_s=0.5)
    r = verify_run(run_of("When?", [{"completed": 1889}], "It was completed in 1889."), config=cfg)
    assert r.consistency_probes[0].error.startswith("probe failed")
    assert r.action == "emit"


def test_it_uses_probe_answers_from_the_request(run_of):
    msgs = run_of("When?", [{"completed": 1889}], "It was completed in 1889.")
    r = verify_run(msgs, probe_answers={"1889": ["1889", "1889", "1887"]})
    assert r.consistency_probes[0].agreement == pytest.approx(2 / 3)


def test_it_compares_numbers_as_numbers():
    assert agreement("$1,200.00", ["It is 1200.00 dollars"]) == 1.0
    assert agreement("Paris", ["It is in paris.", "Lyon"]) == 0.5
    assert agreement("x", []) == 0.0
