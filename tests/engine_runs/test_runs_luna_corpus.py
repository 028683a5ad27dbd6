"""Issue 14 (h20b): the committed gpt-5.6-luna sets are what make_luna_runs.py builds from the committed
transcriptions (byte for byte), the split is by domain, and every line is a well-formed run."""

import importlib.util
import json
from pathlib import Path

import pytest

_RUNS = Path(__file__).resolve().parents[2] / "bench" / "corpora" / "runs"
_SPEC = importlib.util.spec_from_file_location("bench_make_luna_runs_corpus", _RUNS / "make_luna_runs.py")
assert _SPEC is not None and _SPEC.loader is not None
_MAKE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MAKE)

_DEV = {"airport", "automotive", "employment", "logistics", "telecom", "ticketing"}


@pytest.mark.parametrize("side", ["dev", "heldout", "dev2", "dev3", "dev4", "dev5", "dev6"])
def test_it_rebuilds_the_committed_sets(tmp_path: Path, side: str) -> None:
    # dev2 (h21a), dev3 (h22a), dev4 (h23b), dev5 (h24e) and dev6 (h25f) are more transcriptions of
    # dev-domain runs, written under their own names.
    name = side if side in ("dev2", "dev3", "dev4", "dev5", "dev6") else None
    _MAKE.build(_RUNS / f"luna_{side}", tmp_path, perturbed=True, name=name)
    for name in (f"luna_clean_{side}", f"luna_perturbed_{side}"):
        for suffix in (".jsonl", ".meta.jsonl"):
            built, committed = tmp_path / (name + suffix), _RUNS / (name + suffix)
            assert built.read_bytes() == committed.read_bytes(), name + suffix


@pytest.mark.parametrize(
    ("side", "lines", "hallucinated"),
    [
        ("dev", 40, 1),
        ("heldout", 40, 0),
        ("dev2", 9, 0),
        ("dev3", 28, 0),
        ("dev4", 8, 0),
        ("dev5", 18, 0),
        ("dev6", 2, 0),
    ],
)
def test_it_keeps_the_split_and_the_labels(side: str, lines: int, hallucinated: int) -> None:
    rows = [
        json.loads(x) for x in (_RUNS / f"luna_clean_{side}.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert len(rows) == lines
    assert sum(r["label"]["hallucinated"] for r in rows) == hallucinated
    for r in rows:
        domain = r["id"].split("-")[1]
        assert (domain in _DEV) == side.startswith("dev"), r["id"]


@pytest.mark.parametrize("side", ["dev", "heldout", "dev2", "dev3", "dev4", "dev5", "dev6"])
def test_it_writes_only_well_formed_runs(side: str) -> None:
    for raw in (_RUNS / f"luna_clean_{side}.jsonl").read_text(encoding="utf-8").splitlines():
        messages = json.loads(raw)["messages"]
        assert [m["role"] for m in messages[:2]] == ["system", "user"]
        assert messages[-1]["role"] == "assistant" and messages[-1]["content"]
        pending: list[str] = []
        results = 0
        for m in messages[2:]:
            if m["role"] == "assistant":
                assert not pending, "a call without its result"
                pending = [c["id"] for c in m.get("tool_calls") or []]
            else:
                assert m["role"] == "tool" and m["tool_call_id"] == pending.pop(0)
                results += 1
        assert results >= 1


def test_it_keeps_dev2_apart_from_dev() -> None:
    """The second dev transcription holds no task of the first (h21a)."""
    first = {f.name for f in (_RUNS / "luna_dev").glob("*_t*.json")}
    second = {f.name for f in (_RUNS / "luna_dev2").glob("*_t*.json")}
    assert second and not first & second


def test_it_keeps_dev3_apart_from_dev_and_dev2() -> None:
    """The third dev transcription holds no task of the first two (h22a)."""
    third = {f.name for f in (_RUNS / "luna_dev3").glob("*_t*.json")}
    earlier = {f.name for d in ("luna_dev", "luna_dev2") for f in (_RUNS / d).glob("*_t*.json")}
    assert third and not third & earlier


def test_it_keeps_dev4_apart_from_the_earlier_dev_sets() -> None:
    """The fourth dev transcription holds no task of the first three (h23b)."""
    fourth = {f.name for f in (_RUNS / "luna_dev4").glob("*_t*.json")}
    earlier = {f.name for d in ("luna_dev", "luna_dev2", "luna_dev3") for f in (_RUNS / d).glob("*_t*.json")}
    assert fourth and not fourth & earlier


def test_it_keeps_dev5_apart_from_the_earlier_dev_sets() -> None:
    """The fifth dev transcription holds no task of the first four (h24e)."""
    fifth = {f.name for f in (_RUNS / "luna_dev5").glob("*_t*.json")}
    sets = ("luna_dev", "luna_dev2", "luna_dev3", "luna_dev4")
    earlier = {f.name for d in sets for f in (_RUNS / d).glob("*_t*.json")}
    assert fifth and not fifth & earlier


def test_it_keeps_dev6_apart_from_the_earlier_dev_sets() -> None:
    """The sixth dev transcription holds no task of the first five (h25f): the last two codex1 runs."""
    sixth = {f.name for f in (_RUNS / "luna_dev6").glob("*_t*.json")}
    earlier = {
        f.name
        for d in ("luna_dev", "luna_dev2", "luna_dev3", "luna_dev4", "luna_dev5")
        for f in (_RUNS / d).glob("*_t*.json")
    }
    assert sixth == {"employment_t09.json", "logistics_t03.json"} and not sixth & earlier
