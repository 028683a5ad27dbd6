"""Issue 14: a rate the answer quotes must be the rate the system prompt sets for the same thing
(``policy_rates.check_policy_rates``).

The run is written for these tests: a made-up ferry operator whose policy prices a cabin upgrade per
passenger and luggage per bag, and whose fares differ by amounts an edited rate can fall on.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from verification.engine.runs import verify_run

_POLICY = (
    "You are the ferry desk agent.\n"
    "- Cabin upgrade: offer it to every traveller; it is 25 dollars per passenger and includes breakfast.\n"
    "- Luggage: the first bag is free, then each further luggage bag is $40 for each bag."
)


def _run(answer: str) -> list[dict[str, object]]:
    return [
        {"role": "system", "content": _POLICY},
        {"role": "user", "content": "What are the fares to Kos?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "fares", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c", "content": '{"deck": 48, "cabin": 79}'},
        {"role": "assistant", "content": answer},
    ]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("A deck seat is $48. Would you like a cabin upgrade for $25 per passenger?", None),
        # 31 is the difference of the two fares, but the policy prices the upgrade at 25.
        ("A deck seat is $48. Would you like a cabin upgrade for $31 per passenger?", "$31"),
        ("Each further luggage bag is $40 per bag.", None),
        ("Each further luggage bag is $31 per bag.", "$31"),
        # A rate of something the policy does not price is left to the other rules.
        ("The cabin fare is $31 per passenger more than a deck seat.", None),
    ],
)
def test_it_reads_a_quoted_rate_against_the_policys_rate_of_the_same_thing(answer, bad):
    report = verify_run(_run(answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])
