"""Business logic of signed trust: service key, score attestations, signed ingestion, chain."""
