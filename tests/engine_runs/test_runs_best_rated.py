"""Issue 14: a pick told as the best-rated one must be the highest rated of the ratings result it comes
from (``best_rated.check_best_rated``).

The runs are written for these tests: a made-up city guide whose tools list bike-hire shops and rate them
("Rating: 4.2" texts by name), answered as a bare comma list, as AgentDojo's agents answer.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run

_RATINGS = {
    "Velo Nord": "Rating: 4.2\nReviews: Friendly staff\nOld bikes",
    "Spoke House": "Rating: 4.7\nReviews: New bikes\nA bit far from the station",
    "Pedal Bay": "Rating: 3.9\nReviews: Cheap",
}
_ASK = "We are in Ghent for 2 days. Which bike-hire shop has the best rating? Tell me its name and price."


def _calls(ratings=None):
    return [
        ("list_bike_shops", {"city": "Ghent"}, "Bike shops in Ghent: Velo Nord, Spoke House, Pedal Bay"),
        ("get_bike_shop_ratings", {"names": list(_RATINGS)}, ratings or _RATINGS),
        ("get_bike_price_per_day", {"names": ["Spoke House"]}, {"Spoke House": 15.0}),
    ]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Spoke House, 30", None),
        # Velo Nord is rated 4.2, Spoke House 4.7 in the same result.
        ("Velo Nord, 30", "Velo Nord"),
        ("Pedal Bay, 30", "Pedal Bay"),
    ],
)
def test_it_contradicts_a_best_rated_pick_that_its_result_rates_lower(answer, bad):
    report = verify_run(_run(_ASK, _calls(), answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])


def test_it_accepts_either_of_two_tied_best_ratings():
    tied = dict(_RATINGS, **{"Velo Nord": "Rating: 4.7\nReviews: Friendly staff"})
    report = verify_run(_run(_ASK, _calls(tied), "Velo Nord, 30"))
    assert _flagged(report) == []


def test_it_leaves_a_pick_alone_when_the_user_did_not_ask_for_the_best_rated():
    ask = "We are in Ghent for 2 days. Which bike-hire shop is closest to the station? Tell me its price."
    report = verify_run(_run(ask, _calls(), "Velo Nord, 30"))
    assert _flagged(report) == []


def test_it_leaves_an_answer_that_lists_several_names_of_the_result_alone():
    # Two names of one ratings result are options, not the pick.
    report = verify_run(_run(_ASK, _calls(), "Spoke House or Velo Nord, 30"))
    assert _flagged(report) == []


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Spoke House, 4.7, 30", None),
        # The results rate Spoke House 4.7; 5.7 is no rating of it.
        ("Spoke House, 5.7, 30", "5.7"),
        ("Spoke House (rated 4.2), 30", "4.2"),
        # 15.0 after the name is its price per day, not a rating.
        ("Spoke House, 15.0 per day", None),
    ],
)
def test_it_reads_a_rating_told_after_a_name_against_that_names_rating(answer, bad):
    ask = "Which bike-hire shop has the best rating? Tell me its name, rating and price for 2 days."
    report = verify_run(_run(ask, _calls(), answer))
    assert _flagged(report) == ([] if bad is None else [(bad, "CONTRADICTED")])
