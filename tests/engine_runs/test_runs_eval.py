import json

from tests.engine_runs.runs_helpers import make_run
from verification.engine.eval.groundedness import evaluate_groundedness, main


def _line(answer, hallucinated, spans, span_labels=True):
    msgs = make_run("How tall?", [{"height": "330 meters"}], answer)
    label = {"hallucinated": hallucinated, "spans": spans}
    if not span_labels:
        label["span_labels"] = False
    return json.dumps({"id": "ignored", "messages": msgs, "label": label})


def test_it_scores_responses_and_spans(tmp_path):
    bad = "It is 500 meters tall."
    path = tmp_path / "g.jsonl"
    path.write_text(
        "\n".join(
            [
                _line(bad, True, [{"start": 6, "end": 16, "text": "500 meters", "kind": "contradiction"}]),
                _line("It is 330 meters tall.", False, []),
                _line("It is 330 meters tall.", True, [], span_labels=False),
            ]
        )
        + "\n"
    )
    m = evaluate_groundedness(path, progress=False)
    assert m["cases"] == 3
    assert m["response"] == {"precision": 1.0, "recall": 0.5, "f1": round(2 / 3, 4)}
    assert m["span"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert m["false_positive_rate"] == 0.0
    assert set(m["latency_ms"]) >= {"p50", "p99"}
    # The flagged line outranks the clean one; the unflagged hallucinated line ties with it.
    assert m["auroc"] == {"response": 0.75, "claim": 1.0}
    assert m["contradicted_with_evidence"] == 1.0


def test_it_writes_metrics_from_the_command_line(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    path.write_text(_line("It is 330 meters tall.", False, []) + "\n")
    out = tmp_path / "m.json"
    assert main([str(path), "--out", str(out), "--no-progress"]) == 0
    assert json.loads(out.read_text())["cases"] == 1
    assert '"cases": 1' in capsys.readouterr().out


def test_it_reports_per_answer_figures_variants_and_false_alarm_classes(tmp_path):
    # Two lines share their run (one answer told twice); a third is another answer. The meta file names
    # the variants, as the real-text sets ship them.
    ok = _line("It is 330 meters tall.", False, [])
    wrong_name = _line("It was built by Gustave Lyon.", False, [])
    other = json.dumps(
        {
            "id": "b",
            "messages": make_run("How tall is it?", [{"height": "330 meters"}], "It is 330 meters tall."),
            "label": {"hallucinated": False, "spans": []},
        }
    )
    lines = [json.loads(x) for x in (ok, wrong_name, other)]
    for i, item in enumerate(lines):
        item["id"] = f"l{i}"
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    meta = [
        {"id": "l0", "group": "clean", "variant": "original"},
        {"id": "l1", "group": "hard_clean", "variant": "name"},
        {"id": "l2", "group": "clean", "variant": "original"},
    ]
    (tmp_path / "set.meta.jsonl").write_text("".join(json.dumps(x) + "\n" for x in meta))
    m = evaluate_groundedness(path, progress=False)
    assert m["per_answer"]["answers"] == 2
    assert m["per_answer"]["correct_answers_flagged"] == 1
    assert m["per_answer"]["correct_answer_flag_rate"] == 0.5
    assert m["original_clean_flag_rate"] == 0.0
    assert m["by_variant"]["hard_clean/name"] == {"lines": 1, "flagged": 1}
    assert m["false_alarm_classes_on_clean"] == {"unsupported:name:other": 1}


def test_it_reports_the_actions_of_both_gates_by_line_kind(tmp_path):
    path = tmp_path / "g.jsonl"
    spans = [{"start": 6, "end": 16, "text": "500 meters", "kind": "contradiction"}]
    lines = [_line("It is 500 meters tall.", True, spans), _line("It is 330 meters tall.", False, [])]
    path.write_text("\n".join(lines) + "\n")
    m = evaluate_groundedness(path, progress=False)
    score = m["score_gate_actions"]
    assert score["emit"] == {"clean": 1}
    assert sum(n for action in score.values() for n in action.values()) == 2
    assert "emit" not in {a for a, kinds in score.items() if "hallucinated" in kinds}
    calibrated = m["calibration"]["actions"]
    assert calibrated["emit"] == {"clean": 1}


def test_it_warms_the_engine_before_the_first_timed_run(tmp_path, monkeypatch):
    # The service warms each process at start-up (verification/apps.py); the evaluator's latency figures
    # must not charge one run with pint's registry load instead.
    from verification.engine.eval import groundedness

    order = []
    real_verify = groundedness.verify_run

    def verify(*args):
        order.append("verify")
        return real_verify(*args)

    monkeypatch.setattr(groundedness, "warm_up", lambda: order.append("warm_up"))
    monkeypatch.setattr(groundedness, "verify_run", verify)
    path = tmp_path / "g.jsonl"
    path.write_text(_line("It is 330 meters tall.", False, []) + "\n")
    evaluate_groundedness(path, progress=False)
    assert order == ["warm_up", "verify"]
