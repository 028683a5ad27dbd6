"""Stage 1: tool calls against their JSON Schemas and the provenance of the identifiers they use."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..budget import UNLIMITED, Budget
from .config import RunVerifierConfig
from .messages import ParsedRun, ToolCall
from .report import ToolCallValidation
from .schemas import SafeValidator, schema_budget

__all__ = ["identifier_values", "validate_tool_calls"]

_URL = re.compile(r"^[a-z][a-z0-9+.-]*://\S+$", re.I)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", re.I)
_PATH = re.compile(r"^(?:/|\./|\.\./|~/|[A-Za-z]:\\)\S*$")
# An id mixes letters and digits or is a long digit run: things a model cannot know unless it was told.
_ID = re.compile(r"^(?=[\w.:-]*\d)(?=[\w.:-]*[A-Za-z])[\w.:-]{3,}$|^\d{5,}$")
_ID_KEYS = re.compile(r"(?:^|_)(id|ids|url|uri|link|email|path|file|handle|username|account|number)$", re.I)


def identifier_values(args: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """Yield ``(kind, value)`` for the URLs, emails, paths and ids in tool arguments.

    >>> sorted(identifier_values({"url": "https://a.example/x", "n": 3, "order_id": "ORD-1"}))
    [('id', 'ORD-1'), ('url', 'https://a.example/x')]
    """
    if isinstance(args, dict):
        for k, v in args.items():
            yield from identifier_values(v, str(k))
    elif isinstance(args, list):
        for v in args:
            yield from identifier_values(v, key)
    elif isinstance(args, str):
        value = args.strip()
        if _URL.match(value):
            yield "url", value
        elif _EMAIL.match(value):
            yield "email", value
        elif _PATH.match(value):
            yield "path", value
        elif (_ID.match(value) and not _is_date_like(value)) or (_ID_KEYS.search(key) and value):
            yield "id", value


def _is_date_like(value: str) -> bool:
    # ISO dates and times are normal forms the agent computes from the user's words, not identifiers.
    return bool(re.match(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.+-Z]*)?$", value))


def _norm(text: str) -> str:
    return text.casefold().rstrip("/")


def validate_tool_calls(
    run: ParsedRun, config: RunVerifierConfig, budget: Budget = UNLIMITED
) -> list[ToolCallValidation]:
    """Validate every call of ``run`` against its declared schema and check where its identifiers came from.

    >>> from .messages import parse_run
    >>> msgs = [{"role": "user", "content": "Status of ORD-7?"},
    ...         {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
    ...          "function": {"name": "order", "arguments": '{"order_id": "ORD-9"}'}}]}]
    >>> tools = [{"type": "function", "function": {"name": "order", "parameters": {"type": "object"}}}]
    >>> v = validate_tool_calls(parse_run(msgs, tools), RunVerifierConfig())[0]
    >>> v.status
    'unverified_provenance'
    >>> v.errors[0]
    "id 'ORD-9' at order_id appears in no user message, earlier tool result or allowlist"
    """
    out: list[ToolCallValidation] = []
    allow = {_norm(a) for a in config.allowlist}
    with schema_budget(budget):
        for call in run.calls:
            budget.check("checking the tool calls")
            out.append(_validate_call(run, call, allow))
    return out


def _validate_call(run: ParsedRun, call: ToolCall, allow: set[str]) -> ToolCallValidation:
    """One call against its declared schema, and the provenance of its identifiers."""
    errors: list[str] = []
    status = "valid"
    schema = run.tools.get(call.name)
    if run.tools and schema is None:
        status = "unknown_tool"
        errors.append(f"tool {call.name!r} is not declared")
    elif schema is None:
        status = "unchecked"  # no tools declared: only the provenance of identifiers can be checked
    else:
        # Its regexes run in linear time: the schema comes with the request (schemas.py).
        validator = SafeValidator(schema)
        for err in sorted(validator.iter_errors(call.arguments), key=lambda e: list(e.absolute_path)):
            where = ".".join(str(p) for p in err.absolute_path) or "(root)"
            errors.append(f"{where}: {err.message}")
        if errors:
            status = "invalid"
    # Sources are what the model saw before this call: user and system text, earlier tool results.
    sources = _norm(
        " ".join(
            [t for i, t in run.user if i < call.message_index]
            + [t for i, t in run.system if i < call.message_index]
            + [r.content for r in run.results if r.message_index < call.message_index]
        )
    )
    for kind, value, where in _located_identifiers(call.arguments):
        if _norm(value) in allow or _norm(value) in sources or _unescaped(value) in sources:
            continue
        errors.append(
            f"{kind} {value!r} at {where} appears in no user message, earlier tool result or allowlist"
        )
        if status in ("valid", "unchecked"):
            status = "unverified_provenance"
    return ToolCallValidation(call.name, call.arguments, status, errors, call.call_id, call.message_index)


def _unescaped(value: str) -> str:
    return _norm(value.replace("/", "\\/"))


def _located_identifiers(args: Any, where: str = "") -> Iterator[tuple[str, str, str]]:
    if isinstance(args, dict):
        for k, v in args.items():
            sub = f"{where}.{k}" if where else str(k)
            if isinstance(v, dict | list):
                yield from _located_identifiers(v, sub)
            else:
                for kind, value in identifier_values({k: v}):
                    yield kind, value, sub
    elif isinstance(args, list):
        for i, v in enumerate(args):
            yield from _located_identifiers(v, f"{where}[{i}]")
