"""trust-registry-client: sign and push a summary from the command line.

    trust-registry-client push summary.json --url https://registry.example --provider thoughtproof \\
        --api-key-file key.txt --signing-key-file signer.hex

Secrets are read from files (or the TRUST_REGISTRY_API_KEY / TRUST_REGISTRY_PROVIDER_KEY
variables), never from arguments, so they stay out of shell history and process lists. Exit status: 0
when the registry accepted the push (its answer on stdout), 1 when it refused it (the problem on stderr,
with a hint when the cause is clear, e.g. a wrong --provider), 2 when it could not be reached.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import httpx

from . import DEFAULT_CHAIN_ID, RegistryClient, RegistryError


def _secret(path: Path | None, variable: str) -> str | None:
    if path is not None:
        return path.read_text().strip()
    return os.environ.get(variable) or None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="trust-registry-client", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    push = sub.add_parser("push", help="sign and push a summary (a JSON object, or a list for a batch)")
    push.add_argument("file", type=Path, help="JSON file; '-' reads standard input")
    push.add_argument("--url", required=True)
    push.add_argument("--provider", required=True, help="your provider slug")
    push.add_argument("--api-key-file", type=Path, help="else TRUST_REGISTRY_API_KEY")
    push.add_argument(
        "--signing-key-file", type=Path, help="hex private key; else TRUST_REGISTRY_PROVIDER_KEY"
    )
    push.add_argument("--chain-id", type=int, default=DEFAULT_CHAIN_ID)
    push.add_argument("--idempotency-key")
    args = parser.parse_args(argv)

    api_key = _secret(args.api_key_file, "TRUST_REGISTRY_API_KEY")
    if not api_key:
        parser.error("an API key is needed: --api-key-file or TRUST_REGISTRY_API_KEY")
    private_key = _secret(args.signing_key_file, "TRUST_REGISTRY_PROVIDER_KEY")
    text = sys.stdin.read() if str(args.file) == "-" else args.file.read_text()
    body = json.loads(text)
    with RegistryClient(
        args.url, api_key=api_key, provider=args.provider, private_key=private_key, chain_id=args.chain_id
    ) as client:
        try:
            if isinstance(body, list):
                response = client.push_batch(body, idempotency_key=args.idempotency_key)
            else:
                response = client.push_summary(body, idempotency_key=args.idempotency_key)
        except RegistryError as error:
            # The problem goes to stderr (a script reading stdout gets nothing to parse by mistake).
            print(
                f"trust-registry-client: the registry refused the push: {error.describe()}", file=sys.stderr
            )
            print(json.dumps(error.problem, indent=2), file=sys.stderr)
            return 1
        except httpx.HTTPError as error:
            print(f"trust-registry-client: no answer from {args.url}: {error}", file=sys.stderr)
            return 2
    print(json.dumps(response.json(), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
