"""A provider's client: sign a summary with EIP-712 and push it to a trust registry.

No Django needed; it uses eth-account (through signing.eip712) and httpx.

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
from urllib.parse import quote

import httpx
from eth_account import Account

from signing.eip712 import Domain, ProviderSummary, sign

__all__ = ["BATCH_AGENT", "RegistryClient", "RegistryError", "signature_headers"]

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


class RegistryError(Exception):
    """The registry answered with a status outside 2xx: its RFC 9457 problem, and what it means for you.

    `problem` is the answer's JSON object (`type`, `title`, `status`, `detail`, `errors[]`), or a
    minimal one built from the status when the body is not a problem (a proxy's HTML error page).
    `hint` says what to change when the client can tell (a wrong provider slug, say).
    """

    def __init__(self, response: httpx.Response, problem: dict[str, Any], hint: str | None = None) -> None:
        self.response = response
        self.status = response.status_code
        self.problem = problem
        self.hint = hint
        super().__init__(self.describe())

    @classmethod
    def from_response(cls, response: httpx.Response, hint: str | None = None) -> RegistryError:
        try:
            body = response.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = {
                "status": response.status_code,
                "title": response.reason_phrase,
                "detail": response.text[:500],
            }
        return cls(response, body, hint)

    @property
    def type(self) -> str:
        return str(self.problem.get("type") or "about:blank")

    @property
    def errors(self) -> list[dict[str, Any]]:
        errors = self.problem.get("errors")
        return [error for error in errors if isinstance(error, dict)] if isinstance(errors, list) else []

    def describe(self) -> str:
        """One line: status, title and detail, then each named field, then the hint."""
        head = f"{self.status} {self.problem.get('title') or self.response.reason_phrase}"
        detail = self.problem.get("detail")
        lines = [f"{head}: {detail}" if detail else head]
        lines += [f"  {error.get('field') or '(body)'}: {error.get('detail')}" for error in self.errors]
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return "\n".join(lines)


class RegistryClient:
    """Push signed summaries and outcomes to a registry, and read scores.

    Every method raises RegistryError for an answer outside 2xx, so a rejected push cannot pass
    unnoticed; the push methods return the (2xx) response.
    """

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
        response = self._http.post(path, json=body, headers=headers)
        if response.is_success:
            return response
        hint = self._signature_hint() if self._is_signature_problem(response) else None
        raise RegistryError.from_response(response, hint)

    @staticmethod
    def _is_signature_problem(response: httpx.Response) -> bool:
        if response.status_code != 401:
            return False
        try:
            problem = response.json()
        except ValueError:
            return False
        return isinstance(problem, dict) and str(problem.get("type", "")).endswith("/invalid-signature")

    def _signature_hint(self) -> str | None:
        """Why the registry did not accept the signature: the registry signs nothing else, so ask it.

        The signature binds the provider slug, and the registry checks it against the slug of the API
        key's provider: a wrong --provider looks like a wrong key from there. The provider's public
        record tells them apart (no such slug; our key is its signer, so the API key is another
        provider's; or its signer is another address).
        """
        if self.private_key is None:
            return None
        ours = Account.from_key(self.private_key).address
        try:
            answer = self._http.get(f"/api/v1/providers/{quote(self.provider, safe='')}")
        except httpx.HTTPError:
            return None
        if answer.status_code == 404:
            return f"the registry has no provider with the slug {self.provider!r}: check --provider"
        if not answer.is_success:
            return None
        registered = str(answer.json().get("signerAddress") or "")
        if registered.lower() == ours.lower():
            return (
                f"{ours} is the signer of {self.provider!r}, but the API key belongs to another provider: "
                "--provider must be the slug of the API key's provider"
            )
        return (
            f"the signing key's address {ours} is not the registered signer of {self.provider!r} "
            f"({registered})"
        )

    def push_summary(self, summary: dict[str, Any], *, idempotency_key: str | None = None) -> httpx.Response:
        """POST one summary (it names its agent in `agent`).

        201 with `"status": "created"` when stored; 200 with `"status": "replayed"` when the registry already
        had it (the same window and body, the same `idempotency_key`, or the same signed request again).
        """
        return self._post("/api/v1/summaries", summary, summary["agent"], idempotency_key)

    def push_batch(
        self, summaries: list[dict[str, Any]], *, idempotency_key: str | None = None
    ) -> httpx.Response:
        """POST many summaries at once; the signature covers the whole batch. The answer counts `created`
        and `replayed` items (a retried `idempotency_key`: all of them replayed) and each item's status.
        """
        return self._post("/api/v1/summaries/batch", {"summaries": summaries}, BATCH_AGENT, idempotency_key)

    def push_outcomes(
        self, agent: str, outcomes: list[dict[str, Any]], *, idempotency_key: str | None = None
    ) -> httpx.Response:
        """POST raw per-check outcomes for one agent."""
        return self._post("/api/v1/outcomes", {"agent": agent, "outcomes": outcomes}, agent, idempotency_key)

    def trust_score(self, agent: str) -> dict[str, Any]:
        response = self._http.get(f"/api/v1/agents/{agent}/trust-score")
        if not response.is_success:
            raise RegistryError.from_response(response)
        result: dict[str, Any] = response.json()
        return result

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RegistryClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
