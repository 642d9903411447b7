# Don't change the tests! They tell you when exercises/e01_strict_parser.py is done.
import pytest
from exercise_support import need

NOW = {"tool": "now", "args": {}}

CASES = [
    # the three examples of the docstring, as it gives them
    ('TOOL:\n{"tool": "now", "args": {}}', NOW),                      # the format
    ('\n TOOL: \n{"tool": "now", "args": {}}', NOW),                  # spaces around TOOL:
    ('{"tool": "now", "args": {}}', None),                            # bare JSON: an answer now
    # the rules, one case each
    ('\n\nTOOL:\n{"tool": "now", "args": {}}\n', NOW),                # blank lines around
    ('TOOL:  \n{\n "tool": "now",\n "args": {}\n}', NOW),             # spaces, pretty JSON
    ('TOOL:\n{"tool": "wordcount", "args": {"text": "TOOL:"}}',       # marker inside args
     {"tool": "wordcount", "args": {"text": "TOOL:"}}),
    ('   \n\nTOOL:\n{"tool": "now", "args": {}}', NOW),               # a line of spaces is blank
    ('TOOL: {"tool": "now", "args": {}}', None),                      # JSON on the marker line
    ('TOOL: junk\n{"tool": "now", "args": {}}', None),                # junk on the marker line
    ('TOOLS:\n{"tool": "now", "args": {}}', None),                    # not the marker
    ('TOOL:\n{"tool": "now", "args": {}}\nDone, I think.', None),     # JSON, then prose
    ('TOOL:\n{"tool": "now", "args": {}} {"tool": "x", "args": {}}', None),  # two objects
    ("TOOL:", None),                                                  # marker, nothing after
    ("TOOL:\nnow please", None),                                      # marker, then prose
    ('TOOL:\n{"tool": 1, "args": {}}', None),                         # tool not a string
    ('TOOL:\n{"tool": "now"}', None),                                 # args missing
    ('TOOL:\n{"tool": "now", "args": []}', None),                     # args not an object
    ('TOOL:\n["now"]', None),                                         # not an object
    ('tool:\n{"tool": "now", "args": {}}', None),                     # marker is case-sensitive
    ('Sure.\nTOOL:\n{"tool": "now", "args": {}}', None),              # prose before the marker
    ("The answer is 42.", None),                                      # prose
    ("", None),                                                       # empty
    ('TOOL:\n{"tool": ' + "[" * 50_000, None),                        # nested too deep
]


@pytest.mark.parametrize(("reply", "expected"), CASES, ids=[repr(r[:24]) for r, _ in CASES])
def test_strict_parser(ex, reply, expected):
    got = need(ex, "parse_tool_call", "text")(reply)
    what = "a tool call" if expected else "a final answer (None)"
    assert got == expected, (
        f"{reply[:70]!r} should be {what}; got {got!r}. The first non-blank line must be "
        "exactly TOOL:, and the rest exactly one JSON object with a string tool and "
        "an object args")
