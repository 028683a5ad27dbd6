"""In-process state: a dict behind a lock, with no serialisation on the hot path."""

from __future__ import annotations

import threading
from typing import Any

from verification.engine.store.base import Updater

__all__ = ["MemoryStore"]


class MemoryStore:
    """State held in this process only.

    Values are kept as live objects (never copied or serialised) so a verification costs no JSON work.
    Updates are serialised by one lock, which makes the store safe for threads. At most *max_keys*
    keys are kept; the least recently updated go first (idle argument sets and sessions, never the
    per-tool baselines that every verification refreshes).

    >>> store = MemoryStore()
    >>> store.update("n", lambda v: (v or 0) + 1)
    1
    >>> store.get("n")
    1
    """

    def __init__(self, max_keys: int = 1_000_000) -> None:
        if max_keys < 1:
            raise ValueError(f"max_keys must be >= 1, got {max_keys}")
        self.max_keys = max_keys
        self._data: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _put(self, key: str, value: Any) -> None:
        data = self._data
        # Re-inserting moves the key to the end: dict order is then least recently updated first.
        data.pop(key, None)
        data[key] = value
        if len(data) > self.max_keys:
            del data[next(iter(data))]

    def get(self, key: str) -> Any:
        """Return the value under *key* or ``None``.

        >>> MemoryStore().get("missing") is None
        True
        """
        return self._data.get(key)

    def get_many(self, keys: list[str]) -> list[Any]:
        """Return the values under *keys* in order.

        >>> MemoryStore().get_many(["a", "b"])
        [None, None]
        """
        data = self._data
        return [data.get(k) for k in keys]

    def update(self, key: str, fn: Updater) -> Any:
        """Store ``fn(current)`` under *key* atomically and return it.

        >>> s = MemoryStore()
        >>> s.update("xs", lambda v: (v or []) + [1])
        [1]
        """
        with self._lock:
            value = fn(self._data.get(key))
            self._put(key, value)
            return value

    def update_many(self, updates: dict[str, Updater]) -> list[Any]:
        """Apply every ``key: fn`` update under one lock acquisition.

        >>> MemoryStore().update_many({"a": lambda v: 1, "b": lambda v: 2})
        [1, 2]
        """
        out = []
        with self._lock:
            data = self._data
            for key, fn in updates.items():
                value = fn(data.get(key))
                self._put(key, value)
                out.append(value)
        return out

    def clear(self) -> None:
        """Forget everything.

        >>> s = MemoryStore(); _ = s.update("k", lambda v: 1); s.clear(); s.get("k") is None
        True
        """
        with self._lock:
            self._data.clear()

    def __len__(self) -> int:
        return len(self._data)
