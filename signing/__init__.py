"""The pure signing layer: RFC 8785 digests, EIP-712 typed data, the service key and the chain clients.

It sits below the Django apps (``registry``, ``attestations``) and beside ``provider_client``, which
all import it; it imports no Django and no app, which an import-linter contract in pyproject.toml
holds it to.
"""
