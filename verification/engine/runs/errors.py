"""Errors raised while reading an agent run."""

from __future__ import annotations

__all__ = ["MalformedRunError"]


class MalformedRunError(ValueError):
    """A run that cannot be verified, with the JSON path of the offending part.

    >>> err = MalformedRunError("messages[3].tool_calls[0].function.arguments", "is not valid JSON")
    >>> err.path
    'messages[3].tool_calls[0].function.arguments'
    >>> str(err)
    'messages[3].tool_calls[0].function.arguments: is not valid JSON'
    """

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")
