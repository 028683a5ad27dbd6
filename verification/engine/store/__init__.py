"""State stores for the verification engine.

The engine keeps its learned state (SPC baselines, per-argument history, session windows, feedback) as
plain JSON-compatible values under string keys. A store only has to get a value and apply an atomic
read-modify-write to it, so the same engine runs in one process (:class:`MemoryStore`) or across many
processes and machines that share one Redis (:class:`RedisStore`).
"""

from verification.engine.store.base import StateStore
from verification.engine.store.memory import MemoryStore
from verification.engine.store.redis_store import RedisStore

__all__ = ["MemoryStore", "RedisStore", "StateStore"]
