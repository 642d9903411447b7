# Don't change the tests! They tell you when exercises/e29_build_examples.py is done.
import copy
import json
import uuid

from exercise_support import need


def build(ex, tools):
    return need(ex, "build_examples", "tools")(tools)


def words(args):
    return len(args["text"].split())


def test_the_docstrings_example(ex):
    got = build(ex, {"wordcount": words})
    assert got == [
        {"role": "user", "content": "How many words are in 'slow and steady wins'?",
         "example": True},
        {"role": "assistant", "content":
         '{"tool": "wordcount", "args": {"text": "slow and steady wins"}}', "example": True},
        {"role": "user", "content": '<tool_result tool="wordcount">\n4\n</tool_result>',
         "example": True},
        {"role": "assistant", "content": "'slow and steady wins' has 4 words.",
         "example": True}], (
        "four messages per tool: the question, the JSON call line, the result wrapped as "
        "stage 06 sends it back (the name quoted with json.dumps, the result on a line of "
        "its own, the tool's int made a string), and the answer with the result in it. "
        f"Got {got}")


def test_each_result_is_what_its_tool_returned_on_one_call(ex):
    calls = []

    def fresh(args):  # a new value on every call: no table typed by hand can hold it
        calls.append(copy.deepcopy(args))
        return uuid.uuid4().hex

    got = build(ex, {"now": fresh, "calculator": fresh})
    assert calls == [{}, {"expression": "21 * 4"}], (
        f"each tool is called once, on its example's args, in the registry's order: {calls}")
    for exchange in (got[:4], got[4:]):
        told = exchange[2]["content"].split("\n")[1]
        assert len(told) == 32 and told in exchange[3]["content"], (
            "the result message and the answer must both show the value the tool returned "
            f"on that one call: {exchange}")


def test_the_registry_order_is_kept_and_a_tool_with_no_example_gets_none(ex):
    tools = {"calculator": lambda args: 84, "search": lambda args: "found",
             "now": lambda args: "noon"}
    got = build(ex, tools)
    lines = [json.loads(m["content"]) for m in got[1::4]]
    assert [line["tool"] for line in lines] == ["calculator", "now"], (
        "in the order of `tools` (the registry the model is told about), and only the tools "
        f"EXAMPLES has an entry for: {lines}")
    assert len(got) == 8 and build(ex, {}) == [] and build(ex, {"search": str}) == []


def test_every_message_is_marked_as_an_example(ex):
    got = build(ex, {"now": lambda args: "noon", "wordcount": words})
    unmarked = [m for m in got if m.get("example") is not True]
    assert not unmarked, (
        'each message needs "example": True: the trace, --show-wire and the offline model '
        f"read it to tell the examples from the conversation. Unmarked: {unmarked}")
    assert [m["role"] for m in got] == ["user", "assistant"] * 4


def test_a_tool_that_raises_gets_no_example_and_the_others_keep_theirs(ex):
    def broken(args):
        raise KeyError("text")

    got = build(ex, {"wordcount": broken, "now": lambda args: "noon"})
    assert [json.loads(m["content"])["tool"] for m in got[1::4]] == ["now"], (
        "a tool that fails on its example makes a bad example: leave it out, and do not "
        f"stop the others (nor show the error as a result): {got}")
    assert "Error" not in json.dumps(got)


def test_a_tool_that_changes_its_args_changes_nothing_it_should_not(ex):
    def greedy(args):
        shown = args.get("expression")
        args.clear()
        args["expression"] = "1 / 0"
        return shown

    first = build(ex, {"calculator": greedy})
    assert json.loads(first[1]["content"])["args"] == {"expression": "21 * 4"}, (
        "the call line shows the example's own args, whatever the tool did to the dict "
        f"it was given: {first[1]['content']}")
    again = build(ex, {"calculator": greedy})
    assert again == first, (
        "give the tool a copy of the args: one that changes them must not change EXAMPLES "
        f"for the next call. First {first}, then {again}")


def test_a_result_with_braces_or_a_newline_is_shown_as_it_came(ex):
    got = build(ex, {"now": lambda args: "{result} at\nnoon"})
    assert got[2]["content"] == '<tool_result tool="now">\n{result} at\nnoon\n</tool_result>'
    assert got[3]["content"] == "It is {result} at\nnoon (UTC).", (
        f"the result goes in once, as it is: {got[3]['content']!r}")
