"""An item told with its options must be the item those options belong to (issue 14, h19a: retail edits).

A shop's results list each item with its product name and its option values: ``{"name": "Desk Lamp",
"item_id": "...", "options": {"color": "white", "brightness": "medium", "power source": "USB"}}``, and a
product's ``variants`` do the same under one name. An answer tells an item by its name and its options:
"Desk Lamp (white, medium brightness, USB)", "- Current: Luggage Set - 3-piece, Blue, Softshell". With the
name swapped for another product of the same customer ("Hiking Boots (white, medium brightness, USB)") every
word is still in the results, so each is supported alone; the pair is not. The name is contradicted when

- the options told with it (its parenthesised group, or the rest of its line after a dash) hold at least two
  option values of one item of another product, and
- none of the named product's items (orders, variants) has any of the option values told there,

the named product being one the results list items of (its option values are known). The claim is the name,
its evidence the product the options belong to. Two more checks read the same items: a number told for one
of the named product's option keys ("size 11", "24 hours battery") must be a value some item or variant of the
product has for that key, and a product named in the parenthesised group right after an order id ("order
#W1 contains multiple items (...)", "Order #W1 (Backpack Exchange)") must be an item of that order.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..text import lower
from .evidence import Evidence
from .findings import Finding
from .mentions import Mention
from .records import ANOTHER_ITEM

__all__ = ["check_item_options"]

# What follows a name before its options: closing bold, a colon, spaces.
_LEAD = re.compile(r"[*_]*:?[*_]*[ \t]*")
_PAREN = re.compile(r"\(([^()\n]{2,160})\)")
_DASHED = re.compile(r"[-–—][ \t]+([^\n]{2,160})")
# After a colon, the rest of the line is the item's options: "- Tablet: 8-inch, 64GB, silver - $938.92".
_COLONED = re.compile(r"([^\n]{2,160})")
_MAX_ITEMS = 2000


def _collect(
    node: Any,
    out: list[tuple[str, frozenset[str]]],
    keyed: dict[str, dict[str, set[str]]],
    orders: dict[str, set[str]],
    ids: dict[str, str],
    depth: int = 0,
) -> None:
    """Append (product name, its option values) for each item or variant under ``node``; ``orders`` gets
    the item names of each order (by its id without "#"), ``ids`` the product name of each item id."""
    if depth > 12 or len(out) > _MAX_ITEMS:
        return
    if isinstance(node, dict):
        order_id, order_items = node.get("order_id"), node.get("items")
        if isinstance(order_id, str) and isinstance(order_items, list):
            orders.setdefault(lower(order_id).strip().lstrip("#"), set()).update(
                lower(x["name"]).strip()
                for x in order_items
                if isinstance(x, dict) and isinstance(x.get("name"), str)
            )
        name = node.get("name")
        options = node.get("options")
        if isinstance(name, str) and isinstance(options, dict):
            _add(lower(name).strip(), options, out, keyed)
            _add_id(node.get("item_id"), lower(name).strip(), ids)
        variants = node.get("variants")
        if isinstance(name, str) and isinstance(variants, dict):
            for variant in variants.values():
                if isinstance(variant, dict) and isinstance(variant.get("options"), dict):
                    _add(lower(name).strip(), variant["options"], out, keyed)
                    _add_id(variant.get("item_id"), lower(name).strip(), ids)
        for value in node.values():
            if isinstance(value, (dict, list)):
                _collect(value, out, keyed, orders, ids, depth + 1)
    elif isinstance(node, list):
        for value in node:
            if isinstance(value, (dict, list)):
                _collect(value, out, keyed, orders, ids, depth + 1)


def _add_id(item_id: Any, name: str, ids: dict[str, str]) -> None:
    """Record ``item_id`` as an item of product ``name`` (an id two products share is no one's)."""
    if isinstance(item_id, str) and item_id.strip():
        key = item_id.strip()
        ids[key] = name if ids.get(key, name) == name else ""


def _add(
    name: str,
    options: dict[Any, Any],
    out: list[tuple[str, frozenset[str]]],
    keyed: dict[str, dict[str, set[str]]],
) -> None:
    out.append((name, _values(options)))
    table = keyed.setdefault(name, {})
    for key, value in options.items():
        if isinstance(value, (str, int, float)) and str(value).strip():
            table.setdefault(lower(str(key)).strip(), set()).add(lower(str(value)).strip())


def _values(options: dict[Any, Any]) -> frozenset[str]:
    return frozenset(
        lower(str(v)).strip() for v in options.values() if isinstance(v, (str, int, float)) and str(v).strip()
    )


def _items(
    ev: Evidence, keyed: dict[str, dict[str, set[str]]], orders: dict[str, set[str]], ids: dict[str, str]
) -> list[tuple[str, frozenset[str]]]:
    """The (product name, option values) of every item and variant of the results; ``keyed`` gets each
    product's values by option key."""
    out: list[tuple[str, frozenset[str]]] = []
    for text in ev.contents.values():
        if '"options"' not in text:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        _collect(data, out, keyed, orders, ids)
    return out


def _told(value: str, tail: str) -> bool:
    """``value`` stands in ``tail`` as a word (a boolean option value never does)."""
    if value in ("true", "false", "yes", "no", "none", ""):
        return False
    return re.search(r"(?<![\w.])" + re.escape(value) + r"(?![\w.])", tail) is not None


def _options_after(answer: str, end: int) -> tuple[int, int] | None:
    """The span of the options told right after a name ending at ``end``, or None."""
    lead = _LEAD.match(answer, end)
    pos = lead.end() if lead else end
    for pattern in (_PAREN, _DASHED):
        found = pattern.match(answer, pos)
        if found is not None:
            return found.start(1), found.end(1)
    # A name ending its line's label ("Skateboard: 8-inch, ...") is told with the rest of that line; a
    # colon that ends the line (a heading) tells nothing on it.
    if lead is not None and ":" in answer[end:pos]:
        found = _COLONED.match(answer, pos)
        if found is not None:
            return found.start(1), found.end(1)
    return None


def check_item_options(answer: str, findings: list[Finding], ev: Evidence, sentence_of: Any) -> None:
    """Add or relabel, in place, a product name told with another product's item options.

    >>> from verification.engine.runs.evidence import Evidence
    >>> ev = Evidence()
    >>> ev.contents[1] = json.dumps({"items": [
    ...     {"name": "Desk Lamp", "options": {"color": "white", "brightness": "medium"}},
    ...     {"name": "Hiking Boots", "options": {"size": "12", "material": "leather"}}]})
    >>> a = "Returning: Hiking Boots (white, medium brightness)."
    >>> found = []
    >>> check_item_options(a, found, ev, lambda i: (0, len(a)))
    >>> [(f.mention.text, f.label) for f in found]
    [('Hiking Boots', 'CONTRADICTED')]
    >>> found = []
    >>> check_item_options(a.replace("Hiking Boots", "Desk Lamp"), found, ev, lambda i: (0, len(a)))
    >>> found
    []
    """
    if "(" not in answer and "- " not in answer and ", " not in answer and "#" not in answer:
        return  # no options told with a name, no enumeration of names, no order id
    keyed: dict[str, dict[str, set[str]]] = {}
    orders: dict[str, set[str]] = {}
    ids: dict[str, str] = {}
    items = _items(ev, keyed, orders, ids)
    if not items:
        return
    _check_order_lists(answer, findings, ev, orders, set(keyed), sentence_of)
    _check_enumerated_items(answer, findings, ev, orders, set(keyed), sentence_of)
    by_name: dict[str, set[str]] = {}
    for name, values in items:
        by_name.setdefault(name, set()).update(values)
    low = lower(answer)
    for name in sorted(by_name, key=len, reverse=True):
        if len(name) < 3 or name not in low:
            continue
        for hit in re.finditer(r"(?<![\w-])" + re.escape(name) + r"s?(?![\w-])", low):
            after = _options_after(low, hit.end())
            block = _block_under(low, hit.start(), hit.end(), name, by_name)
            # The options right after the name, then those under it when its line is a heading
            # ("**Exchange - Desk Lamp (Order #W1):**" then "- Current item: ...").
            for span, under in ((after, False), (block, True)):
                if span is None:
                    continue
                tail = low[span[0] : span[1]]
                own_told = sum(1 for v in by_name[name] if _told(v, tail))
                # The named product's own options told: no swap, unless one item of another product has
                # two more told there (a value both share, "small" for a backpack's size and a purifier's
                # room size, is no sign of the named product; issue 14, h20g).
                other = _owner(items, name, tail, by_name[name], own_told)
                line_end = _line_end(low, hit.end())
                if other is None and "$" not in low[hit.end() : line_end]:
                    # An item id alone with the name: one of the two is wrong, and the id is of a product
                    # the answer names here as this one. With a price on the line, the price tells which
                    # of the two it agrees with (check_records), so the id is left to it.
                    other = _id_owner(ids, name, tail)
                if other is None:
                    # A number told for one of its option keys must be one of the product's values for it.
                    _check_numbers(answer, findings, span, tail, keyed[name], sentence_of)
                    continue
                _mark(answer, findings, ev, hit.start(), hit.end(), other, sentence_of)
                # The name is the one wrong value: what its line tells with it, and the values of the other
                # product's item on the lines after it up to a blank line, are right for that item.
                _clear_other_items(findings, hit.end(), span[1] if under else line_end)
                _clear_other_items(findings, line_end, _paragraph_end(low, line_end), ev, other)
                break


_BLANK = re.compile(r"\n[ \t]*\n")
_MAX_BLOCK = 400


def _line_end(text: str, pos: int) -> int:
    stop = text.find("\n", pos)
    return len(text) if stop < 0 else stop


def _block_under(
    low: str, start: int, end: int, name: str, by_name: dict[str, set[str]]
) -> tuple[int, int] | None:
    """The lines under a heading that names the product at ``start:end`` and no other ("**Current Desk
    Lamp:**", "**Desk Lamp Exchange (Order #W1):**"), up to a blank line, when they name no other product of
    the results: the options told there are the heading's item's (issue 14, h20g). None otherwise."""
    stop = _line_end(low, end)
    line_start = low.rfind("\n", 0, start) + 1
    if stop >= len(low) or not low[end:stop].rstrip(" \t*_").endswith(":"):
        return None
    head = low[line_start:stop]
    block_end = min(len(low), stop + 1 + _MAX_BLOCK)
    blank = _BLANK.search(low, stop, block_end)
    if blank is not None:
        block_end = blank.start()
    block = low[stop + 1 : block_end]
    for other in by_name:
        if other == name or len(other) < 3:
            continue
        if other in head or other in block:
            return None  # another product named: the options may be its
    return (stop + 1, block_end) if block.strip() else None


_ORDER_ID = re.compile(r"#?([a-z]?\d{4,})")
# An order id, a few words ("contains multiple items"), then a parenthesised group on the same line.
_ORDER_GROUP = re.compile(r"[*_]*(?:[ \t]+[a-z]+){0,4}[ \t]*[:-]?[ \t]*\(([^()\n]{2,200})\)")
# An order id, a few words, a verb of containing, then the rest of the clause: "order #W1 that contains Desk
# Lamp and was delivered" (issue 14, h20g).
_ORDER_CONTAINS = re.compile(
    r"[*_]*(?:[ \t]+[a-z]+){0,3}?[ \t]+(?:contains|containing|includes|including|has)"
    r"[ \t]+([^.;:!?\n]{2,160})"
)


def _check_order_lists(
    answer: str,
    findings: list[Finding],
    ev: Evidence,
    orders: dict[str, set[str]],
    products: set[str],
    sentence_of: Any,
) -> None:
    """Contradict a product named in the parenthesised group right after an order id, or in the clause after
    its verb of containing, that is no item of that order: "order #W1 contains multiple items (Kettle,
    Lamp)", "Order #W1 (Lamp Exchange)", "order #W1 that contains Lamp and was delivered". Only the
    names of products the results list items of are read in the group; the order must be one the results
    give the items of."""
    if not orders:
        return
    low = lower(answer)
    names = sorted((n for n in products if len(n) >= 3), key=len, reverse=True)
    for hit in _ORDER_ID.finditer(low):
        own = orders.get(hit.group(1))
        if own is None:
            continue
        group = _ORDER_GROUP.match(low, hit.end()) or _ORDER_CONTAINS.match(low, hit.end())
        if group is None:
            continue
        a, b = group.span(1)
        text = low[a:b]
        found: list[tuple[int, int, str]] = []
        taken = [False] * len(text)
        for name in names:
            if name not in text:
                continue
            for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"s?(?![\w-])", text):
                if any(taken[m.start() : m.end()]):
                    continue
                taken[m.start() : m.end()] = [True] * (m.end() - m.start())
                found.append((a + m.start(), a + m.end(), name))
        for start, end, name in found:
            if name not in own:
                _mark(
                    answer, findings, ev, start, end, "", sentence_of, "this product is no item of this order"
                )


# What stands between the names of an enumeration of items: a comma, "and", "&", markup.
_NAME_GAP = re.compile(r"[*_]*[ \t]*(?:,[ \t]*(?:and[ \t]+)?|and[ \t]+|&[ \t]*)[*_]*")


def _enumerations(low: str, products: set[str]) -> list[list[tuple[int, int, str]]]:
    """The runs of three or more product names of the results the lower-cased answer enumerates ("Desk
    Lamp, Kettle, and Hiking Boots"), each name as (start, end, product), in answer order."""
    hits: list[tuple[int, int, str]] = []
    taken: set[int] = set()
    for name in sorted((n for n in products if len(n) >= 3), key=len, reverse=True):
        if name not in low:
            continue
        for m in re.finditer(r"(?<![\w-])" + re.escape(name) + r"(?:e?s)?(?![\w-])", low):
            if taken.isdisjoint(range(m.start(), m.end())):
                taken.update(range(m.start(), m.end()))
                hits.append((m.start(), m.end(), name))
    hits.sort()
    runs: list[list[tuple[int, int, str]]] = []
    run: list[tuple[int, int, str]] = []
    for hit in hits:
        if run and _NAME_GAP.fullmatch(low, run[-1][1], hit[0]):
            run.append(hit)
            continue
        if len(run) >= 3:
            runs.append(run)
        run = [hit]
    if len(run) >= 3:
        runs.append(run)
    return runs


def _check_enumerated_items(
    answer: str,
    findings: list[Finding],
    ev: Evidence,
    orders: dict[str, set[str]],
    products: set[str],
    sentence_of: Any,
) -> None:
    """Contradict the one product of an enumeration of an order's items that is no item of that order.

    An answer tells an order's items as a list ("Items being cancelled: Kettle, Desk Lamp, Hiking Boots");
    with one of them swapped for another product of the customer, every name is still in the results (issue
    14, h20g). The order is one the answer names by its id whose items are all the other names of the list
    (two at least); no order of the results may hold every name (a list across orders is not one order's).
    """
    if not orders:
        return
    low = lower(answer)
    told = [oid for oid in orders if oid in low]
    if not told:
        return
    for run in _enumerations(low, products):
        names = {name for _, _, name in run}
        if any(names <= items for items in orders.values()):
            continue
        for oid in told:
            outside = [hit for hit in run if hit[2] not in orders[oid]]
            if len(outside) == 1 and len(names - {outside[0][2]}) >= 2:
                start, end, _ = outside[0]
                reason = "this product is no item of this order"
                _mark(answer, findings, ev, start, end, "", sentence_of, reason)
                break


_PART = re.compile(r"[^,;()\n]+")
_NUMBER = re.compile(r"(?<![\w$.,])\d+(?:\.\d+)?(?![\w.]|,\d)")
_WORD = re.compile(r"[a-z]{3,}")


def _check_numbers(
    answer: str,
    findings: list[Finding],
    span: tuple[int, int],
    tail: str,
    table: dict[str, set[str]],
    sentence_of: Any,
) -> None:
    """Contradict a number told for an option key ("size 11", "24 hours battery") that none of the product's
    items or variants has for that key."""
    for part in _PART.finditer(tail):
        text = part.group()
        numbers = list(_NUMBER.finditer(text))
        if len(numbers) != 1 or len(text.split()) > 5:
            continue
        words = set(_WORD.findall(text))
        keys = [
            key
            for key, values in table.items()
            if any(_NUMBER.search(v) for v in values)
            and (set(_WORD.findall(key)) & words or {w for v in values for w in _WORD.findall(v)} & words)
        ]
        if not keys:
            continue
        number = numbers[0].group()
        if any(_told(number, value) for key in keys for value in table[key]):
            continue
        start = span[0] + part.start() + numbers[0].start()
        end = start + len(number)
        reason = "no item of this product has this value for " + " or ".join(keys)
        for f in findings:
            m = f.mention
            if m.start < end and m.end > start:
                if f.label == "SUPPORTED":
                    f.label, f.reason, f.facts, f.derived = "CONTRADICTED", reason, [], False
                break
        else:
            mention = Mention("number", start, end, answer[start:end], value=float(number))
            findings.append(Finding(mention, "CONTRADICTED", sentence_of(start), [], reason))


def _owner(
    items: list[tuple[str, frozenset[str]]], name: str, tail: str, own: set[str], own_told: int = 0
) -> str | None:
    """The other product one of whose items has at least two of its option values told in ``tail`` that
    the named product has none of, and, when ``own_told`` of the named product's values are told there,
    at least two more told values in all than that."""
    for other, values in items:
        if other == name:
            continue
        told = [v for v in values if _told(v, tail)]
        if sum(1 for v in told if v not in own) >= 2 and len(told) >= own_told + 2:
            return other
    return None


_ITEM_ID = re.compile(r"(?<![\w.])\d{8,}(?![\w.])")


def _id_owner(ids: dict[str, str], name: str, tail: str) -> str | None:
    """The other product whose item has the item id told in ``tail`` ("Water Bottle (item ID: 97914)" for a
    running shoes' item), when every item id told there is of that one product and none of the named one."""
    owners = {ids.get(m.group(), "") for m in _ITEM_ID.finditer(tail)} - {""}
    if len(owners) != 1 or name in owners:
        return None
    return owners.pop()


def _paragraph_end(text: str, pos: int) -> int:
    blank = _BLANK.search(text, pos)
    return len(text) if blank is None else blank.start()


def _of_product(f: Finding, product: str, ev: Evidence) -> bool:
    """Whether one of the records ``f``'s value is read from is an item named ``product``."""
    records = {r for _, r in f.records}
    return any(
        x.record in records
        and isinstance(x.path, tuple)
        and x.path[-1:] == ("name",)
        and lower(str(x.text or x.value)).strip() == product
        for x in ev.strings
    )


def _clear_other_items(
    findings: list[Finding], end: int, stop: int, ev: Evidence | None = None, product: str = ""
) -> None:
    """Relabel as supported the values told with a name just contradicted for another product's options
    (from ``end`` to ``stop``: the rest of its line, the block under its heading) that were read as another
    item's (its price, an option): they are right for the item the options give, so the name is the one
    wrong value (issue 14, h20g: a swapped name blamed on its price as well, or instead). With ``product``,
    only the values read from an item of that product are (the lines after the name's own)."""
    for f in findings:
        if end <= f.mention.start < stop and f.label == "CONTRADICTED" and f.reason == ANOTHER_ITEM:
            if ev is not None and product and not _of_product(f, product, ev):
                continue  # past the name's line, only the values of the other product's item
            f.label, f.reason = "SUPPORTED", "a value of the item its options give (its name is not)"


def _mark(
    answer: str,
    findings: list[Finding],
    ev: Evidence,
    start: int,
    end: int,
    other: str,
    sentence_of: Any,
    reason: str = "",
) -> None:
    reason = reason or f"these options are of an item of {other}, not of this product"
    facts = [x for x in ev.strings if lower(str(x.value)).strip() == other][:1] if other else []
    for f in findings:
        m = f.mention
        if m.start < end and m.end > start and m.kind == "entity":
            if f.label != "CONTRADICTED":
                f.label, f.reason, f.facts, f.derived = "CONTRADICTED", reason, facts, False
            return
    mention = Mention("entity", start, end, answer[start:end])
    findings.append(Finding(mention, "CONTRADICTED", sentence_of(start), facts, reason))
