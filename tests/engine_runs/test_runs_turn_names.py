"""A name the answer says it sent, invited or scheduled with is checked against the turn that did it (issue
14, seventh round): a name of an earlier turn told as this turn's is a name of another item of the run."""

from __future__ import annotations

import json

import pytest

from verification.engine.runs import verify_run


def _run(answer: str, receivers: list[str]) -> list[dict]:
    calls = [
        {
            "id": f"c{i}",
            "type": "function",
            "function": {
                "name": "SendMessage",
                "arguments": json.dumps({"receiver": r, "text": "Lunch at 1?"}),
            },
        }
        for i, r in enumerate(receivers)
    ]
    return [
        {"role": "system", "content": "The user is Marguerite Olsen."},
        {"role": "user", "content": "Who messaged me yesterday?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "q", "type": "function", "function": {"name": "GetMessages", "arguments": "{}"}}
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "q",
            "content": json.dumps(
                {
                    "messages": [
                        {"sender": "priya_r", "name": "Priya Raman", "text": "See you Friday"},
                        {"sender": "tomasz_k", "name": "Tomasz Kowal", "text": "Call me"},
                    ]
                }
            ),
        },
        {"role": "assistant", "content": "Priya Raman and Tomasz Kowal messaged you."},
        {"role": "user", "content": "Ask Tomasz and Dana whether lunch at 1 works."},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *[
            {"role": "tool", "tool_call_id": f"c{i}", "content": '{"message_id": "m-1"}'}
            for i in range(len(calls))
        ],
        {"role": "assistant", "content": answer},
    ]


def _labels(answer: str, receivers: list[str]) -> dict[str, str]:
    return {c.text: c.label for c in verify_run(_run(answer, receivers)).claims}


def test_it_flags_a_name_of_an_earlier_turn_told_as_this_turns():
    report = verify_run(_run("I've sent the message to Tomasz and Priya.", ["tomasz_k", "dana.w"]))
    flagged = {c.text: c for c in report.flagged_claims}
    assert "Priya" in flagged and flagged["Priya"].label == "CONTRADICTED", flagged
    assert flagged["Priya"].evidence_spans  # the turn's own calls are cited


@pytest.mark.parametrize(
    "answer",
    ["I've sent the message to Tomasz and Dana.", "I sent Tomasz and Dana a message about lunch at 1."],
)
def test_it_keeps_names_of_this_turns_request_and_handles(answer):
    labels = _labels(answer, ["tomasz_k", "dana.w"])
    assert "CONTRADICTED" not in labels.values(), labels


def test_it_does_not_read_names_outside_a_report_of_what_was_done():
    labels = _labels("Priya Raman wrote to you too; I can message her next.", ["tomasz_k", "dana.w"])
    assert "CONTRADICTED" not in labels.values(), labels


def _login_run(answer: str, result: dict) -> list[dict]:
    return [
        {"role": "user", "content": "Log me out, then back in with my old password please."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "Logout", "arguments": "{}"}},
                {
                    "id": "b",
                    "type": "function",
                    "function": {"name": "Login", "arguments": '{"user": "ana_p"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": '{"status": "success"}'},
        {"role": "tool", "tool_call_id": "b", "content": json.dumps(result)},
        {"role": "assistant", "content": answer},
    ]


def test_it_contradicts_a_claim_that_a_failed_call_worked():
    report = verify_run(
        _login_run("Done, you are logged out. Your old password still works.", {"error": "Bad login."})
    )
    flagged = [(c.text, c.label) for c in report.flagged_claims]
    assert ("still works", "CONTRADICTED") in flagged, flagged
    assert report.flagged_claims[0].evidence_spans  # the error is cited


@pytest.mark.parametrize(
    ("answer", "result"),
    [
        ("Done, you are logged out. Your old password no longer works.", {"error": "Bad login."}),
        ("Done, you are logged out. Your old password still works.", {"status": "success"}),
    ],
)
def test_it_keeps_what_a_failed_call_does_not_contradict(answer, result):
    report = verify_run(_login_run(answer, result))
    assert not report.hallucination_detected, [(c.text, c.label) for c in report.claims]
