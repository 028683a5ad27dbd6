"""Relative dates of an answer ("today", "tomorrow night", "next Monday", "in 3 days") read as dates.

A relative date says nothing by itself: it becomes a checkable value only against the date the run happens
on. That date is the one the system prompt states (an assistant's context such as ``timestamp: 2023-09-11
09:00:00`` or ``Today is 11 September 2023``); with none, or with several dates there, relative dates are
not claims at all.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from ..text import lower
from .evidence import Evidence, Fact
from .findings import Finding, clauses
from .lexicon import NUMBER_WORDS, WEEKDAYS
from .mentions import Mention

__all__ = ["relative_findings", "run_date"]

_DAYS_WORDS = "|".join(w for w in NUMBER_WORDS if " " not in w and NUMBER_WORDS[w] <= 31)
_WEEKDAY_WORDS = "|".join(WEEKDAYS)
_RELATIVE = re.compile(
    r"\b(?:(?P<after>the day after tomorrow)"
    r"|(?P<today>today|tonight|this (?:morning|afternoon|evening))"
    r"|(?P<tomorrow>tomorrow)"
    r"|(?P<yesterday>yesterday|last night)"
    rf"|in (?P<n>\d{{1,2}}|{_DAYS_WORDS}) days"
    rf"|(?P<which>this|next|coming|on) (?P<wd>{_WEEKDAY_WORDS}))\b"
)
# Sentences that offer help or ask the user something use "today" as a pleasantry ("Anything else I can do
# for you today?"), not as the date of an item.
_PLEASANTRY = re.compile(r"\?\s*$|\b(?:help|assist|anything else|else i can)\b")
# "based on today's fares", "at today's prices": the prices in force now, which the answer compares with
# what was paid; no date of an item (issue 14, gpt-oss-120b airline runs). Only "today", before a price word.
_PRICES_OF_TODAY = re.compile(r"(?:'|\u2019)s (?:fares?|prices?|rates?|pricing)\b")
# Results that speak of the days around the run: only then is a relative date that none of them gives a
# contradiction (results about last year's invoices say nothing about "tomorrow").
_NEAR_DAYS = 14


def run_date(ev: Evidence) -> date | None:
    """The date the run happens on: the one full date of the system prompt, else None.

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> run = parse_run([{"role": "system", "content": "timestamp: 2023-09-11 09:00:00"},
    ...     {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}])
    >>> run_date(build_evidence(run))
    datetime.date(2023, 9, 11)
    """
    found = {f.value for f in ev.dates if f.source == "system" and None not in f.value}
    if len(found) != 1:
        return None
    y, mo, d = next(iter(found))
    try:
        return date(y, mo, d)
    except ValueError:
        return None


def _candidates(m: re.Match[str], today: date) -> list[date]:
    """The dates a relative phrase may mean (a weekday phrase may mean two); none past the calendar's
    ends ("tomorrow" of a run dated 9999-12-31, "in 99999999999 days")."""
    try:
        return _shifted(m, today)
    except OverflowError:
        return []


def _shifted(m: re.Match[str], today: date) -> list[date]:
    if m.group("after"):
        return [today + timedelta(days=2)]
    if m.group("today"):
        return [today]
    if m.group("tomorrow"):
        return [today + timedelta(days=1)]
    if m.group("yesterday"):
        return [today - timedelta(days=1)]
    n = m.group("n")
    if n:
        return [today + timedelta(days=int(n) if n.isdigit() else NUMBER_WORDS[n])]
    wd = WEEKDAYS[m.group("wd")]
    ahead = (wd - today.weekday()) % 7
    which = m.group("which")
    if which == "next":
        # "next Monday" is the coming one to some and the one after to others.
        first = ahead or 7
        return [today + timedelta(days=first), today + timedelta(days=first + 7)]
    if which == "coming":
        return [today + timedelta(days=ahead or 7)]
    # "this Friday", "on Friday": the coming one, or the one of this week already past.
    return [today + timedelta(days=ahead), today - timedelta(days=(7 - ahead) % 7 or 7)]


def relative_findings(
    answer: str, ev: Evidence, sentence_of: Any, findings: list[Finding], turn_start: int = -1
) -> list[Finding]:
    """Findings for the relative dates of ``answer`` resolved against :func:`run_date`.

    A relative date is supported by a tool result or call argument that gives that date (the system prompt's
    own date supports nothing: "today" would always match it). When a supported value of its clause names
    one item of the results (``findings``, the values read so far), the date is that item's: contradicted
    when the item's dates differ, no claim when the item has none (an alarm is set for a time only). With no
    such item, it is contradicted when the results give dates around the run but not that one; otherwise it
    is no claim. ``turn_start`` is the index of the user message the answer replies to.
    """
    today = run_date(ev)
    if today is None:
        return []
    tool_dates = [f for f in ev.dates if f.source == "tool" and None not in f.value]
    if not tool_dates:
        return []
    # An answer reports on the calls of its own turn: their dates, when they give any, are the ones a
    # relative date with no item of its own is read against (an earlier turn's forecast is not "tomorrow's
    # reminder").
    latest = [f for f in tool_dates if f.message_index > turn_start] or tool_dates
    low = lower(answer)
    out: list[Finding] = []
    for m in _RELATIVE.finditer(low):
        sent = sentence_of(m.start())
        if _PLEASANTRY.search(low, sent[0], sent[1]):
            continue
        if m.group(0) == "today" and _PRICES_OF_TODAY.match(low, m.end()):
            continue
        meant = _candidates(m, today)
        if not meant:
            continue
        wanted = {(d.year, d.month, d.day) for d in meant}
        first = min(meant)
        mention = Mention(
            "date",
            m.start(),
            m.end(),
            answer[m.start() : m.end()],
            date=(first.year, first.month, first.day, None),
            extra={"relative": m.group(0), "run_date": today.isoformat()},
        )
        if _quoted(answer, m.start()):
            continue  # a message or title the answer quotes has its own "this Saturday"
        item = _clause_item(answer, sent, m.start(), findings)
        if item is not None:
            own = [f for f in tool_dates if f.record == item]
            if not own and not item[1]:
                # A whole result (a forecast named by its call's place): the dates of its lists are its own.
                own = [f for f in tool_dates if f.record is not None and f.record[0] == item[0]]
            if not own:
                continue
            hits = [f for f in own if f.value in wanted]
            if hits:
                out.append(Finding(mention, "SUPPORTED", sent, hits, f"the item's date {_day(first)}"))
            else:
                why = f"{m.group(0)!r} is {_day(first)}; the item's date is another"
                out.append(Finding(mention, "CONTRADICTED", sent, own[:3], why))
            continue
        hits = [f for f in latest if f.value in wanted]
        if hits:
            why = f"the date {_day(first)} relative to the run"
            out.append(Finding(mention, "SUPPORTED", sent, hits, why))
            continue
        near = [f for f in latest if abs((_as_date(f) - today).days) <= _NEAR_DAYS]
        if near:
            out.append(
                Finding(
                    mention,
                    "CONTRADICTED",
                    sent,
                    [],
                    f"{m.group(0)!r} is {_day(first)}; the results give other dates",
                )
            )
    return out


def _quoted(answer: str, pos: int) -> bool:
    """Whether ``pos`` lies inside double quotes of its line."""
    line_start = answer.rfind("\n", 0, pos) + 1
    before = answer[line_start:pos]
    return before.count('"') % 2 == 1 or before.count("“") > before.count("”")


def _clause_item(answer: str, sent: tuple[int, int], pos: int, findings: list[Finding]) -> Any:
    """The one record the supported tool values of ``pos``'s clause belong to, else None."""
    clause = next((c for c in clauses(answer, sent[0], sent[1], ",;", True) if c[0] <= pos <= c[1]), sent)
    records: set[Any] = set()
    for g in findings:
        if g.label != "SUPPORTED" or not clause[0] <= g.mention.start < clause[1]:
            continue
        recs = {f.record for f in g.facts if f.source == "tool" and f.record is not None}
        if len(recs) == 1:
            records |= recs
    return next(iter(records)) if len(records) == 1 else None


def _as_date(f: Fact) -> date:
    y, mo, d = f.value
    try:
        return date(y, mo, d)
    except ValueError:
        return date.min


def _day(d: date) -> str:
    return d.isoformat()
