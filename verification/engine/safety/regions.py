"""Which parts of a normalised text differ from the original, so that only those are scanned again.

``normalize`` (``deobfuscate``) undoes leetspeak, homoglyphs and the like.  When it keeps every offset,
a long text needs re-scanning only around the characters it changed: ``changed_regions`` finds those
windows by comparing fixed-size chunks (one C-level comparison each) and halving slices inside the
chunks at the edges of a window, never by walking characters in Python.
"""

from __future__ import annotations

from .injection_rules import FAST_PATH_MIN_CHARS

__all__ = ["changed_regions", "first_difference", "last_difference"]

# Chunk size of the first, C-level comparison; windows closer than ``2 * pad`` merge, so ``pad`` must be
# at least half a chunk for two differing chunks that share a window to be recognised as such.
_DIFF_CHUNK = 256


def changed_regions(text: str, normalized: str, pad: int = 400) -> list[str]:
    """The parts of ``normalized`` worth re-scanning: all of it, or on long texts whose normalisation kept
    every offset (leetspeak, homoglyphs), only the windows around the characters that changed.

    >>> changed_regions("abc", "abd")
    ['abd']
    """
    if len(text) < FAST_PATH_MIN_CHARS or len(normalized) != len(text):
        return [normalized]
    if 2 * pad < _DIFF_CHUNK:
        raise ValueError(f"pad must be at least {_DIFF_CHUNK // 2}, got {pad}")
    # Windows join changes less than 2 * pad apart: a window spans from its first change to its last, pad
    # added on each side.  Compare 256-character chunks (a C-level string comparison); two differing
    # chunks at most 2 * pad - 255 apart surely share a window, so only the first change of a window's
    # first chunk and the last change of its last chunk are looked for (by halving slices), and those
    # on both sides of a gap of undecided length.  Comparing character by character in Python, or
    # halving inside every differing chunk, would cost more than the re-scan it saves on a long page
    # (figures in docs/benchmarks.md, "The injection scanner's machinery").
    n = len(text)
    chunks = [
        c for c in range(0, n, _DIFF_CHUNK) if text[c : c + _DIFF_CHUNK] != normalized[c : c + _DIFF_CHUNK]
    ]
    windows: list[tuple[int, int]] = []
    i = 0
    while i < len(chunks):
        first = first_difference(text, normalized, chunks[i], min(n, chunks[i] + _DIFF_CHUNK))
        j = i
        while j + 1 < len(chunks):
            here, after = chunks[j], chunks[j + 1]
            # The changes on either side of the gap lie within their chunks: the gap is between these.
            shortest, longest = after - here - _DIFF_CHUNK + 1, after - here + _DIFF_CHUNK - 1
            if shortest > 2 * pad:
                break
            if longest > 2 * pad:
                next_change = first_difference(text, normalized, after, min(n, after + _DIFF_CHUNK))
                if next_change - last_difference(text, normalized, here, here + _DIFF_CHUNK) > 2 * pad:
                    break
            j += 1
        last = last_difference(text, normalized, chunks[j], min(n, chunks[j] + _DIFF_CHUNK))
        windows.append((max(0, first - pad), min(n, last + pad)))
        i = j + 1
    return [normalized[lo:hi] for lo, hi in windows]


def first_difference(a: str, b: str, lo: int, hi: int) -> int:
    """The first index in ``[lo, hi)`` where ``a`` and ``b`` differ; they must differ there."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid
    return lo


def last_difference(a: str, b: str, lo: int, hi: int) -> int:
    """The last index in ``[lo, hi)`` where ``a`` and ``b`` differ; they must differ there."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if a[mid:hi] == b[mid:hi]:
            hi = mid
        else:
            lo = mid
    return lo
