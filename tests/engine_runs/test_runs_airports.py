"""Issue 14: a city or airport name of a code the results give, from a table generated from airportsdata.

``verification/engine/runs/airports_data.py`` is written by ``airports_build.py`` from the PyPI package
airportsdata (MIT). The runs here are written for these tests (made-up flights between real airports);
the codes are ones the hand-written table this replaced did not hold.
"""

from pathlib import Path

import airportsdata
import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import airports_build, grounding, verify_run
from verification.engine.runs.lexicon import AIRPORT_PLACES


def test_it_ships_the_module_the_build_script_writes():
    shipped = Path(airports_build.OUT).read_text(encoding="utf-8")
    assert shipped == airports_build.render(airportsdata.load("IATA"))


def test_it_drops_the_same_filler_words_when_building_and_when_reading():
    assert airports_build.FILLER == grounding._AIRPORT_FILLER


def test_it_writes_a_records_city_name_parts_and_abbreviations_as_places():
    record = {"city": "Twin-Harbor", "name": "Twin Harbor/Oakes Intcntl Airport"}
    assert set(airports_build.places(record)) == {
        "twin harbor", "twin", "harbor", "oakes intcntl", "oakes intercontinental",
        "twin harbor oakes intcntl", "twin harbor oakes intercontinental",
    }  # fmt: skip


def test_it_looks_up_codes_of_every_continent():
    for code, place in [("LIS", "lisbon"), ("NRT", "narita"), ("JNB", "johannesburg"), ("YVR", "vancouver")]:
        assert place in AIRPORT_PLACES[code].split(";")


_FLIGHTS = [
    {"flight_number": "QX412", "origin": "LIS", "destination": "LHR", "date": "2025-03-11"},
    {"flight_number": "QX418", "origin": "LHR", "destination": "NRT", "date": "2025-03-12"},
]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("QX412 flies from Lisbon to London on March 11.", None),
        ("QX418 leaves Heathrow for Narita on March 12.", None),
        ("QX418 leaves London Heathrow Airport on March 12 and lands at Tokyo Narita.", None),
        ("QX412 flies from Madrid to London on March 11.", "Madrid"),
        ("QX418 leaves Heathrow for Osaka on March 12.", "Osaka"),
    ],
)
def test_it_supports_a_city_or_airport_name_of_a_code_the_old_table_lacked(answer, bad):
    run = _run("My flights?", [("search_flights", {"date": "2025-03-11"}, _FLIGHTS)], answer)
    assert [t for t, _ in _flagged(verify_run(run))] == ([] if bad is None else [bad])
