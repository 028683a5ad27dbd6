"""schemathesis over the whole OpenAPI document, against the production server (granian, DEBUG off).

tests/fuzz/ fuzzes the same operations through the WSGI handler in-process, with the test database and
DEBUG as the test settings set it. This runs the same checks (no 5xx, problem details for every error,
status code, content type and body as documented) over real HTTP against the server the image runs,
so answers made outside Django's views (granian, the middleware, handler400/404/500) are fuzzed too.
Every operation gets MAX_EXAMPLES valid and MAX_EXAMPLES invalid cases, derandomized with a fixed seed:
the same requests on every run.
"""

from __future__ import annotations

from collections.abc import Callable

import hypothesis
import schemathesis
from hypothesis import strategies as st
from schemathesis.core.result import Ok

from tests.fuzz.fuzz_support import CHECKS, SEED, bounded
from tests.hostile.hostile_support import AGENT, TOOL, Server

MAX_EXAMPLES = 25  # per operation and generation mode
# Path parameters naming things that exist, so detail endpoints answer 200 as well as 404.
KNOWN = {"subject_id": AGENT, "agent_id": AGENT, "slug": "hostile-provider", "tool": TOOL}


def fuzz(strategy: st.SearchStrategy[schemathesis.Case], key: str) -> Callable[[], None]:
    """A bounded, derandomized hypothesis run of one operation's cases, called with `key`."""

    @hypothesis.seed(SEED)
    @bounded(MAX_EXAMPLES)
    @hypothesis.given(case=strategy)
    def check(case: schemathesis.Case) -> None:
        response = case.call(headers={"Authorization": f"Bearer {key}"}, timeout=30)
        case.validate_response(response, checks=CHECKS)

    return check


def test_it_fuzzes_every_operation_against_the_production_server(server: Server) -> None:
    config = schemathesis.Config.from_dict({"seed": SEED})
    schema = schemathesis.openapi.from_url(f"{server.base}/api/schema/?format=json", config=config)
    failures: list[str] = []
    operations = 0
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result  # the schema loads whole, or the test is void
        operation = result.ok()
        operations += 1
        schemes = {name for req in operation.definition.raw.get("security", []) for name in req}
        key = server.keys["operator"] if "operatorKey" in schemes else server.keys["provider"]
        known = {p.name: KNOWN[p.name] for p in operation.path_parameters if p.name in KNOWN}
        for mode in (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE):
            strategy = operation.as_strategy(generation_mode=mode)
            if known and mode is schemathesis.GenerationMode.POSITIVE:
                strategy = st.one_of(
                    strategy, operation.as_strategy(generation_mode=mode, path_parameters=known)
                )
            try:
                fuzz(strategy, key)()
            except hypothesis.errors.Unsatisfiable:
                continue  # nothing in this operation can be made invalid (no parameters, no body)
            except (
                AssertionError,
                BaseExceptionGroup,
            ) as exc:  # every operation is fuzzed, failures reported together
                failures.append(f"{operation.label} ({mode.value}): {str(exc)[:1500]}")
    assert operations >= 20
    assert not failures, "\n\n".join(failures)
