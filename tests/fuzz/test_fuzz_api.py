"""Property-based fuzzing of every operation in the OpenAPI schema, with valid and invalid inputs.

The schema is loaded from the app itself (`/api/schema/` through the WSGI handler) and every operation
gets a bounded, derandomized run (fixed seed), so CI sees the same requests every time. Checked on every
answer: no 5xx; every error is `application/problem+json` with `type`, `title`, `status` and `detail`;
status code, content type and body conform to what the schema documents; requests that violate the
schema are refused.
"""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import strategies as st
from schemathesis.checks import negative_data_rejection

from tests.fuzz.fuzz_support import (
    AGENT_IDS,
    CHECKS,
    MAX_EXAMPLES,
    PROVIDER_SLUG,
    TOOL_NAME,
    FuzzWorld,
    api_schema,
    bounded,
)

ANONYMOUS_MAX_EXAMPLES = 4

# Fuzzed subject ids end up in cache keys; only memcached minds their characters, and we run Redis.
pytestmark = pytest.mark.filterwarnings("ignore::django.core.cache.backends.base.CacheKeyWarning")

schema = api_schema()

# Path parameters also take the ids of things that exist, so detail endpoints answer 200 as well as 404.
KNOWN_PATH_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "subject_id": st.sampled_from(AGENT_IDS),
    "agent_id": st.sampled_from(AGENT_IDS),
    "slug": st.just(PROVIDER_SLUG),
    "tool": st.just(TOOL_NAME),
    "version": st.just(1),
}


@schema.hook
def before_generate_path_parameters(
    context: schemathesis.HookContext, strategy: st.SearchStrategy[Any]
) -> st.SearchStrategy[Any]:
    def known(parameters: Any) -> st.SearchStrategy[Any]:
        if not isinstance(parameters, dict):
            return st.just(parameters)
        names = [name for name in parameters if name in KNOWN_PATH_VALUES]
        if not names:
            return st.just(parameters)
        return st.fixed_dictionaries({name: KNOWN_PATH_VALUES[name] for name in names}).map(
            lambda values: {**parameters, **values}
        )

    return st.one_of(strategy, strategy.flatmap(known))


@schema.parametrize()
@bounded(MAX_EXAMPLES)
def test_it_answers_every_operation_with_conforming_answers_and_problem_details(
    case: schemathesis.Case, fuzz_world: FuzzWorld
) -> None:
    response = case.call(headers=fuzz_world.headers_for(case))
    case.validate_response(response, checks=[*CHECKS, negative_data_rejection])


@schema.parametrize()
@bounded(ANONYMOUS_MAX_EXAMPLES)
def test_it_answers_anonymous_callers_without_server_errors_and_with_problem_details(
    case: schemathesis.Case, fuzz_world: FuzzWorld
) -> None:
    case.headers.pop("Authorization", None)  # case-insensitive: whatever the generator put there
    response = case.call()
    case.validate_response(response, checks=CHECKS)
