"""Arbitrary JSON never breaks the verifier or its state."""

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engine_tools.tools_support import json_values
from verification.engine.store import MemoryStore
from verification.engine.tools import ToolVerifier


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(json_values(max_items=6, max_leaves=40), st.floats(min_value=2.5, max_value=1e6)),
        min_size=1,
        max_size=15,
    )
)
def test_it_verifies_any_json_and_keeps_json_state(calls):
    store = MemoryStore()
    v = ToolVerifier(store=store)
    v.register_tool_profile("t", max_response_length=5000)
    for i, (result, ms) in enumerate(calls):
        r = v.verify("t", {"k": i % 3}, result, ms, session_id=f"s{i % 2}")
        assert 0.0 <= r.posterior <= 1.0 and math.isfinite(r.posterior)
        json.dumps(r.to_dict(), allow_nan=False)
    # Everything learned must survive the shared store's strict JSON encoding.
    for key in list(store._data):
        json.dumps(store.get(key), allow_nan=False)
