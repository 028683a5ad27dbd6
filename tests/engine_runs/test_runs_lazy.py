"""The lazily built lookups of the evidence and the faster forms of the matcher agree with the plain forms."""

from __future__ import annotations

import gc
import json
import operator
import re
from collections import defaultdict
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz, process

from tests.engine_runs.runs_helpers import make_run
from verification.engine.runs import MalformedRunError, verify_run
from verification.engine.runs.evidence import Evidence, _key_tokens_of, build_evidence, normalize_text
from verification.engine.runs.findings import split_sentences
from verification.engine.runs.grounding import _Matcher, ground_answer
from verification.engine.runs.lexicon import ALIASES, FUNCTION_WORDS, REVERSE_ALIASES
from verification.engine.runs.mentions import (
    _FUNCTION_WORD_MEMO,
    _FUNCTION_WORD_MEMO_MAX,
    _function_word,
    extract_mentions,
    forget_function_words,
)
from verification.engine.runs.messages import parse_run
from verification.engine.runs.records import RecordLookup, best_record, finding_starts
from verification.engine.text import lower

# Normalised words (with the ".", "'" and "-" a word may hold), parts of words and short ones.
WORDS = ["new", "york", "city", "of", "the", "alpha", "al", "pha", "x-ray", "o'neil", "e.g", "2024",
         "12", "a"]  # fmt: skip
words = st.sampled_from(WORDS)
pieces = st.lists(st.lists(words, max_size=9).map(" ".join), max_size=12)
probes = st.one_of(
    words,
    st.tuples(words, words).map("".join),
    st.tuples(words, words).map(" ".join),
    st.sampled_from(["", " ", "|", "york|", "|new", "ork", "newyorkcity", " new", "new "]),
)


def _vocabulary(haystack: str) -> set[str]:
    # The plain form: every word of the haystack and every pair of neighbouring words run together.
    ws = haystack.split()
    return set(ws) | set(map(operator.add, ws, ws[1:]))


def _acronyms(haystack: str) -> set[str]:
    out: set[str] = set()
    for chunk in haystack.split(" | "):
        toks = chunk.split()
        if 2 <= len(toks) <= 8:
            out.add("".join(t[0] for t in toks))
            out.add("".join(t[0] for t in toks if t not in ("of", "the", "and", "for")))
    return out


def _evidence(parts: list[str]) -> Evidence:
    return Evidence(haystack=" | ".join(parts), pieces=list(parts))


@settings(max_examples=300, deadline=None)
@given(pieces, st.lists(probes, min_size=1, max_size=6))
def test_it_answers_vocabulary_questions_without_building_the_set(parts, asked):
    ev = _evidence(parts)
    expected = _vocabulary(ev.haystack)
    for word in asked:
        assert ev.in_vocabulary(word) is (word in expected), (parts, word)
    assert ev.vocabulary == expected
    for word in asked:  # and the same answers once the set is built
        assert ev.in_vocabulary(word) is (word in expected)


@settings(max_examples=300, deadline=None)
@given(pieces, st.integers(0, 14), st.integers(0, 14))
def test_it_lists_the_vocabulary_entries_of_a_length_range(parts, shortest, longest):
    ev = _evidence(parts)
    near = ev.vocabulary_near(shortest, longest)
    assert set(near) == {w for w in _vocabulary(ev.haystack) if shortest <= len(w) <= longest}, parts
    assert len(near) == len(set(near))
    assert ev.vocabulary_near(shortest, longest) is near  # memoised per range
    expected = _vocabulary(ev.haystack)
    # Answered from the lengths read (a word with "|" is looked up in the set, built then: not asked here).
    for word in [*(w for w in expected if "|" not in w), "newyorkx", "york city", "", "alp"]:
        assert ev.in_vocabulary(word) is (word in expected), (parts, word)
    wider = ev.vocabulary_near(max(0, shortest - 2), longest + 2)  # some lengths read already
    assert set(wider) == {w for w in expected if shortest - 2 <= len(w) <= longest + 2}
    assert len(wider) == len(set(wider))
    assert ev._vocabulary is None  # the set itself is not built


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from([*WORDS, "newyork", "kestrel", "juniper", "garnet", "alphabet"]), max_size=30),
    st.text(alphabet="aceijklnoprstwy", min_size=5, max_size=12),
)
@example(["kestrel"], "kestrl")  # one letter shorter than the entry
@example(["alpha", "bet"], "alphabets")  # longer than the pair that matches
@example(["x-ray", "juniper"], "junipe")
def test_it_knows_a_word_as_the_fuzzy_match_against_the_whole_vocabulary_does(ws, tok):
    # _token_known fuzzy-matches against the entries of about the word's length only: the plain form, the
    # same checks against the whole set, gives the same answers.
    ev = _evidence([" ".join(ws)])
    vocabulary = _vocabulary(ev.haystack)
    known = vocabulary.__contains__
    plain = (
        known(tok)
        or (len(tok) > 4 and known(tok.rstrip("s")))
        or known(tok.replace("-", ""))
        or any(known(a) for a in (*ALIASES.get(tok, ()), *REVERSE_ALIASES.get(tok, ())))
        or process.extractOne(tok, vocabulary, scorer=fuzz.ratio, score_cutoff=88) is not None
    )
    assert _Matcher(ev, "")._token_known(tok) is plain, (ws, tok)


@settings(max_examples=200, deadline=None)
@given(pieces)
def test_it_takes_acronyms_from_the_pieces_of_the_haystack(parts):
    ev = _evidence(parts)
    assert ev.acronyms == _acronyms(ev.haystack)
    assert Evidence(haystack=ev.haystack).acronyms == _acronyms(ev.haystack)  # no pieces: split the haystack


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="abcXYZ09 _-.,'’!é\t", max_size=30))
def test_it_normalizes_text_like_splitting_and_joining_its_words(text):
    words_of = re.compile(r"[a-z0-9]+(?:[.'’-][a-z0-9]+)*").findall
    assert normalize_text(text) == " ".join(words_of(text.casefold().replace("_", " ")))


leaf = st.one_of(
    st.integers(-5, 2000),
    st.floats(-100, 100, allow_nan=False).map(lambda x: round(x, 1)),
    st.booleans(),
    st.sampled_from(["in_stock", "USD", "Oslo", "pending", "2024-05-06", "12 kg", "x" * 45]),
)
keys = st.sampled_from(["price", "prices", "count", "height_m", "status", "daily_total", "name", "id"])
records = st.lists(st.dictionaries(keys, leaf, max_size=5), max_size=6)


@settings(max_examples=150, deadline=None)
@given(records, st.sampled_from(["price", "count", "total", "status", "daily", "m", "nothing"]))
def test_it_finds_keyed_numbers_as_a_full_scan_does(items, token):
    ev = build_evidence(parse_run(make_run("Items?", [{"items": items, "price": 3}], "ok")))
    assert ev.numbers_keyed(token) == [f for f in ev.numbers if token in f.key_tokens]
    assert ev.numbers_keyed(token) is ev.numbers_keyed(token)  # worked out once


def _tallies(items: list[Any]) -> list[tuple[str, float]]:
    # The plain form of the tallies of a list: shared short values and integer totals, in first-seen order.
    by_value: dict[tuple[str, Any], int] = defaultdict(int)
    totals: dict[str, float] = defaultdict(float)
    for item in items:
        if not isinstance(item, dict):
            continue
        for k, v in item.items():
            if isinstance(v, (bool, str)) and len(str(v)) < 40:
                by_value[(k, v)] += 1
            elif isinstance(v, (int, float)):
                totals[k] += v
    out = [("tally", float(n)) for (k, _), n in by_value.items() if 1 < n < len(items) or len(items) <= 3]
    out += [("total", float(int(t))) for t in totals.values() if float(t).is_integer() and 0 <= t <= 1000]
    return out


@settings(max_examples=150, deadline=None)
@given(records)
def test_it_tallies_list_values_as_the_plain_count_does(items):
    ev = build_evidence(parse_run(make_run("Items?", [{"items": items}], "ok")))
    got = [(f.text, f.value) for f in ev.counts if f.text in ("tally", "total")]
    assert got == _tallies(items)


@settings(max_examples=150, deadline=None)
@given(records)
def test_it_keys_each_tally_with_its_path_and_its_own_key(items):
    # The tallies of one key share its key tokens: each is still the path's tokens plus that key.
    ev = build_evidence(parse_run(make_run("Items?", [{"items": items}], "ok")))
    base = _key_tokens_of(("items",))
    keys: list[str] = []
    for item in items:
        if isinstance(item, dict):
            keys += [k for k in item if k not in keys]
    for f in ev.counts:
        if f.text in ("tally", "total"):
            extra = f.key_tokens - base
            assert len(extra) <= 1 and extra <= set(keys)
            assert f.key_tokens in [base | {k} for k in keys]
    for facts in ev.value_counts.values():
        for f in facts:
            assert f.key_tokens in [base | {k} for k in keys]


FUNCTION_WORD_PIECES = ["I", "’ve", "'ll", "Okay", ",", "the", "The", "Paris", "&", "!", ".", "ΣΑΣ", "of"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(FUNCTION_WORD_PIECES), max_size=3).map("".join), max_size=8))
def test_it_reads_function_words_as_the_plain_test_does_whether_memoised_or_not(words):
    forget_function_words()
    for w in words + words:  # the second pass is answered from the memo
        assert _function_word(w) == (lower(w).replace("’", "'").strip(".,'&!;") in FUNCTION_WORDS)


def test_it_bounds_the_function_word_memo():
    forget_function_words()
    for i in range(_FUNCTION_WORD_MEMO_MAX + 10):
        _function_word(f"word{i}")
    assert 0 < len(_FUNCTION_WORD_MEMO) <= _FUNCTION_WORD_MEMO_MAX
    assert _function_word("the") and not _function_word("word3")


def test_it_finds_the_same_record_with_the_lookup_as_with_a_scan():
    catalogue = [
        {"name": f"Kestrel {i}", "price": 10.0 + i, "stock": 3 + i, "status": "in_stock"} for i in range(12)
    ]
    answer = (
        "The Kestrel 2 costs $12 and 5 are left; the Kestrel 3 costs $13. Kestrel 4 has 7 in stock, "
        "it costs $12. Kestrel 9 costs $19, and Kestrel 10 is in stock at $21."
    )
    run = parse_run(make_run("Prices?", [{"items": catalogue}], answer))
    ev = build_evidence(run)
    findings = [f for f in ground_answer(answer, ev) if f.mention.kind != "state"]
    sentences = split_sentences(answer)
    lookup = RecordLookup(findings, sentences)
    assert lookup.starts is not None
    checked = 0
    for f in findings:
        lists = {lst for lst, _ in f.records}
        if lists:
            fast = best_record(answer, findings, f, sentences, lists, lookup)
            assert fast == best_record(answer, findings, f, sentences, lists), f.mention.text
            checked += 1
    assert checked >= 5 and lookup.named  # the memo was used
    assert finding_starts(list(reversed(findings))) is None  # out of order: the caller scans


@pytest.mark.parametrize("enabled", [True, False])
def test_it_leaves_the_garbage_collector_as_it_found_it(enabled):
    msgs = make_run("Height?", [{"height_m": 330}], "It is 330 m tall.")
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        verify_run(msgs)
        assert gc.isenabled() is enabled
        with pytest.raises(MalformedRunError):
            verify_run([{"role": "robot", "content": "x"}])
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was else gc.disable()


def test_it_leaves_no_cyclic_garbage_behind():
    # Pausing the collector is free only because a verification makes no reference cycles.
    msgs = make_run(
        "What is in stock?",
        [{"items": [{"name": "Kestrel 9", "price": "$12.50", "status": "in_stock", "date": "2024-05-06"}]}],
        "The Kestrel 9 costs $12.50, is in stock and arrives on May 6; about 3 hours later.",
    )
    verify_run(msgs)
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(5):
            verify_run(msgs)
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_it_reports_the_same_with_and_without_memoised_strings():
    from verification.engine.runs.evidence import clear_caches

    items = [
        {"name": f"Falcon Cedar {i}", "start": f"2024-06-0{i}T09:30:00", "notes": "alpha beta"}
        for i in range(1, 6)
    ]
    msgs = make_run("When?", [{"results": items}], "Falcon Cedar 3 starts at 9:30 AM on June 3; 5 sessions.")
    clear_caches()
    cold = json.dumps(verify_run(msgs).to_dict(), sort_keys=True)
    warm = json.dumps(verify_run(msgs).to_dict(), sort_keys=True)
    assert cold == warm


# Pieces as a haystack holds them, and others: opening with a function word, white space or a digit.
acronym_words = st.sampled_from(["of", "the", "and", "for", "new", "york", "city", "a", "b", "x1", "", "\t"])
acronym_pieces = st.lists(st.lists(acronym_words, max_size=10).map(" ".join), max_size=12)
acronym_probes = st.text(alphabet="otafnycbx1 \t", max_size=6)


@settings(max_examples=300, deadline=None)
@given(acronym_pieces, st.data())
def test_it_answers_acronym_questions_without_building_the_table(parts, data):
    ev = _evidence(parts)
    expected = _evidence(parts).acronyms
    # The pieces' own acronyms (found or not, depending on the pieces that can give them) and others.
    own = st.sampled_from(sorted(expected) or ["ny"])
    asked = data.draw(st.lists(st.one_of(own, acronym_probes), min_size=1, max_size=6))
    for acronym in asked:
        assert ev.has_acronym(acronym) is (acronym in expected), (parts, acronym)
    assert ev._acronyms is None or not ev.pieces or "" in asked  # the table was not built to answer
    for acronym in asked:  # and the same answers once it is
        assert ev.acronyms == expected
        assert ev.has_acronym(acronym) is (acronym in expected)


def _grounded(answer: str, ev: Evidence, run: Any) -> list[Any]:
    findings = ground_answer(
        answer, ev, question=run.last_user, turn_start=max((i for i, _ in run.user), default=-1)
    )
    return [
        (f.label, f.reason, f.mention.kind, f.mention.start, f.mention.end,
         [(x.message_index, x.json_path, x.text, x.kind) for x in f.facts])
        for f in findings
    ]  # fmt: skip


def _lazy_and_eager(messages: Any, tools: Any = None) -> tuple[list[Any], list[Any]]:
    """Findings with the evidence's lookups built on demand, and with every table built before matching."""
    run = parse_run(messages, tools)
    lazy = build_evidence(run)
    eager = build_evidence(run)
    eager.acronyms, eager.vocabulary, eager.record_index()  # built before matching: the eager form
    return _grounded(run.answer, lazy, run), _grounded(run.answer, eager, run)


@pytest.mark.parametrize("name", ["groundedness_dev.jsonl", "tooltalk_dev.jsonl"])
def test_it_grounds_dev_answers_alike_with_lazy_and_eager_lookups(name):
    from tests.compiled_support import SHARED_EVAL

    path = SHARED_EVAL / name
    if not path.exists():
        pytest.skip(f"{path} is not on this machine")
    checked = 0
    with path.open() as lines:
        for line in lines:
            row = json.loads(line)
            try:
                lazy, eager = _lazy_and_eager(row["messages"], row.get("tools"))
            except MalformedRunError:
                continue
            assert lazy == eager, row.get("id")
            checked += 1
    assert checked >= 200


_PHRASES = ["New York City", "NYC", "JFK", "John F Kennedy", "the Bank of America", "BoA", "BOA", "Oslo",
            "Kestrel Garnet 3", "KG", "Board of Trade", "BT", "Falcon", "FX"]  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.dictionaries(st.sampled_from(["name", "city", "hub", "note"]), st.sampled_from(_PHRASES),
                             max_size=3), max_size=5),
    st.lists(st.sampled_from(_PHRASES), min_size=1, max_size=6),
)  # fmt: skip
def test_it_grounds_generated_answers_alike_with_lazy_and_eager_lookups(items, named):
    answer = " ".join(f"We checked {p} today." for p in named)
    lazy, eager = _lazy_and_eager(make_run("Which ones?", [{"items": items}], answer))
    assert lazy == eager


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(["kestrel", "garnet", "about", "over", "may", "june", "usd", "euro", "one", "in",
                              "stock", "hour", "am", "pm", "no", "suite", "returned", "likely"]),
             min_size=1, max_size=4),
    st.integers(0, 10**7),
    st.booleans(),
)  # fmt: skip
def test_it_reads_words_then_a_number_as_the_full_scan_does(words, number, title):
    # A trailing space keeps the text out of the words-then-number shortcut and changes no value in it.
    text = " ".join(words) + f" {number}"
    if title:
        text = text.title()
    assert extract_mentions(text, names=False) == extract_mentions(text + " ", names=False)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["the", "of", "I’ve", "Okay,", "Paris", "**", "-", "\xa0", "\t", "", "a"]),
                max_size=8).map(" ".join))  # fmt: skip
def test_it_tells_function_words_only_as_the_plain_split_does(words):
    from verification.engine.runs.mentions import _function_word, _only_function_words

    assert _only_function_words(words) is all(_function_word(w) for w in words.split())
