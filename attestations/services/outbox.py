"""Send a stored transaction exactly once: claim, allocate a nonce, sign, store, broadcast, confirm.

The row (a ScorePublication or a ValidationAnswer) moves pending -> claimed -> sent -> confirmed (or
failed). What makes a second send impossible:

1. The claim is a conditional UPDATE (status pending/sent, or a claim whose lease ran out): of two
   workers racing, the database lets exactly one change the row.
2. The nonce is allocated while holding the sender's ChainNonce row lock, from the node's pending count
   and the nonces of our own transactions in flight, and stored with the signed bytes and their hash in
   the same commit, *before* anything is broadcast.
3. A worker that finds a stored hash never signs again: it asks the node for the receipt; without one
   it re-broadcasts the very same signed bytes (same nonce, same hash: the node cannot include them
   twice). Only when the node says the nonce was used by another transaction is the row re-signed.
"""

from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

import requests
from django.conf import settings
from django.db import transaction
from django.db.models import Case, Max, Q, Value, When
from django.utils import timezone
from eth_utils import keccak
from hexbytes import HexBytes
from web3 import Web3
from web3.exceptions import ContractLogicError, TimeExhausted, TransactionNotFound, Web3RPCError
from web3.types import TxParams

from signing.chain.settings import ChainSettings
from signing.chain.tx import Fees, TransactionFailed, TransactionSigner, suggest_fees, wait_for_receipt

from ..models import ChainNonce, OutgoingStatus, OutgoingTransaction, ScorePublication, ValidationAnswer

logger = logging.getLogger(__name__)

Row = TypeVar("Row", bound=OutgoingTransaction)
# Builds the unsigned transaction of a claimed row: (row, sender, nonce, fees) -> params.
Builder = Callable[[Any, str, int, Fees], TxParams]
OUTGOING_MODELS: tuple[type[OutgoingTransaction], ...] = (ScorePublication, ValidationAnswer)

# Errors worth a retry with backoff: the node or the network, not the transaction.
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    TimeExhausted,
    ConnectionError,
    TimeoutError,
)


class TransientChainError(RuntimeError):
    """The send did not finish for a reason worth retrying later (the Celery task retries with backoff)."""


def _worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _claimable(now: Any) -> Q:
    """Rows nobody holds (pending, or sent and released), or held past the lease by a dead worker."""
    lease = now - timedelta(seconds=settings.CHAIN_CLAIM_LEASE_SECONDS)
    return Q(status__in=[OutgoingStatus.PENDING, OutgoingStatus.SENT], claim_token="") | Q(
        status__in=[OutgoingStatus.CLAIMED, OutgoingStatus.SENT], claimed_at__lt=lease
    )


def outgoing_claim(*, model: type[Row], pk: int, now: Any = None) -> str | None:
    """Claim a row for this worker; the claim token, or None when someone else holds it or it is done."""
    now = now or timezone.now()
    token = str(uuid.uuid4())
    won = model._default_manager.filter(_claimable(now), pk=pk).update(
        # A sent row stays "sent" while it is reconciled: its transaction is out there.
        status=Case(
            When(status=OutgoingStatus.SENT, then=Value(OutgoingStatus.SENT)),
            default=Value(OutgoingStatus.CLAIMED),
        ),
        claim_token=token,
        claim_owner=_worker_name(),
        claimed_at=now,
        updated_at=now,
    )
    return token if won == 1 else None


def _update(model: type[Row], pk: int, token: str, **values: Any) -> bool:
    """Change a row only while we still hold its claim."""
    values.setdefault("updated_at", timezone.now())
    return model._default_manager.filter(pk=pk, claim_token=token).update(**values) == 1


def _release(model: type[Row], pk: int, token: str, status: str, **values: Any) -> None:
    _update(model, pk, token, status=status, claim_token="", claim_owner="", **values)


def _allocate_and_sign(
    *,
    model: type[Row],
    row: Row,
    token: str,
    chain: ChainSettings,
    w3: Web3,
    signer: TransactionSigner,
    build: Builder,
) -> bool:
    """Pick the nonce, sign, and store nonce + signed bytes + hash; False when the claim was lost."""
    sender = signer.address
    # The gas estimate runs before a nonce is taken so that a revert (e.g. self-feedback) costs no nonce.
    fees = suggest_fees(w3)
    probe = build(row, sender, w3.eth.get_transaction_count(sender, "pending"), fees)
    with transaction.atomic():
        ChainNonce.objects.get_or_create(chain_id=chain.chain_id, address=sender)
        ChainNonce.objects.select_for_update().get(chain_id=chain.chain_id, address=sender)
        in_flight = [
            m._default_manager.filter(
                chain_id=chain.chain_id,
                sender_address=sender,
                status__in=[OutgoingStatus.CLAIMED, OutgoingStatus.SENT],
            )
            .exclude(tx_hash="")
            .aggregate(top=Max("nonce"))["top"]
            for m in OUTGOING_MODELS
        ]
        highest = max((n for n in in_flight if n is not None), default=-1)
        nonce = max(w3.eth.get_transaction_count(sender, "pending"), highest + 1)
        params = dict(probe)
        params["nonce"] = nonce
        signed = signer.sign_transaction({k: v for k, v in params.items() if k != "from"})
        raw = bytes(signed.raw_transaction)
        tx_hash = "0x" + keccak(raw).hex()
        return _update(
            model,
            row.pk,
            token,
            sender_address=sender,
            nonce=nonce,
            tx_hash=tx_hash,
            raw_transaction=HexBytes(raw).to_0x_hex(),
        )


def _broadcast(w3: Web3, raw_hex: str) -> None:
    try:
        w3.eth.send_raw_transaction(HexBytes(raw_hex))
    except Web3RPCError as exc:
        message = str(exc).lower()
        # The node has (or had) these exact bytes: that is the outcome we wanted.
        if "already known" in message or "already imported" in message or "nonce too low" in message:
            return
        raise


def _receipt(w3: Web3, tx_hash: str) -> Any:
    try:
        return w3.eth.get_transaction_receipt(HexBytes(tx_hash))
    except TransactionNotFound:
        return None


def outgoing_send(
    *,
    model: type[Row],
    pk: int,
    chain: ChainSettings,
    w3: Web3,
    signer: TransactionSigner,
    build: Builder,
    prepare: Callable[[Row], None] | None = None,
    receipt_timeout: float | None = None,
) -> Row:
    """Drive one row to confirmed or failed. Raises TransientChainError to ask for a retry."""
    token = outgoing_claim(model=model, pk=pk)
    row = model._default_manager.get(pk=pk)
    if token is None:
        return row
    try:
        if row.tx_hash:
            receipt = _receipt(w3, row.tx_hash)
            if receipt is None:
                mined_nonce = w3.eth.get_transaction_count(Web3.to_checksum_address(row.sender_address))
                if row.nonce is not None and mined_nonce > row.nonce:
                    # Our nonce went to another transaction, so ours can never be mined: sign anew.
                    logger.warning(
                        "%s %s: nonce %s was used elsewhere; re-signing", model.__name__, pk, row.nonce
                    )
                    _update(model, pk, token, tx_hash="", raw_transaction="", nonce=None)
                    row.refresh_from_db()
        if not row.tx_hash:
            if row.attempts >= settings.CHAIN_MAX_ATTEMPTS:
                _release(model, pk, token, OutgoingStatus.FAILED, last_error="too many attempts")
                return model._default_manager.get(pk=pk)
            if prepare is not None:
                prepare(row)
            if not _allocate_and_sign(
                model=model, row=row, token=token, chain=chain, w3=w3, signer=signer, build=build
            ):
                return model._default_manager.get(pk=pk)
            row.refresh_from_db()
        if _receipt(w3, row.tx_hash) is None:
            _broadcast(w3, row.raw_transaction)
            _update(model, pk, token, status=OutgoingStatus.SENT, sent_at=timezone.now())
        receipt = wait_for_receipt(
            w3, row.tx_hash, timeout=receipt_timeout or settings.CHAIN_RECEIPT_TIMEOUT_SECONDS
        )
        _release(
            model,
            pk,
            token,
            OutgoingStatus.CONFIRMED,
            block_number=receipt["blockNumber"],
            confirmed_at=timezone.now(),
            last_error="",
        )
    except (ContractLogicError, TransactionFailed) as exc:
        # The contract refuses (or reverted): retrying the same call would fail the same way.
        _release(model, pk, token, OutgoingStatus.FAILED, last_error=str(exc)[:2000])
    except TRANSIENT_ERRORS as exc:
        fresh = model._default_manager.get(pk=pk)
        status = OutgoingStatus.SENT if fresh.tx_hash else OutgoingStatus.PENDING
        _release(model, pk, token, status, attempts=fresh.attempts + 1, last_error=repr(exc)[:2000])
        raise TransientChainError(f"{model.__name__} {pk}: {exc!r}") from exc
    except Exception as exc:
        # Anything else (a misconfigured key, a bug): let go of the claim so a sweep can try again,
        # and keep the reason where the admin and the API show it.
        fresh = model._default_manager.get(pk=pk)
        status = OutgoingStatus.SENT if fresh.tx_hash else OutgoingStatus.PENDING
        _release(model, pk, token, status, attempts=fresh.attempts + 1, last_error=repr(exc)[:2000])
        raise
    return model._default_manager.get(pk=pk)


def outgoing_due(*, model: type[Row], chain_id: int) -> list[int]:
    """Rows a sweep should (re)drive: unclaimed pending or sent ones, and those held past the lease."""
    return list(
        model._default_manager.filter(_claimable(timezone.now()), chain_id=chain_id).values_list(
            "pk", flat=True
        )
    )
