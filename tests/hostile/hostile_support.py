"""Values and types shared by the hostile-input suite's fixtures and tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

AGENT = "hostile-agent"
TOOL = "weather_lookup"


@dataclass
class Listener:
    """A local HTTP server that records who called it."""

    url: str
    hits: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Server:
    base: str
    pid: int
    log: Path
    keys: dict[str, str]

    def worker_pids(self) -> set[int]:
        """Process ids of granian's workers (the children of its main process)."""
        children: set[int] = set()
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            text = (task / "children").read_text().split()
            children.update(int(pid) for pid in text)
        return children
