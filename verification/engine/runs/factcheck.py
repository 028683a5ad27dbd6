"""The fact-check gate (HaluGate Sentinel's role): does a request need fact checking at all?

No classifier model is available offline, so the gate is a small set of cues: requests to create
(poems, stories, slogans), to write or fix code, or for an opinion or advice need no fact check;
everything else that asks for information does. Cues are about the form of a request, not its topic.
"""

from __future__ import annotations

import re

__all__ = ["classify_request"]

_CREATIVE = re.compile(
    r"\b(write|compose|draft|make up|invent|create|come up with|generate|imagine|give me)\b.{0,60}?\b("
    r"poem|haiku|limerick|sonnet|verse|story|stories|tale|fable|song|lyrics|rap|joke|slogan|tagline|"
    r"toast|speech|message|note|card|wish|wishes|caption|character|backstory|scene|dialogue|plot|"
    r"opening line|first line|ad|advert|jingle|riddle|name ideas)\b"
    r"|\b(poem|haiku|limerick|short story|flash fiction|two-sentence horror|bedtime story)\b"
    r"|\bdescribe (a|an)\b|\bbrainstorm\b|\bname (for|ideas)\b|\bsuggest (a )?names?\b",
    re.I | re.S,
)
_CODE = re.compile(
    r"```|\bdef \w+\(|\bfunction \w*\(|\bclass \w+[:({]|=>|;\s*$|\b(debug|refactor|regex|regular expression|"
    r"sql|query|python|javascript|typescript|java|rust|golang|bash|shell|c\+\+|html|css|compile|"
    r"stack trace|traceback|exception|syntax error|bug|code|snippet|function|script|one-liner|list "
    r"comprehension|loop|array|variable)\b|\b\w+ = [\w(\[]"
    r"|\bselect\b[^.?!]*\bfrom\b|\binsert into\b|\bcreate table\b",
    re.I | re.M,
)
_OPINION = re.compile(
    r"\b(what do you think|your (opinion|view|take|favou?rite)|do you (prefer|like|think)|would you|"
    r"should i|which is better|or (should|would)|recommend|advice|"
    r"any tips|how (can|do|should) i (stay|get|keep|be|motivat)|is it worth|pros and cons|"
    r"in your view|which .* prefer|what'?s better|suggest|more fun|better than|is it better|motivation|"
    r"motivate|inspire me|encourage me)\b",
    re.I,
)
_FACTUAL_CUES = re.compile(
    r"\b(when|where|who|how (many|much|tall|long|far|old|big)|what (is|was|are|were|'s)|which|"
    r"is there|did|does|has|have|status|price|rate|balance|convert|population|forecast|weather|"
    r"score|result|schedule|tell me about|how (popular|is|are))\b|\?",
    re.I,
)


def classify_request(request: str, has_tool_context: bool = False) -> tuple[str, bool]:
    """Classify a user request as ``factual``, ``creative``, ``code`` or ``opinion``.

    Returns the class and whether the request needs a fact check. A run that called tools is
    factual by construction: the agent went to fetch facts.

    >>> classify_request("Write a haiku about autumn rain.")
    ('creative', False)
    >>> classify_request("When was Albert Einstein born?")
    ('factual', True)
    >>> classify_request("Why does my Python loop print None?")
    ('code', False)
    >>> classify_request("Tabs or spaces: what do you think?")
    ('opinion', False)
    """
    if has_tool_context:
        return "factual", True
    text = request.strip()
    if _CREATIVE.search(text):
        return "creative", False
    if _CODE.search(text):
        return "code", False
    if _OPINION.search(text):
        return "opinion", False
    if _FACTUAL_CUES.search(text) or text:
        return "factual", True
    return "other", False
