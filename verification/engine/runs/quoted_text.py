"""The text of YAML double-quoted strings inside a tool result that is not JSON.

Tools that answer in YAML dump a web page as one double-quoted string: its line breaks are ``\\n``
escapes, its non-ASCII characters ``\\u2013`` escapes, and long lines are folded with a trailing backslash
and a ``\\ `` on the next line. Read as it stands, "\\n8:00 AM \\u2013 5:00 PM" has no clock time at its
start (the ``n`` of the escape is glued to the digit) and "Sunday\\n\\nClosed" no word "Closed". The result
is read once more with those strings decoded: the values, times and words of the page as it was written.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["decode_quoted", "has_quoted_escapes"]

# A double-quoted scalar after a key or a list dash: ``content: "..."``, ``- "..."``. The body runs to the
# first unescaped quote, over lines (``.`` takes a line break too: an escaped break is ``\\.``). Each piece of
# the body can be read one way only: with a second way for an escaped break, a string that never closed cost
# twice as much for each break in it (40 breaks in a tool result: minutes of CPU).
_QUOTED: Final = re.compile(r'(?<=: |- )"((?:[^"\\]|\\.)*+)"', re.S)
# An escaped line break and the indentation after it: the two lines join with nothing between them.
_ESCAPED_BREAK: Final = re.compile(r"\\\n[ \t]*")
# A plain line break inside the string and the indentation after it: one break is a space, more are
# breaks less one (YAML line folding).
_FOLDED_BREAK: Final = re.compile(r"[ \t]*(\n+)[ \t]*")
_ESCAPE: Final = re.compile(r"\\(?:u([0-9a-fA-F]{4})|x([0-9a-fA-F]{2})|U([0-9a-fA-F]{8})|(.))", re.S)
_SIMPLE: Final[dict[str, str]] = {
    "n": "\n", "t": "\t", "r": "\n", '"': '"', "\\": "\\", "/": "/", " ": " ", "_": "\u00a0",
    "0": "", "a": "", "b": "", "e": "", "f": "", "v": "", "N": "\u0085", "L": "\u2028", "P": "\u2029",
    "\t": "\t",
}  # fmt: skip


def has_quoted_escapes(text: str) -> bool:
    """Whether ``text`` may hold a YAML double-quoted string with escapes (a cheap test before decoding).

    >>> has_quoted_escapes('content: "a\\\\nb"'), has_quoted_escapes("status: open")
    (True, False)
    """
    return '"' in text and "\\" in text and (': "' in text or '- "' in text)


def _fold(match: re.Match[str]) -> str:
    breaks = len(match.group(1))
    return " " if breaks == 1 else "\n" * (breaks - 1)


def _unescape(match: re.Match[str]) -> str:
    code = match.group(1) or match.group(2) or match.group(3)
    if code is not None:
        point = int(code, 16)
        if 0xD800 <= point <= 0xDFFF or point > 0x10FFFF:
            return ""  # half of a surrogate pair, or no character at all
        return chr(point)
    char = match.group(4)
    return _SIMPLE.get(char, char)


def _decode_body(body: str) -> str:
    # The escaped breaks first (their backslash is no escape of the next character), then the plain
    # breaks are folded, and only then are the escapes read (a ``\n`` escape is a break that stays).
    joined = _ESCAPED_BREAK.sub("", body)
    folded = _FOLDED_BREAK.sub(_fold, joined)
    return _ESCAPE.sub(_unescape, folded)


def decode_quoted(text: str) -> str:
    r"""``text`` with each YAML double-quoted string that holds an escape replaced by its decoded text
    (between its quotes); other text is left as it is.

    >>> decode_quoted('page: "Hours\\n\\nSunday: Closed \\u2013 all day"\nurl: x')
    'page: "Hours\n\nSunday: Closed – all day"\nurl: x'
    >>> decode_quoted('page: "a long\\' + '\n  \\ line, and a\n  folded one"')
    'page: "a long line, and a folded one"'
    """
    if not has_quoted_escapes(text):
        return text
    out: list[str] = []
    last = 0
    for m in _QUOTED.finditer(text):
        body = m.group(1)
        if "\\" not in body:
            continue
        out.append(text[last : m.start(1)])
        out.append(_decode_body(body))
        last = m.end(1)
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)
