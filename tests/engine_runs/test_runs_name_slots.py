"""Issue 14, precision of name flags (h22j): a name is contradicted only against the same slot of the same
record, and a name the results have no slot for is general knowledge, not a claim.

A name found nowhere in the run, in a sentence whose other values the results support, used to be read as
a swapped name and contradicted. It now is only when the records those values come from hold a name (a few
capitalised words, or a code) outside the words of a request (a search query, the reason of a call), or
another name of the sentence is stated by the results. Otherwise the results do not speak to the name and
it is dropped. The runs are made up.
"""

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_PLACES = [
    {"name": "Harbor Bistro", "rating": 4.6, "average_price": 32},
    {"name": "Juniper Grill", "rating": 4.1, "average_price": 25},
]


def test_it_contradicts_a_name_swapped_into_a_record_with_a_name_slot():
    msgs = _run(
        "Which restaurant is best rated?",
        [("list_restaurants", {"city": "Portland"}, _PLACES)],
        "Copper Kettle is the best rated, with 4.6 stars and an average price of $32.",
    )
    assert ("Copper Kettle", "CONTRADICTED") in _flagged(verify_run(msgs))


def test_it_does_not_flag_a_name_next_to_values_of_a_record_without_names():
    rates = {"withholding_rate_pct": 4.75, "annual_limit": 1200, "period": "yearly"}
    msgs = _run(
        "How much is withheld from my pay?",
        [("get_withholding", {"pay_period": "current"}, rates)],
        "Per the Quarterly Bulletin, 4.75% is withheld, up to $1,200 a year.",
    )
    assert _flagged(verify_run(msgs)) == []


def test_it_does_not_flag_a_name_next_to_values_of_a_search_query():
    page = {"snippets": ["Withholding depends on the allowances you claim on the state form."]}
    msgs = _run(
        "How do I update my Nevada withholding?",
        [("web_search", {"query": "Nevada withholding form 2025 allowances"}, page)],
        "Update your Nevada withholding allowances with the Carson Office for 2025.",
    )
    assert _flagged(verify_run(msgs)) == []


def test_it_still_flags_a_name_alone_as_unsupported():
    msgs = _run(
        "Which restaurant is best rated?",
        [("list_restaurants", {"city": "Portland"}, _PLACES)],
        "The best rated is Copper Kettle.",
    )
    assert ("Copper Kettle", "UNSUPPORTED") in _flagged(verify_run(msgs))
