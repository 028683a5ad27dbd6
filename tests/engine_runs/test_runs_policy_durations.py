"""Issue 14: a time limit the answer quotes for a refusal must be the system prompt's limit for the same
thing (``policy_durations.check_policy_durations``).

The runs are written for these tests: a made-up concert-ticket seller whose policy allows refunds within 48
hours of purchase and exchanges up to 3 days before the show.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import verify_run

_POLICY = (
    "You are the ticket desk of Hall Nine.\n"
    "- A ticket purchase can be refunded within 48 hours of purchase.\n"
    "- Seats can be exchanged until 3 days before the show."
)
_ORDER = {
    "order_id": "HN-5521",
    "purchased_at": "2025-02-01T10:00:00",
    "show": "2025-02-20",
    "mailing_time_days": 5,
}


def _report(answer):
    run = make_run("Please refund order HN-5521.", [_ORDER], answer, tool="get_order", system=_POLICY)
    return verify_run(run)


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Order HN-5521 was purchased more than 48 hours ago, so it cannot be refunded.", None),
        # The policy's refund limit is 48 hours.
        ("Order HN-5521 was purchased more than 72 hours ago, so it cannot be refunded.", "72 hours"),
        ("A purchase can only be refunded within 24 hours, and order HN-5521 is older.", "24 hours"),
    ],
)
def test_it_reads_a_quoted_limit_against_the_policys_limit_for_it(answer, bad):
    assert _flagged(_report(answer)) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_leaves_a_duration_of_something_the_policy_does_not_limit_alone():
    # The mailing time shares one word (ticket) with the refund rule: not enough to be that rule's limit.
    answer = "Your tickets for order HN-5521 are mailed within 5 days."
    assert _flagged(_report(answer)) == []
