"""Whether a URL an answer gives is a page of the run written in another form (issue 14, h25f).

An answer cites the page it read, but not always in the page's own spelling: ``http://`` for ``https://``,
without ``www.``, with the tracking query a browsing model adds (``?utm_source=chatgpt.com``), with an
anchor or a text fragment (``#:~:text=...``), with or without a trailing slash or ``.html``, or without the
locale segment of the page's path (``/en-us/``, ``/eng/``). None of these changes which page is meant: the
link is the run's page, not a made-up one. Everything else stays a difference: another host, another path
(``/lost-found`` for ``/lost-and-found``), another value of a query that selects a record
(``?customerid=6393``).

Two forms of a URL are compared by their *key*: the host without ``www.``, the path without a trailing slash
or ``.html``, and the query less its tracking parameters; no scheme, no fragment, case-folded and
percent-decoded. The answer's key is found in the run's texts (as the run's own URLs are written in them),
at a boundary on both sides; failing that, keys without the path's leading locale segment are compared, and
a key may stop at a segment boundary of the run's (a page's parent path, "shortened").
"""

from __future__ import annotations

import re
from bisect import bisect_left
from urllib.parse import unquote

# Query parameters that track where a click came from and select nothing.
_TRACKING = re.compile(r"utm_[a-z]+|fbclid|gclid|msclkid|mc_cid|mc_eid|ref|ref_src|srsltid|source")
# A locale as the first segment of a path: "en", "en-us", "en_gb", "eng", "zh-hant".
_LOCALE = re.compile(
    r"(?:en|fr|de|es|it|pt|nl|ja|zh|ko|sv|da|nb|no|fi|pl|ru|tr|ar|cs|el|hu|ro|th|vi|id|ms|eng)"
    r"(?:[-_][a-z]{2,4})?"
)
# The URLs of a (case-folded) text: a scheme or "www." and the characters a URL is made of. One character
# class repeated: a run of it can be matched one way only.
_URL_IN_TEXT = re.compile(r"(?:https?://|www\.)[^\s<>()\"'\\|\[\]`*{}]+")
# What an answer's URL mention may end with that is no part of the URL: bold or code marks, closing quotes.
_TRAILING_MARKS = "*`_’”»…。、)]}'\".,;:!?"
# A character that continues a host or a path segment: a key found in a text must not end or start inside
# a longer name ("flylax.com/lost" in "flylax.com/lost-and-found", "pge.com" in "mypge.com").
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_%")


def link_key(url: str) -> str:
    """The form two URLs of one page share (see the module's docstring).

    >>> link_key("HTTP://www.FlyLAX.com/lost-and-found/?utm_source=chatgpt.com#forms")
    'flylax.com/lost-and-found'
    >>> link_key("https://www.pge.com/en/rules.html")
    'pge.com/en/rules'
    >>> link_key("https://x.example/report.asp?customerid=6392&ref=home")
    'x.example/report.asp?customerid=6392'
    >>> link_key("https://x.example/a%20b**")
    'x.example/a b'
    """
    u = url.casefold().rstrip(_TRAILING_MARKS)
    scheme = u.find("://")
    if scheme >= 0:
        u = u[scheme + 3 :]
    u = u.split("#", 1)[0]
    query = ""
    if "?" in u:
        u, q = u.split("?", 1)
        kept = [p for p in q.split("&") if p and not _TRACKING.fullmatch(p.split("=", 1)[0])]
        query = "&".join(kept)
    u = unquote(u)
    if u.startswith("www."):
        u = u[4:]
    u = u.rstrip("/")
    if not query:
        for ext in ("/index.html", "/index.htm", ".html", ".htm"):
            if u.endswith(ext):
                u = u[: -len(ext)]
                break
        return u
    return u + "?" + unquote(query)


def _delocalised(key: str) -> str:
    """The key without its path's first segment when that segment is a locale.

    >>> _delocalised("tesla.com/en_us/support/x"), _delocalised("tesla.com/support/x")
    ('tesla.com/support/x', 'tesla.com/support/x')
    >>> _delocalised("x.example/tv/plans")
    'x.example/tv/plans'
    """
    parts = key.split("/", 2)
    if len(parts) >= 2 and _LOCALE.fullmatch(parts[1]):
        return parts[0] + ("/" + parts[2] if len(parts) == 3 else "")
    return key


def _found_at_boundary(key: str, text: str) -> bool:
    """Whether ``key`` occurs in ``text`` with no host or segment character just before or after it."""
    i = text.find(key)
    n = len(key)
    while i >= 0:
        before = text[i - 1] if i > 0 else " "
        after = text[i + n] if i + n < len(text) else " "
        if before not in _WORD_CHARS and after not in _WORD_CHARS:
            return True
        i = text.find(key, i + 1)
    return False


def text_link_keys(text: str) -> frozenset[str]:
    """The keys, without a leading locale segment, of the URLs of a case-folded ``text``.

    >>> sorted(text_link_keys("see https://www.tesla.com/en_us/support/x. or www.pge.com/"))
    ['pge.com', 'tesla.com/support/x']
    """
    return frozenset(_delocalised(link_key(u)) for u in _URL_IN_TEXT.findall(text))


def same_page_as_the_run(url: str, raw_haystack: str, run_keys: frozenset[str]) -> bool:
    """Whether the answer's ``url`` is a page of the run in another form: its key is found in the run's
    case-folded texts ``raw_haystack`` at a boundary, or its key without the locale is a key of
    ``run_keys`` (:func:`text_link_keys` of those texts) or a parent path of one.

    >>> hay = "url: https://www.flylax.com/lost-and-found | https://www.tesla.com/en_us/support/x"
    >>> keys = text_link_keys(hay)
    >>> same_page_as_the_run("http://flylax.com/lost-and-found?utm_source=openai", hay, keys)
    True
    >>> same_page_as_the_run("https://www.tesla.com/support/x/", hay, keys)
    True
    >>> same_page_as_the_run("https://www.flylax.com/lost-found", hay, keys)
    False
    >>> same_page_as_the_run("https://www.tesla.com/support/y", hay, keys)
    False
    >>> same_page_as_the_run("https://www.flylax.com/lost-and-found?item=2", hay, keys)
    False
    """
    return _same_page(link_key(url), raw_haystack, run_keys, sorted(run_keys))


def _same_page(key: str, raw_haystack: str, run_keys: frozenset[str], ordered: list[str]) -> bool:
    """:func:`same_page_as_the_run` of a URL's ``key`` (``ordered``: ``run_keys`` sorted)."""
    host = key.split("/", 1)[0].split("?", 1)[0]
    if "." not in host:
        return False
    if _found_at_boundary(key, raw_haystack):
        return True
    bare = _delocalised(key)
    if bare in run_keys:
        return True
    # A parent path of a page of the run, or the page without its query (as a text's own URL may be cited).
    if _has_prefix(ordered, bare + "/") or _has_prefix(ordered, bare + "?"):
        return True
    return _relative_link_of_a_run_host(key, host, raw_haystack, run_keys, ordered)


def _has_prefix(ordered: list[str], prefix: str) -> bool:
    """Whether a string of the sorted ``ordered`` starts with ``prefix`` (those that do follow it at once)."""
    i = bisect_left(ordered, prefix)
    return i < len(ordered) and ordered[i].startswith(prefix)


class RunLinks:
    """The run's texts and their link keys, read once per run, and what each answer URL's key gave (h25r:
    a key looked up per URL mention against every run key and every place of the key in the texts was
    quadratic in an answer of many links)."""

    def __init__(self, raw_haystack: str) -> None:
        self.text = raw_haystack
        self.keys = text_link_keys(raw_haystack)
        self.ordered = sorted(self.keys)
        self.seen: dict[str, bool] = {}

    def same_page(self, url: str) -> bool:
        """:func:`same_page_as_the_run` of ``url`` against the run's texts."""
        key = link_key(url)
        known = self.seen.get(key)
        if known is None:
            known = self.seen[key] = _same_page(key, self.text, self.keys, self.ordered)
        return known


def _relative_link_of_a_run_host(
    key: str, host: str, text: str, run_keys: frozenset[str], ordered: list[str] | None = None
) -> bool:
    """Whether ``key``'s path is a relative link of the run's texts (``[Claims](/help/claims)`` on a page)
    and its host a host of the run's URLs: the answer wrote the page's link out in full.

    >>> hay = "url: https://www.usps.com/help | see [claims](/help/claims.htm) or https://x.example/a/b"
    >>> keys = text_link_keys(hay)
    >>> _relative_link_of_a_run_host("usps.com/help/claims", "usps.com", hay, keys)
    True
    >>> _relative_link_of_a_run_host("other.example/help/claims", "other.example", hay, keys)
    False
    >>> _relative_link_of_a_run_host("usps.com/a/b", "usps.com", hay, keys)
    False
    """
    path = key[len(host) :]
    if len(path) < 3 or not path.startswith("/"):
        return False
    if ordered is None:
        ordered = sorted(run_keys)
    if host not in run_keys and not (_has_prefix(ordered, host + "/") or _has_prefix(ordered, host + "?")):
        return False
    i = text.find(path)
    n = len(path)
    while i >= 0:
        # The path must open a link of its own: not the path of another absolute URL ("x.example/a/b").
        before = text[i - 1] if i > 0 else " "
        after = text[i + n] if i + n < len(text) else " "
        if before not in _WORD_CHARS and before not in "/." and after not in _WORD_CHARS:
            return True
        i = text.find(path, i + 1)
    return False
