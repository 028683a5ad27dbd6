"""The agent search (`q=` of the API list and the directory) on PostgreSQL, read from a word index.

What a search matches: every word of the query must begin a word of the agent's name or subject id
(a word is a run of letters and digits, compared lower-case; `weat` finds "Weather bot", `agent 12`
finds the subject id "did:agent:123" but not "did:agent:912"). Punctuation separates words and is otherwise
ignored, so a query of only punctuation matches nothing.

How it is read (registry_agentsearchterm, migration 0014: one row per word of an agent, with the
agent's score sort key, indexed on (term, rank DESC, agent DESC)):

- One planning query counts, for each query word, the index entries under that prefix (up to
  AGENT_SEARCH_MAX_MATCHES + 1: bounded) and whether the prefix covers one word or several.
- The rarest word drives; the others are checked per agent driven (a probe of the primary key
  (agent, term) each).
- Default ordering (-score), when the driving word's prefix is one word of the index (an exact word,
  or a prefix only one word begins with): the page is one range of that word's index entries, best
  first, the other words checked on the way, and cursors walk every match, as the unfiltered list's
  do. When there are other words and the driving word has more than AGENT_SEARCH_MAX_MATCHES
  entries, the walk stops at its best AGENT_SEARCH_MAX_MATCHES (all the words common: filtering
  more would read a number of entries that grows with the registry).
- Otherwise (another ordering; a prefix several words begin with): the first
  AGENT_SEARCH_MAX_MATCHES index entries of the driving prefix (in word order, then best score first)
  are the candidates, fetched by primary key and sorted in the ordering asked. A search whose driving
  prefix has more entries than that ranks these and no others; cursors page through them.

Every step reads a bounded number of index entries, whatever the number of agents.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.core.exceptions import ValidationError
from django.db import connection
from django.db.models import BooleanField, Exists, F, Func, OuterRef, QuerySet

from common.pagination import RowCompare

from .models import RANK_NULL_DESC, Agent, AgentSearchTerm

SEARCH_MAX_LENGTH = 200
SEARCH_MAX_WORDS = 8
SEARCH_HELP = (
    "Search: every word given must begin a word of the agent's name or subject id (words are runs of "
    "letters and digits, any case; punctuation only separates them). At most "
    f"{SEARCH_MAX_LENGTH} characters and {SEARCH_MAX_WORDS} words."
)
# The aliases a search adds to the agent queryset when its page is a range of the word index: the
# index row's copy of the -score ordering's keys (registry/api/filtersets.py AGENT_SEARCH_ORDERINGS).
SEARCH_RANK = "search_rank"
SEARCH_AGENT = "search_agent"
# Past every character: [word, word + TOP) is the range of the words beginning with `word` in the
# index's "C" (code point) order.
TOP = "\U0010ffff"
# Counts words as registry_search_words splits them, close enough to bound their number (the database
# does the splitting that matters).
_WORD = re.compile(r"[^\W_]+")

_PLAN = """
SELECT w.word, c.entries, f.first, f.last, b.rank, b.agent_id
FROM (SELECT word COLLATE "C" AS word FROM unnest(registry_search_words(%(text)s)) AS word) w
CROSS JOIN LATERAL (SELECT count(*) AS entries
                    FROM (SELECT 1 FROM registry_agentsearchterm t
                          WHERE t.term >= w.word AND t.term < w.word || %(top)s
                          LIMIT %(cap)s + 1) x) c
CROSS JOIN LATERAL (SELECT min(t.term) AS first, max(t.term) AS last FROM registry_agentsearchterm t
                    WHERE t.term >= w.word AND t.term < w.word || %(top)s) f
LEFT JOIN LATERAL (SELECT t.rank, t.agent_id FROM registry_agentsearchterm t
                   WHERE c.entries > %(cap)s AND f.first = f.last AND t.term = f.first
                     AND cardinality(registry_search_words(%(text)s)) > 1
                     AND (NOT %(unrated)s OR t.rank = %(unrated_rank)s)
                   ORDER BY t.rank DESC, t.agent_id DESC OFFSET %(cap)s LIMIT 1) b ON true
"""


def search_text_validate(value: str) -> None:
    """A query the search can read: no NUL (PostgreSQL text cannot hold one), a bounded number of words."""
    if "\x00" in value:
        raise ValidationError("Must not contain a NUL character.")
    if len(_WORD.findall(value)) > SEARCH_MAX_WORDS:
        raise ValidationError(f"At most {SEARCH_MAX_WORDS} words.")


@dataclass(frozen=True)
class _Word:
    word: str
    # Index entries under the prefix, counted up to the cap + 1.
    entries: int
    first: str | None
    last: str | None
    # When the prefix is one word with more than the cap of entries (of its unrated ones only, for an
    # unrated search): (rank, agent) of the entry after its best `cap`, where a walk filtered by other
    # words stops. None otherwise. Read in the same query, so a search of several common words costs
    # no extra round trip.
    bound: list[Any] | None


class _EqualsAny(Func):
    """`(column = ANY(array))`: the candidates, collected once (an InitPlan), read by primary key."""

    template = "(%(expressions)s))"
    arg_joiner = " = ANY("
    output_field = BooleanField()


def _words(*, text: str, cap: int, unrated: bool) -> list[_Word]:
    with connection.cursor() as cursor:
        cursor.execute(
            _PLAN, {"text": text, "top": TOP, "cap": cap, "unrated": unrated, "unrated_rank": RANK_NULL_DESC}
        )
        return [
            _Word(word, entries, first, last, None if rank is None else [rank, agent])
            for word, entries, first, last, rank, agent in cursor.fetchall()
        ]


def _prefix(word: _Word) -> dict[str, Any]:
    # One word under the prefix: an equality, which is what the (term, rank, agent) index ranges on.
    if word.first == word.last:
        return {"term": word.first}
    return {"term__gte": word.word, "term__lt": word.word + TOP}


def agent_search(
    *, queryset: QuerySet[Agent], text: str, ordering: str, unrated: bool = False
) -> QuerySet[Agent]:
    """The agents of `queryset` matching search `text` (module docstring), for list `ordering`.

    `unrated`: the list is filtered to unrated agents (`rated=false`), whose index key is
    RANK_NULL_DESC: the entries read are those, instead of every rated match before them.
    """
    cap = settings.AGENT_SEARCH_MAX_MATCHES
    words = _words(text=text, cap=cap, unrated=unrated)
    if not words or any(w.entries == 0 for w in words):
        return queryset.none()
    driver = min(words, key=lambda w: (w.entries, -len(w.word)))
    others = [w for w in words if w is not driver]
    for other in others:
        queryset = queryset.filter(
            Exists(AgentSearchTerm.objects.filter(agent=OuterRef("pk"), **_prefix(other)))
        )
    one_word = driver.first == driver.last
    unrated_entries = {"rank": RANK_NULL_DESC} if unrated else {}
    if ordering == "-score" and one_word and driver.first is not None:
        # The filter and the aliases share one join: the page's ORDER BY and cursor are then on the
        # index row's columns, a range of the (term, rank DESC, agent DESC) index.
        walk = queryset.filter(
            search_terms__term=driver.first, **{f"search_terms__{k}": v for k, v in unrated_entries.items()}
        ).alias(**{SEARCH_RANK: F("search_terms__rank"), SEARCH_AGENT: F("search_terms__agent_id")})
        # Several words, all common: the walk filters the driving word's entries by the others, so
        # it stops at its best `cap` entries (the candidates of the other orderings), found once.
        if others and driver.bound is not None:
            walk = walk.filter(RowCompare([F(SEARCH_RANK), F(SEARCH_AGENT)], ">", driver.bound))
        return walk
    candidates = (
        AgentSearchTerm.objects.filter(**_prefix(driver), **unrated_entries)
        .order_by("term", "-rank", "-agent_id")
        .values("agent_id")[:cap]
    )
    return queryset.filter(_EqualsAny(F("pk"), ArraySubquery(candidates)))
