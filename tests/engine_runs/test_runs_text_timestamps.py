"""Issue 14 (h20i): dates, times and numbers of tool results written as text, not JSON.

Runs written for these tests: a made-up ferry line, garage and payroll office whose tools answer with
YAML-like ``key: value`` text (ISO timestamps with a UTC offset), as another model's tools do. A written
date and a clock time of such a timestamp are the timestamp's; a time converted to a named zone is the same
instant; a really different date or time is still flagged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions


def _text_run(question: str, results: list[str], answer: str) -> list[dict[str, Any]]:
    """A run whose tools answer with plain text (no JSON), one call per result."""
    msgs: list[dict[str, Any]] = [{"role": "user", "content": question}]
    msgs.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
                for i in range(len(results))
            ],
        }
    )
    for i, text in enumerate(results):
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": text})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


_SAILING = """booking_ref: FR-2231
status: confirmed
legs:
- vessel: Morven Star
  departs_at: '2031-03-14T07:25:00+01:00'
  arrives_at: '2031-03-14T11:40:00+01:00'
  port_from: Oban
  port_to: Tiree
"""


def _sailing(answer: str) -> list[tuple[str, str]]:
    return _flagged(verify_run(_text_run("When is my ferry?", [_SAILING], answer)))


def test_it_reads_an_iso_timestamp_in_text_as_one_date_and_one_time():
    kinds = [(m.kind, m.text) for m in extract_mentions("departs_at: '2031-03-14T07:25:00+01:00'")]
    assert ("date", "2031-03-14") in kinds
    assert ("time", "07:25:00+01:00") in kinds
    assert not any(text == "01:00" for _, text in kinds)  # the offset is no clock time


@pytest.mark.parametrize(
    "answer",
    [
        "Your ferry Morven Star leaves Oban on 14 March 2031 at 07:25 and reaches Tiree at 11:40.",
        "- **Departure:** Oban — **March 14, 2031 at 7:25 AM**\n- **Arrival:** Tiree — **11:40 AM**",
        "The sailing departs at 07:25 on 2031-03-14.",
    ],
)
def test_it_supports_the_written_date_and_wall_time_of_an_offset_timestamp(answer):
    assert _sailing(answer) == []


@pytest.mark.parametrize(
    "answer",
    [
        "Your ferry leaves Oban at 7:25 AM BST.",  # the zone of the offset
        "Your ferry leaves Oban at 6:25 AM UTC.",  # the same instant in UTC
        "Your ferry leaves Oban at 2:25 AM EDT.",  # converted for a traveller in New York
        "Your ferry leaves Oban at 11:25 PM PT (the evening before).",  # PDT, the summer reading of PT
    ],
)
def test_it_supports_a_time_converted_to_a_named_zone(answer):
    assert _sailing(answer) == []


def test_it_reads_a_zone_name_after_a_time_as_part_of_the_time():
    found = [(m.kind, m.text) for m in extract_mentions("The parcel was scanned at 3:42 PM PDT in Reno.")]
    assert ("time", "3:42 PM PDT") in found
    assert not any(kind == "entity" and text == "PDT" for kind, text in found)


@pytest.mark.parametrize(
    ("answer", "wrong"),
    [
        ("Your ferry leaves Oban on 15 March 2031 at 07:25.", "15 March 2031"),
        ("Your ferry leaves Oban on 14 March 2031 at 08:25.", "08:25"),
        ("Your ferry leaves Oban at 3:25 AM EDT.", "3:25 AM EDT"),  # an hour off once converted
        ("Your ferry reaches Tiree at 01:00.", "01:00"),  # the offset is no time of the sailing
    ],
)
def test_it_still_flags_a_wrong_date_or_time_against_an_offset_timestamp(answer, wrong):
    assert (wrong, "CONTRADICTED") in _sailing(answer)


def test_it_keeps_an_unknown_capitalised_word_after_a_time_a_name():
    found = [(m.kind, m.text) for m in extract_mentions("Meet at 9:10 AM Brodick pier.")]
    assert ("time", "9:10 AM") in found


# Ranges of days, identifier tails and lengths of time ------------------------------------------------

_LEAVE = """request_id: PTO-5512
status: approved
start_date: '2031-05-12'
end_date: '2031-05-14'
"""


@pytest.mark.parametrize(
    "answer",
    [
        "Your leave is approved for **May 12–14, 2031**.",
        "Your leave is approved for 12–14 May 2031.",
        "Your leave runs May 12 to 14.",
    ],
)
def test_it_reads_a_range_of_days_written_once_as_two_dates(answer):
    assert _flagged(verify_run(_text_run("Is my leave approved?", [_LEAVE], answer))) == []


def test_it_still_flags_a_wrong_end_of_a_range_of_days():
    found = _flagged(
        verify_run(_text_run("Is my leave approved?", [_LEAVE], "Approved for May 12–16, 2031."))
    )
    assert ("16, 2031", "CONTRADICTED") in found


_CAR = """vehicles:
- vehicle_id: VEH-0042
  model: Roadster Mk2
  vin: 1HGCM82633A004352
  card_on_file: visa_4417
"""


@pytest.mark.parametrize(
    "answer",
    [
        "Your Roadster Mk2, VIN ending 04352, is on file.",
        "The VIN ends in **4352**.",
        "Your Roadster Mk2 (VIN ending with `352`) is on file.",
    ],
)
def test_it_supports_the_tail_of_an_identifier_the_answer_says_it_ends_with(answer):
    assert _flagged(verify_run(_text_run("Which car?", [_CAR], answer))) == []


def test_it_still_flags_a_wrong_identifier_tail_and_a_bare_tail():
    found = _flagged(verify_run(_text_run("Which car?", [_CAR], "Your VIN ending 04353 is on file.")))
    assert ("04353", "UNSUPPORTED") in found
    bare = _flagged(verify_run(_text_run("Which car?", [_CAR], "Your car has 4352 miles on it.")))
    assert bare  # a tail said as no tail is a value like any other


_OUTAGE_PAGE = """content: A customer who loses service for more than 24 consecutive hours may ask for a
  credit. Signed agreements can be downloaded after 48 hours.
title: Service credits
"""


def test_it_reads_a_number_of_hours_past_a_modifier_as_a_length_of_time():
    answer = "If the outage was shorter than 24 hours, the agreement may not guarantee a credit."
    assert _flagged(verify_run(_text_run("Do I get a credit?", [_OUTAGE_PAGE], answer))) == []


def test_it_still_flags_a_length_of_time_no_result_gives():
    answer = "If the outage was shorter than 12 hours, the agreement may not guarantee a credit."
    assert ("12 hours", "CONTRADICTED") in _flagged(
        verify_run(_text_run("Do I get a credit?", [_OUTAGE_PAGE], answer))
    )


# A page dumped as one YAML double-quoted string ---------------------------------------------------------

_HOURS_PAGE = (
    'content: "# Harbour Garage\\n\\n## Hours\\n\\n**Monday \\u2013 Friday**\\n\\\n'
    '  \\n7:30 AM \\u2013 6:00 PM\\n\\n**Sunday**\\n\\nClosed\\n"\n'
    "title: Harbour Garage\n"
)


def test_it_reads_the_times_and_words_of_a_page_in_a_yaml_quoted_string():
    answer = "- **Hours:** Monday–Friday 7:30 AM–6:00 PM; Sunday closed."
    assert _flagged(verify_run(_text_run("When is it open?", [_HOURS_PAGE], answer))) == []


def test_it_still_flags_a_wrong_time_of_a_page_in_a_yaml_quoted_string():
    answer = "- **Hours:** Monday–Friday 8:30 AM–6:00 PM; Sunday closed."
    assert ("8:30 AM", "CONTRADICTED") in _flagged(
        verify_run(_text_run("When is it open?", [_HOURS_PAGE], answer))
    )


# States: negated, in a rule's condition, in a status slot, and the verb "open" ------------------------

_APPOINTMENT = """appointment_id: APT-310
current_status: confirmed
cancellation_status: not_canceled
recall_status: not_open
transfer_status: pending_recipient_acceptance
"""


@pytest.mark.parametrize(
    "answer",
    [
        "Appointment APT-310 remains confirmed and has not been canceled or replaced.",
        "The recall is **not open** for your car.",
        "Your transfer is currently pending your acceptance.",
        "Open the confirmation email and keep appointment APT-310.",
        "If the appointment is cancelled, you will get a text message.",
    ],
)
def test_it_reads_negated_conditional_and_slot_states_as_what_they_say(answer):
    assert _flagged(verify_run(_text_run("What about my appointment?", [_APPOINTMENT], answer))) == []


def test_it_still_flags_a_negated_state_the_record_is_in():
    results = ["appointment_id: APT-311\ncurrent_status: cancelled\n"]
    found = _flagged(verify_run(_text_run("Status?", results, "Appointment APT-311 has not been cancelled.")))
    assert ("cancelled", "CONTRADICTED") in found


def test_it_still_flags_a_plain_state_the_slot_contradicts():
    found = _flagged(verify_run(_text_run("Status?", [_APPOINTMENT], "The recall is open for your car.")))
    assert ("open", "CONTRADICTED") in found


# Numbers that are part of a word or a name -------------------------------------------------------------

_PAYSLIP = """statement_id: PS-77
deductions:
- medical
- retirement
flights_checked: 3
"""


@pytest.mark.parametrize(
    "answer",
    [
        "The warning comes from a third-party tracking site, not from statement PS-77.",
        "Statement PS-77 lists medical and 401(k) retirement deductions.",
    ],
)
def test_it_reads_no_value_in_an_ordinal_compound_or_a_plan_named_after_a_section(answer):
    assert _flagged(verify_run(_text_run("What is on my payslip?", [_PAYSLIP], answer))) == []


def test_it_still_checks_an_ordinal_that_ranks_and_a_plain_number():
    assert [m.text for m in extract_mentions("the third flight leaves") if m.kind == "count"] == ["third"]
    assert _flagged(verify_run(_text_run("How many?", [_PAYSLIP], "Statement PS-77 checked 5 flights.")))


# A list of sources ---------------------------------------------------------------------------------------

_SEARCH = """- rank: 1
  title: Tracking help
  url: https://post.example/help/tracking
- rank: 2
  title: Redelivery basics
  url: https://post.example/help/redelivery
"""


def _opened_pages(answer: str) -> list[dict[str, Any]]:
    """A search, then three results opened in one turn (each page a call with its URL), then ``answer``."""
    pages = [
        ("https://post.example/help/tracking", "content: Tracking shows the last scan."),
        ("https://post.example/help/redelivery", "content: Ask for a redelivery online."),
        ("https://post.example/help/missing", "content: Search for missing mail after 7 days."),
    ]
    msgs = _text_run("Where is my parcel?", [_SEARCH], answer)[:-1]
    msgs.append(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"p{i}",
                    "type": "function",
                    "function": {"name": "open_webpage", "arguments": json.dumps({"doc_id_or_url": url})},
                }
                for i, (url, _) in enumerate(pages)
            ],
        }
    )
    for i, (_, text) in enumerate(pages):
        msgs.append({"role": "tool", "tool_call_id": f"p{i}", "content": text})
    msgs.append({"role": "assistant", "content": answer})
    return msgs


def test_it_reads_each_link_of_a_list_of_sources_as_its_own_item():
    answer = (
        "Ask for a redelivery online.\n\nSources: [Tracking help](https://post.example/help/tracking), "
        "[Redelivery basics](https://post.example/help/redelivery), "
        "[Missing mail](https://post.example/help/missing)."
    )
    found = _flagged(verify_run(_opened_pages(answer)))
    assert not any(text.startswith("https://") for text, _ in found)


def test_it_still_flags_a_link_told_with_another_items_name():
    hotels = '{"hotels": [{"name": "Harbor Inn", "url": "https://harbor-inn.example/book"}, ' + (
        '{"name": "Cliff Lodge", "url": "https://cliff-lodge.example/book"}]}'
    )
    answer = "Harbor Inn: https://cliff-lodge.example/book"
    found = _flagged(verify_run(_text_run("Hotels?", [hotels], answer)))
    # The pair is contradicted; a "Name: value" line whose one value is another item's blames the name
    # when the answer never names that other item (records.py), so either side may carry the flag.
    assert found and {label for _, label in found} == {"CONTRADICTED"}
    assert {text for text, _ in found} & {"https://cliff-lodge.example/book", "Harbor Inn"}
