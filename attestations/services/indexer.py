"""Index the ERC-8004 registries into the registry: agents, feedback, validation outcomes.

One run: check the stored block hashes for a reorg (undo what came from orphaned blocks, rewind), then
read confirmed blocks from the cursor in bounded ranges. Each range is stored in one transaction with
the cursor and the block hashes, so a crash loses at most the range in flight, which is read again.
Events are unique per (chain, transaction, log index), so reading a range twice changes nothing.

No log can stop the cursor: one that does not decode is stored raw as UNDECODABLE, and one whose effects
fail is applied in its own savepoint, rolled back alone and stored as FAILED; the range moves on. Only
errors that say the node or the database is unreachable stop the run (the range is read again later).
Chain facts win: an on-chain agent's record is its ``eip155:`` subject, with the owner the chain says,
and any other record claiming the same (chain id, agent id) is detached from it.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.db.models import Exists, Min, OuterRef
from eth_abi.exceptions import DecodingError
from hexbytes import HexBytes
from requests import RequestException
from web3 import Web3
from web3.exceptions import ContractLogicError, ProviderConnectionError, TimeExhausted, Web3RPCError

from common.enqueue import task_enqueue_on_commit
from registry.models import Agent, CheckOutcome, FeedbackEntry, Provider, ReviewerFirstTx
from registry.services.agents import agent_register
from registry.services.feedback import Feedback, feedback_record, feedback_revoke
from registry.services.outcomes import outcomes_record
from registry.services.recompute import recompute_mark
from registry.services.validation import NormalisedOutcome
from signing.canonical import canonical_digest
from signing.chain import events as ev
from signing.chain.identity import IdentityClient
from signing.chain.reputation import ReputationClient
from signing.chain.scan import find_reorg, scan_logs
from signing.chain.settings import ChainSettings

from ..models import ChainCursor, ChainEvent, ChainEventStatus, OutgoingStatus, ValidationAnswer
from .chain import agent_subject_id
from .links import agent_links_refresh
from .registrations import agent_uri_restore, agent_uri_set

logger = logging.getLogger(__name__)

# Hashes of this many most recent blocks are kept for reorg detection. A reorg deeper than this (far
# beyond any confirmation depth in use) would go unnoticed.
HASH_WINDOW = 256
_BASE_FIELDS = {f.name for f in fields(ev.ChainEvent)}
# A validation response at or above this is read as ALLOW, below it as BLOCK (see docs/erc8004.md).
VALIDATION_ALLOW_THRESHOLD = 50
# On-chain agent ids whose owner this indexer run has taken from the chain (an event or ownerOf). Until
# then an owner in the database may be one a provider wrote, so the first sight of an agent in a run reads
# ownerOf (one call per agent and run); None outside a run.
_OWNERS_READ: ContextVar[set[int] | None] = ContextVar("owners_read", default=None)
# Block timestamps read during one index run: one eth_getBlockByNumber per block that holds feedback,
# however many feedbacks it holds (reviewer age, SPEC 2.4).
_BLOCK_TIMES: ContextVar[dict[int, datetime] | None] = ContextVar("block_times", default=None)
#: The identity registry's reserved metadata key of the agent's verified wallet (setAgentWallet).
AGENT_WALLET_KEY = "agentWallet"
# FeedbackEntry.tag1/tag2 are CharField(255) in the registry app; the full tag stays in the ChainEvent.
FEEDBACK_TAG_CHARS = 255
# Failures of the node or the database, not of the event: they stop the run so the range is read again.
_TRANSIENT = (
    RequestException,
    ProviderConnectionError,
    TimeExhausted,
    Web3RPCError,
    OperationalError,
    InterfaceError,
    ConnectionError,
    TimeoutError,
)


@dataclass(frozen=True)
class IndexRun:
    """What one indexer run did."""

    from_block: int
    next_block: int
    new_events: int
    reorg_from: int | None


def chain_contracts(*, chain: ChainSettings) -> list[str]:
    """The registry addresses to read, checksummed and sorted (the ValidationRegistry may be unset)."""
    if not chain.identity_registry or not chain.reputation_registry:
        raise ValueError("the chain settings name no IdentityRegistry/ReputationRegistry address")
    addresses = [chain.identity_registry, chain.reputation_registry, chain.validation_registry]
    return sorted({Web3.to_checksum_address(a) for a in addresses if a})


def chain_cursor_get(*, chain: ChainSettings) -> ChainCursor:
    cursor, _ = ChainCursor.objects.get_or_create(
        chain_id=chain.chain_id,
        contracts=",".join(chain_contracts(chain=chain)),
        defaults={"next_block": chain.start_block, "block_hashes": {}},
    )
    return cursor


def chain_index_run(
    *, chain: ChainSettings, w3: Web3, validator: str | None = None, max_batches: int = 50
) -> IndexRun:
    """Undo a reorg if there was one, then index up to `max_batches` confirmed block ranges."""
    cursor = chain_cursor_get(chain=chain)
    reorg_from = _reorg_check(chain=chain, w3=w3, cursor=cursor)
    started = cursor.next_block
    owners_read = _OWNERS_READ.set(set())
    block_times = _BLOCK_TIMES.set({})
    try:
        cursor, new_events = _index_batches(
            chain=chain, w3=w3, cursor=cursor, validator=validator, max_batches=max_batches
        )
        reviewer_first_tx_probe(chain=chain, w3=w3)
    finally:
        _BLOCK_TIMES.reset(block_times)
        _OWNERS_READ.reset(owners_read)
    return IndexRun(started, cursor.next_block, new_events, reorg_from)


# --- reviewer age: a wallet's first transaction -----------------------------------------------------

#: Reviewers whose first transaction one index run looks for: each costs about log2(block) nonce reads
#: (27 on a chain of 100 M blocks) and one block read, so a run spends at most ~30 × this many calls on it;
#: the rest wait for the next run, oldest feedback first.
REVIEWER_PROBES_PER_RUN = 20


def _first_tx_block(w3: Web3, address: str, upper: int) -> int:
    """The block of `address`'s first transaction, given one at or before block `upper`.

    The nonce is 0 before the first transaction and at least 1 from its block on: a binary search.
    """
    lo, hi = 0, upper
    while lo < hi:
        mid = (lo + hi) // 2
        if w3.eth.get_transaction_count(Web3.to_checksum_address(address), mid) > 0:
            hi = mid
        else:
            lo = mid + 1
    return lo


def reviewer_first_tx_probe(*, chain: ChainSettings, w3: Web3, limit: int = REVIEWER_PROBES_PER_RUN) -> int:
    """Find when up to `limit` new reviewers on this chain first sent a transaction; returns how many.

    A node without archive state cannot answer for old blocks: the reviewer's first indexed feedback
    stands in (probed=False). The agents they rated are rescored, since their reviewers' ages changed.
    """
    known = ReviewerFirstTx.objects.filter(chain_id=chain.chain_id, address=OuterRef("client_address"))
    pending = list(
        FeedbackEntry.objects.filter(agent__chain_id=chain.chain_id, block_number__isnull=False)
        .exclude(Exists(known))
        .values("client_address")
        .annotate(first_block=Min("block_number"))
        .order_by("first_block", "client_address")
        .values_list("client_address", "first_block")[:limit]
    )
    for address, first_block in pending:
        probed = True
        try:
            block = _first_tx_block(w3, address, first_block)
        except (Web3RPCError, ValueError):
            logger.info("no nonce history for %s on chain %s; its first feedback stands in", address, chain)
            block, probed = first_block, False
        try:
            at = datetime.fromtimestamp(int(w3.eth.get_block(block)["timestamp"]), UTC)
        except (Web3RPCError, ValueError):
            continue
        ReviewerFirstTx.objects.get_or_create(
            chain_id=chain.chain_id,
            address=address,
            defaults={"block_number": block, "block_time": at, "probed": probed},
        )
    if pending:
        rated = FeedbackEntry.objects.filter(client_address__in=[address for address, _ in pending])
        recompute_mark(agent_ids=sorted(set(rated.values_list("agent_id", flat=True))))
    return len(pending)


def _index_batches(
    *, chain: ChainSettings, w3: Web3, cursor: ChainCursor, validator: str | None, max_batches: int
) -> tuple[ChainCursor, int]:
    new_events = 0
    for _ in range(max_batches):
        result = scan_logs(
            w3,
            addresses=chain_contracts(chain=chain),
            from_block=cursor.next_block,
            head=w3.eth.block_number,
            confirmations=chain.confirmations,
            max_range=chain.max_block_range,
        )
        if result.to_block < result.from_block:
            break
        with transaction.atomic():
            # Re-read under the transaction: another indexer may have moved the cursor meanwhile.
            locked = ChainCursor.objects.select_for_update().get(pk=cursor.pk)
            if locked.next_block != result.from_block:
                logger.info(
                    "chain cursor moved by another run (%s != %s)", locked.next_block, result.from_block
                )
                cursor = locked
                continue
            for event in result.events:
                if _event_index(chain=chain, w3=w3, event=event, validator=validator):
                    new_events += 1
            hashes = {**locked.block_hashes, **{str(n): h for n, h in result.block_hashes.items()}}
            newest = sorted(hashes, key=int)[-HASH_WINDOW:]
            locked.block_hashes = {n: hashes[n] for n in newest}
            locked.next_block = result.next_block
            locked.save(update_fields=["block_hashes", "next_block", "updated_at"])
            cursor = locked
    return cursor, new_events


# --- reorgs ------------------------------------------------------------------------------------------


def _reorg_check(*, chain: ChainSettings, w3: Web3, cursor: ChainCursor) -> int | None:
    stored = {int(n): h for n, h in cursor.block_hashes.items()}
    if not stored:
        return None
    newest = max(stored)
    # A block hash commits to all its ancestors: when the newest stored block is still canonical, so is
    # everything below it, and one request settles the common case.
    if newest <= w3.eth.block_number:
        current = HexBytes(w3.eth.get_block(newest)["hash"]).to_0x_hex()
        if current.lower() == stored[newest].lower():
            return None
    fork = find_reorg(w3, stored)
    if fork is None:
        return None
    chain_rewind(chain=chain, cursor=cursor, from_block=fork)
    return fork


def chain_rewind(*, chain: ChainSettings, cursor: ChainCursor, from_block: int) -> None:
    """Forget everything indexed from `from_block` on and move the cursor back there."""
    logger.warning("chain %s reorganised from block %s: rewinding", chain.chain_id, from_block)
    with transaction.atomic():
        locked = ChainCursor.objects.select_for_update().get(pk=cursor.pk)
        orphaned = list(ChainEvent.objects.filter(chain_id=chain.chain_id, block_number__gte=from_block))
        agents: set[int] = set()
        uri_changed: dict[int, Agent] = {}
        for row in orphaned:
            agent = _known_agent(chain=chain, agent_id=row.args.get("agent_id"))
            if agent is None:
                continue
            if row.name in ("Registered", "URIUpdated"):
                uri_changed[agent.pk] = agent
            if row.name == "NewFeedback":
                FeedbackEntry.objects.filter(
                    agent=agent,
                    client_address=row.args["client_address"],
                    feedback_index=row.args["feedback_index"],
                ).delete()
                agents.add(agent.pk)
            elif row.name == "FeedbackRevoked":
                FeedbackEntry.objects.filter(
                    agent=agent,
                    client_address=row.args["client_address"],
                    feedback_index=row.args["feedback_index"],
                ).update(revoked=False)
                agents.add(agent.pk)
        # An answer not yet sent to an orphaned request is dropped; if the request is still on the new
        # branch, re-reading it creates the answer again. Sent answers are left to their receipts.
        ValidationAnswer.objects.filter(
            chain_id=chain.chain_id, request_block__gte=from_block, status=OutgoingStatus.PENDING
        ).delete()
        ChainEvent.objects.filter(chain_id=chain.chain_id, block_number__gte=from_block).delete()
        # A first transaction found on the orphaned branch may not be on the new one: probe it again.
        ReviewerFirstTx.objects.filter(chain_id=chain.chain_id, block_number__gte=from_block).delete()
        locked.block_hashes = {n: h for n, h in locked.block_hashes.items() if int(n) < from_block}
        locked.next_block = min(locked.next_block, from_block)
        locked.reorgs += 1
        locked.save(update_fields=["block_hashes", "next_block", "reorgs", "updated_at"])
        # An orphaned URI event: the agent's URI is the one its newest remaining event set.
        for agent in uri_changed.values():
            agent_uri_restore(agent=agent, chain=chain)
        for agent_pk in agents:
            recompute_mark(agent_ids=[agent_pk])
    cursor.refresh_from_db()


# --- storing and applying events ---------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    return HexBytes(value).to_0x_hex() if isinstance(value, bytes) else value


def _event_index(*, chain: ChainSettings, w3: Web3, event: ev.ChainEvent, validator: str | None) -> bool:
    """Store one event and apply it; False when it was stored before. Never raises for the event's sake."""
    row = _event_store(chain=chain, event=event)
    if row is None:
        return False
    if row.status != ChainEventStatus.APPLIED:
        logger.warning("chain log %s kept raw and skipped: %s", row, row.error)
        return True
    try:
        # A savepoint per event: a failure undoes this event's effects only, not the range's.
        with transaction.atomic():
            _event_apply(chain=chain, w3=w3, event=event, validator=validator)
    except _TRANSIENT:
        raise
    except Exception as error:
        # Whatever one event's data makes the code do, the other events and the cursor go on.
        logger.exception("chain event %s could not be applied; kept and skipped", row)
        # Owners it wrote were rolled back with it: read them from the chain again.
        if (owners := _OWNERS_READ.get()) is not None:
            owners.clear()
        ChainEvent.objects.filter(pk=row.pk).update(
            status=ChainEventStatus.FAILED, error=ev.display_text(f"{type(error).__name__}: {error}")
        )
    return True


def _event_row(*, event: ev.ChainEvent) -> dict[str, Any]:
    """The ChainEvent columns of an event: display text in `args`, exact bytes where they differ."""
    raw = {
        "block_number": event.block_number,
        "block_hash": event.block_hash,
        "contract_address": event.address,
        "topics": list(event.topics),
        "data": event.data,
    }
    if isinstance(event, ev.UndecodableLog):
        error = ev.display_text(event.error)
        return {**raw, "name": event.name, "args": {}, "status": ChainEventStatus.UNDECODABLE, "error": error}
    args: dict[str, Any] = {}
    raw_args: dict[str, str] = {}
    for key, value in asdict(event).items():
        if key in _BASE_FIELDS:
            continue
        if key in type(event).TEXT_FIELDS:
            args[key] = ev.display_text(value)
            if args[key] != value:
                raw_args[key] = HexBytes(ev.raw_text(value)).to_0x_hex()
        else:
            args[key] = _jsonable(value)
    return {**raw, "name": type(event).__name__, "args": args, "raw_args": raw_args}


def _event_store(*, chain: ChainSettings, event: ev.ChainEvent) -> ChainEvent | None:
    """Store the event and return its new row; None when it was stored before (a re-read range).

    Should the decoded form not store (a value no column foresaw), the raw log is stored instead.
    """
    row = _event_row(event=event)
    key = {"chain_id": chain.chain_id, "tx_hash": event.transaction_hash, "log_index": event.log_index}
    try:
        with transaction.atomic():
            stored, created = ChainEvent.objects.get_or_create(**key, defaults=row)
    except IntegrityError:
        return None
    except _TRANSIENT:
        raise
    except Exception as error:
        # A value no column foresaw (e.g. a DataError): the raw log, which always stores, is kept instead.
        fallback = {
            **{k: row[k] for k in ("block_number", "block_hash", "contract_address", "topics", "data")},
            "name": type(event).__name__,
            "args": {},
            "status": ChainEventStatus.UNDECODABLE,
            "error": ev.display_text(f"not storable: {type(error).__name__}: {error}"),
        }
        with transaction.atomic():
            stored, created = ChainEvent.objects.get_or_create(**key, defaults=fallback)
    return stored if created else None


def _feedback_tag(text: str) -> str:
    """A feedback tag as FeedbackEntry holds it: display text, clipped (marked with …) to the column.

    A clipped tag is longer than any tag a score reads, so clipping cannot make a tag count.

    >>> _feedback_tag("starred"), len(_feedback_tag("x" * 300)), _feedback_tag("x" * 300)[-1]
    ('starred', 255, '…')
    """
    shown = ev.display_text(text)
    return shown if len(shown) <= FEEDBACK_TAG_CHARS else shown[: FEEDBACK_TAG_CHARS - 1] + "…"


def _event_apply(*, chain: ChainSettings, w3: Web3, event: ev.ChainEvent, validator: str | None) -> None:
    if isinstance(event, ev.Registered):
        agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id, owner=event.owner)
        agent_uri_set(agent=agent, chain=chain, uri=event.agent_uri, block=event.block_number)
    elif isinstance(event, ev.URIUpdated):
        agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id)
        _refresh_owner(chain=chain, w3=w3, agent=agent)
        agent_uri_set(agent=agent, chain=chain, uri=event.new_uri, block=event.block_number)
    elif isinstance(event, ev.Transfer) and int(event.from_address, 16) != 0:
        # A new owner changes who counts as self-reporting about this agent: rescore it.
        agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id, owner=event.to_address)
        recompute_mark(agent_ids=[agent.pk])
    elif isinstance(event, ev.MetadataSet) and event.metadata_key == AGENT_WALLET_KEY:
        _wallet_refresh(chain=chain, w3=w3, agent_id=event.agent_id)
    elif isinstance(event, ev.NewFeedback):
        _feedback_add(chain=chain, w3=w3, event=event)
    elif isinstance(event, ev.FeedbackRevoked):
        _feedback_revoke(chain=chain, w3=w3, event=event)
    elif isinstance(event, ev.ValidationRequest):
        _validation_request(chain=chain, w3=w3, event=event, validator=validator)
    elif isinstance(event, ev.ValidationResponse):
        _validation_outcome(chain=chain, w3=w3, event=event)


def _known_agent(*, chain: ChainSettings, agent_id: Any) -> Agent | None:
    if agent_id is None:
        return None
    return Agent.objects.filter(chain_id=chain.chain_id, erc8004_agent_id=agent_id).first()


def onchain_agent_ensure(*, chain: ChainSettings, w3: Web3, agent_id: int, owner: str | None = None) -> Agent:
    """The registry Agent of an on-chain agent, with the chain's facts (created on first sight).

    The record is the agent's ``eip155:`` subject; its agent id and registry are the chain's, and so is its
    owner: the one an event names, else ``ownerOf`` when the record is not linked to the agent yet or,
    during an index run, on the run's first sight of the agent (an owner someone else wrote is never
    trusted). Any other record claiming this (chain id, agent id) is a squatter and is detached first, so
    feedback and validations land on the real agent.
    """
    assert chain.identity_registry is not None
    subject_id = agent_subject_id(
        chain_id=chain.chain_id, identity_registry=chain.identity_registry, agent_id=agent_id
    )
    _squatters_detach(chain=chain, agent_id=agent_id, subject_id=subject_id)
    agent = Agent.objects.filter(subject_id=subject_id).first()
    linked = (
        agent is not None
        and agent.chain_id == chain.chain_id
        and agent.erc8004_agent_id is not None
        and int(agent.erc8004_agent_id) == agent_id
        and agent.registry == Agent.Registry.ERC8004
    )
    owners_read = _OWNERS_READ.get()
    if owner is None and (not linked or (owners_read is not None and agent_id not in owners_read)):
        try:
            owner = IdentityClient(w3, chain.identity_registry).owner_of(agent_id)
        except ContractLogicError:
            owner = ""  # burned or unknown: keep the agent, without an owner
    if owner is not None and owners_read is not None:
        owners_read.add(agent_id)
    checksummed = Web3.to_checksum_address(owner) if owner else owner
    if agent is None:
        agent = agent_register(
            subject_id=subject_id,
            registry=Agent.Registry.ERC8004,
            owner_address=checksummed or "",
            chain_id=chain.chain_id,
            erc8004_agent_id=agent_id,
        )
        # The same owner may have registered this agent on another chain already.
        agent_links_refresh(agent=agent)
        return agent
    facts: dict[str, Any] = {
        "registry": Agent.Registry.ERC8004,
        "chain_id": chain.chain_id,
        "erc8004_agent_id": agent_id,
    }
    if checksummed is not None:
        facts["owner_address"] = checksummed
    changed = {
        name: value
        for name, value in facts.items()
        if (str(getattr(agent, name)).lower() if name == "owner_address" else getattr(agent, name))
        != (str(value).lower() if name == "owner_address" else value)
    }
    if changed:
        if not linked:
            logger.warning("agent %s takes its chain facts from the chain: %s", subject_id, sorted(changed))
        Agent.objects.filter(pk=agent.pk).update(**changed)
        agent.refresh_from_db()
        if "owner_address" in changed:
            # The owner decides which reports about the agent are self-reported, and which of its
            # identities on other chains it is linked with.
            recompute_mark(agent_ids=[agent.pk])
            agent_links_refresh(agent=agent)
    return agent


def _squatters_detach(*, chain: ChainSettings, agent_id: int, subject_id: str) -> None:
    """Clear the on-chain identity of every other record that claims (chain id, agent id)."""
    squatters = list(
        Agent.objects.filter(chain_id=chain.chain_id, erc8004_agent_id=agent_id).exclude(
            subject_id=subject_id
        )
    )
    for squatter in squatters:
        logger.warning(
            "agent %s claimed on-chain agent %s on chain %s; detached (the chain maps it to %s)",
            squatter.subject_id,
            agent_id,
            chain.chain_id,
            subject_id,
        )
        Agent.objects.filter(pk=squatter.pk).update(
            chain_id=None,
            erc8004_agent_id=None,
            owner_address="",
            registry=Agent.Registry.OTHER
            if squatter.registry == Agent.Registry.ERC8004
            else squatter.registry,
        )
        recompute_mark(agent_ids=[squatter.pk])


def _refresh_owner(*, chain: ChainSettings, w3: Web3, agent: Agent) -> None:
    assert chain.identity_registry is not None and agent.erc8004_agent_id is not None
    try:
        owner = IdentityClient(w3, chain.identity_registry).owner_of(int(agent.erc8004_agent_id))
    except ContractLogicError:
        return
    if owner.lower() != agent.owner_address.lower():
        Agent.objects.filter(pk=agent.pk).update(owner_address=Web3.to_checksum_address(owner))
        agent_links_refresh(agent=agent)


def _wallet_refresh(*, chain: ChainSettings, w3: Web3, agent_id: int) -> None:
    """Keep the agent's verified wallet (getAgentWallet): its own address, never an independent reviewer.

    Read from the chain rather than decoded from the event, so the stored wallet is the registry's
    current one whatever order the run meets the events in (it is cleared on transfer).
    """
    assert chain.identity_registry is not None
    agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=agent_id)
    try:
        wallet = IdentityClient(w3, chain.identity_registry).agent_wallet(agent_id)
    except ContractLogicError:
        wallet = None
    checksummed = Web3.to_checksum_address(wallet) if wallet else ""
    if checksummed != agent.wallet_address:
        Agent.objects.filter(pk=agent.pk).update(wallet_address=checksummed)
        recompute_mark(agent_ids=[agent.pk])


def _block_time(*, w3: Web3, block_number: int) -> datetime:
    times = _BLOCK_TIMES.get()
    if times is not None and block_number in times:
        return times[block_number]
    at = datetime.fromtimestamp(int(w3.eth.get_block(block_number)["timestamp"]), UTC)
    if times is not None:
        times[block_number] = at
    return at


def _feedback_add(*, chain: ChainSettings, w3: Web3, event: ev.NewFeedback) -> None:
    agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id)
    feedback_record(
        agent=agent,
        feedback=Feedback(
            client_address=Web3.to_checksum_address(event.client_address),
            feedback_index=event.feedback_index,
            value=Decimal(event.value),
            value_decimals=event.value_decimals,
            tag1=_feedback_tag(event.tag1),
            tag2=_feedback_tag(event.tag2),
            block_number=event.block_number,
            block_time=_block_time(w3=w3, block_number=event.block_number),
        ),
    )


def _feedback_revoke(*, chain: ChainSettings, w3: Web3, event: ev.FeedbackRevoked) -> None:
    assert chain.reputation_registry is not None
    agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id)
    client = Web3.to_checksum_address(event.client_address)
    if feedback_revoke(agent=agent, client_address=client, feedback_index=event.feedback_index):
        return
    # The feedback was given before the start block: read it so the revocation is not lost.
    try:
        entry = ReputationClient(w3, chain.reputation_registry).read_feedback(
            event.agent_id, client, event.feedback_index
        )
    except (DecodingError, UnicodeDecodeError):
        # Its tags are not UTF-8 (web3 reads strings strictly). Revoked feedback never counts, and a
        # missing row is what any feedback from before the start block is: nothing is lost.
        logger.warning("revoked feedback %s of agent %s is unreadable", event.feedback_index, event.agent_id)
        return
    feedback_record(
        agent=agent,
        feedback=Feedback(
            client_address=client,
            feedback_index=event.feedback_index,
            value=Decimal(entry.value),
            value_decimals=entry.value_decimals,
            tag1=_feedback_tag(entry.tag1),
            tag2=_feedback_tag(entry.tag2),
        ),
        revoked=True,
    )


def _validation_request(
    *, chain: ChainSettings, w3: Web3, event: ev.ValidationRequest, validator: str | None
) -> None:
    if validator is None or event.validator_address.lower() != validator.lower():
        return
    agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id)
    answer, created = ValidationAnswer.objects.get_or_create(
        chain_id=chain.chain_id,
        request_hash=event.request_hash,
        defaults={
            "erc8004_agent_id": event.agent_id,
            "agent": agent,
            "validator_address": Web3.to_checksum_address(event.validator_address),
            "request_uri": ev.display_text(event.request_uri),
            "request_block": event.block_number,
        },
    )
    if created:
        task_enqueue_on_commit("attestations.tasks.answer_validation_request", answer.pk)


def _validation_outcome(*, chain: ChainSettings, w3: Web3, event: ev.ValidationResponse) -> None:
    """A registered provider's on-chain validation becomes one of its check outcomes for the agent.

    Mapping: response >= 50 is ALLOW, below is BLOCK; the confidence is the response's distance from
    the other verdict's end (response/100 for ALLOW, (100 - response)/100 for BLOCK), so a response of 0
    is a confident BLOCK rather than a BLOCK with no confidence. Only the first response to a request
    counts (outcomes are append-only; validators may repeat responses).
    """
    providers = list(
        Provider.objects.filter(
            signer_address__iexact=event.validator_address, status=Provider.Status.ACTIVE
        ).exclude(signer_address="")
    )
    if not providers:
        return
    agent = onchain_agent_ensure(chain=chain, w3=w3, agent_id=event.agent_id)
    allow = event.response >= VALIDATION_ALLOW_THRESHOLD
    confidence = (event.response if allow else 100 - event.response) / 100
    checked_at = datetime.fromtimestamp(int(w3.eth.get_block(event.block_number)["timestamp"]), UTC)
    outcome_id = f"erc8004:{chain.chain_id}:{event.request_hash}"
    verdict = CheckOutcome.Verdict.ALLOW if allow else CheckOutcome.Verdict.BLOCK
    outcome = NormalisedOutcome(
        outcome_id=outcome_id,
        verdict=verdict,
        reported_verdict=f"erc8004:{event.response}",
        confidence=confidence,
        stake="",
        checked_at=checked_at,
    )
    digest = canonical_digest(
        {"requestHash": event.request_hash, "response": event.response, "tag": ev.display_text(event.tag)}
    )
    for provider in providers:
        if CheckOutcome.objects.filter(provider=provider, outcome_id=outcome_id).exists():
            continue  # the first response counts; a repeated or changed one is not news
        # Stored and marked for a roll-up like outcomes posted over HTTP (registry/services/outcomes.py).
        outcomes_record(provider=provider, agent=agent, outcomes=[outcome], digests=[digest])
