"""State stores: in memory, and Redis shared by processes and surviving restarts."""

import json
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest
import redis

from verification.engine.store import MemoryStore, RedisStore, StateStore
from verification.engine.tools import ToolVerifier, Verdict

REDIS_URL = "redis://127.0.0.1:6379/0"
REPO = Path(__file__).resolve().parents[2]


def _redis_problem() -> str | None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1, socket_timeout=2).ping()
    except redis.RedisError as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@pytest.fixture
def redis_up() -> None:
    """Fail (never skip) when Redis is down: CI always runs these tests against 127.0.0.1:6379."""
    problem = _redis_problem()
    if problem is not None:
        pytest.fail(
            f"Redis is not reachable at {REDIS_URL} ({problem}); the Redis store tests need it. "
            "Start one (e.g. `redis-server --port 6379`) and rerun.",
            pytrace=False,
        )


needs_redis = pytest.mark.usefixtures("redis_up")


@pytest.fixture
def namespace(redis_up):
    ns = f"test-tools-{uuid.uuid4().hex}"
    yield ns
    RedisStore(REDIS_URL, namespace=ns).clear()


def _hammer(store: StateStore, key: str, times: int) -> None:
    for _ in range(times):
        store.update(key, lambda v: (v or 0) + 1)


def test_it_updates_the_memory_store_atomically_across_threads():
    store = MemoryStore()
    threads = [threading.Thread(target=_hammer, args=(store, "n", 500)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("n") == 2000
    assert isinstance(store, StateStore)


@needs_redis
def test_it_updates_the_redis_store_atomically_across_threads(namespace):
    # Eight writers on one key: enough contention that writers retrying in lock-step starved one of
    # them (64 lost races) on a loaded machine before retries backed off.
    store = RedisStore(REDIS_URL, namespace=namespace)
    threads = [threading.Thread(target=_hammer, args=(store, "n", 50)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get("n") == 400
    assert store.get_many(["n", "missing"]) == [400, None]


@needs_redis
def test_it_clears_only_its_own_namespace(namespace):
    mine = RedisStore(REDIS_URL, namespace=namespace)
    other = RedisStore(REDIS_URL, namespace=namespace + "-other")
    mine.update("k", lambda v: 1)
    other.update("k", lambda v: 2)
    mine.clear()
    assert mine.get("k") is None and other.get("k") == 2
    other.clear()


@needs_redis
def test_it_keeps_learned_state_across_an_engine_restart(namespace):
    first = ToolVerifier(store=RedisStore(REDIS_URL, namespace=namespace))
    first.register_tool_profile("get_stock_price", required_fields=["price"])
    for i in range(30):
        first.verify(
            "get_stock_price", {"ticker": "NVDA"}, {"price": 650.0 + i % 3, "as_of": f"t{i:03d}"}, 150.0
        )
    del first
    # A new process would build exactly this: a fresh engine and client on the same namespace.
    second = ToolVerifier(store=RedisStore(redis.Redis.from_url(REDIS_URL), namespace=namespace))
    assert second.get_profile("get_stock_price").required_fields == ("price",)
    assert second.store.get("tool:get_stock_price")["n"] == 30
    r = second.verify("get_stock_price", {"ticker": "NVDA"}, {"price": 50.0, "as_of": "t999"}, 150.0)
    assert r.signals["historical_inconsistency"].fired


_WORKER = """
import json, sys
from verification.engine.store import RedisStore
from verification.engine.tools import ToolVerifier
url, ns, who, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
engine = ToolVerifier(store=RedisStore(url, namespace=ns))
engine.register_tool_profile("get_stock_price", required_fields=["price"])
verdicts = []
for i in range(count):
    ticker = "AAA" if i % 2 else "BBB"
    price = 100.0 if ticker == "AAA" else 200.0
    session = f"{who}-{i // 10}"
    r = engine.verify("get_stock_price", {"ticker": ticker}, {"price": price}, 150.0, session_id=session)
    verdicts.append(r.verdict.value)
final = engine.verify("get_stock_price", {"ticker": "AAA"}, {"price": 5000.0}, 150.0)
print(json.dumps({"verdicts": verdicts, "final": final.signals["historical_inconsistency"].fired,
                  "n": engine.store.get("tool:get_stock_price")["n"]}))
"""


@needs_redis
def test_it_shares_baselines_between_two_processes(namespace):
    count = 40
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, REDIS_URL, namespace, who, str(count)],
            cwd=REPO,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in ("p1", "p2")
    ]
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(json.loads(out))
    # Every accepted verification of both processes landed in the one shared baseline.
    accepted = sum(o["verdicts"].count("accept") for o in outs)
    store = RedisStore(REDIS_URL, namespace=namespace)
    assert store.get("tool:get_stock_price")["n"] == accepted
    assert accepted == 2 * count  # nothing was lost to concurrent writes
    assert all(o["final"] for o in outs)
    # A third engine, started afterwards, sees the same history and judges like the workers did.
    third = ToolVerifier(store=store)
    r = third.verify("get_stock_price", {"ticker": "BBB"}, {"price": 9000.0}, 150.0)
    assert r.signals["historical_inconsistency"].fired and r.verdict is not Verdict.ACCEPT


def _hammer_many(store: StateStore, times: int) -> None:
    for _ in range(times):
        store.update_many({"a": lambda v: (v or 0) + 1, "b": lambda v: (v or 0) + 2})


def test_it_updates_several_memory_keys_as_one_step():
    store = MemoryStore()
    threads = [threading.Thread(target=_hammer_many, args=(store, 300)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get_many(["a", "b"]) == [900, 1800]


@needs_redis
def test_it_updates_several_redis_keys_in_one_transaction(namespace):
    store = RedisStore(REDIS_URL, namespace=namespace)
    threads = [threading.Thread(target=_hammer_many, args=(store, 30)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get_many(["a", "b"]) == [90, 180]


def test_it_evicts_the_least_recently_updated_memory_keys():
    store = MemoryStore(max_keys=3)
    for k in ("a", "b", "c"):
        store.update(k, lambda v: 1)
    store.update("a", lambda v: 2)  # "a" is now the most recent
    store.update("d", lambda v: 1)
    assert store.get("b") is None
    assert store.get_many(["a", "c", "d"]) == [2, 1, 1]


@needs_redis
def test_it_expires_idle_redis_keys(namespace):
    store = RedisStore(REDIS_URL, namespace=namespace, ttl_seconds=60)
    store.update_many({"a": lambda v: 1})
    store.update("b", lambda v: 1)
    client = redis.Redis.from_url(REDIS_URL)
    assert 0 < client.ttl(f"{namespace}:a") <= 60
    assert 0 < client.ttl(f"{namespace}:b") <= 60


@needs_redis
def test_it_commits_a_write_after_a_read_in_one_more_round_trip(namespace, monkeypatch):
    engine = ToolVerifier(store=RedisStore(REDIS_URL, namespace=namespace))
    engine.register_tool_profile("get_stock_price", required_fields=["price"])
    for i in range(5):  # warm up: the script is loaded, the profile cached
        engine.verify("get_stock_price", {"ticker": "NVDA"}, {"price": 650.0 + i}, 150.0, session_id="s")
    sent: list[int] = []
    send = redis.connection.Connection.send_packed_command

    def counting(self, command, check_health=True):
        sent.append(1)
        return send(self, command, check_health)

    monkeypatch.setattr(redis.connection.Connection, "send_packed_command", counting)
    r = engine.verify("get_stock_price", {"ticker": "NVDA"}, {"price": 651.0}, 150.0, session_id="s")
    assert r.verdict is Verdict.ACCEPT
    assert len(sent) == 2  # one MGET of the state, one compare-and-set script writing it back


@needs_redis
def test_it_retries_a_write_when_another_writer_changed_the_key_after_the_read(namespace):
    mine = RedisStore(REDIS_URL, namespace=namespace)
    other = RedisStore(REDIS_URL, namespace=namespace)
    mine.update("n", lambda v: 1)
    assert mine.get_many(["n"]) == [1]
    other.update("n", lambda v: v + 10)  # lands between our read and our write
    seen: list[int] = []

    def add_one(v):
        seen.append(v)
        return v + 1

    assert mine.update_many({"n": add_one}) == [12]
    assert seen == [1, 11]  # the stale read was refused by the script and the update recomputed
    assert other.get("n") == 12
