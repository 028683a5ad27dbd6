import copy

import pytest

from verification.engine.runs import apply_action, report_headers, verify_run

RESPONSE = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "It is 500 meters tall."}}],
}


@pytest.fixture
def hallucinated(run_of):
    return verify_run(run_of("How tall?", [{"height": "330 meters"}], "It is 500 meters tall in 1950."))


def test_it_writes_halugate_headers_for_a_detection(hallucinated):
    h = report_headers(hallucinated)
    assert h["x-vsr-fact-check-needed"] == "true"
    assert h["x-vsr-hallucination-detected"] == "true"
    assert h["x-vsr-hallucination-spans"] == "500 meters; 1950"
    assert h["x-vsr-nli-contradictions"] == "1"  # 1950 is unsupported: no result gives a year
    assert h["x-vsr-max-severity"] == "4"


def test_it_writes_unverified_factual_headers():
    r = verify_run(
        [
            {"role": "user", "content": "Who painted the Mona Lisa?"},
            {"role": "assistant", "content": "Leonardo da Vinci."},
        ]
    )
    h = report_headers(r)
    assert h == {
        "x-vsr-fact-check-needed": "true",
        "x-vsr-unverified-factual-response": "true",
        "x-vsr-verification-context-missing": "true",
    }


def test_it_writes_only_the_gate_header_for_non_factual_requests():
    r = verify_run([{"role": "user", "content": "Write a poem."}, {"role": "assistant", "content": "Roses."}])
    assert report_headers(r) == {"x-vsr-fact-check-needed": "false"}


def test_it_applies_each_action_without_mutating_the_response(hallucinated):
    before = copy.deepcopy(RESPONSE)
    headers, body, status = apply_action(hallucinated, RESPONSE, "header")
    assert (body, status) == (RESPONSE, 200) and headers["x-vsr-hallucination-detected"] == "true"
    headers, body, status = apply_action(hallucinated, RESPONSE, "body")
    assert status == 200 and '"500 meters"' in body["choices"][0]["message"]["content"]
    headers, body, status = apply_action(hallucinated, RESPONSE, "block")
    assert status == 422 and body["error"]["type"] == "hallucination_detected" and "choices" not in body
    assert apply_action(hallucinated, RESPONSE, "none") == ({}, RESPONSE, 200)
    assert before == RESPONSE


def test_it_passes_clean_answers_through(run_of):
    r = verify_run(run_of("How tall?", [{"height": "330 meters"}], "It is 330 meters tall."))
    headers, body, status = apply_action(r, RESPONSE, "block")
    assert (body, status, headers["x-vsr-hallucination-detected"]) == (RESPONSE, 200, "false")


def test_it_rejects_unknown_actions(hallucinated):
    with pytest.raises(ValueError, match="action must be one of"):
        apply_action(hallucinated, RESPONSE, "shout")


def test_it_serialises_the_report(hallucinated):
    d = hallucinated.to_dict()
    assert set(d) >= {
        "run_id",
        "claims",
        "tool_call_validations",
        "consistency_probes",
        "overall_score",
        "action",
        "version",
    }
    assert d["claims"][0]["status"] in ("supported", "contradicted", "unsupported")
