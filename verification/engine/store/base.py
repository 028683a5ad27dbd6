"""The store interface the engine talks to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

__all__ = ["StateStore", "Updater"]

#: A read-modify-write step: receives the current value (``None`` when the key is new) and returns the
#: value to store. It may mutate its argument in place and return it.
Updater = Callable[[Any], Any]


@runtime_checkable
class StateStore(Protocol):
    """Key/value state with atomic updates.

    Values are JSON-compatible (dicts, lists, str, int, float, bool, None). Implementations must make
    ``update`` atomic per key: two processes updating one key never lose either update.

    >>> from verification.engine.store import MemoryStore
    >>> isinstance(MemoryStore(), StateStore)
    True
    """

    def get(self, key: str) -> Any:
        """Return the value under *key*, or ``None`` when there is none.

        >>> from verification.engine.store import MemoryStore
        >>> MemoryStore().get("k") is None
        True
        """
        ...

    def get_many(self, keys: list[str]) -> list[Any]:
        """Return the values under *keys* in order (``None`` for missing keys).

        >>> from verification.engine.store import MemoryStore
        >>> MemoryStore().get_many(["a"])
        [None]
        """
        ...

    def update(self, key: str, fn: Updater) -> Any:
        """Atomically replace the value under *key* with ``fn(current)`` and return the new value.

        >>> from verification.engine.store import MemoryStore
        >>> MemoryStore().update("n", lambda v: (v or 0) + 1)
        1
        """
        ...

    def update_many(self, updates: dict[str, Updater]) -> list[Any]:
        """Apply several updates as one atomic step (one transaction on a shared store).

        >>> from verification.engine.store import MemoryStore
        >>> MemoryStore().update_many({"a": lambda v: 1})
        [1]
        """
        ...

    def clear(self) -> None:
        """Remove every key this store owns.

        >>> from verification.engine.store import MemoryStore
        >>> MemoryStore().clear()
        """
        ...
