"""The top README's "loop in ten lines" is stage 05's loop: run both, compare the wire."""

from __future__ import annotations

import re

import pytest
from helpers import ROOT, load_stage

from shared.providers import ScriptedProvider

LOOP = load_stage("05", "loop")
SNIPPET = re.search(r"## The loop in ten lines\n+```python\n(.*?)```",
                    (ROOT / "README.md").read_text(encoding="utf-8"), re.S).group(1)


def readme_agent_step():
    """The README's agent_step, run with stage 05's parser, tools and wrapper."""
    names = {name: getattr(LOOP, name)
             for name in ("_parse_tool_call", "run_tool", "observation", "MAX_ITERATIONS")}
    exec(compile(SNIPPET, "README.md", "exec"), names)  # our own README, in a test only
    return names["agent_step"]


SCRIPTS = {
    "a call with no args, then a call, then an answer": [
        '{"tool": "no_such_tool"}',
        '{"tool": "wordcount", "args": {"text": "to be or not"}}',
        "Four words.",
    ],
    "a plain answer": ["Hello there."],
    "blank lines before the call": ['\n\n{"tool": "wordcount", "args": {"text": "a b"}}',
                                    "Two."],
}


@pytest.mark.parametrize("replies", SCRIPTS.values(), ids=SCRIPTS.keys())
def test_readme_loop_sends_what_stage_05_sends(replies):
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    readme, stage = ScriptedProvider(replies), ScriptedProvider(replies)
    assert readme_agent_step()("count it", history, readme, "SYS") == replies[-1]
    assert LOOP.agent_step("count it", history, stage, "SYS") == replies[-1]
    assert [c["messages"] for c in readme.calls] == [c["messages"] for c in stage.calls]
    assert len(readme.calls) == len(replies)


def test_readme_loop_stops_at_the_same_cap():
    calls = ['{"tool": "wordcount", "args": {"text": "x"}}'] * (LOOP.MAX_ITERATIONS + 5)
    readme, stage = ScriptedProvider(calls), ScriptedProvider(calls)
    readme_agent_step()("loop", [], readme, "")
    LOOP.agent_step("loop", [], stage, "")
    assert len(readme.calls) == len(stage.calls) == LOOP.MAX_ITERATIONS
