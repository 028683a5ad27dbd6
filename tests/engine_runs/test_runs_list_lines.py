"""Issue 14: a list line's words stay on their line.

"- Visa ending in 3422\\n- Gift card with $62 balance": the number is a card's last four digits, not a count
of the next line's gift cards (``mentions`` reads no counted noun across a line break). "2. **Partial
Upgrade:** Consider upgrading ...": the word after a bold label's colon opens a sentence, it is no name
(``mentions._sentence_start``). The run is written for these tests: a made-up wallet of payment methods.
"""

import pytest

from tests.engine_runs.runs_helpers import flagged as _flagged
from tests.engine_runs.runs_helpers import run_with_calls as _run
from verification.engine.runs import verify_run
from verification.engine.runs.mentions import extract_mentions

_PROFILE = {
    "address": {"address1": "12 Quay Street", "address2": "Unit 7", "zip": "40120"},
    "payment_methods": {
        "card_1": {"source": "credit_card", "brand": "mastercard", "last_four": "9448"},
        "card_2": {"source": "credit_card", "brand": "visa", "last_four": "3422"},
        "gift_card_5": {"source": "gift_card", "amount": 62},
    },
}


def _verify(answer):
    return verify_run(_run("How can I pay?", [("get_profile", {"user": "u1"}, _PROFILE)], answer))


_METHODS = (
    "Your payment methods:\n\n- Mastercard ending in 9448\n- Visa ending in {last}\n- Gift card with $62"
)


def test_it_reads_no_counted_noun_across_a_line_break():
    # The number's noun would be "gift", the first word of the next list line.
    numbers = {m.text: m.noun for m in extract_mentions(_METHODS.format(last="3422")) if m.kind == "number"}
    assert numbers == {"9448": None, "3422": None}


@pytest.mark.parametrize("last,bad", [("3422", None), ("3423", "3423")])
def test_it_checks_a_last_four_on_its_own_line(last, bad):
    # A last four the profile does not have is still wrong.
    assert [text for text, _ in _flagged(_verify(_METHODS.format(last=last)))] == (
        [] if bad is None else [bad]
    )


def test_it_reads_the_word_after_a_bold_label_as_a_sentence_start():
    answer = (
        "Some options:\n\n1. **Gift Card:** Use the $62 gift card first.\n"
        "2. **Partial Payment:** Consider paying the rest with the Visa ending in 3422."
    )
    assert _flagged(_verify(answer)) == []
