"""Response patterns in linear time (issue 13): patterns that can backtrack catastrophically are refused,
and results are matched with hyperscan, so a long adversarial result costs one pass."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.engine.tools import ToolVerifier
from verification.engine.tools.patterns import HYPERSCAN, ResponsePatterns, pattern_problem
from verification.engine.tools.profile import ToolProfile


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+b", "(x*)*y", "(a|a)*b", "(a|ab)*c", r"(\w+)\1", "(?=a)b", "(?<!x)y", "(a)?(?(1)b|c)", "a" * 1001],
)
def test_it_refuses_patterns_that_can_backtrack(pattern: str) -> None:
    assert pattern_problem(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [
        r'"price"\s*:\s*\d+',
        r"^\{.*\}$",
        r"(\d{3}-)+\d{4}",
        "(foo|bar)+baz",
        r'"status"\s*:\s*"(ok|done)"',
        "",
    ],
)
def test_it_accepts_ordinary_patterns(pattern: str) -> None:
    assert pattern_problem(pattern) is None


@pytest.mark.skipif(not HYPERSCAN, reason="hyperscan is not installed on this platform")
def test_it_refuses_what_hyperscan_cannot_compile() -> None:
    assert "linear-time matcher" in (pattern_problem("a{60000}b") or "")


def test_it_matches_like_re_on_ordinary_patterns() -> None:
    patterns = (r'"price"\s*:\s*\d', r"^\{", r"\}$", "é+", "missing")
    matcher = ResponsePatterns(patterns)
    assert matcher.failing('{"price": 5, "name": "café"}') == ("missing",)
    assert matcher.failing("") == patterns
    assert matcher.failing("\ud800 lone surrogate") == patterns  # not UTF-8: replaced, not an error


def test_it_checks_a_long_adversarial_result_in_one_pass() -> None:
    # The shape that makes a backtracking engine explode on ".*.*=.*x" (cubic) and "(a|b)*c"-like scans.
    profile = ToolProfile("t", response_patterns=(".*.*=.*x", r"(\d{3}-)+\d{4}", "(foo|bar)+baz"))
    engine = ToolVerifier()
    engine.register_tool_profile("t", response_patterns=profile.response_patterns, has_network_io=False)
    result = engine.verify("t", {}, {"v": "=" * 200_000}, execution_time_ms=1.0)
    fired = result.signals["pattern_mismatch"]
    assert fired.fired and fired.score == 1.0


def test_it_never_runs_a_stored_unsafe_pattern_with_a_backtracking_engine() -> None:
    matcher = ResponsePatterns(("(a+)+b",))
    assert matcher.failing("a" * 50_000) == (("(a+)+b",) if HYPERSCAN else ())
    assert matcher.skipped == (() if HYPERSCAN else ("(a+)+b",))


SAFE = (r'"price"\s*:\s*\d+', r"^\{", r"\}$", r"(ab|cd)+e", r"[a-c]{2,4}x", r"\bok\b", r"é.ü", r"a.*b", r"^$")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='abcdex{}":0123 pricéüok\n', max_size=40))
def test_it_finds_the_same_failing_patterns_as_re(text: str) -> None:
    expected = tuple(p for p in SAFE if re.compile(p, re.DOTALL | re.ASCII).search(text) is None)
    assert ResponsePatterns(SAFE).failing(text) == expected
