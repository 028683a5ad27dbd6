"""Negations and states: direction words, match results, likelihood words and categorical states."""

from __future__ import annotations

import re
from typing import Any

from ..budget import UNLIMITED, Budget
from ..text import lower
from .evidence import Evidence, Fact, normalize_text
from .findings import Finding, clauses, split_sentences
from .identity import earlier_of_same, latest_of_same
from .mentions import Mention
from .records import RecordLookup, best_record

__all__ = ["check_polarity"]
_FROM_GAP = re.compile(r"\s*(?:from\s+)")
_BY_GAP = re.compile(r"\s*(?:by\s+)?")

_FAMILIES: tuple[frozenset[str], ...] = (
    frozenset({"on_time", "delayed", "cancelled", "diverted", "landed", "boarding", "departed"}),
    frozenset({"in_stock", "out_of_stock"}),
    frozenset({"confirmed", "tentative", "cancelled", "pending"}),
    frozenset({"pending", "posted"}),
    frozenset({"pending", "completed", "in_progress", "failed", "expired"}),
    frozenset({"pending", "approved", "rejected"}),
    frozenset({"paid", "unpaid", "overdue", "refunded"}),
    frozenset({"open", "closed", "resolved", "pending", "on_hold"}),
    frozenset(
        {
            "delivered",
            "in_transit",
            "out_for_delivery",
            "processing",
            "shipped",
            "returned",
            "on_hold",
            "refunded",
            "cancelled",
        }
    ),
    frozenset({"archived", "not_archived"}),
    frozenset({"refundable", "non_refundable"}),
    frozenset({"included", "not_included"}),
    frozenset({"otc", "prescription"}),
    frozenset({"open", "closed"}),
    frozenset({"clear", "rain", "cloud", "partly_cloudy", "snow", "storm", "fog"}),
)
# States that a told state agrees with besides itself: "partly cloudy" is neither wrong for a sunny nor
# for a cloudy sky, and either of those for a partly cloudy one.
_AGREES: dict[str, frozenset[str]] = {
    "partly_cloudy": frozenset({"clear", "cloud"}),
    "clear": frozenset({"partly_cloudy"}),
    "cloud": frozenset({"partly_cloudy"}),
    "storm": frozenset({"rain"}),
    "rain": frozenset({"storm"}),
    # A parcel on its way is shipped, in transit or out for delivery, as people tell it.
    "shipped": frozenset({"in_transit", "out_for_delivery"}),
    "in_transit": frozenset({"shipped", "out_for_delivery"}),
    "out_for_delivery": frozenset({"shipped", "in_transit"}),
    "closed": frozenset({"resolved"}),
    "resolved": frozenset({"closed"}),
}
_UP = frozenset({"rose", "rise", "rises", "risen", "up", "gained", "gains", "increased", "climbed", "jumped",
                 "higher", "grew"})  # fmt: skip
_DOWN = frozenset({"fell", "falls", "fallen", "down", "dropped", "declined", "decreased", "slipped", "lower"})
_WIN = frozenset({"beat", "beats", "won", "wins", "defeated"})
_LOSE = frozenset({"lost", "loses"})
_UP = frozenset({"rose", "rise", "rises", "risen", "up", "gained", "gains", "increased", "climbed", "jumped",
                 "higher", "grew"})  # fmt: skip
_WIN = frozenset({"beat", "beats", "won", "wins", "defeated"})
_LOSE = frozenset({"lost", "loses"})


def check_polarity(
    answer: str,
    mentions: list[Mention],
    findings: list[Finding],
    ev: Evidence,
    sentence_of: Any,
    sentences: list[tuple[int, int]] | None = None,
    *,
    budget: Budget = UNLIMITED,
) -> list[Finding]:
    """Findings for the direction, likelihood and state mentions of the answer (those the evidence speaks to).

    ``findings`` are the value findings already made (directions read the sign of the value they govern);
    ``sentence_of`` maps a character position to its sentence span; ``sentences`` are the answer's sentence
    spans when the caller has them already.
    """
    out: list[Finding] = []
    numeric = sorted((f for f in findings if f.mention.value is not None), key=lambda f: f.mention.start)
    if sentences is None:
        sentences = split_sentences(answer) or [(0, len(answer))]
    lookup: RecordLookup | None = None
    for m in mentions:
        budget.check("checking directions and states")
        sent = sentence_of(m.start)
        if m.kind == "direction":
            word = m.extra["word"]
            if word in _WIN or word in _LOSE or word == "drew":
                res = _outcome(answer, m, findings, ev)
            else:
                res = _direction(answer, m, numeric, sent)
            if res is not None:
                out.append(Finding(m, res[0], sent, res[1], res[2]))
        elif m.kind == "likelihood":
            # "likely" means a probability of at least one half; judged against a percentage in the clause.
            pct = [f for f in numeric if f.mention.kind == "percent" and f.label == "SUPPORTED"]
            pct = [f for f in pct if sent[0] <= f.mention.start < sent[1]]
            if pct:
                nearest = min(pct, key=lambda f: abs(f.mention.start - m.start))
                assert nearest.mention.value is not None
                ok = (nearest.mention.value >= 50) == (m.extra["likely"] == "True")
                out.append(
                    Finding(
                        m,
                        "SUPPORTED" if ok else "CONTRADICTED",
                        sent,
                        nearest.facts,
                        "consistent with the probability"
                        if ok
                        else f"the probability is {nearest.mention.text}",
                    )
                )
        elif m.kind == "state":
            state = m.extra["state"]
            fams = [f for f in _FAMILIES if state in f]
            if not fams or _not_a_current_status(answer, sent, m):
                continue
            if state in _REFUND_PROGRESS and _REFUND_SUBJECT.search(lower(answer[sent[0] : m.start])):
                # "Refund Status: Processing": the progress of a refund, no status of the order or booking
                # the results give (issue 14, h23d).
                continue
            if state == "pending" and _pending_as_preposition(answer, sent, m):
                # "held pending a current fee assessment": "pending" is "until", it tells what the record
                # waits for, not that its status is pending (issue 14, h22a).
                continue
            if _as_told_before(answer, m):
                # "As confirmed earlier, the full $5,700 refund ...": "confirmed" is what was said in the
                # conversation, not a record's status (issue 14, tau2-bench airline runs of grok-4, h23i).
                continue
            if _no_before(answer, sent, m):
                # "No pending credit found", "no active outage": the state is an attribute of something
                # the answer says does not exist, not a record's state; which records it would be is
                # unknown, so it is no claim (issue 14, h21a).
                continue
            negated = _negated(answer, sent, m)
            family = frozenset().union(*fams)
            cands = [s for s in ev.states if s.value in family]
            if not cands:
                continue
            if _heading_line(answer, m.start) and not _names_an_identifier(answer, m.start, findings):
                # "**To Cancel (Pending Orders):**": a heading's state titles the items below it, which the
                # heading does not name; any record would be a guess (issue 14, h19b).
                continue
            own = _clause_records(answer, sent, m.start, findings, {s.record for s in cands}, ev)
            if own:
                scoped = [s for s in cands if s.record in own]
            else:
                probe = Finding(m, "SUPPORTED", sent, cands)
                lists = {lst for lst, _ in probe.records}
                if lists and lookup is None:
                    lookup = RecordLookup(findings, sentences)
                best = best_record(answer, findings, probe, sentences, lists, lookup) if lists else None
                scoped = [s for s in cands if s.record == best] if best is not None else cands
                scoped = scoped or cands
            agrees = _AGREES.get(state, frozenset())
            if negated and not own and _stateless_record_named(m, findings, {s.record for s in cands}):
                # "This reservation [UDMOP1] ... is not cancelled by the airline" when only another record
                # of the run (a reservation cancelled earlier) is cancelled: the negation speaks of the
                # record the answer names, whose results give no state of the kind (issue 14, tau2-bench
                # airline runs of gemini-2.5-flash, h24d).
                continue
            if negated:
                out.append(_negated_finding(m, sent, state, agrees, scoped, cands, ev))
                continue
            counted = _availability_counts(answer, sent, m, scoped, ev)
            if counted is not None:
                ok, facts = counted
                label, why = ("SUPPORTED", "the count available agrees") if ok else ("CONTRADICTED", "")
                out.append(Finding(m, label, sent, facts, why or f"the evidence counts {facts[0].value:g}"))
                continue
            if any(s.value == state or s.value in agrees for s in scoped):
                out.append(
                    Finding(
                        m,
                        "SUPPORTED",
                        sent,
                        [s for s in scoped if s.value == state or s.value in agrees],
                        "state matches",
                    )
                )
            else:
                # The same record read again later (the order a cancellation returned): the state now is
                # that read's (issue 14, h19b: "have been cancelled" against the read before the action).
                later = latest_of_same(ev, scoped, cands)
                hits = [s for s in later if s.value == state or s.value in agrees]
                if hits:
                    out.append(
                        Finding(m, "SUPPORTED", sent, hits, "state matches the latest read of the record")
                    )
                else:
                    refunds = _refunds_of(ev, scoped, findings, sent) if state == "refunded" else []
                    if refunds:
                        # "cancelled and has been refunded $1,130.65": the money went back, whatever the
                        # order's status (issue 14, h20a).
                        out.append(Finding(m, "SUPPORTED", sent, refunds, "a refund is recorded for it"))
                        continue
                    if _PREVIOUSLY.search(lower(answer[max(sent[0], m.start - 40) : m.start])):
                        # "CANCELLED (previously PENDING)": the state of the record before the action,
                        # told as such, is that of an earlier read of it (issue 14, h23d).
                        before = [
                            s
                            for s in earlier_of_same(ev, scoped, cands)
                            if s.value == state or s.value in agrees
                        ]
                        if before:
                            why = "the state of an earlier read of the record"
                            out.append(Finding(m, "SUPPORTED", sent, before, why))
                            continue
                    named = [s for s in cands if s.value == state or s.value in agrees]
                    if named and _attributive(answer, sent, m):
                        # "your refund for the cancelled order will appear ...": the state picks which
                        # record the sentence means, whatever record it also names; a record of the run in
                        # that state is it (issue 14, h22b: read against the pending order named first).
                        why = "the state names the record it describes"
                        out.append(Finding(m, "SUPPORTED", sent, named, why))
                        continue
                    told = later or scoped
                    out.append(Finding(m, "CONTRADICTED", sent, told, f"the evidence says {told[0].value}"))
    return out


# A state told as the one before a change: "(previously PENDING)", "formerly active", "originally pending".
_PREVIOUSLY = re.compile(r"\b(?:previously|formerly|originally|before|prior)\b[\s:*_(]*(?:[a-z]+[\s*_]+)?$")
# A refund as the subject of a state of its progress: "Refund Status: Processing", "your refund is pending".
_REFUND_SUBJECT = re.compile(
    r"\brefunds?\b(?:[ \t]+status)?[\s:*_]*(?:(?:is|are|was|will be|has been)[ \t]+)?$"
)
_REFUND_PROGRESS = frozenset({"processing", "pending", "in_progress", "completed"})


# A negation right before the state word, past auxiliaries and one coordinated state: "has not been
# canceled", "isn't yet resolved", "was never cancelled or replaced".
_NEGATED_BEFORE = re.compile(
    r"(?:\b(?:not|never)|n't)\s+(?:(?:yet|been|be|being|already|currently|still|fully|actually)\s+)*"
    r"(?:[a-z]+\s+(?:or|nor)\s+)?[*_\"'“‘]*$"
)


# "Pending" before a noun phrase's determiner is the preposition ("held pending a current fee assessment",
# "pending the review"), not the status "pending".
_PENDING_AS_PREPOSITION = re.compile(
    r"[*_]*[ \t]+(?:a|an|the|your|its|their|our|this|that|these|those|any|further)[ \t]", re.I
)


# A copula or auxiliary before "pending": "is pending your approval" tells a status, whatever follows.
_COPULA_BEFORE = re.compile(
    r"\b(?:is|are|was|were|be|been|being|remains?|remained|stays?|stayed|still|currently|now|as)[*_\s]*$"
)


def _pending_as_preposition(answer: str, sent: tuple[int, int], m: Mention) -> bool:
    """Whether "pending" is the preposition "until" ("held pending a current fee assessment"): a noun phrase
    follows it and no copula stands before it ("the order is pending your confirmation" is a status).

    >>> def pending_in(a):
    ...     i = a.find("pending")
    ...     return Mention("state", i, i + 7, "pending", extra={"state": "pending"})
    >>> a = "The parcel remains held pending a current fee assessment."
    >>> _pending_as_preposition(a, (0, len(a)), pending_in(a))
    True
    >>> a = "The order is pending your confirmation."
    >>> _pending_as_preposition(a, (0, len(a)), pending_in(a))
    False
    """
    if not _PENDING_AS_PREPOSITION.match(answer, m.end):
        return False
    head = lower(answer[max(sent[0], m.start - 30) : m.start])
    return not _COPULA_BEFORE.search(head)


# "As" right before the state word and a pointer to the conversation right after it ("As confirmed earlier,",
# "as approved above", "as we confirmed previously").
_AS_BEFORE = re.compile(r"\bas\s+(?:(?:you|we|i)\s+)?(?:(?:have|had|already|just)\s+)*$")
_TOLD_WHEN = re.compile(r"[ \t]+(?:earlier|above|before|previously|below|in\s+(?:our|this|my|the)\s+\w+)\b")


def _as_told_before(answer: str, m: Mention) -> bool:
    """Whether the state word ``m`` is a verb of the conversation: "As confirmed earlier, the refund ..."
    points back to what was said, it tells no record's status.

    >>> a = "As confirmed earlier, the full refund will be processed."
    >>> _as_told_before(a, Mention("state", 3, 12, "confirmed", extra={"state": "confirmed"}))
    True
    >>> a = "The booking is confirmed as of today."
    >>> _as_told_before(a, Mention("state", 15, 24, "confirmed", extra={"state": "confirmed"}))
    False
    """
    head = lower(answer[max(0, m.start - 24) : m.start])
    return bool(_AS_BEFORE.search(head)) and _TOLD_WHEN.match(lower(answer[m.end : m.end + 30])) is not None


# "No" right before the state word ("no pending credit", "**No** active outage").
_NO_BEFORE = re.compile(r"\bno\s+[*_\"'“‘]*$")


def _no_before(answer: str, sent: tuple[int, int], m: Mention) -> bool:
    """Whether the state word ``m`` follows "no": it then qualifies a thing said not to exist.

    >>> a = "Bank check: no pending credit found."
    >>> i = a.find("pending")
    >>> _no_before(a, (0, len(a)), Mention("state", i, i + 7, "pending", extra={"state": "pending"}))
    True
    """
    head = lower(answer[max(sent[0], m.start - 12) : m.start])
    return bool(_NO_BEFORE.search(head))


def _negated(answer: str, sent: tuple[int, int], m: Mention) -> bool:
    """Whether the state word ``m`` is negated ("has not been canceled"): the answer says the record is
    in another state, not in this one.

    >>> a = "It remains confirmed and has not been canceled or replaced."
    >>> i = a.find("canceled")
    >>> _negated(a, (0, len(a)), Mention("state", i, i + 8, "canceled", extra={"state": "cancelled"}))
    True
    >>> a = "It was canceled, not delayed."
    >>> _negated(a, (0, len(a)), Mention("state", 7, 15, "canceled", extra={"state": "cancelled"}))
    False
    """
    head = lower(answer[max(sent[0], m.start - 60) : m.start])
    return bool(_NEGATED_BEFORE.search(head))


def _stateless_record_named(m: Mention, findings: list[Finding], stated: set[Any]) -> bool:
    """Whether the identifier named last before the state word ``m`` is of records none of which has a
    state of the family (``stated``: the records that have one): a negated state then tells of that record.
    """
    before = [g for g in findings if g.mention.kind == "id" and g.mention.end <= m.start]
    if not before:
        return False
    last = max(before, key=lambda g: g.mention.start)
    records = {f.record for f in last.facts if f.record is not None}
    return bool(records) and records.isdisjoint(stated)


def _negated_finding(
    m: Mention,
    sent: tuple[int, int],
    state: str,
    agrees: frozenset[str],
    scoped: list[Fact],
    cands: list[Fact],
    ev: Evidence,
) -> Finding:
    """The finding of a negated state: right unless the record's state, read last, is the one negated."""
    said = [s for s in ev.states if s.value == f"not_{state}"]
    if said:
        # A status slot says so in as many words ("status: not_open").
        return Finding(m, "SUPPORTED", sent, said, "the evidence says not " + state)
    told = latest_of_same(ev, scoped, cands) or scoped
    same = [s for s in told if s.value == state or s.value in agrees]
    if same and len(same) == len(told):
        return Finding(m, "CONTRADICTED", sent, same, f"the evidence says {same[0].value}")
    return Finding(m, "SUPPORTED", sent, told, "the evidence gives another state, as the negation says")


def _names_an_identifier(answer: str, pos: int, findings: list[Finding]) -> bool:
    """Whether the line of ``pos`` holds an identifier ("**Order #W1 (Cancelled):**")."""
    start = answer.rfind("\n", 0, pos) + 1
    end = answer.find("\n", pos)
    end = len(answer) if end < 0 else end
    return any(g.mention.kind == "id" and start <= g.mention.start < end for g in findings)


# A state word used as an attribute of a noun the sentence refers back to: "the cancelled order", "your
# returned items" (no identifier right after the noun: "the cancelled order #W1" still says which order).
_ATTRIBUTIVE_BEFORE = re.compile(r"\b(?:the|your|that|this|those|these)\s+[*_\"'“‘]*$")
_ATTRIBUTIVE_AFTER = re.compile(
    r"[*_\"'”’]*+\s++(?:orders?|items?|purchases?|ones?|shipments?|packages?|parcels?|bookings?|"
    r"reservations?|tickets?|products?)\b(?!\s*[(:,-]?\s*(?:#|no\.|number\b|id\b|[A-Z]{0,3}\d))",
    re.I,
)


def _attributive(answer: str, sent: tuple[int, int], m: Mention) -> bool:
    """Whether the state word ``m`` qualifies a noun after a determiner ("the cancelled order"): it tells
    which record the sentence refers to, not a new status of the record the sentence names.

    >>> a = "Order #W2 ships soon, and the refund for the cancelled order arrives in 5 days."
    >>> _attributive(a, (0, len(a)), Mention("state", 45, 54, "cancelled"))
    True
    >>> b = "Order #W2 is cancelled."
    >>> _attributive(b, (0, len(b)), Mention("state", 13, 22, "cancelled"))
    False
    >>> c = "Refund for the cancelled order #W2 is done."
    >>> _attributive(c, (0, len(c)), Mention("state", 15, 24, "cancelled"))
    False
    """
    head = lower(answer[max(sent[0], m.start - 24) : m.start])
    return _ATTRIBUTIVE_BEFORE.search(head) is not None and (
        _ATTRIBUTIVE_AFTER.match(answer, m.end, min(sent[1], m.end + 60)) is not None
    )


def _heading_line(answer: str, pos: int) -> bool:
    r"""Whether ``pos`` lies on a heading line: a line of a longer answer that ends with a colon (markup
    aside) or opens with ``#``.

    >>> _heading_line("Here:\n**To Cancel (Pending Orders):**\n- #W1", 20), _heading_line("It is pending.", 6)
    (True, False)
    """
    start = answer.rfind("\n", 0, pos) + 1
    end = answer.find("\n", pos)
    line = answer[start : end if end >= 0 else len(answer)].strip()
    if not (answer[:start].strip() or (end >= 0 and answer[end:].strip())):
        return False
    return line.startswith("#") or line.rstrip("*_ \t").endswith(":")


# Nouns of an action the agent takes or asks for: its own completion is not the status of a record ("the
# exchange is completed", "both updates have been completed", "**Exchange Confirmed** for order #W1").
_ACTION_NOUNS = frozenset(
    {
        "exchange", "exchanges", "update", "updates", "return", "returns", "modification", "modifications",
        "change", "changes", "request", "requests", "refund", "refunds", "transaction", "transactions",
        "cancellation", "process", "transfer", "action", "actions", "swap", "swaps",
    }
)  # fmt: skip
# Words between the action noun and the state word: "is", "has been", "have now been successfully".
_AUX = frozenset(
    {"is", "are", "was", "were", "has", "have", "had", "been", "be", "now", "successfully", "all"}
)
# The state word ends a clause about a possibility, not the present: "cannot be modified or cancelled",
# "to be returned", "Items being returned: ...", and a guess about the past: "it may now have been returned
# to the sender", "could already have been delivered" (issue 14, h22a); "can no longer be modified or
# cancelled" (issue 14, h25d: gpt-oss-120b's retail answers). One adverb at most between the modal and
# "be"/"have been", each piece read once.
_MODAL_BE = re.compile(
    r"\b(?:can(?:not)?|can't|could(?:n't)?|may|might|must|should(?:n't)?|would(?:n't)?|won't|to)"
    r"\s+(?:not\s+|no\s+longer\s+)?(?:(?:now|already|still|also|well|possibly|probably|likely|yet)\s+)?"
    r"(?:be|have\s+been)\s+(?:[a-z]+\s+(?:or|and)\s+)?$|\bbeing\s+$"
)
# ... or about the future of a parcel: "will be shipped to you", "will be refunded". (A forecast, a
# flight's or an event's "will be" is what the results say of them: not skipped.)
_WILL_BE = re.compile(
    r"\bwill\s+(?:not\s+|now\s+|then\s+|still\s+|also\s+)?be\s+(?:[a-z]+\s+(?:or|and)\s+)?$"
)
# ... or of the status a record will take after an action: "your order status will change to
# \"cancelled\"", "the status will be updated to 'exchange requested'" (issue 14, h19b).
_WILL_CHANGE = re.compile(
    r"\b(?:will|would|shall)\s+(?:then\s+|now\s+|also\s+|automatically\s+)?(?:be\s+)?"
    r"(?:change|changed|update|updated|set|move|moved|switch|switched|become|turn|go)\s+(?:to\s+|into\s+)?"
    r"[\"'“‘*_]*$"
)
# ... or of a condition still to be met: "Once confirmed, ...", "once the order is delivered, ...".
# "If the order is cancelled, ...", and a rule's condition after a modal: "a customer may request a credit
# when service was unavailable" (a page's policy retold, not the state of the user's record).
_CONDITION = re.compile(
    r"\b(?:once|until|unless|if|whenever)\b[^,;.!?:]*$"
    # "When a pending order is cancelled, the refund goes back ...": an indefinite subject makes the clause a
    # rule of the shop, not the state of the user's order (issue 14, h21b); "when your order was cancelled"
    # still tells one.
    r"|\bwhen\s+(?:a|an|any)\s[^,;.!?:]*$"
    r"|\b(?:may|might|can|could|must|should|will|would)\b[^,;.!?:]*\bwhen\b[^,;.!?:]*$"
    # An indirect question: "ask the bank whether the deposit was returned", "to determine why the payment
    # was rejected": what the user is to find out, not a state the answer gives (issue 14, h24k).
    r"|\bwhether\b[^,;.!?:]*$"
    r"|\b(?:determine|find\s+out|ask|check|investigate|learn|understand)\s+(?:\w+\s+){0,3}?why\b[^,;.!?:]*$"
)
_PARCEL_STATES = frozenset({"shipped", "in_transit", "out_for_delivery", "delivered", "returned", "refunded"})
# ... or of a contact detail, the sentence's subject: "Your email address **x@example.com** is confirmed and
# will remain on file" tells that the customer confirmed it, no order's or booking's status (issue 14,
# h25d: gpt-oss-120b's retail answers).
_CONTACT_SUBJECT = re.compile(
    r"^[*_\s]*(?:your\s+|the\s+)?(?:e-?mail|phone)(?:\s+(?:address|number))?[*_\s]*"
    r"(?:[^\s@*_][^\s@]*@[^\s@*_]+[*_\s]*)?(?:is|was|has\s+been)\s+(?:now\s+|also\s+)?$"
)


def _not_a_current_status(answer: str, sent: tuple[int, int], m: Mention) -> bool:
    """Whether the state word ``m`` states no status of a record now: its subject is an action rather than
    the record ("after this exchange is completed", "Both updates have been completed successfully",
    "Exchange Confirmed for Order #W1"), or its clause speaks of a possibility ("cannot be modified or
    cancelled again", "Items being returned: ...") or of a parcel's future ("will be shipped to you").

    >>> def state_in(a):
    ...     i = a.find("cancelled")
    ...     return Mention("state", i, i + 9, "cancelled", extra={"state": "cancelled"})
    >>> a = "The order cannot be modified or cancelled again."
    >>> _not_a_current_status(a, (0, len(a)), state_in(a))
    True
    >>> a = "Your order has been cancelled."
    >>> _not_a_current_status(a, (0, len(a)), state_in(a))
    False
    """
    head = lower(answer[max(sent[0], m.start - 80) : m.start])
    if _MODAL_BE.search(head) or _CONDITION.search(head):
        return True
    if _CONTACT_SUBJECT.search(head):
        return True
    if m.extra["state"] in _PARCEL_STATES and _WILL_BE.search(head):
        return True
    if _WILL_CHANGE.search(head):
        return True
    words = re.findall(r"[a-z]+", head)
    while words and words[-1] in _AUX:
        words.pop()
    return bool(words) and words[-1] in _ACTION_NOUNS


# Keys under which a record counts what is left of something ("available_seats": {"economy": 0}).
_AVAILABILITY_KEYS = frozenset(
    {"available", "availability", "seats", "seat", "stock", "inventory", "remaining"}
)
_STOCK_STATES = frozenset({"in_stock", "out_of_stock"})
_NEGATION = re.compile(r"\b(?:no|not|none|zero|neither|nor)\b|n't\b")


def _availability_counts(
    answer: str, sent: tuple[int, int], m: Mention, scoped: list[Fact], ev: Evidence
) -> tuple[bool, list[Fact]] | None:
    """Whether an availability state agrees with the record's count of what its sentence names.

    "Economy is not available on HAT069" speaks of the economy seats, not of the flight's own ``status``:
    when the record counts them (``available_seats.economy``), 0 is out of stock and more is in stock
    (issue 14: a cabin told sold out was contradicted by the flight's "available"). None when the record
    counts nothing the sentence names.
    """
    state = m.extra["state"]
    if state not in _STOCK_STATES or _NEGATION.search(lower(answer[sent[0] : m.start])):
        return None  # "no business seats available": the state word alone is not what the sentence says
    records = {s.record for s in scoped}
    by_phrase: dict[str, list[Fact]] = {}
    for f in ev.numbers:
        # The key test first, without a new set: it rejects nearly every number, and ``f.record in records``
        # hashes the record's path tuple anew on every test.
        if f.key_tokens.isdisjoint(_AVAILABILITY_KEYS):
            continue
        leaf = f.path[-1] if isinstance(f.path, tuple) and f.path else None
        if f.record in records and isinstance(leaf, str):
            phrase = lower(leaf).replace("_", " ")
            if phrase not in _AVAILABILITY_KEYS:
                by_phrase.setdefault(phrase, []).append(f)
    if not by_phrase:
        return None
    # The state's own clause first, then its sentence: "Business $239 (3 seats); Economy is not available".
    windows = [c for c in clauses(answer, sent[0], sent[1], ",;", True) if c[0] <= m.start <= c[1]] + [sent]
    for a, b in windows:
        text = lower(answer[a:b])
        counts: list[Fact] = []
        # Longest phrase first, its words then blanked: "basic economy" is not "economy" as well.
        for phrase in sorted(by_phrase, key=len, reverse=True):
            found = re.compile(rf"\b{re.escape(phrase)}\b")
            if found.search(text):
                counts += by_phrase[phrase]
                text = found.sub(" ", text)
        if counts:
            break
    else:
        return None
    agree = [f for f in counts if (f.value > 0) == (state == "in_stock")]
    return (True, agree) if agree else (False, counts)


def _clause_records(
    answer: str, sent: tuple[int, int], pos: int, findings: list[Finding], records: set[Any], ev: Evidence
) -> set[Any]:
    """The records, among ``records`` (those that give a state of the family), that the supported values of
    ``pos``'s own clause all belong to ("Order W123 is on hold", "the third day will be rainy with a high of
    70"): the state is that item's. Empty when the clause names none of them, or values of different ones.
    """
    clause = next((c for c in clauses(answer, sent[0], sent[1], ",;", True) if c[0] <= pos <= c[1]), sent)
    common: set[Any] | None = None
    for g in findings:
        if g.label != "SUPPORTED" or g.mention.kind == "state":
            continue
        if not clause[0] <= g.mention.start < clause[1]:
            continue
        if _names_a_category(g):
            continue
        facts = g.facts or _identifier_facts(g.mention.text, ev)
        hit = {f.record for f in facts if f.source == "tool"} & records
        if hit:
            common = hit if common is None else common & hit
    return common or set()


def _refunds_of(
    ev: Evidence, scoped: list[Fact], findings: list[Finding], sent: tuple[int, int]
) -> list[Fact]:
    """The refunds the results record for the record a "refunded" is told of: a value "refund" (a payment
    history's ``transaction_type``) in the tool result that holds it. "Refunded" is then true of the record
    whatever its status says ("cancelled", "returned"): the status words are of one family, the money's
    way back is another fact (issue 14, h20a). The record is the one an identifier of the sentence names
    ("Order #W2 has been refunded"), else the one the state was scoped to."""
    named = {
        x.message_index
        for g in findings
        if g.mention.kind == "id" and g.label == "SUPPORTED" and sent[0] <= g.mention.start < sent[1]
        for x in g.facts
        if x.source == "tool" and x.kind == "string"
    }
    msgs = named or {s.message_index for s in scoped if s.source == "tool"}
    return [
        f
        for f in ev.strings
        if f.source == "tool" and f.message_index in msgs and f.value in ("refund", "refunded")
    ][:3]


def _names_a_category(g: Finding) -> bool:
    """Whether the word ``g`` is supported only by values in lower case (a status, a category that many
    records share: "1. Cancel the entire pending order" read "Cancel" against two orders' ``"status":
    "cancelled"``): it names no record, so it does not say whose state its clause tells (issue 14, h20a)."""
    return (
        g.mention.kind == "entity"
        and bool(g.facts)
        and all(f.kind in ("string", "state") and str(f.text or f.value).islower() for f in g.facts)
    )


def _identifier_facts(text: str, ev: Evidence) -> list[Fact]:
    """The string facts that are an identifier of ``text`` ("Order W123456" names the result whose
    ``order_id`` is W123456): tokens of four characters or more that hold a digit."""
    tokens = {t for t in normalize_text(text).split() if len(t) >= 4 and any(ch.isdigit() for ch in t)}
    if not tokens:
        return []
    return [f for f in ev.strings if f.value in tokens]


def _direction(
    answer: str, m: Mention, numeric: list[Finding], sent: tuple[int, int]
) -> tuple[str, list[Fact], str] | None:
    up = m.extra["word"] in _UP
    after = answer[m.end : m.end + 24]
    nxt = next((f for f in numeric if f.mention.start >= m.end and f.mention.start < sent[1]), None)
    if nxt is None:
        return None
    gap = answer[m.end : nxt.mention.start]
    if _FROM_GAP.fullmatch(gap):
        prev = next(
            (f for f in reversed(numeric) if f.mention.end <= m.start and f.mention.start >= sent[0]), None
        )
        if prev is None or prev.mention.value is None or nxt.mention.value is None:
            return None
        went_up = abs(prev.mention.value) > abs(nxt.mention.value)
        ok = went_up == up
        return (
            ("SUPPORTED" if ok else "CONTRADICTED"),
            [],
            "direction of the change" if ok else "the change goes the other way",
        )
    if not _BY_GAP.fullmatch(gap) or after.lstrip().startswith("to "):
        return None
    signs = {f.value < 0 for f in nxt.facts if f.value}
    if len(signs) != 1:
        return None
    negative = signs.pop()
    ok = negative != up
    return (
        ("SUPPORTED" if ok else "CONTRADICTED"),
        nxt.facts,
        "sign of the change" if ok else "the evidence moves the other way",
    )


def _outcome(
    answer: str, m: Mention, findings: list[Finding], ev: Evidence
) -> tuple[str, list[Fact], str] | None:
    subject = next(
        (
            f
            for f in sorted(findings, key=lambda f: -f.mention.start)
            if f.mention.kind == "entity" and f.mention.end <= m.start and f.label == "SUPPORTED"
        ),
        None,
    )
    if subject is None:
        return None
    norm = normalize_text(subject.mention.text)
    for s in ev.strings:
        if s.value != norm and norm not in s.value:
            continue
        parent = s.json_path.rsplit(".", 1)[0]
        mine = [
            n
            for n in ev.numbers
            if n.message_index == s.message_index and n.json_path.rsplit(".", 1)[0] == parent
        ]
        if len(mine) != 1:
            continue
        key = mine[0].json_path.rsplit(".", 1)[1]
        grand = parent.rsplit(".", 1)[0] if "." in parent else "$"
        rivals = [
            n for n in ev.numbers
            if n.message_index == s.message_index and n.json_path.endswith("." + key)
            and n.json_path != mine[0].json_path and (n.json_path.rsplit(".", 2)[0] == grand)
        ]  # fmt: skip
        if len(rivals) != 1:
            continue
        mv, rv = mine[0].value, rivals[0].value
        word = m.extra["word"]
        ok = (mv > rv) if word in _WIN else (mv < rv) if word in _LOSE else (mv == rv)
        return ("SUPPORTED" if ok else "CONTRADICTED"), [mine[0], rivals[0]], "outcome of the result"
    return None
