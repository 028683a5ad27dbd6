"""Issue 14, sixteenth round (h25f): a link the answer cites in another form than the page's own URL.

A browsing agent cites the page it opened, but not always as the page spells it: another scheme, without
``www.``, with a tracking query (``?utm_source=chatgpt.com``), an anchor or a text fragment, a trailing slash,
``.html``, or without the locale segment of the path. Each was an unsupported URL (a false alarm of the
luna held-out class "links"). Another path, another host or another value of a query that selects a record
stays flagged. The runs are made up for these tests.
"""

from __future__ import annotations

import json
import time
from typing import Any

from tests.engine_runs.runs_helpers import flagged
from verification.engine.runs import verify_run
from verification.engine.runs.link_forms import link_key, same_page_as_the_run, text_link_keys

_PAGE = (
    "title: Lost and found | Los Angeles World Airports\n"
    "url: https://www.flylax.com/lost-and-found\n"
    "content: |\n"
    "  Items left at the terminals are kept for 90 days. Report a lost item online or call 424-646-5252.\n"
    "  Airline claims: https://www.aircarrier.example/en-us/help/baggage/claims?form=lost\n"
    "  Unclaimed items go to auction: [auction rules](/lost-and-found/auction-rules)."
)
_CALL = {"url": "https://www.flylax.com/lost-and-found"}


def _run(answer: str) -> list[dict[str, Any]]:
    call = {"id": "c0", "type": "function", "function": {"name": "open_page", "arguments": json.dumps(_CALL)}}
    return [
        {"role": "user", "content": "I lost my bag at LAX. Where do I report it?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c0", "content": _PAGE},
        {"role": "assistant", "content": answer},
    ]


def _flags(answer: str) -> list[str]:
    return [t for t, _ in flagged(verify_run(_run(answer)))]


def _answer(link: str) -> str:
    return f"LAX keeps found items for 90 days. Report your bag online here: {link}"


def test_it_takes_the_page_with_another_scheme_or_without_www() -> None:
    assert _flags(_answer("http://www.flylax.com/lost-and-found")) == []
    assert _flags(_answer("https://flylax.com/lost-and-found")) == []
    assert _flags(_answer("http://flylax.com/lost-and-found/")) == []


def test_it_takes_the_page_with_a_tracking_query_an_anchor_or_a_text_fragment() -> None:
    assert _flags(_answer("https://www.flylax.com/lost-and-found?utm_source=chatgpt.com")) == []
    assert _flags(_answer("https://www.flylax.com/lost-and-found#report-an-item")) == []
    assert _flags(_answer("https://www.flylax.com/lost-and-found#:~:text=kept%20for%2090%20days")) == []
    assert _flags(_answer("https://www.flylax.com/lost-and-found.html")) == []


def test_it_takes_a_page_without_its_locale_segment_or_its_parent_path() -> None:
    # The page's "/en-us/" dropped, and the claims help cut to its parent path ("shortened").
    assert _flags(_answer("https://www.aircarrier.example/help/baggage/claims?form=lost")) == []
    assert _flags(_answer("https://aircarrier.example/help/baggage/claims")) == []
    assert _flags(_answer("https://www.aircarrier.example/help/baggage")) == []


def test_it_takes_a_relative_link_of_the_page_written_out_in_full() -> None:
    assert _flags(_answer("https://www.flylax.com/lost-and-found/auction-rules")) == []
    # The same path on a host the run never read, or another relative path, stays flagged.
    other = "https://www.lawa.example/lost-and-found/auction-rules"
    assert _flags(_answer(other)) == [other]
    assert _flags(_answer("https://www.flylax.com/lost-and-found/auction-dates")) == [
        "https://www.flylax.com/lost-and-found/auction-dates"
    ]


def test_another_path_host_or_record_query_stays_flagged() -> None:
    # A path the page does not have, a host one letter off, a query that selects another form.
    assert _flags(_answer("https://www.flylax.com/lost-found")) == ["https://www.flylax.com/lost-found"]
    assert _flags(_answer("https://www.flylax.com/parking")) == ["https://www.flylax.com/parking"]
    wrong_host = "https://www.flylaxx.com/lost-and-found"
    assert _flags(_answer(wrong_host)) == [wrong_host]
    wrong_query = "https://www.aircarrier.example/en-us/help/baggage/claims?form=damaged"
    assert _flags(_answer(wrong_query)) == [wrong_query]
    assert _flags(_answer("https://www.flylax.com/lost-and-found?item=7")) == [
        "https://www.flylax.com/lost-and-found?item=7"
    ]
    # A longer name that only contains the page's host is another site.
    assert _flags(_answer("https://myflylax.com/lost-and-found")) == ["https://myflylax.com/lost-and-found"]


def test_the_key_keeps_the_record_query_and_drops_tracking() -> None:
    tracked = "https://x.example/r.asp?customerid=6392&utm_medium=web"
    assert link_key(tracked) == "x.example/r.asp?customerid=6392"
    assert link_key("HTTPS://WWW.X.example/A/") == "x.example/a"
    hay = "url: https://x.example/r.asp?customerid=6392"
    keys = text_link_keys(hay)
    assert same_page_as_the_run("http://x.example/r.asp?customerid=6392#top", hay, keys)
    assert not same_page_as_the_run("http://x.example/r.asp?customerid=6393", hay, keys)


def test_long_runs_of_a_urls_characters_take_linear_time() -> None:
    for ch in ("a", "/", "?", "&", "%", ".", "-", "#"):
        text = "https://" + ch * 50_000
        start = time.perf_counter()
        text_link_keys(text)
        same_page_as_the_run(text, text, frozenset({ch * 10}))
        assert time.perf_counter() - start < 1.0
