import pytest

from verification.engine.runs import MalformedRunError, RunVerifierConfig, verify_run


def _call(arguments):
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}],
    }


def test_it_names_the_json_path_of_invalid_arguments():
    msgs = [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "x"},
        {"role": "user", "content": "y"},
        _call("{not json"),
    ]
    with pytest.raises(MalformedRunError) as info:
        verify_run(msgs)
    assert info.value.path == "messages[3].tool_calls[0].function.arguments"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    ("messages", "path"),
    [
        ("nope", "messages"),
        ([], "messages"),
        ([{"role": "wizard", "content": "x"}], "messages[0].role"),
        ([{"role": "user", "content": 5}], "messages[0].content"),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": "x"}],
            "messages[1].tool_calls",
        ),
        (
            [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [{"function": {}}]}],
            "messages[1].tool_calls[0].function.name",
        ),
        ([{"role": "tool", "tool_call_id": 3, "content": "{}"}], "messages[0].tool_call_id"),
    ],
)
def test_it_rejects_malformed_runs_with_their_path(messages, path):
    with pytest.raises(MalformedRunError) as info:
        verify_run(messages)
    assert info.value.path == path


def test_it_rejects_malformed_tool_declarations():
    with pytest.raises(MalformedRunError) as info:
        verify_run([{"role": "user", "content": "q"}], tools=[{"type": "function", "function": {"name": 3}}])
    assert info.value.path == "tools[0].function.name"


def test_it_bounds_the_input_size():
    cfg = RunVerifierConfig(max_messages=3, max_total_chars=100)
    with pytest.raises(MalformedRunError, match="limit is 3"):
        verify_run([{"role": "user", "content": "q"}] * 4, config=cfg)
    with pytest.raises(MalformedRunError, match="exceeds 100 characters"):
        verify_run([{"role": "user", "content": "q" * 101}], config=cfg)


def test_it_accepts_content_parts():
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "Write a poem about rain."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Rain falls."}]},
    ]
    assert verify_run(msgs).request_type == "creative"
