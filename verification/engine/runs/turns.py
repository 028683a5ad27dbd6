"""Names of what was done in this turn: a name the answer says it acted on must be of this turn's calls.

"I've scheduled your meetings with Justin, Julian and Michael" after three calls of this turn, one per
attendee: every name the agent says it acted on is a value of those calls, of their results or of the
request it answers. A name found only in earlier turns of the conversation (the user's own name in the
system prompt, a contact of an earlier request) is a name of another item of the run (issue 14: names of
another item were most of the names the rules still missed).
"""

from __future__ import annotations

import re
from typing import Any

from .evidence import Evidence, Fact, has_words, normalize_text
from .findings import Finding
from .mentions import Mention

__all__ = ["check_failed_calls", "check_turn_names"]

# A first-person report of a message or meeting just made with people: "I've scheduled", "I have sent", "I
# sent". Other actions ("booked your flight to Paris") name places and things the calls may give as codes.
# (``\bI`` written as ``I(?<!\w.)``: the engine skips to the capital I's in C instead of trying every
# position of the answer; the same matches, h22d.)
_DONE = re.compile(
    r"I(?<!\w.)(?:'ve|’ve| have)?\s+(?:just\s+|now\s+|also\s+)?"
    r"(?:scheduled|sent|emailed|messaged|texted|invited|notified|shared|forwarded)\b"
)
_CITES = 3


def check_turn_names(
    answer: str, findings: list[Finding], ev: Evidence, turn_start: int, sentence_of: Any
) -> None:
    """Relabel, in place, a name the answer says it acted on that none of this turn's texts gives.

    The turn is the request the answer replies to (message ``turn_start``) and the calls and results after
    it; a turn that called no tool with a string value is not read. Only names after a first-person verb
    of a completed action in their sentence are checked. The claim cites the strings of the turn's calls.
    """
    if turn_start < 0 or _DONE.search(answer) is None:
        return  # most answers report no message sent: the turn's texts are not gathered for them
    if not any(f.mention.kind == "entity" and f.label == "SUPPORTED" for f in findings):
        return
    turn_facts = [x for x in ev.strings if x.message_index > turn_start and x.source == "tool"]
    if not turn_facts:
        return
    turn_text = " | ".join([x.value for x in turn_facts] + [normalize_text(ev.contents.get(turn_start, ""))])
    turn_words = set(turn_text.replace("|", " ").split())
    for f in findings:
        m = f.mention
        if m.kind != "entity" or f.label != "SUPPORTED":
            continue
        sent = sentence_of(m.start)
        done = _DONE.search(answer, sent[0], m.start)
        if done is None:
            continue
        if _in_turn(m.text, turn_text, turn_words):
            continue
        f.label = "CONTRADICTED"
        f.reason = "this name is of another part of the conversation, not of what this turn did"
        f.facts = _turn_cites(turn_facts)


def _in_turn(name: str, turn_text: str, turn_words: set[str]) -> bool:
    """Whether the name, or one of its words (a first name of "Jeff Smith"), is in the turn's texts, also as
    the start of a handle ("nick" of ``nickie``, "bob" of ``bobbyboi``: usernames spell out their people)."""
    norm = normalize_text(name)
    if not norm:
        return True
    if has_words(turn_text, norm):
        return True
    words = [w for w in norm.split() if len(w) > 2]
    return any(t.startswith(w) for w in words for t in turn_words)


def _turn_cites(turn_facts: list[Fact]) -> list[Fact]:
    """The strings of the turn's calls and results that name things (the evidence of what was done)."""
    named = [x for x in turn_facts if any(c.isupper() for c in x.text[:1]) or " " in x.text]
    return (named or turn_facts)[:_CITES]


# A claim that what was tried worked: "still works", "is still valid", "succeeded", "was successful". Not
# "is correct" or "is valid", which are said of what the user gave ("the address you gave is correct").
# ``\b(?:still works?|works fine|now works|is still (?:valid|working)|succeeded|worked|(?:was|were|has been|
# have been) successful)\b`` opening with a choice of first letters (``\b`` read behind it, the phrase picked
# by a look-behind at it), so the engine skips to them instead of trying every phrase at every position.
# Same matches: at most one phrase can match at a position.
_WORKED = re.compile(
    r"[swnih](?<!\w.)(?:(?<=s)(?:till works?|ucceeded)|(?<=w)(?:orks fine|orked|as successful|ere successful)"
    r"|(?<=n)ow works|(?<=i)s still (?:valid|working)|(?<=h)(?:as been|ave been) successful)\b"
)


def _may_say_it_worked(answer: str) -> bool:
    """Whether ``answer`` holds "work", "succe" or "valid": every match of ``_WORKED`` holds one ("still
    works", "succeeded", "is still valid", "has been successful"). Its first letters are common, so the engine
    entered the pattern at most letters of every answer; ``in`` is a search in C (h24c)."""
    return "work" in answer or "succe" in answer or "valid" in answer


_NEGATED = re.compile(r"\b(?:not|no longer|never|didn't|couldn't|wasn't|doesn't|isn't|no)\b|n't\b")


def check_failed_calls(answer: str, ev: Evidence, turn_start: int, sentence_of: Any) -> list[Finding]:
    """Claims that something worked, in a turn whose call failed: contradicted by the call's error.

    A tool result that is an error (``{"error": "The password is incorrect."}``) is a state of what was
    tried: "your old password still works" after it says the opposite (issue 14). Only a turn with an error
    result is read, and only an affirmative claim (no negation before it in its sentence); the claim cites
    the error.
    """
    if turn_start < 0 or not _may_say_it_worked(answer) or _WORKED.search(answer) is None:
        return []
    errors = [x for x in ev.strings if x.message_index > turn_start and "error" in x.key_tokens and x.text]
    if not errors:
        return []
    out: list[Finding] = []
    for m in _WORKED.finditer(answer):
        sent = sentence_of(m.start())
        if _NEGATED.search(answer, sent[0], m.start()):
            continue
        mention = Mention("state", m.start(), m.end(), m.group(0), extra={"state": "succeeded"})
        out.append(Finding(mention, "CONTRADICTED", sent, errors[:_CITES], "the call it is about failed"))
    return out
