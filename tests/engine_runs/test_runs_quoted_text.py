"""Issue 14: YAML double-quoted strings in text tool results are decoded once (runs/quoted_text.py), and a
hostile string can no longer make the pattern that finds them backtrack exponentially."""

from verification.engine.runs.quoted_text import decode_quoted


def test_it_decodes_escapes_and_folded_lines_of_a_quoted_page():
    text = 'page: "Hours\\n\\nSunday: Closed \\u2013 all day"\nurl: x'
    assert decode_quoted(text) == 'page: "Hours\n\nSunday: Closed \u2013 all day"\nurl: x'


def test_it_leaves_a_string_that_never_closes_as_it_is():
    # 5,000 escaped line breaks and no closing quote: each break had two readings, so the search for the
    # closing quote doubled its work with every break (40 of them took minutes; found by reviewing the round).
    text = 'content: "' + "\\\n" * 5_000 + "x"
    assert decode_quoted(text) == text


def test_it_leaves_text_without_quoted_escapes_alone():
    assert decode_quoted("status: open\nnote: plain") == "status: open\nnote: plain"
