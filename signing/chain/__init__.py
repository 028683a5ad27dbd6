"""ERC-8004 on Base: settings, registry clients, log scanning, registration files and a local anvil node.

Pure Python (web3.py, eth-account, httpx); nothing here imports Django.
"""

from signing.chain.artifacts import Artifact, load_artifact
from signing.chain.connect import ChainDisabled, Registries, connect
from signing.chain.deploy import DeployedRegistries, deploy_registries
from signing.chain.events import ChainEvent, LogDecoder
from signing.chain.identity import IdentityClient, sign_agent_wallet
from signing.chain.publish import open_validation_requests
from signing.chain.registration import RegistrationFetchError, fetch_registration_file
from signing.chain.reputation import ReputationClient, score_to_feedback_value
from signing.chain.scan import ScanResult, find_reorg, scan_logs
from signing.chain.settings import ChainSettings
from signing.chain.tx import Fees, build_transaction, send_transaction, suggest_fees, wait_for_receipt
from signing.chain.validation import ValidationClient

__all__ = [
    "Artifact",
    "ChainDisabled",
    "ChainEvent",
    "ChainSettings",
    "DeployedRegistries",
    "Fees",
    "IdentityClient",
    "LogDecoder",
    "RegistrationFetchError",
    "Registries",
    "ReputationClient",
    "ScanResult",
    "ValidationClient",
    "build_transaction",
    "connect",
    "deploy_registries",
    "fetch_registration_file",
    "find_reorg",
    "load_artifact",
    "open_validation_requests",
    "scan_logs",
    "score_to_feedback_value",
    "send_transaction",
    "sign_agent_wallet",
    "suggest_fees",
    "wait_for_receipt",
]
