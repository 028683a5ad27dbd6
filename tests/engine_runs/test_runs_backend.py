import json

import numpy as np
import pytest

from verification.engine.runs import BowNLIBackend, RunVerifierConfig, load_backend, verify_run


def _save_model(path, bias):
    """A tiny NLI model: the head ignores the features and the bias decides the label."""
    vocab = ["[UNK]", "tall", "meters", "the", "is"]
    rng = np.random.default_rng(0)
    np.savez(
        path / "weights.npz",
        embedding=rng.normal(size=(len(vocab), 3)),
        weight=np.zeros((12, 3)),
        bias=np.array(bias, dtype=float),
    )
    (path / "vocab.txt").write_text("\n".join(vocab), encoding="utf-8")
    (path / "config.json").write_text(json.dumps({"type": "bow-nli"}), encoding="utf-8")
    return path


def test_it_loads_a_model_directory_and_classifies(tmp_path):
    backend = load_backend(_save_model(tmp_path, [0.0, 0.0, 5.0]))
    label, prob = backend.classify("The tower is 330 meters tall.", "It is 500 meters tall.")
    assert label == "CONTRADICTION"
    assert prob == pytest.approx(np.exp(5) / (np.exp(5) + 2))


def test_it_computes_features_from_the_embeddings():
    emb = np.array([[0.0], [1.0], [-1.0]])
    weight = np.zeros((4, 3))
    weight[2, 0] = -10.0  # a large |p - h| pushes away from ENTAILMENT
    b = BowNLIBackend(["[UNK]", "up", "down"], emb, weight, np.array([5.0, 0.0, 0.0]))
    assert b.classify("up", "up")[0] == "ENTAILMENT"
    assert b.classify("up", "down")[0] != "ENTAILMENT"


def test_it_refines_flagged_claims_with_the_model(tmp_path, run_of):
    msgs = run_of("How tall?", [{"height": "330 meters"}], "It is 330 meters tall, per https://x.example/a.")
    plain = verify_run(msgs)
    assert [c.label for c in plain.flagged_claims] == ["UNSUPPORTED"]
    entail = _save_model(tmp_path, [9.0, 0.0, 0.0])
    refined = verify_run(msgs, config=RunVerifierConfig(model_path=str(entail)))
    assert refined.flagged_claims == [] and refined.backend == "rules+bow-nli"
    contra_dir = tmp_path / "contra"
    contra_dir.mkdir()
    contra = verify_run(
        msgs, config=RunVerifierConfig(model_path=str(_save_model(contra_dir, [0.0, 0.0, 9.0])))
    )
    assert [c.label for c in contra.flagged_claims] == ["CONTRADICTED"]


def test_it_explains_bad_model_directories(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_backend(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"type": "torch-nli"}))
    with pytest.raises(ImportError, match="'model' extra"):
        load_backend(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({"type": "mystery"}))
    with pytest.raises(ValueError, match="unknown model type"):
        load_backend(tmp_path)
    with pytest.raises(ValueError, match="embedding must have shape"):
        BowNLIBackend(["a"], np.ones((2, 2)), np.zeros((8, 3)), np.zeros(3))
