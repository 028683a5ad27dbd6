"""h25r's review of the sixteenth round: an answer of many links read against a run of many links."""

from __future__ import annotations

from verification.engine.runs.link_forms import (
    RunLinks,
    _delocalised,
    _found_at_boundary,
    _relative_link_of_a_run_host,
    link_key,
    same_page_as_the_run,
    text_link_keys,
)
from verification.engine.runs.verify import verify_run

from .runs_helpers import flagged, text_result_run


def _reference(url: str, hay: str) -> bool:
    """The look-up as h25f wrote it (every run key read for each URL), from the module's parts."""
    keys = text_link_keys(hay)
    key = link_key(url)
    host = key.split("/", 1)[0].split("?", 1)[0]
    if "." not in host:
        return False
    if _found_at_boundary(key, hay):
        return True
    bare = _delocalised(key)
    if bare in keys or any(k.startswith(bare + "/") or k.startswith(bare + "?") for k in keys):
        return True
    if not any(k == host or k.startswith(host + "/") or k.startswith(host + "?") for k in keys):
        return False
    return _relative_link_of_a_run_host(key, host, hay, keys)


def test_it_gives_each_links_key_the_answer_of_the_whole_look_up() -> None:
    hay = (
        "url: https://www.flylax.com/lost-and-found | https://www.tesla.com/en_us/support/x "
        "https://usps.com/help see [claims](/help/claims.htm) https://x.example/r.asp?customerid=6392 "
        "https://a.example/b/c https://a.example/b?q=1 https://a.examplez/b/c"
    )
    links = RunLinks(hay)
    urls = [
        "http://flylax.com/lost-and-found?utm_source=openai", "https://www.flylax.com/lost-found",
        "https://www.tesla.com/support/x/", "https://www.tesla.com/support/y", "https://usps.com/help/claims",
        "https://other.example/help/claims", "http://x.example/r.asp?customerid=6393", "https://a.example/b",
        "https://a.example", "https://a.example/b/", "https://a.exampl/b", "https://a.example/b/c/d",
        "https://tesla.com/en_us", "https://tesla.com",
    ]  # fmt: skip
    for url in urls:
        assert links.same_page(url) == same_page_as_the_run(url, hay, text_link_keys(hay)), url
        assert links.same_page(url) == _reference(url, hay), url
    assert links.same_page("https://a.example/b") and links.same_page("https://a.example")
    assert not links.same_page("https://a.exampl/b") and not links.same_page("https://a.example/b/c/d")


def test_it_reads_an_answer_of_many_links_against_many_run_links_in_one_pass_per_key() -> None:
    # 4,000 links of the run, 1,000 of the answer not among them (each read every run key), and 1,000
    # whose one key sits inside longer names of the run 4,000 times (each read every place): about 5.8 s
    # interpreted as h25f wrote it, 0.24 s with the keys sorted (not timed here: docs/run-verification.md).
    hay = " ".join(f"https://a.ex/p{i}/q" for i in range(4000))
    hay += " " + " ".join("a.ex/abc" for _ in range(4000))
    links = RunLinks(hay)
    found = [links.same_page(f"https://a.ex/z{i}/w") for i in range(1000)]
    found += [links.same_page(f"http://a.ex/ab#s{i}") for i in range(1000)]
    assert not any(found)
    assert links.same_page("https://a.ex/p17") and links.same_page("http://a.ex/p17/q#x")


def test_it_still_supports_a_run_page_in_another_form_and_flags_another_page() -> None:
    text = " ".join(f"https://www.site.example/p{i}/q" for i in range(50))
    answer = "See http://site.example/p7/q?utm_source=chatgpt.com for it, not https://site.example/p77/q."
    report = verify_run(text_result_run("Where?", text, answer))
    assert [c for c, _ in flagged(report)] == ["https://site.example/p77/q"]
