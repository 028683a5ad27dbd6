"""Issue 14: false alarms on real assistant answers, one class at a time, on runs written for these tests."""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run


@pytest.mark.parametrize(
    "answer",
    [
        "Sure, I've set your wake-up alarm for 6:45 AM.",
        "Okay I've set your wake-up alarm for 06:45.",
        "Ok, I’ll keep it at 6:45 a.m. then.",
        "Done! I'm glad to help: the alarm rings at 6:45 tomorrow.",
    ],
)
def test_it_reads_no_name_into_reply_openers_and_contractions(answer):
    run = _run(
        "Wake me at quarter to seven.", [("SetAlarm", {"time": "06:45:00"}, {"alarm_id": "a-1"})], answer
    )
    assert _flagged(verify_run(run)) == []


def test_it_takes_the_arguments_of_a_successful_call_as_evidence():
    run = _run(
        "Remind me about the vet on the 3rd.",
        [("AddReminder", {"due": "2025-03-03"}, {"ok": True})],
        "I've added the vet reminder for March 3.",
    )
    assert _flagged(verify_run(run)) == []


def test_it_still_contradicts_a_value_the_arguments_disagree_with():
    run = _run(
        "Remind me about the vet on the 3rd.",
        [("AddReminder", {"due": "2025-03-03"}, {"ok": True})],
        "I've added the vet reminder for March 4.",
    )
    assert _flagged(verify_run(run)) == [("March 4", "CONTRADICTED")]


def test_it_does_not_take_the_arguments_of_a_failed_call_as_evidence():
    run = _run(
        "Wake me at 5.",
        [("SetAlarm", {"time": "05:00:00"}, {"error": "quota reached"})],
        "Your alarm is set for 5:00 AM.",
    )
    assert ("5:00 AM", "UNSUPPORTED") in _flagged(verify_run(run))


@pytest.mark.parametrize(
    "answer", ["Your alarms: 5:10 and 17:20.", "Your alarms ring at 5:10 AM and 5:20 PM."]
)
def test_it_reads_clock_times_with_seconds(answer):
    run = _run(
        "Which alarms?",
        [("ListAlarms", {}, {"alarms": [{"time": "05:10:00"}, {"time": "17:20:00"}]})],
        answer,
    )
    assert _flagged(verify_run(run)) == []


def test_it_contradicts_a_clock_time_against_times_with_seconds():
    run = _run(
        "Which alarms?",
        [("ListAlarms", {}, {"alarms": [{"time": "05:10:00"}]})],
        "Your alarm rings at 6:10 AM.",
    )
    assert _flagged(verify_run(run)) == [("6:10 AM", "CONTRADICTED")]


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Your rent reminder is on 4/2.", None),
        ("Your rent reminder is on 4/2/2025.", None),
        ("Your rent reminder is on 4/9.", "4/9"),
    ],
)
def test_it_reads_month_first_numeric_dates(answer, bad):
    run = _run(
        "When is rent due?",
        [("FindReminders", {}, {"reminders": [{"due": "2025-04-02", "text": "rent"}]})],
        answer,
    )
    assert _flagged(verify_run(run)) == ([(bad, "CONTRADICTED")] if bad else [])


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("You meet Dana from 2 to 3pm.", None),
        ("You meet Dana from 2:00-3:00 p.m.", None),
        ("You meet Dana from 1 to 3pm.", "1"),
    ],
)
def test_it_reads_the_start_of_a_time_range_with_the_end_s_am_or_pm(answer, bad):
    event = {"title": "Sync with Dana", "start": "2025-05-06T14:00:00", "end": "2025-05-06T15:00:00"}
    run = _run("When do I meet Dana?", [("FindEvents", {}, {"events": [event]})], answer)
    assert _flagged(verify_run(run)) == ([(bad, "CONTRADICTED")] if bad else [])


def test_it_reads_a_working_day_range_forward():
    run = _run("Hours?", [("Hours", {}, {"opens": "09:00", "closes": "17:00"})], "It is open 9 to 5 pm.")
    assert _flagged(verify_run(run)) == []


def test_it_reads_a_sender_s_name_from_the_words_of_its_address():
    mail = {"emails": [{"sender": "green-valley@farm-shop.example", "subject": "Eggs are back"}]}
    run = _run(
        "Any mail?", [("SearchInbox", {}, mail)], 'One email from Green Valley titled "Eggs are back".'
    )
    assert _flagged(verify_run(run)) == []
    run = _run("Any mail?", [("SearchInbox", {}, mail)], 'One email from Blue Ridge titled "Eggs are back".')
    assert _flagged(verify_run(run)) == [("Blue Ridge", "CONTRADICTED")]


@pytest.mark.parametrize(
    "result,answer,cited",
    [
        ({"alarms": [{"time": "05:10:00"}]}, "Your alarm rings at 6:10 AM.", "05:10:00"),
        ({"due": "2025-04-02"}, "Rent is due on April 9.", "2025-04-02"),
        ({"order": {"id": "AB-1234", "total_usd": 42.5}}, "Order AB-9999 totals $42.50.", "AB-1234"),
        ({"height_m": 330}, "It is 500 meters tall.", "330"),
    ],
)
def test_it_cites_the_evidence_that_contradicts_a_value(result, answer, cited):
    run = _run("Tell me.", [("Lookup", {}, result)], answer)
    report = verify_run(run)
    (claim,) = [c for c in report.flagged_claims if c.label == "CONTRADICTED"]
    assert claim.evidence_spans, claim.reason
    span = claim.evidence_spans[0]
    content = run[span.message_index]["content"]
    assert span.text == cited and content[span.start : span.end] == cited


@pytest.mark.parametrize(
    "condition,answer,bad",
    [
        ("Light rain", "Expect a rainy afternoon in Bergen.", None),
        ("Light rain", "Expect a sunny afternoon in Bergen.", "sunny"),
        ("Sunny", "It will be cloudy in Bergen.", "cloudy"),
        ("Partly cloudy", "It will be mostly sunny in Bergen.", None),
        ("Clear", "Clear skies in Bergen, so a sunny afternoon.", None),
        ("Clear", "Snowy roads are likely in Bergen.", "Snowy"),
        ("rain", "No chance of rain being a problem: it is clear in Bergen.", None),
    ],
)
def test_it_compares_weather_conditions_as_a_slot(condition, answer, bad):
    result = {"city": "Bergen", "condition": condition, "temp_c": 9}
    run = _run("Weather in Bergen?", [("GetWeather", {"city": "Bergen"}, result)], answer)
    report = verify_run(run)
    assert _flagged(report) == ([(bad, "CONTRADICTED")] if bad else [])
    if bad:
        assert report.flagged_claims[0].evidence_spans[0].text == condition


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("The first task is to water Ivy at 9am. The second task is to feed the cat at 5 pm.", None),
        ("The first task is to water Ivy at 9am. The next one is to feed the cat at 5 pm.", None),
        ("The first task is to water Ivy at 9am, at 5 pm.", "5 pm"),
    ],
)
def test_it_does_not_carry_an_item_into_a_sentence_that_turns_to_the_next_one(answer, bad):
    tasks = {
        "tasks": [
            {"task": "Water Ivy", "due": "2025-06-01 09:00:00"},
            {"task": "Feed the cat", "due": "2025-06-01 17:00:00"},
        ]
    }
    run = _run("My tasks today?", [("GetTasks", {}, tasks)], answer)
    assert _flagged(verify_run(run)) == ([(bad, "CONTRADICTED")] if bad else [])


@pytest.mark.parametrize(
    "answer,bad",
    [
        ("Here are your 3 most recent emails.", None),
        ("You have three new emails.", None),
        ("Here are your 4 most recent emails.", "4"),
    ],
)
def test_it_counts_the_noun_after_the_modifiers_of_a_count(answer, bad):
    inbox = {"emails": [{"subject": "Hi"}, {"subject": "Lunch?"}, {"subject": "Invoice"}]}
    run = _run("Latest mail?", [("SearchInbox", {}, inbox)], answer)
    assert _flagged(verify_run(run)) == ([(bad, "CONTRADICTED")] if bad else [])


@pytest.mark.parametrize("answer,bad", [("The high is 89 F.", None), ("The high is 31 C.", "31 C")])
def test_it_reads_a_capital_f_or_c_after_a_number_as_degrees(answer, bad):
    run = _run("Weather?", [("GetWeather", {}, {"high_f": 89})], answer)
    assert _flagged(verify_run(run)) == ([(bad, "CONTRADICTED")] if bad else [])
