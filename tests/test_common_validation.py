"""One request-validation path (common/validation.py): the bounds come from settings and feed both the
checks and the OpenAPI document; every schema error is a FieldError with its own pointer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from django.core.management import call_command
from django.test import override_settings
from hypothesis import given
from hypothesis import strategies as st

from common.errors import ApplicationError, FieldError
from registry.services.validation import OUTCOME_BATCH, SUMMARY_BATCH
from verification.services.tools import TOOL_CALL_BATCH, TOOL_PROFILE_BODY


def _request_schema(document: dict[str, Any], path: str) -> dict[str, Any]:
    schema: dict[str, Any] = document["paths"][path]["post"]["requestBody"]["content"]["application/json"][
        "schema"
    ]
    return schema


def test_it_documents_the_batch_bounds_the_checks_enforce(db: None, tmp_path: Path, settings: Any) -> None:
    out = tmp_path / "schema.yaml"
    call_command("spectacular", "--fail-on-warn", "--file", str(out))
    document = yaml.safe_load(out.read_text())
    summaries = _request_schema(document, "/api/v1/summaries/batch")["properties"]["summaries"]
    outcomes = _request_schema(document, "/api/v1/outcomes")["properties"]["outcomes"]
    calls = _request_schema(document, "/api/v1/verify/tool-call")["oneOf"][1]["properties"]["calls"]
    assert summaries["maxItems"] == settings.SUMMARY_BATCH_MAX == SUMMARY_BATCH.max_items
    assert outcomes["maxItems"] == settings.OUTCOME_BATCH_MAX == OUTCOME_BATCH.max_items
    assert calls["maxItems"] == settings.TOOL_CALL_BATCH_MAX == TOOL_CALL_BATCH.max_items


def test_it_reads_a_bound_again_when_its_setting_changes(settings: Any) -> None:
    settings.SUMMARY_BATCH_MAX = 2
    assert SUMMARY_BATCH.schema["properties"]["summaries"]["maxItems"] == 2
    assert SUMMARY_BATCH.envelope_errors({"summaries": [{}, {}]}) == []
    assert SUMMARY_BATCH.envelope_errors({"summaries": [{}, {}, {}]}) == [
        FieldError("/summaries", "At most 2 summaries per batch; got 3.")
    ]


@pytest.mark.parametrize("body", [[], "x", {}, {"summaries": None}, {"summaries": {}}, {"summaries": []}])
def test_it_names_the_array_for_every_refused_envelope(body: Any) -> None:
    assert SUMMARY_BATCH.envelope_errors(body) == [
        FieldError("/summaries", "Expected a non-empty list of summaries.")
    ]


@given(bound=st.integers(min_value=1, max_value=8), size=st.integers(min_value=0, max_value=12))
def test_it_accepts_exactly_the_sizes_from_one_to_the_bound(bound: int, size: int) -> None:
    with override_settings(TOOL_CALL_BATCH_MAX=bound):
        errors = TOOL_CALL_BATCH.envelope_errors({"calls": [{}] * size})
    assert (errors == []) == (1 <= size <= bound)
    assert errors in ([], [FieldError("/calls", f"Expected 1 to {bound} calls.")])


def test_it_leaves_the_items_to_their_own_validator() -> None:
    # The envelope does not look inside the items: each is checked with its index in the pointers.
    assert SUMMARY_BATCH.envelope_errors({"summaries": [1, "x", None]}) == []


def test_it_raises_one_validation_problem_naming_every_field() -> None:
    with pytest.raises(ApplicationError) as raised:
        TOOL_PROFILE_BODY.check({"stake": "huge", "colour": "red"}, what="tool profile")
    problem = raised.value.to_problem()
    assert problem["status"] == 400 and problem["type"] == "/problems/validation"
    assert [e["pointer"] for e in problem["errors"]] == ["/colour", "/stake"]
    assert problem["errors"][0]["detail"] == "Unknown property 'colour': it is not allowed here."
    assert problem["detail"].startswith("Invalid tool profile: colour: ")
