"""The stream generator behind the unseen-traffic figures in docs/tool-verification.md."""

from __future__ import annotations

import json

from verification.engine.eval.tool_streams import DEV_SEEDS, FAB_KINDS, HELDOUT_SEEDS, generate_stream


def _calls(lines):
    return [line for line in lines if line["type"] == "call"]


def test_it_generates_the_same_stream_for_the_same_seed():
    assert json.dumps(generate_stream(7, calls=300)) == json.dumps(generate_stream(7, calls=300))


def test_it_draws_other_tools_and_another_mix_from_another_seed():
    a, b = generate_stream(DEV_SEEDS[0], calls=1500), generate_stream(HELDOUT_SEEDS[0], calls=1500)
    assert {c["tool"] for c in _calls(a)}.isdisjoint({c["tool"] for c in _calls(b)})
    mix_a = [sum(c["kind"] == k for c in _calls(a)) for k in FAB_KINDS]
    mix_b = [sum(c["kind"] == k for c in _calls(b)) for k in FAB_KINDS]
    assert mix_a != mix_b
    assert not set(DEV_SEEDS) & set(HELDOUT_SEEDS)


def test_it_writes_lines_the_replayer_reads_in_time_order():
    lines = generate_stream(11, calls=1500)
    calls = _calls(lines)
    assert len(calls) == 1500
    profiles = [line for line in lines if line["type"] == "profile"]
    assert lines[: len(profiles)] == profiles
    seen: set[str] = set()
    for line in lines[len(profiles) :]:
        if line["type"] == "call":
            seen.add(line["id"])
            assert line["label"] in ("real", "fabricated")
            assert (line["label"] == "real") == line["kind"].startswith("real_")
        else:
            assert line["type"] == "feedback" and line["call_id"] in seen
    fabricated = sum(c["label"] == "fabricated" for c in calls)
    assert 0.04 * len(calls) < fabricated < 0.2 * len(calls)


def test_it_never_makes_a_real_network_call_faster_than_two_milliseconds():
    for seed in (3, 4, 5):
        lines = generate_stream(seed, calls=800)
        network = {p["tool"] for p in lines if p["type"] == "profile" and p["has_network_io"]}
        for c in _calls(lines):
            if c["tool"] in network and c["label"] == "real":
                assert c["execution_time_ms"] >= 2.0
