"""``re`` time of each injection rule's searches as ``injection._scan`` runs them, summed over the lines of
the given JSON-lines files (default: the held-out lines), per pass, interpreted or compiled as the tree
imports: the rule index's candidates, then each rule's first search through its lead search (long texts),
its lead scan or ``re`` itself.  Best of 5 rounds of ``R`` (environment, default 50) calls per text.
Timings, so load on the machine moves them; compare two trees one after the other::

    cd /tmp/before && python /path/to/bench/injection_rule_cost.py /path/to/bench/corpora/injection_dev.jsonl
    python bench/injection_rule_cost.py bench/corpora/injection_dev.jsonl

Run it from the root of the tree to measure (the current directory goes first on ``sys.path``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.getcwd())

from verification.engine.safety import fastpath, injection
from verification.engine.safety.fastpath import LeadScan, LeadSearch, lowered_text
from verification.engine.safety.multiscan import lead_finder
from verification.engine.safety.rule_index import LEAD_SEARCH_MIN_CHARS, PREFILTER_MIN_CHARS

DEFAULT = Path(__file__).resolve().parent / "corpora" / "injection_holdout.jsonl"


def _search(
    rule: injection.Rule, rules: injection.RuleIndex, text: str, lowered: str
) -> Callable[[], object]:
    if rule.lowered is None or len(lowered) != len(text):
        return lambda: next(rule.pattern.finditer(text), None)
    compiled = rule.lowered
    long_text = len(text) >= LEAD_SEARCH_MIN_CHARS
    leads = rules.leads.get(rule.rule_id) if long_text else None
    if leads is not None:
        found = leads
        return lambda: LeadSearch(
            compiled, found, lowered, rule.lowered_boundary, finder=lead_finder(found)
        ).search(0)
    scan = rules.scans.get(rule.rule_id)
    # Trees from the fifteenth round on scan a long text's rule that has no leads (``fastpath.AT_START``
    # came with that); older ones searched it with ``re``.
    if scan is not None and (not long_text or hasattr(fastpath, "AT_START")):
        return lambda: LeadScan(compiled, scan[0], scan[1], lowered, rule.lowered_boundary).search(0)
    return lambda: compiled.search(lowered)


def main(paths: list[str]) -> int:
    rows = [
        json.loads(x) for p in (paths or [str(DEFAULT)]) for x in Path(p).read_text().split("\n") if x.strip()
    ]
    assert injection.prepare_injection_prefilter(timeout=None)
    repeats = int(os.environ.get("R", "50"))
    cost: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for row in rows:
        text = row["text"]
        tool = row.get("source") == "tool_result" or row.get("kind") == "document"
        rules = injection._TOOL_RESULT_RULES if tool else injection._USER_RULES
        lowered = lowered_text(text)
        same = len(lowered) == len(text)
        picked = (
            rules.prefiltered(text, lowered, frozenset())
            if same and len(text) >= PREFILTER_MIN_CHARS
            else None
        )
        if picked is None:
            picked, _ = rules.candidates_and_meta(lowered, frozenset(), clauses=same)
        for rule in picked:
            search = _search(rule, rules, text, lowered)
            best = 1e9
            for _ in range(5):
                start = time.perf_counter()
                for _ in range(repeats):
                    search()
                best = min(best, (time.perf_counter() - start) / repeats)
            cost[rule.rule_id] += best
            count[rule.rule_id] += 1
    print(f"lines {len(rows)}: rules' re time {sum(cost.values()) * 1e6:.0f} us a pass")
    for rule_id, spent in sorted(cost.items(), key=lambda x: -x[1])[:30]:
        print(f"{spent * 1e6:10.1f} us {count[rule_id]:5d} lines  {rule_id}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
