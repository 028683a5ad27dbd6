"""Stage 3: self-consistency probes for critical claims.

Probe answers come from the request (``probe_answers``) or from an OpenAI-compatible chat-completions
endpoint re-asked with a paraphrased prompt and the same evidence. Agreement is the share of probe answers
that restate the claim's value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import httpx

from untrusted.jsonbounds import loads as bounded_loads

from .config import RunVerifierConfig
from .evidence import normalize_text
from .messages import ParsedRun
from .report import Claim, ConsistencyProbe

__all__ = ["agreement", "run_probes"]


def agreement(claim_text: str, answers: Sequence[str]) -> float:
    """Share of ``answers`` that contain the claim's value (numbers compared as numbers).

    >>> agreement("$1,200", ["It costs $1200.", "About 1,300 dollars."])
    0.5
    """
    if not answers:
        return 0.0
    nums = [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", claim_text)]
    norm = normalize_text(claim_text)
    hits = 0
    for a in answers:
        if nums:
            found = {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", a)}
            hits += all(n in found or f"{float(n):g}" in {f"{float(x):g}" for x in found} for n in nums)
        else:
            hits += norm in normalize_text(a)
    return hits / len(answers)


def _ask(run: ParsedRun, claim: Claim, config: RunVerifierConfig, client: httpx.Client) -> str:
    evidence = "\n".join(r.content for r in run.results)[:20_000]
    prompt = (
        "Answer again, in one sentence, using only the tool results below.\n"
        f"Question (rephrased): {run.last_user}\nFocus on: {claim.sentence}\n\nTool results:\n{evidence}"
    )
    headers = {"Content-Type": "application/json", **config.probe_headers}
    if config.probe_api_key:
        headers["Authorization"] = f"Bearer {config.probe_api_key}"
    url = config.probe_endpoint.rstrip("/") if config.probe_endpoint else ""
    if not url.endswith("/chat/completions"):
        url += "/chat/completions"
    resp = client.post(
        url,
        json={
            "model": config.probe_model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": 0.7,
        },
        headers=headers,
    )
    resp.raise_for_status()
    # The probe endpoint is configured, but its answer is still text from outside: depth-bounded.
    return str(bounded_loads(resp.content)["choices"][0]["message"]["content"])


def run_probes(
    run: ParsedRun,
    claims: Sequence[Claim],
    config: RunVerifierConfig,
    probe_answers: Sequence[str] | Mapping[str, Sequence[str]] | None = None,
) -> list[ConsistencyProbe]:
    """Probe up to ``config.max_probed_claims`` critical claims; no endpoint and no answers: no probes.

    >>> from .report import Claim
    >>> c = Claim("1889", (0, 4), "Built in 1889.", "year", True, "SUPPORTED", 0.95)
    >>> [p.agreement for p in run_probes(ParsedRun(), [c], RunVerifierConfig(), ["It was built in 1889."])]
    [1.0]
    """
    critical = [c for c in claims if c.critical][: config.max_probed_claims]
    if not critical or (probe_answers is None and not config.probe_endpoint):
        return []
    out: list[ConsistencyProbe] = []
    client = httpx.Client(timeout=config.probe_timeout_s) if probe_answers is None else None
    try:
        for c in critical:
            answers: list[str] = []
            error = ""
            if isinstance(probe_answers, Mapping):
                answers = list(probe_answers.get(c.text, ()))
            elif probe_answers is not None:
                answers = list(probe_answers)
            elif client is not None:
                try:
                    answers = [_ask(run, c, config, client) for _ in range(config.probe_count)]
                except (httpx.HTTPError, KeyError, ValueError, TypeError) as exc:
                    error = f"probe failed: {exc.__class__.__name__}: {exc}"
            if not answers and not error:
                continue
            out.append(ConsistencyProbe(c.text, c.sentence, answers, agreement(c.text, answers), error))
    finally:
        if client is not None:
            client.close()
    return out
