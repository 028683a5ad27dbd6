"""Money the customer receives is a refund, not a payment (issue 14, h19a: retail edits).

A shop's answer tells which way money goes: "you'd receive a full refund of $397.26 to your gift card", "you
should see this refund within 5 to 7 business days", "the refund has been added back to your card". With
"refund" made "payment", every value is still supported; the direction is wrong: a customer pays a payment
and receives a refund. "payment" as what "you" receive or see, or as what is added back or credited to the
customer, is contradicted when the run's results record refunds (a ``"refund"`` value, as a transaction type)
or payments (a ``payment_history``), i.e. a shop run.
"""

from __future__ import annotations

import re
from typing import Any

from ..text import lower
from .evidence import Evidence
from .findings import Finding
from .mentions import Mention

__all__ = ["check_refund_words"]

_RECEIVED = re.compile(
    r"\b(?:you(?:'ll|'d| will| would| should| can)?|you'?ll)\s+(?:also\s+)?(?:receive|get|see)\s+"
    r"(?:a|an|the|this|that|your)\s+(?:full\s+|partial\s+|total\s+)?(payments?)\b"
    r"|\b(?:the|this|your)\s+(payments?)\s+(?:has|have|will|would)\s+(?:been\s+|be\s+)?"
    r"(?:immediately\s+|automatically\s+)?(?:added\s+back|returned|credited|refunded)\b"
    # "the payment of $1,423.04 will be processed to your gift card": money sent to the customer's own
    # card or account (a charge is taken from it, not processed to it) (issue 14, h22b).
    r"|\b(?:the|this|your)\s+(payments?)(?:\s+of\s+[$€£]?\d[\d,]*(?:\.\d+)?)?\s+(?:will|would|should)\s+be\s+"
    r"(?:processed|issued|sent|credited)\s+(?:back\s+)?to\s+your\b"
)


def check_refund_words(answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any) -> list[Finding]:
    """The findings for "payment" where the answer gives the customer money.

    >>> from verification.engine.runs.evidence import Evidence
    >>> ev = Evidence()
    >>> ev.contents[1] = '{"payment_history": [{"transaction_type": "payment", "amount": 5.0}]}'
    >>> a = "You'd receive a full payment of $5.00 to your gift card."
    >>> [f.mention.text for f in check_refund_words(a, [], ev, lambda i: (0, len(a)))]
    ['payment']
    >>> check_refund_words(a.replace("payment", "refund"), [], ev, lambda i: (0, len(a)))
    []
    >>> b = "Once the items arrive, the payment of $1,200.50 will be processed to your gift card."
    >>> [f.mention.text for f in check_refund_words(b, [], ev, lambda i: (0, len(b)))]
    ['payment']
    >>> check_refund_words("The payment of $5.00 will be charged to your card.", [], ev, lambda i: (0, 9))
    []
    """
    low = lower(answer)
    if "payment" not in low:
        return []
    if not any('"payment_history"' in text or '"refund"' in text for text in ev.contents.values()):
        return []
    out = []
    for hit in _RECEIVED.finditer(low):
        group = next(g for g in (1, 2, 3) if hit.group(g))
        start, end = hit.span(group)
        if any(f.mention.start < end and f.mention.end > start for f in findings):
            continue
        mention = Mention("state", start, end, answer[start:end])
        reason = "money the customer receives is a refund, not a payment"
        out.append(Finding(mention, "CONTRADICTED", sentence_of(start), [], reason))
    return out
