"""A rate the answer quotes ("travel insurance for $36 per passenger") against the rate the system prompt
sets for the same thing ("travel insurance, which is 30 dollars per passenger").

Long customer-service runs quote the operator's policy: a fee per passenger, per bag, per night. An edited
rate is often still a value of the run by arithmetic (the difference of two fares is 36), so the value rules
support it; but the policy states the rate of this thing, and it is another (issue 14: edited policy
amounts). A rate is read as an amount followed by "per", "for each" or "each" and a noun; it is compared
only with the system prompt's rates of the same noun whose sentence shares two content words with the words
before the answer's amount ("travel insurance"), and contradicted only when none of those rates is its
amount. A rate of something the policy does not price ("a fare difference of $36 per passenger", "the
cabin fare is $31 per passenger more") shares fewer words and is left to the other rules.
"""

from __future__ import annotations

import re

from ..text import lower
from .evidence import Evidence, Fact
from .findings import Finding
from .lexicon import FUNCTION_WORDS

__all__ = ["check_policy_rates", "check_record_rates"]

_PER = re.compile(r"[ \t]+(?:per|for each|each)[ \t]+([a-z]+)")
_RATE = re.compile(
    r"(?:\$[ \t]?(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)[ \t]*(?:dollars|usd|euros?|eur))"
    r"[ \t]+(?:per|for each|each)[ \t]+([a-z]+)",
    re.I,
)
_WORD = re.compile(r"[a-z]+")
# Words of any priced sentence: they say nothing about which thing is priced.
_PRICE_WORDS = frozenset(
    {"per", "each", "dollars", "dollar", "usd", "cost", "costs", "price", "fee", "pay", "is"}
)
_SENTENCE = re.compile(r"[^.\n]+")


def policy_sentences(ev: Evidence, with_strings: bool = False) -> list[str]:
    """The sentences of the system prompt messages that gave numbers (and, ``with_strings``, strings), in
    message order: where the policy states its rates and limits.

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> run = parse_run([{"role": "system", "content": "Bags cost $50 each. Refunds within 24 hours."},
    ...     {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello."}])
    >>> policy_sentences(build_evidence(run))
    ['Bags cost $50 each', ' Refunds within 24 hours']
    """
    system = {x.message_index for x in ev.numbers if x.source == "system"}
    if with_strings:
        system |= {x.message_index for x in ev.strings if x.source == "system"}
    return [sent.group() for idx in sorted(system) for sent in _SENTENCE.finditer(ev.contents.get(idx, ""))]


def _noun(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def _content(text: str) -> set[str]:
    return {w for w in _WORD.findall(lower(text)) if len(w) > 2} - FUNCTION_WORDS - _PRICE_WORDS


def check_policy_rates(answer: str, findings: list[Finding], ev: Evidence) -> None:
    """Relabel, in place, an amount per thing that the system prompt prices otherwise (see the module).

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> policy = "Travel insurance is 30 dollars per passenger. Bags: $50 each."
    >>> run = parse_run([{"role": "system", "content": policy},
    ...     {"role": "user", "content": "Fares?"},
    ...     {"role": "tool", "tool_call_id": "c", "content": '{"economy": 130, "business": 166}'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def labels(answer):
    ...     return [(f.mention.text, f.label) for f in ground_answer(answer, ev) if f.mention.kind == "money"]
    >>> labels("Travel insurance is $30 per passenger."), labels("Travel insurance: $36 per passenger.")
    ([('$30', 'SUPPORTED')], [('$36', 'CONTRADICTED')])
    >>> labels("The fare difference is $36 per passenger.")
    [('$36', 'SUPPORTED')]
    >>> labels("Fares: $130 per passenger for travel + $36 per passenger for insurance = $166 per passenger.")
    [('$130', 'SUPPORTED'), ('$36', 'SUPPORTED'), ('$166', 'SUPPORTED')]
    """
    rates: list[tuple[float, str, set[str]]] | None = None
    rate_end = 0  # where the answer's previous rate ("$99 per passenger") ends
    for f in sorted(findings, key=lambda g: g.mention.start):
        m = f.mention
        if m.kind != "money" or m.value is None:
            continue
        per = _PER.match(lower(answer[m.end : m.end + 40]))
        if per is None:
            continue
        start = max(f.sentence[0], m.start - 60, rate_end)
        rate_end = m.end + per.end()
        if f.label == "CONTRADICTED":
            continue
        if rates is None:
            rates = []
            for sent in policy_sentences(ev):
                for r in _RATE.finditer(sent):
                    value = float(r.group(1) or r.group(2))
                    rates.append((value, _noun(lower(r.group(3))), _content(sent)))
        noun = _noun(per.group(1))
        # The words that say what this amount prices: those after the rate before it ("$53 per passenger
        # for the outbound flight + $99 per passenger for the return flight = $152 per passenger" prices no
        # insurance), less the noun it is per, which every rate per passenger shares (issue 14, h23i).
        before = _content(answer[start : m.start]) - {noun, noun + "s"}
        same = [value for value, n, words in rates if n == noun and len(words & before) >= 2]
        if same and not any(abs(v - m.value) < 0.005 for v in same):
            f.label, f.derived, f.facts = "CONTRADICTED", False, []
            f.reason = "the policy sets another rate for this: " + ", ".join(f"{v:g}" for v in same)


# The priced-per key of a record ("data_refueling_price_per_gb", "price_per_month"): its thing after "per".
_PER_KEY = re.compile(r"(?:^|_)per_([a-z]+)$")
_PRICE_KEY_WORDS = frozenset({"price", "cost", "fee", "rate", "charge", "per"})


def check_record_rates(answer: str, findings: list[Finding], ev: Evidence) -> None:
    """Relabel, in place, an amount per thing that only prose numbers support while a record prices that
    thing otherwise: "the cost for refueling data is $3.00 per GB" against the plan's
    ``data_refueling_price_per_gb: 2.0`` was "supported" by a bare "3" of the customer's text ("3 bars") or of
    the policy ("Step 3") (issue 14, tau2-bench telecom, h23a's open edit; h23i). The record's keys must end
    with "per" and the answer's noun and share a word with the words before the amount; an amount any such
    record gives, or that tool values support, is left alone.

    >>> from .messages import parse_run
    >>> from .evidence import build_evidence
    >>> from .grounding import ground_answer
    >>> run = parse_run([{"role": "user", "content": "I only get 3 bars. Add 2 GB of data."},
    ...     {"role": "tool", "tool_call_id": "c", "content": '{"data_refueling_price_per_gb": 2.0}'},
    ...     {"role": "assistant", "content": "x"}])
    >>> ev = build_evidence(run)
    >>> def labels(answer):
    ...     return [(f.mention.text, f.label) for f in ground_answer(answer, ev) if f.mention.kind == "money"]
    >>> labels("The cost for refueling data is $3.00 per GB."), labels("Refueling data is $2.00 per GB.")
    ([('$3.00', 'CONTRADICTED')], [('$2.00', 'SUPPORTED')])
    """
    rated: dict[str, list[Fact]] | None = None
    for f in findings:
        m = f.mention
        if m.kind != "money" or m.value is None or f.label == "CONTRADICTED":
            continue
        if f.label == "SUPPORTED" and not f.facts:
            continue  # derived by arithmetic from values of the run
        if any(x.source == "tool" or x.unit is not None or x.currencies for x in f.facts):
            continue  # a tool value, or an amount told as money
        per = _PER.match(lower(answer[m.end : m.end + 40]))
        if per is None:
            continue
        if rated is None:
            rated = {}
            for x in ev.numbers:
                leaf = x.path[-1] if x.source == "tool" and isinstance(x.path, tuple) and x.path else None
                key = _PER_KEY.search(lower(leaf)) if isinstance(leaf, str) else None
                if key is not None:
                    rated.setdefault(key.group(1), []).append(x)
        noun = _noun(per.group(1))
        before = _content(answer[max(f.sentence[0], m.start - 60) : m.start])
        same = [x for x in rated.get(noun, ()) if before & (x.key_tokens - _PRICE_KEY_WORDS - {noun})]
        if same and not any(abs(x.value - m.value) < 0.005 for x in same):
            f.label, f.derived, f.facts = "CONTRADICTED", False, same[:3]
            f.reason = "the results price this otherwise: " + ", ".join(f"{x.value:g}" for x in same[:3])
