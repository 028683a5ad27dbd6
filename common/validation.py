"""The one request-validation path: a body's JSON Schema checks the body and is what OpenAPI shows.

A `BodySchema` is built from a function of the settings it names (`bounds`), so a size limit is written
once, in config/settings, and both the check and the OpenAPI document read it. Every schema error
becomes a `FieldError` with its own JSON pointer (`schema_field_errors`); services add the rules a
schema cannot say (cross-field checks, timestamps, signatures) as more FieldErrors and raise one
`validation_error`, so every refusal is the same RFC 9457 problem.

A batch (`BatchEnvelope`) is checked in two steps: the envelope (an array of 1 to N items under one
key) here, then each item by its own validator with the item's index in the pointer, so the answer
names every bad field of every item, including the rules the item schema cannot say.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import fastjsonschema
from django.conf import settings
from jsonschema import Draft202012Validator

from .errors import FieldError, json_pointer, validation_error

SchemaBuilder = Callable[..., dict[str, Any]]


class BodySchema:
    """One request body's JSON Schema, its validator, and (optionally) a compiled yes/no gate.

    `build` receives the current value of each setting named in `bounds` as a keyword argument (a
    schema without bounds is a plain dict). The validators are rebuilt when one of those settings
    changes, so a test or a deployment that sets them is obeyed by the check and the document alike.

    `gate=True` compiles the same schema with fastjsonschema (Python code, far cheaper than jsonschema's
    interpreter; docs/benchmarks.md): when the gate says yes the body is valid and jsonschema is
    skipped; when it says no (or cannot decide), jsonschema runs and produces the field errors. It may
    be stricter than jsonschema (it checks `format: date-time`, which jsonschema leaves to the caller),
    never looser: tests/registry/test_registry_validation_gate.py checks that.
    """

    def __init__(
        self, build: dict[str, Any] | SchemaBuilder, *, bounds: tuple[str, ...] = (), gate: bool = False
    ) -> None:
        self._build: SchemaBuilder = build if callable(build) else (lambda: build)
        self._bounds = bounds
        self._gate_wanted = gate
        self._key: tuple[Any, ...] | None = None
        self._schema: dict[str, Any] = {}
        self._validator: Draft202012Validator | None = None
        self._gate: Callable[[Any], Any] | None = None

    def _current(self) -> None:
        if not self._bounds and self._validator is not None:
            return  # the common case, on every ingested item: nothing to re-read
        key = tuple(getattr(settings, name) for name in self._bounds)
        if key != self._key or self._validator is None:
            schema = self._build(
                **{name.lower(): value for name, value in zip(self._bounds, key, strict=True)}
            )
            self._schema = schema
            self._validator = Draft202012Validator(schema)
            self._gate = fastjsonschema.compile(schema) if self._gate_wanted else None
            self._key = key

    @property
    def schema(self) -> dict[str, Any]:
        """The schema under the current settings: the dict the OpenAPI document shows."""
        self._current()
        return self._schema

    @property
    def validator(self) -> Draft202012Validator:
        self._current()
        assert self._validator is not None
        return self._validator

    def passes_gate(self, body: Any) -> bool:
        """True when the compiled gate accepts `body` (False without a gate: jsonschema decides)."""
        self._current()
        if self._gate is None:
            return False
        try:
            self._gate(body)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    def errors(self, body: Any, *, prefix: Iterable[str | int] = ()) -> list[FieldError]:
        """Every schema error of `body`, one FieldError per offending field (none when valid)."""
        if self.passes_gate(body):
            return []
        return schema_field_errors(self.validator.iter_errors(body), prefix)

    def check(self, body: Any, *, what: str = "request") -> None:
        """Raise the validation problem naming every offending field, if there is one."""
        errors = self.errors(body)
        if errors:
            raise validation_error(errors, what=what)


class BatchEnvelope:
    """`{key: [item, ...]}` with 1 to `settings.<bound>` items.

    `schema` (for OpenAPI) is `document(bound)`, by default `batch_schema(item, key, bound)`: the items'
    schema and the bound; `items` checks only the envelope and answers the array, whose items the
    caller validates one by one. `empty` and `too_many` word the refusal (every envelope error names
    the array's pointer), given the bound and the size sent.
    """

    def __init__(
        self,
        *,
        key: str,
        item: dict[str, Any],
        bound: str,
        empty: Callable[[int], str],
        too_many: Callable[[int, int], str],
        document: Callable[[int], dict[str, Any]] | None = None,
    ) -> None:
        self.key = key
        self._bound = bound
        self._empty = empty
        self._too_many = too_many
        shown = document or (lambda max_items: batch_schema(item, key, max_items))
        self.document = BodySchema(lambda **bounds: shown(bounds[bound.lower()]), bounds=(bound,))
        # The envelope alone: the items are checked by their own validator, with their index.
        self._envelope = BodySchema(
            lambda **bounds: batch_schema({}, key, bounds[bound.lower()]), bounds=(bound,)
        )

    @property
    def schema(self) -> dict[str, Any]:
        return self.document.schema

    @property
    def max_items(self) -> int:
        return int(getattr(settings, self._bound))

    def envelope_errors(self, body: Any) -> list[FieldError]:
        """The envelope's refusal (one error at the array's pointer), or none."""
        errors = list(self._envelope.validator.iter_errors(body))
        if not errors:
            return []
        items = body.get(self.key) if isinstance(body, Mapping) else None
        pointer = json_pointer([self.key])
        if isinstance(items, list) and any(e.validator == "maxItems" for e in errors):
            return [FieldError(pointer, self._too_many(self.max_items, len(items)))]
        return [FieldError(pointer, self._empty(self.max_items))]

    def items(self, body: Any, *, what: str = "request") -> list[Any]:
        """The array of a valid envelope; otherwise raise the validation problem naming it."""
        errors = self.envelope_errors(body)
        if errors:
            raise validation_error(errors, what=what)
        items: list[Any] = body[self.key]
        return items


def batch_schema(item: dict[str, Any], key: str, max_items: int) -> dict[str, Any]:
    """Wrap an item schema as `{key: [item, ...]}` with a size bound."""
    return {
        "type": "object",
        "properties": {key: {"type": "array", "minItems": 1, "maxItems": max_items, "items": item}},
        "required": [key],
    }


def schema_field_errors(errors: Iterable[Any], prefix: Iterable[str | int] = ()) -> list[FieldError]:
    """jsonschema errors as FieldErrors, one per offending field, each with its own pointer.

    jsonschema reports a missing property and unknown properties at the object that holds them (an
    empty pointer for the body); here a missing property is named itself ("This field is required.") and
    every unknown property gets its own error at its own pointer. Errors are sorted by pointer.
    """
    base = list(prefix)
    out: list[FieldError] = []
    for error in errors:
        path = [*base, *error.absolute_path]
        if error.validator == "required":
            instance = error.instance if isinstance(error.instance, Mapping) else {}
            names = [n for n in error.validator_value if n not in instance]
            # Draft 2020-12 reports each missing property in its own error; keep the one it names.
            named = [n for n in names if repr(n) in error.message] or names[:1]
            out.extend(FieldError(json_pointer([*path, n]), "This field is required.") for n in named)
        elif error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            schema = error.schema if isinstance(error.schema, Mapping) else {}
            known = set(schema.get("properties", {}))
            patterns = list(schema.get("patternProperties", {}))
            unknown = [
                k
                for k in error.instance
                if k not in known and not any(_search(pattern, str(k)) for pattern in patterns)
            ]
            out.extend(
                FieldError(json_pointer([*path, k]), f"Unknown property {k!r}: it is not allowed here.")
                for k in unknown
            )
            if not unknown:
                out.append(FieldError(json_pointer(path), error.message))
        elif error.validator == "type" and isinstance(error.instance, str):
            out.append(
                FieldError(
                    json_pointer(path),
                    f"Expected {error.validator_value}, got the string {error.instance!r}.",
                )
            )
        else:
            out.append(FieldError(json_pointer(path), error.message))
    unique = list(dict.fromkeys(out))
    return sorted(unique, key=lambda e: _pointer_key(e.pointer))


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except re.error:
        return False


def _pointer_key(pointer: str) -> list[tuple[int, int | str]]:
    """Sort key: array indices in numeric order (calls/2 before calls/10)."""
    parts = pointer.lstrip("/").split("/") if pointer else []
    return [(0, int(p)) if p.isdigit() else (1, p) for p in parts]
