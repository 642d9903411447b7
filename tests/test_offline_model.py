"""The offline model: the kit's own tools, tools it has never seen, and its settings."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_stage

import shared.providers.offline as offline
from shared.providers import OfflineProvider, ProviderError, Tool, get_provider
from shared.providers.offline import QUIRKS
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
from shared.providers.offline.words import quoted, request_stems, stem
from tao.repo import load_stage

JSON_PROTOCOL = load_stage("06", "loop").build_agent_system()  # what stages 04-06 send
LOOP = load_stage("07", "loop")
KIT_TOOLS = load_stage("07", "tools").TOOLS  # now, wordcount, calculator


def schema(properties: dict, required=()) -> dict:
    return {"type": "object", "properties": properties, "required": list(required)}


# tools that appear nowhere in the kit, written the way a learner would add them
ROLL_DIE = Tool("roll_die", "Roll a die with the given number of sides.",
                schema({"sides": {"type": "integer", "description": "how many sides it has"}},
                       ["sides"]), lambda args: "17")
REVERSE = Tool("reverse_text", "Reverse a piece of text.",
               schema({"text": {"type": "string"}}, ["text"]), lambda args: args["text"][::-1])
WEATHER = Tool("get_weather", "Get the current weather for a city.",
               schema({"city": {"type": "string"},
                       "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}},
                      ["city"]), lambda args: f"18 degrees in {args['city']}")
SLOW_FETCH = Tool("slow_fetch", "Pretend to fetch a web page, taking some seconds.",
                  schema({"url": {"type": "string"}, "seconds": {"type": "number"}},
                         ["url", "seconds"]), lambda args: f"page {args['url']}")
NEW_TOOLS = [ROLL_DIE, REVERSE, WEATHER, SLOW_FETCH, *KIT_TOOLS]
OFFLINE_BUDGET = 1135  # non-blank lines in shared/providers/offline/ (930 on 1 Dec 2026, 1086
# once it read and wrote French: its sentences table and French words are data, not rules;
# 1103 once it numbered calls over a session and said which result it no longer has; 1116
# once it also gave the capstone's file tools the path a request names; 1135 with the
# gullible quirk, which turns a line planted in a tool result into a request)


def ask(text):
    return [{"role": "user", "content": text}]


def calls_of(reply):
    return [(c.name, c.args) for c in reply.tool_calls]


def result_of(call, text):
    return {"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text}


# ---------------------------------------------------------------- the kit's own stages


def test_json_protocol_time_question_takes_two_turns():
    model = OfflineProvider()
    messages = ask("What time is it?")
    first = "".join(model.stream(messages, JSON_PROTOCOL))
    assert json.loads(first) == {"tool": "now", "args": {}}
    messages += [{"role": "assistant", "content": first},
                 {"role": "user", "content": "<tool_result tool=\"now\">\n2026-05-01T09:30\n"
                                             "</tool_result>"}]
    second = "".join(model.stream(messages, JSON_PROTOCOL))
    assert "2026-05-01T09:30" in second and not second.startswith("{")


@pytest.mark.parametrize("number", ["04", "05", "06"])
def test_every_json_line_stage_prompt_is_read(number):
    system = load_stage(number, "loop").build_agent_system()
    reply = "".join(OfflineProvider().stream(ask("What time is it?"), system))
    assert json.loads(reply) == {"tool": "now", "args": {}}, f"stage {number}: {reply!r}"


@pytest.mark.parametrize(("question", "line"), [
    ("How many words are in 'the quick brown fox'?",
     {"tool": "wordcount", "args": {"text": "the quick brown fox"}}),
    ("What is 12 * (3 + 4)?", {"tool": "calculator", "args": {"expression": "12 * (3 + 4)"}}),
    ("What time is it?", {"tool": "now", "args": {}}),
])
def test_json_protocol_picks_each_kit_tool_from_the_prompt(question, line):
    reply = "".join(OfflineProvider().stream(ask(question), JSON_PROTOCOL))
    assert json.loads(reply) == line, f"{question!r} should become {line}, got {reply!r}"


def test_answers_plainly_when_no_tool_fits_and_says_what_it_is():
    reply = "".join(OfflineProvider().stream(ask("Write me a poem"), JSON_PROTOCOL))
    assert not reply.lstrip().startswith("{")
    assert "offline model" in reply and "now" in reply and "wordcount" in reply


def test_without_tools_never_emits_a_tool_call():
    reply = "".join(OfflineProvider().stream(ask("What time is it?"), "You are Tao."))
    assert "Tao" in reply and "{" not in reply


def test_remembers_the_conversation():
    history = ask("my name is Ada") + [{"role": "assistant", "content": "ok"}] + ask("and?")
    assert "my name is Ada" in "".join(OfflineProvider().stream(history))


def test_streams_in_small_deltas_even_for_long_words():
    deltas = list(OfflineProvider().stream(ask("hello " + "x" * 80)))
    assert len(deltas) > 5 and max(len(d.strip()) for d in deltas) <= 12, deltas


def test_native_two_tool_question_calls_both_in_one_reply():
    model = OfflineProvider()
    messages = ask("What time is it, and how many words are in "
                   "'the quick brown fox jumps over the lazy dog'?")
    reply = model.call(messages, "", KIT_TOOLS)
    assert calls_of(reply) == [
        ("now", {}), ("wordcount", {"text": "the quick brown fox jumps over the lazy dog"})]
    assert reply.stop_reason == "tool_use"
    messages.append(reply.assistant_message())
    for call, result in zip(reply.tool_calls, ["2026-05-01T09:30", "9"], strict=True):
        messages.append(result_of(call, result))
    final = model.call(messages, "", KIT_TOOLS)
    assert final.tool_calls == [] and final.stop_reason == "end_turn"
    assert "2026-05-01T09:30" in final.text and "9 words" in final.text


@pytest.mark.parametrize(("quirk", "check"), [
    ("blank_lines", lambda r: r.startswith("\n\n{") and json.loads(r)),
    ("fenced", lambda r: r.startswith("```json\n") and json.loads(r[8:-4])),
    ("prose", lambda r: not r.startswith("{") and json.loads(r[r.index("{"):])),
    ("broken_json", lambda r: r.startswith("{") and _not_json(r)),
    ("unknown_tool", lambda r: json.loads(r)["tool"] not in ("now", "wordcount", "calculator")),
    ("own_observation", lambda r: json.loads(r.split("\n")[0]) == {"tool": "now", "args": {}}
     and '\n<tool_result tool="now">\n' in r and "</tool_result>" in r),
])
def test_quirks_show_real_model_mistakes(quirk, check):
    reply = "".join(OfflineProvider(quirk=quirk).stream(ask("What time is it?"), JSON_PROTOCOL))
    assert check(reply), reply


def test_a_stop_sequence_cuts_a_made_up_observation_off():
    model = OfflineProvider(quirk="own_observation")
    replies = []
    model.on_reply = replies.append
    cut = "".join(model.stream(ask("What time is it?"), JSON_PROTOCOL, stop=["<tool_result"]))
    assert json.loads(cut) == {"tool": "now", "args": {}} and "42" not in cut
    assert [reply.stop_reason for reply in replies] == ["stop_sequence"]


@pytest.mark.parametrize("quirk", ["fenced", "prose"])
def test_a_coached_text_quirk_comes_out_right_on_the_retry(quirk):
    model = OfflineProvider(quirk=quirk)
    messages = ask("What time is it?")
    first = "".join(model.stream(messages, JSON_PROTOCOL))
    messages += [{"role": "assistant", "content": first},
                 {"role": "user", "content": "<tool_result tool=null>\nError: no tool ran: "
                                             "that looked like a tool call\n</tool_result>"}]
    again = "".join(model.stream(messages, JSON_PROTOCOL))
    assert first != again and json.loads(again) == {"tool": "now", "args": {}}


def _not_json(text):
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def test_native_quirks_spoil_only_the_first_call_and_the_retry_is_clean():
    question = ask("What time is it, and reverse 'abc'")
    reply = OfflineProvider(quirk="unknown_tool").call(question, "", NEW_TOOLS)
    assert reply.tool_calls[0].name not in {t.name for t in NEW_TOOLS}
    assert calls_of(reply)[1] == ("reverse_text", {"text": "abc"})
    broken = OfflineProvider(quirk="broken_json").call(question, "", NEW_TOOLS)
    assert broken.tool_calls[0].error.startswith("the arguments were not valid JSON")
    answer = LOOP.agent_step("What time is it?", [], OfflineProvider(quirk="unknown_tool"), "")
    assert answer.startswith("It is 20"), answer


def test_every_quirk_is_tested_and_a_bad_one_is_refused():
    assert set(QUIRKS) == {"blank_lines", "fenced", "prose", "broken_json", "unknown_tool",
                           "own_observation", "gullible"}
    with pytest.raises(ProviderError, match="unknown quirk"):
        OfflineProvider(quirk="sulky")


def test_a_failed_call_is_retried_once_then_reported():
    failures = []

    def always_fails(args):
        failures.append(args)
        raise RuntimeError("the die fell off the table")

    broken = Tool("roll_die", ROLL_DIE.description, ROLL_DIE.schema, always_fails)
    answer = _run_loop_with([broken], "Roll a die with 6 sides")
    assert failures == [{"sides": 6}, {"sides": 6}], "one try and exactly one retry"
    assert "roll_die tool (sides=6) failed" in answer and "fell off the table" in answer


# ---------------------------------------------------------------- tools it has never seen


@pytest.mark.parametrize(("question", "expected"), [
    ("Roll a die with 20 sides", [("roll_die", {"sides": 20})]),
    ("reverse the text 'hello'", [("reverse_text", {"text": "hello"})]),
    # the apostrophe in What's is not a quote
    ("What's the weather in 'Lisbon'?", [("get_weather", {"city": "Lisbon"})]),
    # no quotes: the phrase after the key word; the enum by its name
    ("What's the weather in Lisbon in fahrenheit?",
     [("get_weather", {"city": "Lisbon", "unit": "fahrenheit"})]),
    ("reverse hello world", [("reverse_text", {"text": "hello world"})]),
    ("Reverse 'don't panic'", [("reverse_text", {"text": "don't panic"})]),
    # quoted words are data: "time" inside the quote does not call `now`
    ("Reverse 'what time is it'", [("reverse_text", {"text": "what time is it"})]),
    # several things in one request: one call each, in the order asked
    ("What time is it, and roll a die with 6 sides",
     [("now", {}), ("roll_die", {"sides": 6})]),
    ("What's the weather in 'Lisbon' and 'Porto'?",
     [("get_weather", {"city": "Lisbon"}), ("get_weather", {"city": "Porto"})]),
    ("Roll a die, 8 sides, then reverse 'ab'",
     [("roll_die", {"sides": 8}), ("reverse_text", {"text": "ab"})]),
    # a detail given once is shared by every call of that tool
    ("Fetch 'a', 'b' and 'c', 0.5 seconds each",
     [("slow_fetch", {"url": u, "seconds": 0.5}) for u in "abc"]),
    ("Calculate 3 + 4 and 5 * 6",
     [("calculator", {"expression": "3 + 4"}), ("calculator", {"expression": "5 * 6"})]),
])
def test_new_tools_are_chosen_by_their_words_and_filled_from_the_schema(question, expected):
    reply = OfflineProvider().call(ask(question), "", NEW_TOOLS)
    assert calls_of(reply) == expected, f"{question!r}: {reply.text!r}"
    assert reply.stop_reason == "tool_use"


def test_a_tool_named_for_the_request_beats_one_that_mentions_it_in_passing():
    dictionary = Tool("dictionary", "Look up a word: its meaning, or translate it.",
                      schema({"word": {"type": "string"}}, ["word"]), str)
    translate = Tool("translate", "Turn a text into English.",
                     schema({"text": {"type": "string"}}, ["text"]), str)
    reply = OfflineProvider().call(ask("Translate 'hola'"), "", [dictionary, translate])
    assert calls_of(reply) == [("translate", {"text": "hola"})], "a name word counts twice"


@pytest.mark.parametrize("question", [
    "How many tools do you have?",  # "how many" suggests counting, but names nothing to count
    "Write me a poem", "Tell me about yourself"])
def test_a_request_no_tool_is_for_gets_a_plain_answer(question):
    reply = OfflineProvider().call(ask(question), "", NEW_TOOLS)
    assert reply.tool_calls == [] and "offline model" in reply.text, calls_of(reply)


def test_new_tools_work_through_stage_07s_own_loop():
    answer = _run_loop_with(NEW_TOOLS, "What's the weather in 'Lisbon', and reverse 'stressed'")
    assert "18 degrees in Lisbon" in answer and "desserts" in answer, answer


def test_two_calls_of_one_tool_are_both_told_with_their_arguments():
    answer = _run_loop_with(NEW_TOOLS, "Roll a die with 6 sides and a die with 20 sides")
    assert "roll_die tool (sides=6) says: 17" in answer, answer
    assert "roll_die tool (sides=20) says: 17" in answer, "the same result, told twice"


@pytest.mark.parametrize(("question", "line"), [
    ("Please reverse 'abc'", {"tool": "reverse_text", "args": {"text": "abc"}}),
    ("reverse hello there", {"tool": "reverse_text", "args": {"text": "hello there"}}),
    # the prompt states no types: a number written next to the argument's name is a number
    ("Roll a die with 20 sides", {"tool": "roll_die", "args": {"sides": 20}}),
])
def test_new_tools_work_in_a_json_line_prompt(question, line):
    system = (JSON_PROTOCOL + "\n- `reverse_text` — reverse the `text` it is given."
              "\n- `roll_die` — roll a die with `sides` sides.")
    reply = "".join(OfflineProvider().stream(ask(question), system))
    assert json.loads(reply) == line, reply


def test_a_tool_added_to_stage_06s_registry_is_used_with_no_other_change():
    loop = load_stage("06", "loop")

    def roll_die(args: dict) -> str:
        """roll a die with `sides` sides."""
        return f"rolled {args['sides'] - 3} of {args['sides']}"

    loop.TOOLS["roll_die"] = roll_die  # what the stage README invites a learner to do
    answer = loop.agent_step("Roll a die with 20 sides", [], OfflineProvider(),
                             loop.build_agent_system())
    assert "rolled 17 of 20" in answer, answer


@pytest.mark.parametrize(("question", "tool", "words"), [
    ("Roll a die", "roll_die", ["sides", "how many sides it has"]),
    ("What's the weather like?", "get_weather", ["city"]),
    ("Fetch 'a' and 'b'", "slow_fetch", ["seconds"]),
])
def test_asks_for_a_required_argument_it_cannot_fill(question, tool, words):
    reply = OfflineProvider().call(ask(question), "", NEW_TOOLS)
    assert reply.tool_calls == [] and reply.stop_reason == "end_turn", calls_of(reply)
    assert tool in reply.text and reply.text.rstrip().endswith("?"), reply.text
    assert all(word in reply.text for word in words), reply.text
    assert reply.text.count("To use") == 1, "one question, however many calls need it"


def test_it_calls_what_it_can_and_asks_for_the_rest():
    answer = _run_loop_with(NEW_TOOLS, "What time is it, and roll a die")
    assert answer.startswith("It is 20"), "the time was fetched first"
    assert "To use roll_die I need the sides" in answer, answer


def test_json_line_stages_make_one_call_per_reply_and_answer_with_all():
    loop = load_stage("06", "loop")
    model = OfflineProvider()
    answer = loop.agent_step("What time is it, and how many words are in 'a b c'?", [],
                             model, loop.build_agent_system())
    assert answer.startswith("It is 20") and answer.endswith("That text has 3 words."), answer


def test_a_required_choice_is_asked_for_with_its_allowed_values():
    units = Tool("convert", "Convert a temperature to another unit.",
                 schema({"degrees": {"type": "number"},
                         "unit": {"type": "string", "enum": ["celsius", "kelvin"]}},
                        ["degrees", "unit"]), str)
    reply = OfflineProvider().call(ask("Convert 21.5 degrees"), "", [units])
    assert "unit" in reply.text and "celsius, kelvin" in reply.text and not reply.tool_calls
    asked = ask("Convert 21.5 degrees to kelvin")
    assert calls_of(OfflineProvider().call(asked, "", [units])) == [
        ("convert", {"degrees": 21.5, "unit": "kelvin"})]


def _run_loop_with(tools, question):
    """Stage 07's agent_step, with `tools` in its registry as a learner would add them."""
    saved = LOOP.TOOLS, LOOP.find_tool.__globals__["TOOLS"]
    LOOP.TOOLS = LOOP.find_tool.__globals__["TOOLS"] = tools
    try:
        return LOOP.agent_step(question, [], OfflineProvider(), "")
    finally:
        LOOP.TOOLS, LOOP.find_tool.__globals__["TOOLS"] = saved


# ---------------------------------------------------------------- judgment: intent, not overlap

COMPUTE = Tool("compute", "Evaluate a math formula.",
               schema({"formula": {"type": "string"}}, ["formula"]), lambda args: "5")


@pytest.mark.parametrize(("question", "expression"), [
    ("what's 4823 times 1979?", "4823 * 1979"),   # "times" is no clock between numbers
    ("What is 7 multiplied by 6?", "7 * 6"),
    ("what do you get for 2 plus 2", "2 + 2"),
    ("100 divided by 8, please", "100 / 8"),
    ("Is 10 minus 3 seven?", "10 - 3"),
    ("What is 3 to the power of 4?", "3 ** 4"),
    ("multiply 12 by 12", "12 * 12"),
    ("subtract 4 from 10", "10 - 4"),
    ("what is 9 squared", "9 ** 2"),
    ("15 × 3 = ?", "15 * 3"),
])
def test_arithmetic_in_words_is_arithmetic(question, expression):
    for tools in (KIT_TOOLS, [*NEW_TOOLS[:4], COMPUTE]):  # the kit's, and a stranger's
        reply = OfflineProvider().call(ask(question), "", tools)
        assert [c.name for c in reply.tool_calls] in (["calculator"], ["compute"]), (
            f"{question!r} called {calls_of(reply)}")
        assert list(reply.tool_calls[0].args.values()) == [expression]
    line = json.loads("".join(OfflineProvider().stream(ask(question), JSON_PROTOCOL)))
    assert line == {"tool": "calculator", "args": {"expression": expression}}


@pytest.mark.parametrize("question", ["What time is it now?", "Give me the time, please"])
def test_time_is_still_time(question):
    assert calls_of(OfflineProvider().call(ask(question), "", KIT_TOOLS)) == [("now", {})]


@pytest.mark.parametrize(("question", "text"), [
    ("Count the words in the sentence I just gave you.", "a stitch in time saves nine"),
    ("how many words did I just send you?", "a stitch in time saves nine"),
    ("Reverse what I said before", "a stitch in time saves nine"),
    ("reverse my previous message", "a stitch in time saves nine"),
])
def test_words_that_point_back_mean_what_was_said_not_themselves(question, text):
    said = [*ask("Here is a proverb: 'a stitch in time saves nine'"),
            {"role": "assistant", "content": "Noted."}, *ask(question)]
    reply = OfflineProvider().call(said, "", [REVERSE, *KIT_TOOLS])
    assert [list(c.args.values()) for c in reply.tool_calls] == [[text]], calls_of(reply)
    alone = OfflineProvider().call(ask(question), "", [REVERSE, *KIT_TOOLS])
    assert alone.tool_calls == [] and alone.text.endswith("?"), "nothing said before: it asks"


def test_before_and_after_in_an_argument_are_just_words():
    said = [*ask("Here is a proverb: 'a stitch in time saves nine'"),
            {"role": "assistant", "content": "Noted."},
            *ask("What's the weather in Lisbon before noon?")]
    assert calls_of(OfflineProvider().call(said, "", [WEATHER])) == [
        ("get_weather", {"city": "Lisbon before noon"})]


def test_this_sentence_is_the_sentence_itself():
    reply = OfflineProvider().call(ask("How many words are in this very short sentence?"), "",
                                   KIT_TOOLS)
    assert calls_of(reply) == [
        ("wordcount", {"text": "How many words are in this very short sentence"})]


@pytest.mark.parametrize(("question", "first", "then", "told"), [
    ("Count the words in 'a b c d' and multiply that by 5", ("wordcount", "a b c d"),
     ("calculator", "4 * 5"), "20"),
    ("What is 2 to the power of 10, and then the result minus 24?", ("calculator", "2 ** 10"),
     ("calculator", "1024 - 24"), "1000"),
    ("Roll a die with 20 sides, then add 3 to it", ("roll_die", 20), ("calculator", "17 + 3"),
     "20"),
])
def test_a_call_can_chain_on_an_earlier_result(question, first, then, told):
    trace_calls = []

    def recording(tool):
        def run(args):
            trace_calls.append((tool.name, *args.values()))
            return tool.run(args)
        return Tool(tool.name, tool.description, tool.schema, run)

    tools = [recording(t) for t in NEW_TOOLS]
    answer = _run_loop_with(tools, question)
    assert trace_calls == [first, then], "the second call waited for the first result"
    assert told in answer, answer


def test_a_chained_call_goes_out_with_no_preamble():
    messages = ask("Count the words in 'x y z' and multiply that by 2")
    model = OfflineProvider()
    first = model.call(messages, "", KIT_TOOLS)
    assert first.text.startswith("I'll use wordcount") and calls_of(first) == [
        ("wordcount", {"text": "x y z"})]
    messages += [first.assistant_message(), result_of(first.tool_calls[0], "3")]
    second = model.call(messages, "", KIT_TOOLS)
    assert second.text == "" and calls_of(second) == [("calculator", {"expression": "3 * 2"})]


def test_arithmetic_on_a_result_that_is_not_a_number_waits_for_nothing():
    answer = _run_loop_with(NEW_TOOLS, "Reverse 'abc' and multiply that by 2")
    assert "cba" in answer and "calculator" not in answer, answer


@pytest.mark.parametrize("choice", ["required", "calculator"])
def test_tool_choice_that_demands_a_call_gets_one(choice):
    reply = OfflineProvider().call(ask("hello there"), "", KIT_TOOLS, tool_choice=choice)
    assert len(reply.tool_calls) == 1 and reply.stop_reason == "tool_use", reply.text
    if choice != "required":
        assert reply.tool_calls[0].name == choice
    fitting = OfflineProvider().call(ask("What is 6 * 7?"), "", KIT_TOOLS, tool_choice=choice)
    assert calls_of(fitting) == [("calculator", {"expression": "6 * 7"})]
    chat = OfflineProvider().call(ask("hello there"), "", KIT_TOOLS, tool_choice="auto")
    assert chat.tool_calls == [], "auto leaves the choice to the rules"


def test_tool_choice_required_still_calls_after_a_result():
    messages = ask("What time is it?")
    first = OfflineProvider().call(messages, "", KIT_TOOLS)
    messages += [first.assistant_message(), result_of(first.tool_calls[0], "noon")]
    again = OfflineProvider().call(messages, "", KIT_TOOLS, tool_choice="required")
    assert again.tool_calls, "required means every reply calls, even with an answer in hand"
    assert OfflineProvider().call(messages, "", KIT_TOOLS).tool_calls == []


def test_asked_what_a_tool_returned_it_tells_the_result_in_view_and_calls_nothing():
    turn = ask("How many words are in 'to be or not to be'?") + [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "name": "wordcount", "args": {"text": "to be or not to be"}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "wordcount", "content": "6"},
        {"role": "assistant", "content": "That text has 6 words."}]
    reply = OfflineProvider().call(turn + ask("What exactly did the wordcount tool return?"),
                                   "", KIT_TOOLS)
    assert reply.tool_calls == [] and "wordcount tool" in reply.text and "returned 6" in reply.text
    fresh = OfflineProvider().call(turn + ask("What did wordcount return for 'a b'?"), "",
                                   KIT_TOOLS)
    assert calls_of(fresh) == [("wordcount", {"text": "a b"})], "new data is a new request"
    named = OfflineProvider().call(turn + ask("and what did wordcount give?"), "", KIT_TOOLS)
    assert "returned 6" in named.text and not named.tool_calls
    chat = OfflineProvider().call(turn + ask("Did you say hello?"), "", KIT_TOOLS)
    assert "returned" not in chat.text, "a question about the talk, not about a tool"
    forgotten = OfflineProvider().call(ask("What did the wordcount tool return?"), "",
                                       KIT_TOOLS)
    assert forgotten.text.startswith("I no longer have the wordcount tool's result"), (
        "nothing in view: nothing to recall, and no call on the question's own words")
    assert not forgotten.tool_calls


def test_the_offline_model_keeps_to_its_line_budget():
    # one rule that reads intent beats a heuristic per demo sentence: fold new cases
    # into the rules and tables that exist before you raise this
    package = Path(offline.__file__).parent
    sizes = {p.name: len([line for line in p.read_text(encoding="utf-8").splitlines()
                          if line.strip()]) for p in package.glob("*.py")}
    assert sum(sizes.values()) <= OFFLINE_BUDGET, f"{sum(sizes.values())} lines: {sizes}"
    assert max(sizes.values()) <= 300, sizes


# ---------------------------------------------------------------- reading words


@pytest.mark.parametrize(("text", "expected"), [
    ("What's the weather in 'Lisbon'?", ["Lisbon"]),
    ("it's 'don't stop' and \"two words\"", ["don't stop", "two words"]),
    ("the dogs' bowls", []),
    ("“curly” and ‘single’", ["curly", "single"]),
])
def test_quotes_are_found_and_apostrophes_inside_words_are_not_quotes(text, expected):
    assert quoted(text) == expected


@pytest.mark.parametrize(("one", "other"), [
    ("words", "word"), ("sides", "side"), ("calculator", "calculate"),
    ("reversed", "reverse"), ("cities", "city"), ("counting", "count"),
    ("glasses", "glass"),  # a word ending in "ss" is not a plural of one ending in "s"
])
def test_stemming_lets_word_forms_meet(one, other):
    assert stem(one) == stem(other)


@pytest.mark.parametrize(("one", "other"), [("time", "text"), ("word", "world"),
                                            ("note", "now")])
def test_stemming_keeps_different_words_apart(one, other):
    assert stem(one) != stem(other)


# ---------------------------------------------------------------- summaries and memory


def _two_calls_one_failed():
    messages = ask("What time is it, and how many words are in 'a b c'?")
    messages.append({"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "name": "now", "args": {}},
        {"id": "c2", "name": "wordcount", "args": {"text": "a b c"}}]})
    messages.append({"role": "tool", "tool_call_id": "c1", "name": "now",
                     "content": "2026-05-01T09:30"})
    messages.append({"role": "tool", "tool_call_id": "c2", "name": "wordcount",
                     "content": "Error: the counter is broken"})
    return messages


def test_summary_when_the_last_call_offers_no_tools():
    reply = OfflineProvider().call(_two_calls_one_failed(), "", [])
    assert reply.tool_calls == [] and reply.stop_reason == "end_turn"
    done, _, missing = reply.text.partition("Missing:")
    assert "now" in done and "2026-05-01T09:30" in done, reply.text
    assert "wordcount" in missing and "the counter is broken" in missing, reply.text


def test_summary_when_asked_even_with_tools_offered():
    messages = _two_calls_one_failed()[:-1] + [
        {"role": "tool", "tool_call_id": "c2", "name": "wordcount", "content": "3"},
        {"role": "user", "content": "Summarise what you did so far."}]
    reply = OfflineProvider().call(messages, "", KIT_TOOLS)
    assert reply.tool_calls == [] and "Summary" in reply.text, reply.text
    assert "2026-05-01T09:30" in reply.text and "3" in reply.text
    assert "Missing" not in reply.text and "cannot tell" in reply.text
    system = "Summarize what was done and what is missing."
    reply = OfflineProvider().call(messages[:-1], system, KIT_TOOLS)
    assert "Summary" in reply.text and not reply.tool_calls, "asked in the system prompt"


def test_summary_of_json_line_results_and_of_an_unanswered_call():
    messages = ask("What time is it?") + [
        {"role": "assistant", "content": '{"tool": "now", "args": {}}'},
        {"role": "user", "content": "<tool_result tool=now>\nnoon\n</tool_result>"}]
    reply = "".join(OfflineProvider().stream(messages, "You are Tao."))
    assert "now" in reply and "noon" in reply and "Summary" in reply
    orphan = _two_calls_one_failed()[:-2]  # the calls went out, no result came back
    orphan.append({"role": "user", "content": "Give me a summary"})
    assert "Summary" not in OfflineProvider().call(orphan, "", []).text, "no results yet"


def test_the_last_tool_less_call_of_a_loop_gets_a_summary_whatever_it_says():
    messages = _two_calls_one_failed() + ask("You are out of iterations: stop here.")
    reply = OfflineProvider().call(messages, "", [])
    assert reply.text.startswith("Summary") and "the counter is broken" in reply.text
    with_tools = OfflineProvider().call(messages, "", KIT_TOOLS)
    assert not with_tools.text.startswith("Summary"), "with tools offered it is a new request"


def test_a_summary_asked_in_a_later_turn_covers_the_turn_that_used_tools():
    messages = _two_calls_one_failed() + [
        {"role": "assistant", "content": "It is 09:30."}, *ask("thanks"),
        {"role": "assistant", "content": "You're welcome."}, *ask("Recap, please.")]
    reply = OfflineProvider().call(messages, "", KIT_TOOLS)
    assert "Summary" in reply.text and "2026-05-01T09:30" in reply.text, reply.text


def test_a_later_turn_can_mention_what_a_tool_said_earlier():
    messages = _two_calls_one_failed() + [
        {"role": "assistant", "content": "It is noon."}, {"role": "user", "content": "thanks"}]
    reply = OfflineProvider().call(messages, "", KIT_TOOLS)
    assert "Earlier the wordcount tool said" in reply.text and not reply.tool_calls


def test_call_ids_stay_unique_across_turns():
    messages = _two_calls_one_failed()[:-1] + [
        {"role": "tool", "tool_call_id": "c2", "name": "wordcount", "content": "3"},
        {"role": "assistant", "content": "done"}, *ask("Roll a die with 4 sides")]
    reply = OfflineProvider().call(messages, "", NEW_TOOLS)
    assert [c.id for c in reply.tool_calls] == ["offline_call_3"]


# ---------------------------------------------------------------- usage and settings


def test_usage_is_estimated_from_characters():
    system, question = "s" * 40, "q" * 400
    reply = OfflineProvider().call(ask(question), system, [])
    assert reply.usage["estimated"] is True
    assert reply.usage["input_tokens"] == (40 + 400) // 4
    assert reply.usage["output_tokens"] == -(-len(reply.text) // 4)
    with_tools = OfflineProvider().call(ask(question), system, KIT_TOOLS)
    assert with_tools.usage["input_tokens"] > reply.usage["input_tokens"], "tools are sent too"


@pytest.mark.parametrize(("value", "allowed"), [
    ("abc", "from 0 to 10"), ("-1", "from 0 to 10"), ("nan", "from 0 to 10"),
    ("1e9", "from 0 to 10")])
def test_a_bad_delay_setting_is_one_line_naming_the_variable(monkeypatch, value, allowed):
    monkeypatch.setenv("TAO_OFFLINE_DELAY", value)
    with pytest.raises(ProviderError) as caught:
        get_provider("offline")
    message = str(caught.value)
    assert "TAO_OFFLINE_DELAY" in message and allowed in message and "\n" not in message


def test_a_good_delay_setting_is_used(monkeypatch):
    monkeypatch.setenv("TAO_OFFLINE_DELAY", "0.001")
    assert OfflineProvider().delay == 0.001
    assert OfflineProvider(delay=0).delay == 0, "the argument wins over the variable"


def test_an_unknown_quirk_setting_is_one_line_listing_the_quirks(monkeypatch):
    monkeypatch.setenv("TAO_OFFLINE_QUIRK", "sulky")
    with pytest.raises(ProviderError) as caught:
        OfflineProvider()
    message = str(caught.value)
    assert "TAO_OFFLINE_QUIRK" in message and "sulky" in message and "\n" not in message
    assert all(quirk in message for quirk in QUIRKS)


def test_a_stage_reports_a_bad_setting_in_one_line():
    done = run_stage("01", "hi", TAO_OFFLINE_DELAY="abc")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith("error: offline: TAO_OFFLINE_DELAY")


# ---------------------------------------------------------------- bad input


def test_malformed_tools_and_messages_get_a_reply_not_a_traceback():
    odd = [Tool("roll_die", "", {"properties": {"sides": "integer"}, "required": "sides"}, str),
           Tool("pick", "Pick a colour.", {"properties": [1, 2]}, str)]
    messages = [{"role": "user", "content": None}, {"role": "assistant"},
                {"role": "tool", "content": None}, {"content": "x"},
                *ask("roll a die with 6 sides " + "'(" * 5000 + " and" * 5000)]
    reply = OfflineProvider().call(messages, None, odd)
    assert reply.text and reply.stop_reason in ("tool_use", "end_turn")
    assert {c.name for c in reply.tool_calls} <= {"roll_die"}, "only a tool that exists"


CITY_WEATHER = Tool("weather", "Return the current weather in a city.",
               schema({"city": {"type": "string"}}, ["city"]), lambda args: "sunny")


@pytest.mark.parametrize("question", [
    "what's the weather in Paris right now?",
    "what is the weather in Paris now?",
    "quelle est la météo à Paris maintenant ?",
])
def test_a_learners_tool_about_the_subject_wins_over_a_built_in_cue_word(question):
    # stage 07's tools, the learner's `weather` added last: "now" is also the name of a
    # built-in tool, but the question is about the weather, which the new tool's name
    # and description both say
    tools = [*KIT_TOOLS, CITY_WEATHER]
    reply = OfflineProvider().call(ask(question), "", tools)
    assert calls_of(reply) == [("weather", {"city": "Paris"})], calls_of(reply)


def test_the_time_tool_still_answers_a_question_about_the_time():
    tools = [*KIT_TOOLS, CITY_WEATHER]
    reply = OfflineProvider().call(ask("what time is it right now?"), "", tools)
    assert calls_of(reply) == [("now", {})], calls_of(reply)


@pytest.mark.parametrize("number", ["07", "08"])
def test_call_ids_are_never_given_twice_in_one_session(number):
    # stage 07 forgets each turn's calls and stage 08 snips them (--budget): either way
    # the next turn's history holds fewer calls than the model made
    questions = "what time is it?\nhow many words are in 'a b c'?\nwhat time is it?\n"
    out = run_stage(number, "--budget", "200", stdin=questions) if number == "08" else \
        run_stage(number, stdin=questions)
    ids = re.findall(r"act · \w+ · (offline_call_\d+)", out.stdout)
    assert len(ids) == 3 and len(set(ids)) == 3, f"the same id for two calls: {ids}"


def _turn(question: str, call_id: str, tool: str, args: dict, result: str, answer: str):
    """One finished turn of a native history: the question, one call, its result, the answer."""
    return [*ask(question),
            {"role": "assistant", "content": "",
             "tool_calls": [{"id": call_id, "name": tool, "args": args}]},
            {"role": "tool", "tool_call_id": call_id, "name": tool, "content": result},
            {"role": "assistant", "content": answer}]


def test_asked_about_an_older_tool_it_quotes_that_tool_not_the_latest_one():
    history = (_turn("how many words are in 'a b c'?", "c1", "wordcount", {"text": "a b c"},
                     "3", "Three.")
               + _turn("what is 6 * 7?", "c2", "calculator", {"expression": "6 * 7"}, "42",
                       "42."))
    reply = OfflineProvider().call(history + ask("what did the wordcount tool return?"), "",
                                   KIT_TOOLS)
    assert "wordcount tool (text=a b c) returned 3" in reply.text, reply.text
    assert "calculator" not in reply.text, "it answered about another call"


@pytest.mark.parametrize(("question", "expected"), [
    ("what exactly did the wordcount tool return?", "I no longer have the wordcount"),
    ("qu'a renvoyé l'outil wordcount ?", "Je n'ai plus le résultat de l'outil wordcount"),
])
def test_asked_about_a_result_that_was_snipped_it_says_it_no_longer_has_it(question, expected):
    # what stage 08 sends once its budget snipped the wordcount turn: a later turn only
    history = _turn("what is 6 * 7?", "c2", "calculator", {"expression": "6 * 7"}, "42", "42.")
    reply = OfflineProvider().call(history + ask(question), "", KIT_TOOLS)
    assert reply.text.startswith(expected) and not reply.tool_calls, reply.text


# ======================================================================================
# The offline model's planning (shared/providers/offline/planning.py), asked directly, at
# the edges mutation runs found: which argument takes which quoted text, which number,
# which enum value; which earlier clause "that" points at; what a schema that came over
# the wire as JSON means. The tools are this file's, and a few more of the same kind.


def tool(name, description, properties, required=()):
    return Tool(name, description, schema(properties, required), str)


def over_the_wire(t: Tool) -> Tool:
    """The tool with its schema read back from JSON, as a server would receive it: every
    string in it a new object, none of them the literals of the code."""
    return Tool(t.name, t.description, json.loads(json.dumps(t.schema)), t.run)


def planned(request, tools, result_of=lambda need: None, said=()):
    return [(n.tool, n.args, n.missing)
            for n in plan(request, catalogue_from_tools(tools), result_of, said)]


def spec_of(t: Tool) -> ToolSpec:
    return catalogue_from_tools([t])[t.name]


JOIN = tool("join_texts", "Join two texts into one.",
            {"first": {"type": "string"}, "second": {"type": "string"}}, ["first", "second"])
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
