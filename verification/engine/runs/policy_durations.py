"""A policy time limit the answer quotes ("created more than 29 hours ago, so it cannot be cancelled")
against the limit the system prompt sets for the same thing ("cancelled within 24 hours of booking").

An agent explains a refusal by the operator's limit, hedged: "more than 24 hours ago", "within 24 hours".
Edited, the hedge keeps it true of the record (a booking made days ago was made more than 29 hours ago), so
the value rules support it; but the policy's limit for this is another (issue 14: edited policy durations).
A limit is read as a hedge ("more than", "within", "less than", "over", "under") and a count of hours or
days; it is compared only with the system prompt's counts of the same unit whose sentence shares two word
stems with the answer's sentence ("reservation", "cancel"), and contradicted only when none of those is its
count. A duration of something the policy does not limit shares fewer stems and is left to the other rules.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .evidence import Evidence
from .findings import Finding, contradict
from .lexicon import FUNCTION_WORDS
from .mentions import Mention
from .policy_rates import policy_sentences

__all__ = ["check_policy_durations"]

_LIMIT = re.compile(r"\b(?:more than|within|less than|over|under|at least)[ \t]+(\d+)[ \t]+(hour|day)s?\b")
_AMOUNT = re.compile(r"\b(\d+)[ \t]*-?[ \t]*(hour|day)s?\b")
_WORD = re.compile(r"[a-z]+")
# Words of any time limit: they say nothing about what is limited.
_TIME_WORDS = frozenset({"hour", "hours", "days", "within", "more", "than", "less", "ago", "over", "under"})


def _stems(text: str) -> set[str]:
    """Five-letter stems of the content words ("cancelled", "canceled" -> cance; "reservations" -> reser)."""
    words = set(_WORD.findall(lower(text))) - FUNCTION_WORDS - _TIME_WORDS
    return {w[:5] for w in words if len(w) > 3}


def check_policy_durations(
    answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any
) -> list[Finding]:
    """Relabel, in place, a quoted limit that the system prompt sets otherwise for the same thing; return a
    finding for one that had none (see the module).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> policy = "Any ticket can be refunded within 48 hours of purchase. Support replies within 2 days."
    >>> run = parse_run([{"role": "system", "content": policy},
    ...     {"role": "user", "content": "Refund my ticket T-9."},
    ...     {"role": "tool", "tool_call_id": "c", "content": '{"ticket": "T-9", "bought": "2025-03-01"}'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def bad(answer):
    ...     return [f.mention.text for f in ground_answer(answer, ev) if f.label != "SUPPORTED"]
    >>> bad("Ticket T-9 was purchased more than 48 hours ago, so it cannot be refunded.")
    []
    >>> bad("Ticket T-9 was purchased more than 50 hours ago, so it cannot be refunded.")
    ['50 hours']
    """
    low = lower(answer)
    if "hour" not in low and "day" not in low:
        return []
    quoted = list(_LIMIT.finditer(low))
    if not quoted:
        return []
    limits: list[tuple[int, str, set[str]]] = []
    for text in policy_sentences(ev, with_strings=True):
        for a in _AMOUNT.finditer(lower(text)):
            limits.append((int(a.group(1)), a.group(2), _stems(text)))
    if not limits:
        return []
    added: list[Finding] = []
    for q in quoted:
        start = q.start(1)
        sentence = sentence_of(start)
        words = _stems(answer[sentence[0] : sentence[1]])
        unit = q.group(2)
        same = sorted({n for n, u, stems in limits if u == unit and len(stems & words) >= 2})
        told = int(q.group(1))
        if not same or told in same:
            continue
        reason = "the policy's limit for this is " + ", ".join(f"{n} {unit}s" for n in same)
        mention = Mention("number", start, q.end(1), answer[start : q.end(1)], value=float(told))
        contradict(findings, added, mention, sentence, reason)
    return added
