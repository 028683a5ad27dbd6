"""Scan registry logs in bounded, confirmed block ranges, and find where a stored chain was reorganised.

The scanner keeps no state: the caller stores ``next_block`` as its cursor and the block hashes it saw,
then calls :func:`find_reorg` before the next scan to learn from which block to re-read.

>>> plan_range(from_block=100, head=150, confirmations=10, max_range=25)
(100, 124)
>>> plan_range(from_block=100, head=105, confirmations=10, max_range=25) is None
True
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from hexbytes import HexBytes
from web3 import Web3
from web3.exceptions import Web3RPCError
from web3.types import FilterParams, LogReceipt

from signing.chain.events import ChainEvent, LogDecoder

__all__ = ["ScanResult", "find_reorg", "plan_range", "scan_logs"]


@dataclass(frozen=True)
class ScanResult:
    """One scanned range: its events in chain order and the hashes of the blocks they (and the end) are in.

    A registry log that does not decode is among the events as an ``UndecodableLog`` (kept raw), so one
    malformed log never fails the scan of its range.

    ``to_block`` is ``from_block - 1`` when nothing was confirmed yet; ``next_block`` is the new cursor.
    """

    from_block: int
    to_block: int
    events: list[ChainEvent] = field(default_factory=list)
    block_hashes: dict[int, str] = field(default_factory=dict)

    @property
    def next_block(self) -> int:
        """The first block the next scan should read.

        >>> ScanResult(10, 19).next_block
        20
        """
        return self.to_block + 1


def plan_range(*, from_block: int, head: int, confirmations: int, max_range: int) -> tuple[int, int] | None:
    """The inclusive block range to read next, or None when no confirmed block is left to read.

    >>> plan_range(from_block=0, head=0, confirmations=0, max_range=1)
    (0, 0)
    """
    if from_block < 0 or head < 0 or confirmations < 0:
        raise ValueError(
            f"from_block, head and confirmations must be >= 0 ({from_block}, {head}, {confirmations})"
        )
    if max_range < 1:
        raise ValueError(f"max_range must be >= 1, not {max_range}")
    last_confirmed = head - confirmations
    to_block = min(from_block + max_range - 1, last_confirmed)
    return None if to_block < from_block else (from_block, to_block)


def scan_logs(
    w3: Web3,
    *,
    addresses: Iterable[str],
    from_block: int,
    head: int,
    confirmations: int,
    max_range: int,
) -> ScanResult:
    """Read the registry events of ``addresses`` in the next confirmed range of at most ``max_range`` blocks.

    ``block_hashes`` holds the hash of every block with an event and of ``to_block``, so the caller can
    check later that these blocks are still canonical. When the node refuses a range as too large (too
    many results), the range is read in halves.

    >>> result = scan_logs(w3, addresses=[identity], from_block=0, head=w3.eth.block_number,
    ...     confirmations=0, max_range=1000)  # doctest: +SKIP
    """
    targets: list[str] = sorted({Web3.to_checksum_address(address) for address in addresses})
    if not targets:
        raise ValueError("scan_logs needs at least one contract address")
    planned = plan_range(from_block=from_block, head=head, confirmations=confirmations, max_range=max_range)
    if planned is None:
        return ScanResult(from_block=from_block, to_block=from_block - 1)
    start, end = planned
    decoder = LogDecoder()
    raw = _get_logs(w3, targets, sorted(decoder.topics()), start, end)
    logs = sorted(raw, key=lambda log: (log["blockNumber"], log["logIndex"]))
    events = [event for event in map(decoder.decode, logs) if event is not None]
    hashes = {event.block_number: event.block_hash for event in events}
    hashes[end] = HexBytes(w3.eth.get_block(end)["hash"]).to_0x_hex()
    return ScanResult(from_block=start, to_block=end, events=events, block_hashes=hashes)


def _get_logs(w3: Web3, targets: list[str], topics: list[str], start: int, end: int) -> list[LogReceipt]:
    params: FilterParams = {
        "fromBlock": start,
        "toBlock": end,
        "address": targets,  # type: ignore[typeddict-item]
        "topics": [topics],  # type: ignore[typeddict-item]
    }
    try:
        return list(w3.eth.get_logs(params))
    except Web3RPCError as error:
        # Public RPCs cap results per call as well as blocks: halve the range until each half fits.
        if end <= start or not _is_too_large(error):
            raise
        middle = (start + end) // 2
        return _get_logs(w3, targets, topics, start, middle) + _get_logs(w3, targets, topics, middle + 1, end)


_TOO_LARGE = ("range", "too many", "too large", "limit", "exceed", "more than")


def _is_too_large(error: Web3RPCError) -> bool:
    text = str(error).lower()
    return any(marker in text for marker in _TOO_LARGE)


def find_reorg(w3: Web3, stored_hashes: Mapping[int, str]) -> int | None:
    """The lowest stored block whose hash is no longer canonical (re-read from there), or None.

    >>> find_reorg(w3, result.block_hashes) is None  # doctest: +SKIP
    True
    """
    for number in sorted(stored_hashes):
        block = w3.eth.get_block(number) if number <= w3.eth.block_number else None
        if block is None or HexBytes(block["hash"]).to_0x_hex().lower() != stored_hashes[number].lower():
            return number
    return None
