"""Issue 14, fourteenth round (h23b): names and links of advice, of no kind the run speaks of.

A name headed by a noun of an institution, a channel or a document ("... Customer Service", "... Bureau",
"... Act") is a claim only when the run names something of that kind (a phrase of a result ending in that
noun, a key of that noun); otherwise it is advice from general knowledge. A URL offered as a reference (a
Markdown link, a line of sources) to a site no text of the run gives is general knowledge too; a URL stated
as a value, or a wrong page of a site the run read, stays a claim. Each positive has a negative that shows
what must still be flagged.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.compiled_support import with_docstrings
from tests.engine_runs.runs_helpers import flagged, text_result_run
from verification.engine.runs import name_kinds, verify_run
from verification.engine.runs.evidence import Evidence
from verification.engine.runs.name_kinds import KIND_HEADS, ReturnedKinds, head_kind

ROOT = Path(__file__).resolve().parents[2]


def _flags(result: str, answer: str) -> list[str]:
    run = text_result_run("My parcel is held at customs. What should I do?", result, answer, "get_shipment")
    return [t for t, _ in flagged(verify_run(run))]


_HELD = "carrier: FedEx\ntracking_number: '771234567890'\nstatus: held_at_customs\nduty_due: 48.20"


def test_it_reads_a_contact_point_of_advice_as_general_knowledge() -> None:
    answer = (
        "Your FedEx parcel 771234567890 is held at customs with $48.20 due. Pay through the tracking page, "
        "or contact FedEx International Customer Service with the tracking number."
    )
    assert _flags(_HELD, answer) == []


def test_it_still_checks_a_contact_point_when_the_run_names_such_points() -> None:
    # The results name a service desk: another desk the results do not have is a claim.
    result = _HELD + "\nnext_step: Call FedEx Trade Networks Service about the duty."
    answer = "Your parcel is held at customs. Contact FedEx International Customer Service to pay the duty."
    assert "FedEx International Customer Service" in _flags(result, answer)


def test_it_still_checks_names_of_no_kind_noun() -> None:
    answer = "Your parcel is held at customs, and Parcelo Express will deliver it after the duty is paid."
    assert "Parcelo Express" in _flags(_HELD, answer)


def test_the_luna_dev_run_of_the_class_has_no_false_alarm() -> None:
    # The dev line that showed the class (luna logistics t05): an answer that advises FedEx's international
    # customer service, which no result names.
    lines = (ROOT / "bench/corpora/runs/luna_clean_dev.jsonl").read_text(encoding="utf-8").splitlines()
    line = next(json.loads(x) for x in lines if json.loads(x)["id"] == "luna-logistics-t05")
    texts = [c.text for c in verify_run(line["messages"]).flagged_claims]
    assert "FedEx International Customer Service" not in texts


def test_it_reads_a_link_to_an_unread_site_offered_as_a_source_as_general_knowledge() -> None:
    answer = (
        "Your parcel 771234567890 is held at customs with $48.20 due.\n\n"
        "Sources: [CBP duty guidance](https://www.cbp.gov/travel/international-visitors/kbyg/duty)"
    )
    assert _flags(_HELD, answer) == []


def test_it_still_checks_a_link_stated_as_a_value_or_on_a_site_the_run_read() -> None:
    stated = "Your parcel is held at customs. The payment link is https://pay-duty.example/771234567890."
    assert "https://pay-duty.example/771234567890" in _flags(_HELD, stated)
    # A page of a site the run gives, but not a page it gives: a wrong page is checkable.
    result = _HELD + "\nhelp_url: https://www.fedex.com/en-us/customs-tools.html"
    answer = (
        "Your parcel is held at customs. See [FedEx duty help](https://www.fedex.com/en-us/duty-pay.html)."
    )
    assert "https://www.fedex.com/en-us/duty-pay.html" in _flags(result, answer)


_WORD = st.from_regex(r"[A-Z][a-z]{2,8}", fullmatch=True)


@given(st.lists(_WORD, min_size=1, max_size=3), st.sampled_from(sorted(KIND_HEADS)))
def test_a_kind_the_run_names_is_never_general_knowledge(owner: list[str], head: str) -> None:
    name = " ".join([*owner, head.capitalize()])
    assert head_kind(name) == head
    ev = Evidence()
    assert ReturnedKinds(ev).lacks_kind_of(name)
    # Any phrase of the run with the same head noun makes the kind one the run speaks of.
    ev.contents[1] = f"note: Please call the Regional {head.capitalize()} first."
    assert not ReturnedKinds(ev).lacks_kind_of(name)


@given(_WORD)
def test_one_word_names_one_no_kind(word: str) -> None:
    assert head_kind(word) is None


def test_its_docstring_examples_hold() -> None:
    result = doctest.testmod(with_docstrings(name_kinds))
    assert result.attempted > 0 and result.failed == 0


def test_it_reads_zip_of_a_postal_code_as_general_vocabulary() -> None:
    result = "destination_operator: USPS\nlatest_event_location: Los Angeles, CA 90017"
    answer = "Submit a service request for the local Post Office serving ZIP code 90017."
    assert _flags(result, answer) == []
    # The code itself is still checked.
    assert "90071" in _flags(result, "Submit a service request for the Post Office serving ZIP code 90071.")


def test_a_bare_answer_is_the_value_asked_for_whatever_its_kind() -> None:
    # A short answer naming a law is the answer to the question, not advice: still checked.
    passage = (
        '{"passages": ["He opposed the draft. Conscription in the United States is known as the draft."]}'
    )
    question = "What was the official name of the draft he opposed?"
    messages = text_result_run(question, passage, "The Selective Service Act.", "search")
    assert [t for t, _ in flagged(verify_run(messages))] == ["Selective Service Act"]


def test_a_code_spelled_out_across_two_names_is_still_the_code() -> None:
    # "Family" + "Medical Leave Act" are read together as FMLA's expansion before the kind rule drops a part.
    result = "certification_case_id: MLC-2741\nleave_program: FMLA"
    answer = "Case MLC-2741 is under the Family and Medical Leave Act, as your record shows."
    assert _flags(result, answer) == []
