import json

from verification.engine.runs import RunVerifierConfig, verify_run

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_order",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
                "required": ["order_id"],
                "additionalProperties": False,
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "fetch",
            "parameters": {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
        },
    },
]


def _run(user, calls, results=()):
    msgs = [
        {"role": "user", "content": user},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                for i, (n, a) in enumerate(calls)
            ],
        },
    ]
    for i, r in enumerate(results):
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": json.dumps(r)})
    msgs.append({"role": "assistant", "content": "Done."})
    return msgs


def test_it_validates_arguments_against_the_schema():
    report = verify_run(
        _run("Status of ORD-1?", [("get_order", {"order_id": "ORD-1", "limit": 0, "x": 1})]), TOOLS
    )
    v = report.tool_call_validations[0]
    assert v.status == "invalid"
    assert any("limit" in e for e in v.errors)
    assert any("Additional properties" in e for e in v.errors)
    assert report.action != "emit"


def test_it_accepts_identifiers_the_user_gave():
    v = verify_run(
        _run("Status of ORD-77?", [("get_order", {"order_id": "ORD-77"})]), TOOLS
    ).tool_call_validations[0]
    assert (v.status, v.errors) == ("valid", [])


def test_it_flags_identifiers_with_no_source():
    v = verify_run(_run("Status of my order?", [("get_order", {"order_id": "ORD-123456"})]), TOOLS)
    assert v.tool_call_validations[0].status == "unverified_provenance"
    assert "ORD-123456" in v.tool_call_validations[0].errors[0]


def test_it_accepts_urls_from_earlier_results_and_the_allowlist():
    msgs = _run(
        "Find the docs",
        [("fetch", {"url": "https://docs.example.org/a"}), ("fetch", {"url": "https://allowed.example/x"})],
        [{"links": ["https://docs.example.org/a"]}, {}],
    )
    # Move the second call after the first result so the URL has a source.
    first, second = msgs[1]["tool_calls"]
    msgs[1]["tool_calls"] = [first]
    msgs.insert(3, {"role": "assistant", "content": None, "tool_calls": [second]})
    msgs[0]["content"] = "Find the docs"
    report = verify_run(msgs, TOOLS)
    assert report.tool_call_validations[0].status == "unverified_provenance"  # nothing named it before call 1
    cfg = RunVerifierConfig(allowlist=("https://docs.example.org/a", "https://allowed.example/x"))
    assert [v.status for v in verify_run(msgs, TOOLS, config=cfg).tool_call_validations] == ["valid", "valid"]


def test_it_reports_undeclared_tools():
    v = verify_run(_run("Status of ORD-1?", [("delete_everything", {})]), TOOLS).tool_call_validations[0]
    assert v.status == "unknown_tool"


def test_it_marks_calls_unchecked_when_no_tools_are_declared():
    v = verify_run(_run("Status of ORD-77?", [("get_order", {"order_id": "ORD-77"})])).tool_call_validations[
        0
    ]
    assert (v.status, v.errors) == ("unchecked", [])
