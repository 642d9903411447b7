# Don't change the tests! They tell you when exercises/e02_wordcount.py is done.
import json

import pytest
from exercise_support import need

from shared.providers import ScriptedProvider
from tao.repo import load_stage


@pytest.mark.parametrize(("text", "count"), [
    ("a b  c", "3"),  # the docstring's example
    ("the quick brown fox", "4"), ("  spaced   out\twords\n", "3"), ("", "0"), ("héllo", "1"),
    ("   ", "0"), ("one", "1"),
    ("don't stop: a dog-eat-dog world", "5"),  # words are what whitespace separates
])
def test_wordcount_counts_words_and_returns_a_string(ex, text, count):
    got = need(ex, "wordcount", "args")({"text": text})
    assert got == count, f"wordcount({{'text': {text!r}}}) should be {count!r}, got {got!r}"


def test_add_wordcount_keeps_every_other_tool_and_the_original(ex):
    def noon(args):
        return "noon"

    def zero(args):
        return "0"

    tools = {"now": noon, "calculator": zero, "weather": zero}
    bigger = need(ex, "add_wordcount", "tools")(tools)
    assert set(bigger) == {"now", "calculator", "weather", "wordcount"}, (
        f"the new registry should hold every tool it was given, plus wordcount; it holds "
        f"{sorted(bigger)}")
    assert all(bigger[name] is tools[name] for name in tools), (
        "the other tools should be the very same functions, unchanged")
    assert bigger["wordcount"] is ex.wordcount, "register your wordcount function itself"
    assert list(tools) == ["now", "calculator", "weather"], (
        "add_wordcount must not change the registry it was given: build a new dict")


def test_an_empty_registry_gets_wordcount_alone(ex):
    tools: dict = {}
    bigger = need(ex, "add_wordcount", "tools")(tools)
    assert bigger == {"wordcount": ex.wordcount} and tools == {}, (
        f"add_wordcount({{}}) should be {{'wordcount': wordcount}}, with the empty dict it was "
        f"given left empty; got {bigger}, and the dict given is now {tools}")


def test_stage05_agent_step_runs_it_unchanged(ex, monkeypatch):
    loop = load_stage("05", "loop")
    monkeypatch.setattr(loop, "TOOLS", need(ex, "add_wordcount", "tools")(loop.TOOLS))
    call = json.dumps({"tool": "wordcount", "args": {"text": "to be or not to be"}})
    model = ScriptedProvider([call, "Six words."])
    assert loop.agent_step("count them", [], model, "") == "Six words."
    observation = model.calls[1]["messages"][-1]["content"]
    assert "\n6\n" in observation, (
        f"stage 05's loop ran your tool; the model should have seen 6, it saw {observation!r}")
