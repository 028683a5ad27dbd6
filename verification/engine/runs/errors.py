"""Errors raised while reading an agent run."""

from __future__ import annotations

__all__ = ["MalformedRunError", "RunTooLargeError"]


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


class RunTooLargeError(MalformedRunError):
    """A run over one of the size caps (answer, context, checkable values, comparisons), found before the
    expensive work starts; ``path`` names the part that is too large. A subclass, so callers that catch
    :class:`MalformedRunError` keep working; a service answers it as 413 rather than 400.

    >>> err = RunTooLargeError("messages[3].content", "answer has 60000 characters, the limit is 50000")
    >>> isinstance(err, MalformedRunError), err.path
    (True, 'messages[3].content')
    """
