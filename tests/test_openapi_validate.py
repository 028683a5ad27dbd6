"""The OpenAPI document is valid OpenAPI 3.0 and generates without a warning (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.core.management import call_command

from common.schema import problem_details_hook


def test_it_validates_the_schema_with_spectacular_failing_on_warnings(db: None, tmp_path: Path) -> None:
    out = tmp_path / "schema.yaml"
    # --validate checks the document against the OpenAPI 3.0 meta-schema; --fail-on-warn turns every
    # generator warning (an unknown type, a missing serializer) into a failure (SystemExit).
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    document = yaml.safe_load(out.read_text())
    profile = document["paths"]["/api/v1/tools/{tool}/profile"]["put"]["requestBody"]["content"]
    max_length = profile["application/json"]["schema"]["properties"]["maxResponseLength"]
    assert max_length == {"type": "integer", "nullable": True, "minimum": 0}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": ["integer", "null"]}, {"type": "integer", "nullable": True}),
        ({"type": ["integer", "string"]}, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (
            {"type": "number", "exclusiveMinimum": 0},
            {"type": "number", "minimum": 0, "exclusiveMinimum": True},
        ),
    ],
)
def test_it_turns_draft_2020_12_schemas_into_openapi_3_0(schema: dict, expected: dict) -> None:
    document = {"components": {"schemas": {"S": schema}}}
    assert problem_details_hook(document, None, None, True)["components"]["schemas"]["S"] == expected
    assert document == {"components": {"schemas": {"S": schema}}}  # the validators' dicts stay as they were
