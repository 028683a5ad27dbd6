"""Whether an unsupported name or URL is of a kind the run's results speak of (issue 14, h23b).

Issue 14's rule: a value is a claim to check only when it is of a kind the context returns; general
knowledge the context does not speak to is not a claim. Two kinds are read here from the form of the text:

- A name headed by a noun of an institution, a channel or a document ("FedEx International Customer
  Service", "Consumer Protection Bureau", "Dog Control Act") names a *kind* of thing: a contact point, an
  agency, a law. When no result, request or call names anything of that kind (no capitalised phrase of the
  run ends with that noun, no key of the results is that noun), the name is the agent's advice from general
  knowledge, not a value the tools could have returned: not a claim. When the results name offices, a
  "Lost Property Office" the results do not have is checked as before. Names of people, places, products
  or tiers carry no such head and are left to the other rules.
- A URL the answer offers as a reference (a Markdown link, or on a line of sources) whose host no result,
  request or call gives is a pointer to a page the run never saw, general knowledge like the advice it
  backs; a URL stated as a value ("The meeting link is https://...") stays a claim, as does a reference on a
  host the run returned (a wrong page of a site the tools read).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from ..text import lower
from .evidence import Evidence
from .mentions import Mention

# Head nouns of names that name a kind of institution, contact channel or document. A name ending in one of
# them is a department, an agency, a programme, a law or a page, all of which advice names from general
# knowledge. Words a record holds as its own names of items ("plan" of a subscription, "card") are left out.
KIND_HEADS = frozenset({
    "service", "services", "support", "department", "dept", "office", "offices", "center", "centre",
    "desk", "helpdesk", "helpline", "hotline", "line", "team", "unit", "division", "authority",
    "agency", "administration", "bureau", "commission", "board", "council", "ministry", "ombudsman",
    "program", "programme", "act", "law", "regulation", "regulations", "form", "notice", "guide",
    "handbook", "portal", "website", "site", "app", "application", "hub", "assistance", "care",
    "found", "commissioner", "tribunal", "court", "registry", "register",
})  # fmt: skip

# A capitalised phrase of two words or more (function words between), as a result names a thing: "Customer
# Service", "Lost and Found", "Department of Labor".
# Group 1 is the phrase. The match starts only where a word does (the letters before the first capital of
# a word are taken in, possessively): a phrase can start only at a word's first capital, as the part after
# it depends on the word's end alone, and trying every capital of a long word ("AAAA...", a key in base64)
# scanned to the word's end each time, quadratic in a result written by others (h23r).
_PHRASE = re.compile(
    r"(?<![\w'’&-])(?:[^\WA-Z]|['’&-])*+"
    r"([A-Z][\w'’&-]*(?:[ \t]+(?:(?:of|and|&|for|the|de|du|la)[ \t]+)*[A-Z][\w'’&-]*)+)"
)
# A key of a result (JSON or ``key: value`` lines): its last part other than ``name``/``id`` is its kind.
_KEY = re.compile(r'(?m)(?:^[ \t-]*|")([A-Za-z][A-Za-z0-9_]{1,40})"?:')
_KEY_SKIP = frozenset({"name", "names", "id", "ids", "title", "url", "urls", "email", "phone", "number"})

# Where an answer offers a URL as a reference: inside a Markdown link, or on a line of sources.
_SOURCES_LINE = re.compile(
    r"(?i)\b(?:sources?|references?|see|official|more info(?:rmation)?|learn more|read more|details?|"
    r"guidance|links?|resources?|website|page)\b"
)
# "The documentation is at https://...": the URL is the value the sentence states, not a reference.
_STATED_AS_VALUE = re.compile(r"(?i)\b(?:is|are)\s+(?:at\s+)?$")
# A host starts where a word does, or at "http(s)://" inside one ("xhttps://a.b"): from any other letter of a
# word the word's end decides as it did from the word's first letter, and trying each letter of a long word
# scanned to its end each time, quadratic (h23r).
_HOST = re.compile(
    r"(?i)(?:(?<![a-z0-9-])|(?=https?://))(?:https?://)?(?:www\.)?([a-z0-9-]+(?:\.[a-z0-9-]+)+)"
)


def head_kind(name: str) -> str | None:
    """The kind noun that heads a name (its last word, a possessive or plural aside), or None.

    >>> head_kind("FedEx International Customer Service"), head_kind("SFO Lost & Found")
    ('service', 'found')
    >>> head_kind("Green Motion"), head_kind("Dog Control Act"), head_kind("Tesla’s Roadside Assistance")
    (None, 'act', 'assistance')
    >>> head_kind("Service")
    """
    words = name.replace("’", "'").split()
    if len(words) < 2:
        return None  # one word is a name or a word; only a phrase names a kind of thing
    last = lower(words[-1]).strip(".,;:!?*_)(\"'")
    last = last.removesuffix("'s")
    return last if last in KIND_HEADS else None


class ReturnedKinds:
    """The kinds of names, and the hosts, the run's texts speak of (results, requests, calls), read once.

    >>> ev = Evidence()
    >>> ev.contents[1] = "carrier: FedEx\\nstatus: held\\nsee: https://www.fedex.com/en-us/tracking.html"
    >>> kinds = ReturnedKinds(ev)
    >>> kinds.lacks_kind_of("FedEx International Customer Service"), kinds.lacks_kind_of("Green Motion")
    (True, False)
    >>> ev.contents[2] = "Call FedEx Customer Service at 1-800-463-3339."
    >>> ReturnedKinds(ev).lacks_kind_of("FedEx International Customer Service")
    False
    >>> ev.contents[3] = "support_office: Memphis"
    >>> ReturnedKinds(ev).lacks_kind_of("Memphis Claims Office")
    False
    >>> kinds.host_returned("https://fedex.com/help"), kinds.host_returned("https://www.ups.com/claims")
    (True, False)
    """

    def __init__(self, ev: Evidence) -> None:
        self.ev = ev
        self._kinds: set[str] | None = None
        self._hosts: set[str] | None = None

    def kinds(self) -> set[str]:
        if self._kinds is None:
            found: set[str] = set()
            for text in self.ev.contents.values():
                if not isinstance(text, str):
                    continue
                for m in _PHRASE.finditer(text):
                    kind = head_kind(m.group(1))
                    if kind is not None:
                        found.add(kind)
                for m in _KEY.finditer(text):
                    parts = [p for p in lower(m.group(1)).split("_") if p not in _KEY_SKIP]
                    if parts and parts[-1] in KIND_HEADS:
                        found.add(parts[-1])
            self._kinds = found
        return self._kinds

    def lacks_kind_of(self, name: str) -> bool:
        """Whether ``name`` is headed by a kind noun (``head_kind``) the run names nothing of."""
        kind = head_kind(name)
        return kind is not None and kind not in self.kinds()

    def hosts(self) -> set[str]:
        if self._hosts is None:
            found: set[str] = set()
            for text in self.ev.contents.values():
                if isinstance(text, str):
                    for m in _HOST.finditer(text):
                        found.add(_site(m.group(1)))
            self._hosts = found
        return self._hosts

    def host_returned(self, url: str) -> bool:
        """Whether the run's texts give the URL's site (its host less ``www.``; a subdomain counts)."""
        host = _host_of(url)
        if not host:
            return True  # no host to judge: the rule as before
        known = self.hosts()
        return _site(host) in known or any(host.endswith("." + h) for h in known)


def _host_of(url: str) -> str:
    u = url if "://" in url else "http://" + url
    try:
        host = urlsplit(u).hostname or ""
    except ValueError:
        return ""
    return _site(host)


def _site(host: str) -> str:
    h = lower(host).rstrip(".")
    return h[4:] if h.startswith("www.") else h


def offered_as_reference(answer: str, m: Mention) -> bool:
    """Whether the URL ``m`` is offered as a reference: the target of a Markdown link (``[text](url)``),
    or on a line that names its sources ("Sources: ...", "Official guidance: https://...").

    >>> a = "See [Aena](https://www.aena.es/x).\\nThe meeting link is https://zoom.us/j/1."
    >>> offered_as_reference(a, Mention("url", 15, 32, "https://www.aena.es/x"))
    True
    >>> i = a.index("https://zoom"); offered_as_reference(a, Mention("url", i, len(a) - 1, a[i:-1]))
    False
    """
    if answer[max(0, m.start - 2) : m.start] == "](":
        return True
    line_start = answer.rfind("\n", 0, m.start) + 1
    before = answer[line_start : m.start]
    return _SOURCES_LINE.search(before) is not None and _STATED_AS_VALUE.search(before) is None


def link_text_span(answer: str, m: Mention) -> tuple[int, int]:
    """The span of the words a Markdown link to the URL ``m`` is made from (``[CBP guidance](url)``), or
    the URL's own span when it is no link's target.

    >>> a = "See [CBP guidance](https://cbp.gov/x)."
    >>> link_text_span(a, Mention("url", 19, 36, "https://cbp.gov/x"))
    (5, 17)
    """
    if answer[max(0, m.start - 2) : m.start] == "](":
        line_start = answer.rfind("\n", 0, m.start) + 1
        opening = answer.rfind("[", line_start, m.start - 2)
        if opening >= 0:
            return opening + 1, m.start - 2
    return m.start, m.end
