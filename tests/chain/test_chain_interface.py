"""Every selector and topic0 that shared/erc8004/INTERFACE.md lists equals the compiled contracts'."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from eth_typing import ABIEvent, ABIFunction
from eth_utils import event_abi_to_log_topic, function_abi_to_4byte_selector, keccak

from signing.chain.artifacts import load_artifact

INTERFACE = Path(__file__).resolve().parents[2].parent / "shared" / "erc8004" / "INTERFACE.md"
SECTIONS = {
    "IdentityRegistry": "IdentityRegistry",
    "ReputationRegistry": "ReputationRegistry",
    "ValidationRegistry": "ValidationRegistry",
}
_ROW = re.compile(r"^\|\s*`(?P<text>[^`]+)`[^|]*\|\s*(?P<hex>0x[0-9a-fA-F]+)\s*\|\s*$")


@dataclass(frozen=True)
class Entry:
    contract: str
    text: str
    hex: str


def _split_top_level(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += char == "("
        depth -= char == ")"
        current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def _closing(text: str, start: int) -> int:
    depth = 0
    for position in range(start, len(text)):
        depth += text[position] == "("
        depth -= text[position] == ")"
        if depth == 0:
            return position
    raise ValueError(f"unbalanced parentheses in {text!r}")


def _param_type(param: str) -> tuple[str, bool]:
    """("uint256", indexed?) for "uint256 indexed agentId"; tuples like "(string k, bytes v)[] m" recurse."""
    if param.startswith("("):
        end = _closing(param, 0)
        inner = ",".join(_param_type(part)[0] for part in _split_top_level(param[1:end]))
        suffix = param[end + 1 :].split()[0] if param[end + 1 :].strip().startswith("[") else ""
        return f"({inner}){suffix}", "indexed" in param[end + 1 :].split()
    words = param.split()
    return words[0], "indexed" in words[1:]


@dataclass(frozen=True)
class Parsed:
    name: str
    inputs: list[tuple[str, bool]]
    outputs: list[str]
    view: bool

    @property
    def signature(self) -> str:
        return f"{self.name}({','.join(kind for kind, _ in self.inputs)})"


def _parse(text: str) -> Parsed:
    name, _, rest = text.partition("(")
    end = _closing("(" + rest, 0)
    params = rest[: end - 1]
    tail = rest[end:].strip()
    outputs: list[str] = []
    if "returns" in tail:
        returned = tail[tail.index("returns") + len("returns") :].strip()
        outputs = [_param_type(part)[0] for part in _split_top_level(returned[1 : _closing(returned, 0)])]
    return Parsed(
        name.strip(),
        [_param_type(part) for part in _split_top_level(params)],
        outputs,
        "view" in tail.split(),
    )


def _entries() -> tuple[list[Entry], list[Entry]]:
    if not INTERFACE.is_file():
        pytest.fail(f"INTERFACE.md not found at {INTERFACE}", pytrace=False)
    functions: list[Entry] = []
    events: list[Entry] = []
    contract = None
    for line in INTERFACE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            contract = SECTIONS.get(line[3:].split()[0])
            continue
        match = _ROW.match(line)
        if match is None or contract is None:
            continue
        entry = Entry(contract, match["text"].strip(), match["hex"].lower())
        (functions if len(entry.hex) == 10 else events).append(entry)
    return functions, events


FUNCTIONS, EVENTS = _entries()


def test_it_finds_every_table_row_of_interface_md() -> None:
    counts = {
        (kind, contract): sum(entry.contract == contract for entry in entries)
        for kind, entries in (("function", FUNCTIONS), ("event", EVENTS))
        for contract in SECTIONS
    }
    assert counts == {
        ("function", "IdentityRegistry"): 10,
        ("function", "ReputationRegistry"): 8,
        ("function", "ValidationRegistry"): 5,
        ("event", "IdentityRegistry"): 3,
        ("event", "ReputationRegistry"): 3,
        ("event", "ValidationRegistry"): 2,
    }


@pytest.mark.parametrize(
    "entry", FUNCTIONS, ids=lambda entry: f"{entry.contract}.{entry.text.split(')')[0]})"
)
def test_it_compiles_every_listed_function_with_its_selector(entry: Entry) -> None:
    parsed = _parse(entry.text)
    # The documented hex is the keccak of the documented signature: a check on the parser itself.
    assert "0x" + keccak(text=parsed.signature)[:4].hex() == entry.hex
    artifact = load_artifact(entry.contract)
    matches = [
        item
        for item in artifact.abi
        if item["type"] == "function"
        and "0x" + function_abi_to_4byte_selector(cast(ABIFunction, item)).hex() == entry.hex
    ]
    assert len(matches) == 1, (
        f"{entry.contract} has no function with selector {entry.hex} ({parsed.signature})"
    )
    abi = matches[0]
    assert abi["name"] == parsed.name
    assert [
        output["type"] if output["type"] != "tuple" else "tuple" for output in abi["outputs"]
    ] == parsed.outputs
    assert (abi["stateMutability"] == "view") == parsed.view
    assert artifact.selector(parsed.signature) == entry.hex


@pytest.mark.parametrize("entry", EVENTS, ids=lambda entry: f"{entry.contract}.{entry.text.split('(')[0]}")
def test_it_compiles_every_listed_event_with_its_topic0(entry: Entry) -> None:
    parsed = _parse(entry.text)
    assert "0x" + keccak(text=parsed.signature).hex() == entry.hex
    artifact = load_artifact(entry.contract)
    matches = [item for item in artifact.abi if item["type"] == "event" and item["name"] == parsed.name]
    assert len(matches) == 1, f"{entry.contract} has no event {parsed.name}"
    abi = matches[0]
    assert "0x" + event_abi_to_log_topic(cast(ABIEvent, abi)).hex() == entry.hex
    assert [(item["type"], item["indexed"]) for item in abi["inputs"]] == parsed.inputs


def test_it_declares_the_erc721_name_symbol_and_version() -> None:
    identity = load_artifact("IdentityRegistry")
    names = {item.get("name") for item in identity.abi}
    assert {"name", "symbol", "getVersion", "transferFrom", "safeTransferFrom", "supportsInterface"} <= names
    for contract in SECTIONS:
        assert (
            load_artifact(contract).selector("getVersion()") == "0x" + keccak(text="getVersion()")[:4].hex()
        )
