"""Log lines that a request cannot forge: control characters in logged values are escaped.

A path like `/a%0A[2026-01-01] 10.0.0.1 - "GET /admin/ HTTP/1.1" 200` is decoded by the server
before it is logged; written as-is, the newline starts a second, made-up access-log line. Escaped
(`\\n`), the whole request stays on one line. Used by granian's access log (config/granian-logging.json,
passed by docker/entrypoint.sh) and by the application's own log handler (settings.LOGGING).

Only the formatted message is escaped: a traceback appended to an error record keeps its lines.

>>> escape_controls('GET /a\\n[forged] "GET /admin/" 200\\x00\\x1b[31m')
'GET /a\\\\n[forged] "GET /admin/" 200\\\\x00\\\\x1b[31m'
"""

from __future__ import annotations

import logging
import re

# C0 and C1 controls, DEL, and the Unicode line and paragraph separators some log viewers break on.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """The text with every control character written as a visible escape (`\\n`, `\\x1b`, `\\u2028`)."""
    return _CONTROL.sub(_escape, text)


class ControlEscapingFormatter(logging.Formatter):
    """A logging.Formatter whose message part never holds a raw control character."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        return escape_controls(super().formatMessage(record))
