"""A provider's client: sign a summary with EIP-712 and push it to a trust registry.

No Django needed; it uses eth-account (through attestations.eip712) and httpx.

    >>> from provider_client import signature_headers
    >>> headers = signature_headers({"agent": "a", "allowRate": 1.0}, provider="p", agent_id="a",
    ...     private_key="0x" + "11" * 32, nonce=1, deadline=2_000_000_000)
    >>> sorted(headers)
    ['X-Signature', 'X-Signature-Deadline', 'X-Signature-Nonce']
"""

from __future__ import annotations

import secrets
import time
from typing import Any

import httpx

from attestations.eip712 import Domain, ProviderSummary, sign

__all__ = ["BATCH_AGENT", "RegistryClient", "signature_headers"]

BATCH_AGENT = "*"
DEFAULT_CHAIN_ID = 8453


def signature_headers(
    body: Any,
    *,
    provider: str,
    agent_id: str,
    private_key: str | bytes,
    nonce: int | None = None,
    deadline: int | None = None,
    chain_id: int = DEFAULT_CHAIN_ID,
) -> dict[str, str]:
    """The X-Signature headers for `body`: an EIP-712 ProviderSummary signature.

    The nonce defaults to 64 random bits (never reuse one); the deadline to five minutes from now.
    """
    nonce = secrets.randbits(64) if nonce is None else nonce
    deadline = int(time.time()) + 300 if deadline is None else deadline
    struct = ProviderSummary.for_body(provider, agent_id, body, nonce=nonce, deadline=deadline)
    signature = sign(struct, Domain(chain_id=chain_id), private_key)
    return {
        "X-Signature": "0x" + signature.hex(),
        "X-Signature-Nonce": str(nonce),
        "X-Signature-Deadline": str(deadline),
    }


class RegistryClient:
    """Push signed summaries and outcomes to a registry, and read scores."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str,
        provider: str,
        private_key: str | bytes | None = None,
        chain_id: int = DEFAULT_CHAIN_ID,
        timeout: float = 10.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.provider = provider
        self.private_key = private_key
        self.chain_id = chain_id
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"),
            headers={"Authorization": f"Bearer {api_key}"},
            timeout=timeout,
            transport=transport,
        )

    def _post(self, path: str, body: Any, agent_id: str, idempotency_key: str | None) -> httpx.Response:
        headers: dict[str, str] = {}
        if self.private_key is not None:
            headers.update(
                signature_headers(
                    body,
                    provider=self.provider,
                    agent_id=agent_id,
                    private_key=self.private_key,
                    chain_id=self.chain_id,
                )
            )
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        return self._http.post(path, json=body, headers=headers)

    def push_summary(self, summary: dict[str, Any], *, idempotency_key: str | None = None) -> httpx.Response:
        """POST one summary (it names its agent in `agent`)."""
        return self._post("/api/v1/summaries", summary, summary["agent"], idempotency_key)

    def push_batch(
        self, summaries: list[dict[str, Any]], *, idempotency_key: str | None = None
    ) -> httpx.Response:
        """POST many summaries at once; the signature covers the whole batch."""
        return self._post("/api/v1/summaries/batch", {"summaries": summaries}, BATCH_AGENT, idempotency_key)

    def push_outcomes(
        self, agent: str, outcomes: list[dict[str, Any]], *, idempotency_key: str | None = None
    ) -> httpx.Response:
        """POST raw per-check outcomes for one agent."""
        return self._post("/api/v1/outcomes", {"agent": agent, "outcomes": outcomes}, agent, idempotency_key)

    def trust_score(self, agent: str) -> dict[str, Any]:
        response = self._http.get(f"/api/v1/agents/{agent}/trust-score")
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
