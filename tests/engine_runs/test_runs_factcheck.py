import pytest

from verification.engine.runs import classify_request, verify_run


@pytest.mark.parametrize(
    ("request_text", "kind"),
    [
        ("Write a sonnet about the sea.", "creative"),
        ("Give me a slogan for a coffee shop.", "creative"),
        ("How do I sort a dict by value in Python?", "code"),
        ("Fix this: SELECT * FROM t WHERE", "code"),
        ("Should I learn piano or guitar?", "opinion"),
        ("What's your take on remote work?", "opinion"),
        ("Who discovered penicillin?", "factual"),
        ("How tall is the Burj Khalifa?", "factual"),
    ],
)
def test_it_classifies_requests(request_text, kind):
    got, needed = classify_request(request_text)
    assert got == kind
    assert needed == (kind == "factual")


def test_it_lets_non_factual_requests_pass_untouched():
    r = verify_run(
        [
            {"role": "user", "content": "Write a haiku about snow."},
            {"role": "assistant", "content": "Snow on 12 pines in 1999 at Paris."},
        ]
    )
    assert (r.fact_check_needed, r.claims, r.action, r.hallucination_detected) == (False, [], "emit", False)


def test_it_marks_factual_answers_without_tool_context_unverified():
    r = verify_run(
        [
            {"role": "user", "content": "When did the Berlin Wall fall?"},
            {"role": "assistant", "content": "On November 9, 1989."},
        ]
    )
    assert r.fact_check_needed and r.unverified_factual
    assert not r.hallucination_detected
