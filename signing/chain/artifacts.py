"""Load the compiled ERC-8004 registry artifacts that ``node contracts/build.mjs`` writes.

>>> artifact = load_artifact("ReputationRegistry")
>>> artifact.selector("revokeFeedback(uint256,uint64)")
'0x4ab3ca99'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["ARTIFACT_NAMES", "BUILD_DIR", "Artifact", "load_artifact"]

# The artifacts are committed next to their sources, so the repository layout is the contract here.
BUILD_DIR = Path(__file__).resolve().parents[2] / "contracts" / "build"
ARTIFACT_NAMES = ("IdentityRegistry", "ReputationRegistry", "ValidationRegistry")


@dataclass(frozen=True)
class Artifact:
    """One compiled contract: its ABI, creation bytecode and the compiler that made it."""

    name: str
    abi: list[dict[str, Any]] = field(repr=False)
    bytecode: str = field(repr=False)
    compiler_version: str
    method_identifiers: dict[str, str] = field(repr=False)

    def selector(self, signature: str) -> str:
        """Return the 4-byte selector of a function signature as a 0x-prefixed hex string.

        >>> load_artifact("IdentityRegistry").selector("ownerOf(uint256)")
        '0x6352211e'
        """
        try:
            return "0x" + self.method_identifiers[signature]
        except KeyError:
            raise KeyError(f"{self.name} has no function {signature!r}") from None


@cache
def load_artifact(name: str, build_dir: Path | None = None) -> Artifact:
    """Read ``contracts/build/<name>.json`` (or ``build_dir/<name>.json``) into an :class:`Artifact`.

    >>> load_artifact("ValidationRegistry").bytecode.startswith("0x")
    True
    """
    path = (build_dir or BUILD_DIR) / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no artifact at {path}: run `node contracts/build.mjs` (after `npm ci`)")
    data = json.loads(path.read_text(encoding="utf-8"))
    bytecode = data.get("bytecode", "")
    if not isinstance(bytecode, str) or len(bytecode) <= 2:
        raise ValueError(f"artifact {path} has no bytecode")
    return Artifact(
        name=data["contractName"],
        abi=data["abi"],
        bytecode=bytecode,
        compiler_version=data["compiler"]["version"],
        method_identifiers=data["methodIdentifiers"],
    )
