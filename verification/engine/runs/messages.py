"""Reading an agent run in the OpenAI chat-completions format, with errors that name the JSON path."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass, field
from typing import Any

from untrusted.jsonbounds import MAX_DEPTH, TooDeep
from untrusted.jsonbounds import loads as bounded_loads

from .config import RunVerifierConfig
from .errors import MalformedRunError, RunTooLargeError

__all__ = ["ParsedRun", "ToolCall", "ToolResult", "parse_run"]

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One function call the assistant made."""

    call_id: str
    name: str
    arguments: Any
    raw_arguments: str
    message_index: int
    index: int


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A tool message: its text and, when it is JSON, the parsed value."""

    call_id: str
    name: str
    content: str
    data: Any
    message_index: int


@dataclass(slots=True, init=False)
class ParsedRun:
    """The parts of a run that verification needs.

    The constructor is written out rather than generated (``init=False``): compiled with mypyc, a generated
    ``__init__`` stays interpreted Python, and every run makes one. It takes the same parameters, in the same
    order, with the same defaults, as the generated one would (the lists and ``tools`` default to new ones).
    """

    system: list[tuple[int, str]] = field(default_factory=list)
    user: list[tuple[int, str]] = field(default_factory=list)
    calls: list[ToolCall] = field(default_factory=list)
    results: list[ToolResult] = field(default_factory=list)
    answer: str = ""
    answer_index: int = -1
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __init__(
        self,
        system: list[tuple[int, str]] | None = None,
        user: list[tuple[int, str]] | None = None,
        calls: list[ToolCall] | None = None,
        results: list[ToolResult] | None = None,
        answer: str = "",
        answer_index: int = -1,
        tools: dict[str, dict[str, Any]] | None = None,
    ) -> None:
        self.system = [] if system is None else system
        self.user = [] if user is None else user
        self.calls = [] if calls is None else calls
        self.results = [] if results is None else results
        self.answer = answer
        self.answer_index = answer_index
        self.tools = {} if tools is None else tools

    @property
    def last_user(self) -> str:
        """The last user message (the request the answer responds to)."""
        return self.user[-1][1] if self.user else ""


def _content_text(content: Any, path: str) -> str:
    # The API allows a string or a list of content parts; only text parts matter for verification.
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for i, part in enumerate(content):
            if not isinstance(part, dict):
                raise MalformedRunError(f"{path}[{i}]", "content part must be an object")
            if part.get("type") == "text":
                text = part.get("text")
                if not isinstance(text, str):
                    raise MalformedRunError(f"{path}[{i}].text", "must be a string")
                parts.append(text)
        return "\n".join(parts)
    raise MalformedRunError(path, "must be a string, a list of content parts or null")


def _parse_tools(tools: Any) -> dict[str, dict[str, Any]]:
    if tools is None:
        return {}
    if not isinstance(tools, list):
        raise MalformedRunError("tools", "must be a list")
    declared: dict[str, dict[str, Any]] = {}
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict):
            raise MalformedRunError(f"tools[{i}]", "must be an object")
        fn = tool.get("function", tool)
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise MalformedRunError(f"tools[{i}].function.name", "must be a string")
        params = fn.get("parameters", {"type": "object"})
        if not isinstance(params, dict):
            raise MalformedRunError(f"tools[{i}].function.parameters", "must be a JSON Schema object")
        declared[fn["name"]] = params
    return declared


def parse_run(messages: Any, tools: Any = None, config: RunVerifierConfig | None = None) -> ParsedRun:
    """Check the shape of a run and split it into its parts.

    The final answer is the last assistant message with text content.

    >>> run = parse_run([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])
    >>> run.answer, run.last_user
    ('Hello', 'Hi')
    >>> parse_run([{"role": "robot", "content": "x"}])
    Traceback (most recent call last):
    ...
    verification.engine.runs.errors.MalformedRunError: messages[0].role: unknown role 'robot'
    """
    cfg = config or RunVerifierConfig()
    if not isinstance(messages, list):
        raise MalformedRunError("messages", "must be a list of messages")
    if not messages:
        raise MalformedRunError("messages", "must not be empty")
    if len(messages) > cfg.max_messages:
        raise RunTooLargeError("messages", f"has {len(messages)} messages, the limit is {cfg.max_messages}")
    run = ParsedRun(tools=_parse_tools(tools))
    names_by_id: dict[str, str] = {}
    total = 0
    for i, msg in enumerate(messages):
        path = f"messages[{i}]"
        if not isinstance(msg, dict):
            raise MalformedRunError(path, "must be an object")
        role = msg.get("role")
        if role not in _ROLES:
            raise MalformedRunError(f"{path}.role", f"unknown role {role!r}")
        text = _content_text(msg.get("content"), f"{path}.content")
        total += len(text)
        if total > cfg.max_total_chars:
            raise RunTooLargeError(f"{path}.content", f"the run exceeds {cfg.max_total_chars} characters")
        if role in ("system", "developer"):
            run.system.append((i, text))
        elif role == "user":
            run.user.append((i, text))
        elif role == "assistant":
            calls = msg.get("tool_calls") or []
            if not isinstance(calls, list):
                raise MalformedRunError(f"{path}.tool_calls", "must be a list")
            for j, call in enumerate(calls):
                run.calls.append(_parse_call(call, f"{path}.tool_calls[{j}]", i, len(run.calls)))
                names_by_id[run.calls[-1].call_id] = run.calls[-1].name
            if text.strip():
                run.answer, run.answer_index = text, i
        else:
            call_id = msg.get("tool_call_id", "")
            if role == "tool" and not isinstance(call_id, str):
                raise MalformedRunError(f"{path}.tool_call_id", "must be a string")
            name = names_by_id.get(call_id, msg.get("name", "") or "")
            run.results.append(ToolResult(call_id, name, text, _maybe_json(text), i))
    if len(run.answer) > cfg.max_answer_chars:
        raise RunTooLargeError(
            f"messages[{run.answer_index}].content",
            f"answer has {len(run.answer)} characters, the limit is {cfg.max_answer_chars}",
        )
    return run


def _parse_call(call: Any, path: str, message_index: int, index: int) -> ToolCall:
    if not isinstance(call, dict):
        raise MalformedRunError(path, "must be an object")
    fn = call.get("function")
    if not isinstance(fn, dict):
        raise MalformedRunError(f"{path}.function", "must be an object")
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise MalformedRunError(f"{path}.function.name", "must be a non-empty string")
    raw = fn.get("arguments", "{}")
    if isinstance(raw, dict):
        args: Any = raw
        raw = json.dumps(raw)
    elif isinstance(raw, str):
        try:
            args = bounded_loads(raw) if raw.strip() else {}
        except json.JSONDecodeError as exc:
            raise MalformedRunError(f"{path}.function.arguments", f"is not valid JSON ({exc.msg})") from None
        except TooDeep as exc:
            raise MalformedRunError(f"{path}.function.arguments", f"is not accepted: {exc}") from None
        except ValueError as exc:  # e.g. an integer longer than Python converts (4,300 digits)
            raise MalformedRunError(f"{path}.function.arguments", f"is not accepted JSON ({exc})") from None
    else:
        raise MalformedRunError(f"{path}.function.arguments", "must be a JSON string")
    call_id = call.get("id", f"call_{index}")
    if not isinstance(call_id, str):
        raise MalformedRunError(f"{path}.id", "must be a string")
    return ToolCall(call_id, name, args, raw, message_index, index)


def _maybe_json(text: str) -> Any:
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        # Tool output is untrusted: too deep, invalid, or holding a number Python will not convert
        # (TooDeep and every decoder error are ValueErrors), it is verified as opaque text.
        brackets = text.count("[") + text.count("{")
        if MAX_DEPTH < brackets <= _PARSE_FIRST_MAX_BRACKETS:
            return _parsed_first(text, stripped, brackets)
        try:
            return bounded_loads(text)
        except ValueError:
            return _python_literal(stripped)
    return None


# ``bounded_loads`` measures the nesting of a text of more than MAX_DEPTH brackets before parsing it: a
# vectorised pass over every byte (numpy, a dozen array operations), which cost a short run about as much
# as parsing its results. A text of at most this many brackets (so at most this deep) is parsed first and
# its nesting read from the parsed value instead (issue 14, h24c); deeper texts are measured first, as
# before, so that no deeply nested text is ever handed to the parser.
_PARSE_FIRST_MAX_BRACKETS = 1000


def _parsed_first(text: str, stripped: str, brackets: int) -> Any:
    """``_maybe_json(text)`` for a text of ``brackets`` brackets, more than MAX_DEPTH: parsed, then checked.

    The text parses to arrays and objects as many as its brackets only when none of its brackets is inside
    a string and no container was dropped (a repeated key keeps its last value): its brackets are then the
    value's containers, and the depth ``bounded_loads`` measures is the value's. Otherwise, and when the
    parser runs out of recursion, the text is read as before. A text that fails to parse fails the same
    way after the measure, or is refused by it: either way it is read as a Python literal.
    """
    try:
        data = json.loads(text)
    except ValueError:
        return _python_literal(stripped)
    except RecursionError:
        data = None
        brackets = -1
    if brackets >= 0 and _containers_within(data, MAX_DEPTH) == brackets:
        return data
    try:
        return bounded_loads(text)
    except ValueError:
        return _python_literal(stripped)


def _containers_within(data: Any, limit: int) -> int:
    """The number of arrays and objects in ``data`` (itself included), or -1 when they nest deeper than
    ``limit`` levels.

    >>> _containers_within({"a": [1, {"b": []}], "c": "[{"}, 64), _containers_within([[[1]]], 2)
    (4, -1)
    """
    count = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > limit:
            return -1
        count += 1
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return count


# Python's reprs of results are read up to this size (a parse builds a syntax tree, several times the text).
_MAX_LITERAL_CHARS = 65536


def _python_literal(text: str) -> Any:
    """A tool result printed as a Python literal (``{'Le Marais': 'Rating: 4.2'}``: many agent frameworks
    return ``str(result)``), parsed as such, else None (verified as opaque text).

    ``ast.literal_eval`` builds no object but literals and runs no code; its parser refuses nesting beyond
    its own limit (a SyntaxError), and the size is bounded here.

    >>> _python_literal("{'a': [1, 'b'], 'c': None}")
    {'a': [1, 'b'], 'c': None}
    >>> _python_literal("{'a': open('x')}") is None
    True
    """
    if "'" not in text or len(text) > _MAX_LITERAL_CHARS:
        return None
    try:
        data = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return data if isinstance(data, (dict, list)) else None
