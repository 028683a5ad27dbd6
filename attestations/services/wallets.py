"""Check that providers' signer addresses are still their on-chain agents' verified wallets.

A provider linked to an ERC-8004 agent proves its signer through getAgentWallet. The wallet is cleared
when the agent NFT changes hands and can be changed by the owner, so it is re-read periodically and a
mismatch is flagged in the admin (ProviderWalletCheck.matches = False).
"""

from __future__ import annotations

from django.utils import timezone
from web3 import Web3
from web3.exceptions import ContractLogicError

from registry.models import Provider
from signing.chain.identity import IdentityClient
from signing.chain.settings import ChainSettings

from ..models import ProviderWalletCheck


def provider_wallet_check(
    *, provider: Provider, chain: ChainSettings, w3: Web3
) -> ProviderWalletCheck | None:
    """Compare one provider's signer with its agent's wallet; None when it has no agent on this chain."""
    agent = provider.agent
    if agent is None or agent.erc8004_agent_id is None or agent.chain_id != chain.chain_id:
        return None
    assert chain.identity_registry is not None
    error = ""
    wallet: str | None = None
    try:
        wallet = IdentityClient(w3, chain.identity_registry).agent_wallet(int(agent.erc8004_agent_id))
    except ContractLogicError as exc:
        error = f"getAgentWallet reverted: {exc}"
    signer = provider.signer_address
    matches = bool(wallet and signer and wallet.lower() == signer.lower())
    check, _ = ProviderWalletCheck.objects.update_or_create(
        provider=provider,
        defaults={
            "chain_id": chain.chain_id,
            "erc8004_agent_id": agent.erc8004_agent_id,
            "signer_address": signer,
            "registered_wallet": wallet or "",
            "matches": matches,
            "error": error,
            "checked_at": timezone.now(),
        },
    )
    return check


def provider_wallets_check(*, chain: ChainSettings, w3: Web3) -> list[ProviderWalletCheck]:
    """Check every provider linked to an on-chain agent of `chain`."""
    providers = Provider.objects.select_related("agent").filter(
        agent__erc8004_agent_id__isnull=False, agent__chain_id=chain.chain_id
    )
    checks = [provider_wallet_check(provider=p, chain=chain, w3=w3) for p in providers]
    return [c for c in checks if c is not None]
