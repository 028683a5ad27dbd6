"""Size limits of the safety engines.

The engines themselves accept any length and keep their work linear in it; these constants are the
bounds a caller (the REST layer, run verification) should enforce *before* calling, so that one
request cannot occupy a worker for long.  ``scan_text`` enforces ``MAX_SCAN_CHARS`` itself.
"""

from __future__ import annotations

__all__ = [
    "MAX_CONTEXT_CHARS",
    "MAX_DECODED_CANDIDATES",
    "MAX_DECODED_CHARS",
    "MAX_EVIDENCE",
    "MAX_HISTORY_TURNS",
    "MAX_SCAN_CHARS",
]

#: Longest text ``scan_text`` accepts (characters).  200 000 characters is ~50 000 tokens: more than
#: any single prompt, tool result or answer we verify, small enough to scan in well under a second.
MAX_SCAN_CHARS = 200_000

#: Longest ``context`` (the prompt a risk score compares the answer against).
MAX_CONTEXT_CHARS = 200_000

#: Earlier turns of a conversation the multi-turn check looks at.
MAX_HISTORY_TURNS = 8

#: Encoded blobs (base64, hex) decoded and re-scanned per text; later ones are ignored.
MAX_DECODED_CANDIDATES = 16

#: Characters of one encoded blob that are decoded.
MAX_DECODED_CHARS = 8_192

#: Evidence items kept per finding (the strongest ones).
MAX_EVIDENCE = 20
