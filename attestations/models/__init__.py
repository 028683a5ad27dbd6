"""The attestations app's models: signed scores (scores.py) and ERC-8004 chain state (chain.py)."""

from .chain import (
    AgentRegistration,
    AgentRegistrationStatus,
    ChainCursor,
    ChainEvent,
    ChainEventStatus,
    ChainNonce,
    OutgoingStatus,
    OutgoingTransaction,
    ProviderWalletCheck,
    ScorePublication,
    ValidationAnswer,
)
from .scores import ScoreAttestation

__all__ = [
    "AgentRegistration",
    "AgentRegistrationStatus",
    "ChainCursor",
    "ChainEvent",
    "ChainEventStatus",
    "ChainNonce",
    "OutgoingStatus",
    "OutgoingTransaction",
    "ProviderWalletCheck",
    "ScoreAttestation",
    "ScorePublication",
    "ValidationAnswer",
]
