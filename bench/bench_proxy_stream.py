"""What streaming through the verifying proxy costs (issue 21 item 7), in process.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<throw-away db> python bench/bench_proxy_stream.py

The database is migrated first (the proxied runs are stored there). A local upstream (a thread,
ThreadingHTTPServer on 127.0.0.1) streams an answer of WORDS words (default 60) as OpenAI
`chat.completion.chunk` events, one word per event, DELAY_MS apart (default 5 ms: a fast model), over
chunked HTTP/1.1. For REQUESTS requests (default 40) each, it measures:

* the upstream on its own (httpx): time to the first event, time to `[DONE]`;
* the proxy service, live (`x-hallucination-action: header`): time to the first event it yields, time to
  the last upstream event it yields, and the time from there to the verdict event (verification, storing
  the report);
* the proxy service, held (`block`): time to the first event (the whole stream plus verification).

The proxy is called as the view calls it (`proxy_chat_completion`, no HTTP server in front), so the
figures are the proxy's own share. Prints JSON; writes bench/results/proxy_stream.json.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("SECRET_KEY", "bench-secret-key")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "1")
os.environ.setdefault("CELERY_BROKER_URL", "memory://")

WORDS = int(os.environ.get("WORDS", "60"))
DELAY_MS = float(os.environ.get("DELAY_MS", "5"))
REQUESTS = int(os.environ.get("REQUESTS", "40"))

TOOL_RESULT = {"name": "Eiffel Tower", "built": "1887-1889", "height": "330 m", "city": "Paris"}
QUESTION: list[dict[str, Any]] = [
    {"role": "user", "content": "When was the Eiffel Tower built and how tall is it?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_landmark_info", "arguments": json.dumps({"name": "Eiffel Tower"})},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(TOOL_RESULT)},
]
SENTENCE = "The Eiffel Tower in Paris was built between 1887 and 1889 and is 330 meters tall."


def _answer() -> list[str]:
    words: list[str] = []
    while len(words) < WORDS:
        words.extend(SENTENCE.split(" "))
    return words[:WORDS]


class Upstream(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for number, word in enumerate(_answer()):
            delta = {"content": word if number == 0 else " " + word}
            chunk = {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
            self._chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            time.sleep(DELAY_MS / 1000)
        done = {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
        self._chunk(b"data: " + json.dumps(done).encode() + b"\n\ndata: [DONE]\n\n")
        self._chunk(b"")

    def log_message(self, *args: Any) -> None:
        pass


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def _summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(statistics.median(values), 2),
        "p95": _pct(values, 0.95),
        "max": round(max(values), 2),
    }


def main() -> None:
    if not os.environ.get("DATABASE_URL"):
        sys.exit("set DATABASE_URL to a throw-away PostgreSQL database")
    import logging

    import django

    django.setup()
    logging.getLogger("httpx").setLevel(logging.WARNING)
    import httpx
    from django.conf import settings
    from django.core.management import call_command

    from verification.services.runs import ProxyStream, proxy_chat_completion

    call_command("migrate", verbosity=0)
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    settings.RUN_PROXY_UPSTREAM_URL = base
    body = {"model": "m", "messages": QUESTION, "stream": True}
    results: dict[str, Any] = {
        "words": WORDS,
        "delayMs": DELAY_MS,
        "requests": REQUESTS,
        "loadavg": list(os.getloadavg()),
    }
    try:
        first, total = [], []
        with httpx.Client() as client:
            for _ in range(REQUESTS):
                start = time.perf_counter()
                with client.stream("POST", base + "/chat/completions", json=body) as response:
                    stream = response.iter_bytes()
                    next(stream)
                    first.append((time.perf_counter() - start) * 1000)
                    for _chunk in stream:
                        pass
                total.append((time.perf_counter() - start) * 1000)
        results["upstream"] = {"firstEventMs": _summary(first), "doneMs": _summary(total)}

        first, last, verdict_after, cpu = [], [], [], []
        for _ in range(REQUESTS):
            start, cpu_start = time.perf_counter(), time.thread_time()
            answer = proxy_chat_completion(operator=None, body=body, action="header", agent_id=None)
            assert isinstance(answer, ProxyStream)
            seen_first = False
            last_at = start
            for event in answer.events:
                now = time.perf_counter()
                if not seen_first:
                    first.append((now - start) * 1000)
                    seen_first = True
                if event.startswith(b"event: vsr.verification"):
                    verdict_after.append((now - last_at) * 1000)
                    assert b'"verified":true' in event, event[:200]
                elif not event.startswith(b"data: [DONE]"):
                    last_at = now
            last.append((last_at - start) * 1000)
            cpu.append((time.thread_time() - cpu_start) * 1000)
        results["proxyLive"] = {
            "firstEventMs": _summary(first),
            "lastUpstreamEventMs": _summary(last),
            "verdictAfterLastEventMs": _summary(verdict_after),
            "cpuMsPerRequest": _summary(cpu),
        }

        first = []
        for _ in range(REQUESTS):
            start = time.perf_counter()
            answer = proxy_chat_completion(operator=None, body=body, action="block", agent_id=None)
            assert isinstance(answer, ProxyStream)
            next(iter(answer.events))
            first.append((time.perf_counter() - start) * 1000)
            for _event in answer.events:
                pass
        results["proxyHeld"] = {"firstEventMs": _summary(first)}
    finally:
        server.shutdown()
        server.server_close()
    results["loadavgAfter"] = list(os.getloadavg())
    text = json.dumps(results, indent=2)
    print(text)
    (ROOT / "bench" / "results" / "proxy_stream.json").write_text(text + "\n")


if __name__ == "__main__":
    main()
