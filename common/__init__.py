"""Pieces every app shares: the one error type, the problem-details handler, middleware."""
