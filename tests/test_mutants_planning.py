"""The offline model's planning (shared/providers/offline/planning.py) at the edges the
surviving mutants of benchmarks/mutation.py found: which argument takes which quoted
text, which number, which enum value; which earlier clause "that" points at; what a
schema that came over the wire as JSON means. Each test asks planning directly, with
tools written the way a learner would add them."""

from __future__ import annotations

import json

import pytest

from shared.providers import Tool
from shared.providers.offline.planning import (
    Need,
    ToolSpec,
    catalogue_from_prompt,
    catalogue_from_tools,
    fill,
    kind,
    likeliest,
    plan,
)
from shared.providers.offline.words import request_stems
from tao.repo import load_stage

KIT_TOOLS = load_stage("07", "tools").TOOLS  # now, wordcount, calculator
JSON_PROTOCOL = load_stage("06", "loop").build_agent_system()


def tool(name, description, properties, required=()):
    return Tool(name, description, {"type": "object", "properties": properties,
                                    "required": list(required)}, str)


def over_the_wire(t: Tool) -> Tool:
    """The tool with its schema read back from JSON, as a server would receive it: every
    string in it a new object, none of them the literals of the code."""
    return Tool(t.name, t.description, json.loads(json.dumps(t.schema)), t.run)


def planned(request, tools, result_of=lambda need: None, said=()):
    return [(n.tool, n.args, n.missing)
            for n in plan(request, catalogue_from_tools(tools), result_of, said)]


def spec_of(t: Tool) -> ToolSpec:
    return catalogue_from_tools([t])[t.name]


ROLL_DIE = tool("roll_die", "Roll a die with the given number of sides.",
                {"sides": {"type": "integer", "description": "how many sides it has"}},
                ["sides"])
REVERSE = tool("reverse_text", "Reverse a piece of text.", {"text": {"type": "string"}},
               ["text"])
JOIN = tool("join_texts", "Join two texts into one.",
            {"first": {"type": "string"}, "second": {"type": "string"}}, ["first", "second"])
WEATHER = tool("get_weather", "Get the current weather for a city.",
               {"city": {"type": "string"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}, ["city"])
VOLUME = tool("set_volume", "Set the speaker volume level.",
              {"level": {"enum": [1, 2, 500, 1000]}}, ["level"])
VOLUME_DOWN = tool("set_volume", "Set the speaker volume level.",
                   {"level": {"enum": [1000, 500, 2, 1]}}, ["level"])
TAG = tool("tag_photo", "Tag a photo with labels.",
           {"labels": {"type": "array", "items": {"type": "string"}}}, ["labels"])
PICK = tool("pick_numbers", "Pick lottery numbers.",
            {"numbers": {"type": "array", "items": {"type": "integer"}}}, ["numbers"])
ANY_LIST = tool("tag_photo", "Tag a photo with labels.", {"labels": {"type": "array"}},
                ["labels"])


# ---------------------------------------------------------------- the schema


def test_a_required_name_with_no_property_is_not_asked_for():
    spec = ToolSpec("t", "d", {"properties": {"a": {}, "b": {}}, "required": ["a", "ghost", 3]})
    assert spec.required() == ["a"]


@pytest.mark.parametrize(("types", "expected"), [
    (["string", "null"], "string"), (["null", "string"], "string"),
    (["integer", "null"], "integer"), (["null", "integer"], "integer"),
    (["null", "number"], "number"), (["null", "array"], "array"), (["null"], "untyped"),
])
def test_a_nullable_type_is_the_type_that_is_not_null(types, expected):
    assert kind("x", {"type": types}) == expected
    assert kind("x", json.loads(json.dumps({"type": types}))) == expected, "read from JSON"


def test_a_name_word_scores_twice_a_description_word_and_both_add_up():
    spec = spec_of(REVERSE)  # name: reverse, text; description: reverse, piece, text
    assert spec.score(request_stems("piece")) == 1
    assert spec.score(request_stems("reverse")) == 3, "in the name and the description"
    assert spec.score(request_stems("reverse piece")) == 4
    assert spec.score(request_stems("juggle")) == 0
    now = ToolSpec("now", "Return the current UTC time.", {})
    assert now.score(request_stems("now")) == 2, "in the name only"


def test_the_same_call_is_one_key_whatever_the_order_of_its_arguments():
    assert Need("t", {"a": 1, "b": 2}).key() == Need("t", {"b": 2, "a": 1}).key()
    assert Need("t", {"a": 1}).key() != Need("t", {"a": 2}).key()


@pytest.mark.parametrize("system", [
    "Tools:\n- `reverse_text` — reverse the `text` it is given.",  # no protocol at all
    'Reply with {"tool": ...}.\n- `reverse_text` — reverse the `text` it is given.',
    'Reply with {"args": ...}.\n- `reverse_text` — reverse the `text` it is given.',
])
def test_a_prompt_without_the_json_line_protocol_lists_no_tools(system):
    assert catalogue_from_prompt(system) == {}
    assert "reverse_text" in catalogue_from_prompt(
        JSON_PROTOCOL + "\n- `reverse_text` — reverse the `text` it is given.")


# ---------------------------------------------------------------- texts and numbers


def test_quoted_texts_fill_text_arguments_in_the_order_written():
    assert planned("Join 'left' with 'right'", [JOIN]) == [
        ("join_texts", {"first": "left", "second": "right"}, [])]


def test_a_tool_of_two_texts_is_one_call_however_many_quotes():
    assert len(planned("Join 'a' with 'b' or 'c'", [JOIN])) == 1


def test_a_one_text_tool_gets_one_call_per_quoted_text():
    assert planned("Reverse 'ab' 'cd' 'ef'", [REVERSE]) == [
        ("reverse_text", {"text": t}, []) for t in ("ab", "cd", "ef")]


def test_a_number_with_no_name_beside_it_still_fills_a_whole_number():
    assert planned("Roll a die: 12", [ROLL_DIE]) == [("roll_die", {"sides": 12}, [])]


def test_the_number_beside_the_arguments_name_wins_over_the_first_one():
    request = "Roll 2 of the big red dice from the box, with 20 sides"
    assert planned(request, [ROLL_DIE]) == [("roll_die", {"sides": 20}, [])]


def test_a_number_far_from_the_arguments_name_is_not_beside_it():
    # "sides" is in the sentence, but a long way before either number
    request = ("Roll a die with sides, as many of them as the board game in the box says, 7 "
               "times over, or 12")
    ((_, args, _),) = planned(request, [ROLL_DIE])
    assert args == {"sides": 7}, "no number is beside the name: the first one"
    line = "- `roll_die` — roll a die with `sides` sides."
    catalogue = catalogue_from_prompt(JSON_PROTOCOL + "\n" + line)
    (need,) = plan("Roll a die with 20 sides", catalogue)
    assert need.args == {"sides": 20}, "a JSON-line argument takes the number beside its name"


def test_a_name_far_before_a_number_does_not_claim_it():
    # the first "sides" is a long way before the 3; the 20 has its own "sides" beside it
    request = ("Roll a die with sides that my old friends from school know well, 3 friends "
               "in all, who each throw it once, with 20 sides")
    assert planned(request, [ROLL_DIE]) == [("roll_die", {"sides": 20}, [])]


def test_a_name_at_the_very_start_claims_the_number_beside_it():
    request = "Sides: 20, roll it for the whole of the big class, with 6 sides"
    assert planned(request, [ROLL_DIE]) == [("roll_die", {"sides": 20}, [])]


def test_a_json_line_argument_takes_a_lone_number_as_text_not_as_a_number():
    line = "- `reverse_text` — reverse the `text` it is given."
    catalogue = catalogue_from_prompt(JSON_PROTOCOL + "\n" + line)
    (need,) = plan("Reverse 12345", catalogue)
    assert need.args == {"text": "12345"}


# ---------------------------------------------------------------- enums and lists


@pytest.mark.parametrize("volume", [VOLUME, VOLUME_DOWN], ids=["up", "down"])
@pytest.mark.parametrize("level", [2, 1000])
def test_a_number_enum_takes_the_number_written(volume, level):
    assert planned(f"Set the volume level to {level}", [volume]) == [
        ("set_volume", {"level": level}, [])]
    assert planned(f"Set the volume level to {level}", [over_the_wire(volume)]) == [
        ("set_volume", {"level": level}, [])]


def test_a_number_enum_asks_when_the_number_written_is_not_allowed():
    assert planned("Set the volume level to 3", [VOLUME]) == [("set_volume", {}, ["level"])]


def test_an_enum_named_alone_is_that_value():
    assert fill(spec_of(WEATHER), "fahrenheit")[0].args["unit"] == "fahrenheit"


@pytest.mark.parametrize("labels", [TAG, ANY_LIST, over_the_wire(TAG)],
                         ids=["strings", "no item type", "from JSON"])
def test_a_list_of_texts_takes_every_quoted_text(labels):
    assert planned("Tag the photo 'sea', 'sun' and 'sand'", [labels]) == [
        ("tag_photo", {"labels": ["sea", "sun", "sand"]}, [])]
    assert planned("Tag the photo", [labels]) == [("tag_photo", {}, ["labels"])]


@pytest.mark.parametrize("picks", [PICK, over_the_wire(PICK)], ids=["literal", "from JSON"])
def test_a_list_of_numbers_is_never_filled_with_quoted_text(picks):
    assert planned("Pick the numbers 'seven' and 'nine'", [picks]) == [
        ("pick_numbers", {}, ["numbers"])]


# ---------------------------------------------------------------- clauses and chains


def test_a_clause_naming_no_tool_is_a_detail_of_the_clause_before_it():
    # "the time, and a die between 1 and 6": the last "6" belongs to the die, not the time
    between = tool("random_number", "Pick a random number between two numbers.",
                   {"low": {"type": "integer"}, "high": {"type": "integer"}}, ["low", "high"])
    assert planned("What time is it, and pick a random number between 1 and 6",
                   [*KIT_TOOLS, between]) == [
        ("now", {}, []), ("random_number", {"low": 1, "high": 6}, [])]


def test_text_before_the_clause_that_names_the_tool_belongs_to_it():
    assert planned("'hello world'. Reverse it.", [REVERSE]) == [
        ("reverse_text", {"text": "hello world"}, [])]


def counted(need):
    """Stand-in results: a wordcount says how many words its text has."""
    return str(len(need.args["text"].split())) if need.tool == "wordcount" else None


def test_that_is_the_result_of_the_clause_just_before():
    planned_calls = planned("What time is it? Count the words in 'a b' and multiply that by 7",
                            KIT_TOOLS, counted)
    assert planned_calls == [("now", {}, []), ("wordcount", {"text": "a b"}, []),
                             ("calculator", {"expression": "2 * 7"}, [])]


def test_that_is_the_last_result_of_a_clause_with_several_calls():
    planned_calls = planned("Count the words in 'a b c' and 'd e', then multiply that by 7",
                            KIT_TOOLS, counted)
    assert planned_calls[-1] == ("calculator", {"expression": "2 * 7"}, [])


def test_that_waits_for_the_last_result_only():
    def first_failed(need):  # the first count failed (no number), the second came back
        return "2" if need.args.get("text") == "d e" else None

    planned_calls = planned("Count the words in 'a b c' and 'd e', then multiply that by 7",
                            KIT_TOOLS, first_failed)
    assert planned_calls[-1] == ("calculator", {"expression": "2 * 7"}, [])


def test_the_sentence_i_gave_you_is_the_latest_one_and_its_first_quote():
    said = ("Here is one: 'alpha beta'", "Now this: 'one two three' (not 'four')")
    assert planned("Count the words in the sentence I just gave you", KIT_TOOLS,
                   said=said) == [("wordcount", {"text": "one two three"}, [])]


def test_the_likeliest_call_takes_the_first_quoted_text():
    need = likeliest("'abc' and 'def'", catalogue_from_tools([REVERSE]))
    assert (need.tool, need.args) == ("reverse_text", {"text": "abc"})
