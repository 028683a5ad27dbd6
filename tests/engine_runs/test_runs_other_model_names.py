"""Issue 14, twelfth round (h20j): names in another model's runs, whose tool results are YAML-like text.

A name the results do not give is a claim when it is a proper name of a kind the results hold (people,
places, firms, products, the records' codes), not every capitalised word of advice: time zones after a
clock time, general terms ("Wi‑Fi", "Ethernet", "HR"), acronyms when the results hold no code of their
length, an imperative or conjunction glued to the name after it, a possessive before a product name, and
the links of a list of sources. The runs are made up for these tests; each positive has a negative that
shows a really wrong name of a kind the results hold is still flagged.
"""

from __future__ import annotations

import json
from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run


def _run(
    user: str, results: list[tuple[str, str]], answer: str, args: list[dict[str, str]] | None = None
) -> list[dict[str, Any]]:
    """A run whose tool results are raw text (YAML-like records, search lists): [(tool name, text)], called
    with ``args`` (one per result) or no arguments."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": user}]
    msgs.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(args[i] if args else {})},
                }
                for i, (n, _) in enumerate(results)
            ],
        }
    )
    for i, (_, text) in enumerate(results):
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": text})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


_PARCEL = (
    "carrier: Parcelo\n"
    "last_scan_location: Portland, OR 97201\n"
    "last_scan_status: Held at Depot\n"
    "last_scan_time: '2026-03-04T16:20:00-08:00'\n"
    "hub_code: PDX\n"
)


def _names(answer: str, results: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    report = verify_run(_run("Where is my parcel?", results or [("get_parcel", _PARCEL)], answer))
    return [(t, lab) for t, lab in flagged(report) if not any(c.isdigit() for c in t)]


def test_it_reads_a_time_zone_after_a_time_as_no_name():
    answer = "Parcelo last scanned it in Portland on March 4, 2026 at 4:20 PM PST (7:20 PM EST)."
    assert _names(answer) == []


def test_it_still_flags_an_unknown_name_beside_a_time():
    answer = "Parcelo last scanned it in Seattle on March 4, 2026 at 4:20 PM PST."
    assert ("Seattle", "CONTRADICTED") in _names(answer) or ("Seattle", "UNSUPPORTED") in _names(answer)


def test_it_reads_general_terms_and_non_breaking_hyphens_as_no_names():
    answer = (
        "Parcelo holds it in Portland. Meanwhile, check that your Wi‑Fi and Ethernet work so the "
        "Parcelo app can notify you, or ask HR to accept it."
    )
    assert _names(answer) == []


def test_it_reads_acronyms_of_general_vocabulary_as_no_names():
    answer = "Parcelo holds it in Portland; pre-tax HSA or FSA funds cannot pay the fee (see the FAQ)."
    assert _names(answer) == []


def test_it_still_flags_an_acronym_of_a_firm_the_results_do_not_give():
    answer = "Parcelo holds it in Portland; DHL will collect it from hub PDX."
    assert [t for t, _ in _names(answer)] == ["DHL"]


def test_it_reads_a_city_for_a_code_of_a_yaml_record():
    answer = "Parcelo holds it at its Portland hub."
    results = [("get_parcel", _PARCEL.replace("last_scan_location: Portland, OR 97201\n", ""))]
    assert _names(answer, results) == []


def test_it_reads_a_dotted_abbreviation_as_its_letters():
    results = [("get_parcel", _PARCEL + "origin_country: United States\n")]
    answer = "Parcelo holds this domestic U.S. parcel in Portland."
    assert _names(answer, results) == []


def test_it_splits_an_opening_imperative_or_conjunction_from_the_name():
    answer = (
        "The parcel is held at the depot.\n\nContact Parcelo and quote the hub.\n\n"
        "Once Parcelo confirms the slot, collect it in Portland."
    )
    assert _names(answer) == []


def test_it_still_flags_a_wrong_firm_after_an_opening_imperative():
    answer = "The parcel is held at the depot.\n\nContact Speedpost and quote the hub."
    assert [t for t, _ in _names(answer)] == ["Speedpost"]


_PLANS = (
    "- rank: 1\n  title: Wheel and Tire Protection Plan\n  url: https://example.com/wheel-plan\n"
    "- rank: 2\n  title: Extended Service Agreement\n  url: https://example.com/service-agreement\n"
)
_CAR = "manufacturer: Voltra\nmodel: Arc 5\nvin: 7XW1ARC5PLAN00042\n"


def test_it_reads_a_known_owner_before_a_product_name_of_the_results():
    results = [("get_vehicle", _CAR), ("search_web", _PLANS)]
    answer = "This is curb rash, which Voltra’s Wheel and Tire Protection Plan covers for your Arc 5."
    report = verify_run(_run("Is my wheel covered?", results, answer))
    assert flagged(report) == []


def test_it_still_checks_a_possessive_title_whole():
    # A possessive before a single word is a title ("Brer Rabbit’s Adventure"), not an owner and a product.
    results = [("get_vehicle", _CAR), ("search_web", _PLANS)]
    answer = "Your Arc 5 is covered by Voltra’s Promise, not by the Wheel and Tire Protection Plan."
    report = verify_run(_run("Is my wheel covered?", results, answer))
    assert [t for t, _ in flagged(report)] == ["Voltra’s Promise"]


def test_it_still_flags_a_wrong_owner_before_a_possessive():
    results = [("get_vehicle", _CAR), ("search_web", _PLANS)]
    answer = "This is curb rash, which Zentro’s Wheel and Tire Protection Plan covers for your Arc 5."
    report = verify_run(_run("Is my wheel covered?", results, answer))
    assert [t for t, _ in flagged(report)] == ["Zentro’s Wheel"]


_PAGE = "content: '# Web Document\n\n- url: {url}\n\n{body}'\n"
_WHERE = "https://parcelo.test/where"
_DESK = "https://parcelo.test/collection-desk"


def _sources_run(links: str) -> list[dict[str, Any]]:
    """Two pages opened by their addresses (each address a value of its own page's call)."""
    where = "Each status is explained. Collection from a depot too."
    pages = [
        ("open_webpage", _PAGE.format(url=_WHERE, body=where)),
        ("open_webpage", _PAGE.format(url=_DESK, body="Desks open at 8.")),
    ]
    answer = f"Ask for a redelivery after the next attempt.\n\nSources: {links}."
    args = [{"doc_id_or_url": _WHERE}, {"doc_id_or_url": _DESK}]
    return _run("Is my parcel lost?", pages, answer, args)


def test_it_keeps_each_cited_link_with_its_own_page():
    # "Collection Status": words the first page gives apart, and "collection" also in the second page's
    # address; the link text is no surer a name of a page than the address beside it.
    links = f"[Collection Status]({_WHERE}), [Collection Desk]({_DESK})"
    assert [c for c in flagged(verify_run(_sources_run(links))) if c[0].startswith("http")] == []


def test_it_still_flags_a_link_that_no_result_gives():
    links = f"[Collection Status]({_WHERE}/track-now)"
    assert (f"{_WHERE}/track-now", "UNSUPPORTED") in flagged(verify_run(_sources_run(links)))
