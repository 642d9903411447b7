"""Stages 08-10: memory under a budget, stop reasons as data, concurrent tools.

What a learner sees of stage 09's turn, which stages 10-14 copy (so each test of it runs
on every stage that has it):
- every row of the gate table: a reply that ended (`end_turn`) or stopped to call
  (`tool_use`) runs its calls; one cut at the token limit is tried once more with more
  room, then reported cut off with its calls not run; a refusal or the content filter
  ends the turn as a refusal, calls never run; a stop sequence, a paused turn, a full
  context window and a reason no one knows end it as model_stopped, calls not run;
- at the iteration cap, or going round in circles, one last call with the tools defined
  but switched off (tool_choice "none") sums up; its summary cut at the token limit says
  so; a wrap-up that calls a tool, says nothing or fails gives the plain message instead;
- Ctrl-C mid-turn keeps the turn so far, and the next request repairs it.

Run as a script, it prints stage 08's budget table as its README shows it:

    uv run python tests/test_stages_08_10.py
"""

from __future__ import annotations

import asyncio
import copy
import io
import json
import re
import sys
import threading
import time
import types
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # helpers, when run as a script

# ruff: noqa: E402  (the imports below need tests/ on sys.path, set just above)
from fake_api import FakeAPI, anthropic_stream, check_anthropic, check_openai, openai_stream
from helpers import ROOT, STAGE_DIRS, load_stage, run_stage, stage_dir, with_twins

from shared.providers import OfflineProvider, ProviderError, Reply, ScriptedProvider
from shared.providers.anthropic_provider import AnthropicProvider, to_anthropic
from shared.providers.base import Tool, ToolCall
from shared.providers.openai_provider import OpenAIProvider, to_openai
from shared.trace import Trace, make_console

LOOP08, CONTEXT08 = load_stage("08", "loop"), load_stage("08", "context")
LOOP09 = load_stage("09", "loop")
LOOP10, TOOLS10 = load_stage("10", "loop"), load_stage("10", "tools")


class AllowAll:
    """Stage 13-14's approval, answering yes to every call (tests/test_approval_audit.py
    holds the real one): here only the turn around it is tested."""

    def check(self, call, trace=None):
        return types.SimpleNamespace(allowed=True, reason="allowed")

    def record(self, call, decision, result, seconds):
        pass


class Approved:
    """A stage 13-14 loop whose `agent_step` is given AllowAll: the same calls as 09's."""

    def __init__(self, loop):
        object.__setattr__(self, "loop", loop)

    def __getattr__(self, name):
        return getattr(self.loop, name)

    def __setattr__(self, name, value):  # monkeypatch.setattr reaches the stage's module
        setattr(self.loop, name, value)

    def agent_step(self, *args, **kwargs):
        return self.loop.agent_step(*args, approval=AllowAll(), **kwargs)


# stage 09's loop and the stages that copy it: its gates and wrap-up are tested on each
LATER = ["09", "10", "11", "12", "13", "14"]
LATER_LOOPS = [LOOP09, LOOP10, load_stage("11", "loop"), load_stage("12", "loop"),
               Approved(load_stage("13", "loop")), Approved(load_stage("14", "loop"))]
every_later_loop = pytest.mark.parametrize("loop", LATER_LOOPS, ids=LATER)


def calls(*tool_calls, stop="tool_use", text=""):
    """A scripted reply asking for these calls."""
    return Reply(text, list(tool_calls), stop)


def wc(call_id, text="a b c"):
    return ToolCall(call_id, "wordcount", {"text": text})


def trace_to_text():
    return Trace(make_console(file=io.StringIO(), width=100))


def accepted(messages, tools=True):
    """None if both APIs would take this history, else what they object to."""
    tool_list = [{"name": "wordcount", "input_schema": {"type": "object"}}] if tools else []
    anthropic = {"model": "m", "max_tokens": 5, "stream": True,
                 "messages": to_anthropic(messages)}
    if tool_list:
        anthropic["tools"] = tool_list
    return (check_openai({"model": "m", "stream": True, "messages": to_openai(messages)},
                         {"authorization": "Bearer k"})
            or check_anthropic(anthropic, {"x-api-key": "k", "anthropic-version": "1"}))


# ---------------------------------------------------------------- stage 08: memory, budget


def test_stage08_turn_two_sees_turn_one_tool_calls_and_results():
    model = ScriptedProvider([calls(wc("c1", "one two three")), "Three words.",
                              "Your first text had three words: wordcount said 3."])
    history = LOOP08.agent_step("count 'one two three'", [], model, "")
    LOOP08.agent_step("what exactly did the tool say?", history, model, "")
    seen = model.calls[2]["messages"]
    assert [m["role"] for m in seen] == ["user", "assistant", "tool", "assistant", "user"], (
        "turn two must be sent turn one's whole scratchpad, not just its final text")
    assert seen[2] == {"role": "tool", "tool_call_id": "c1", "name": "wordcount",
                       "content": "3"}


def test_stage08_agent_step_returns_a_new_history_and_leaves_the_old_alone():
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    before = copy.deepcopy(history)
    after = LOOP08.agent_step("x", history, ScriptedProvider([calls(wc("c1")), "ok"]), "")
    assert history == before, "a cancelled turn must leave the caller's history unchanged"
    assert after[:2] == before and after[-1] == {"role": "assistant", "content": "ok"}
    assert len(after) == 6  # user, assistant(call), tool, assistant(answer) added


def test_stage08_the_history_keeps_a_long_result_whole_but_the_model_is_sent_a_capped_one():
    big = "word " * 3000  # 15,000 characters of tool output
    tools = [Tool("dump", "big output", {"type": "object", "properties": {}}, lambda a: big)]
    model = ScriptedProvider([calls(ToolCall("c1", "dump", {})), "done"])
    original = LOOP08.TOOLS[:]
    LOOP08.TOOLS[:] = tools
    try:
        history = LOOP08.agent_step("x", [], model, "")
    finally:
        LOOP08.TOOLS[:] = original
    assert history[2]["content"] == big, "nothing may be lost from the history itself"
    sent = model.calls[1]["messages"][2]["content"]
    assert len(sent) < CONTEXT08.MAX_OBSERVATION + 60 and "more characters cut" in sent


def long_session(budget, turns=10, trace=None):
    """Ten turns, each sending ~100 words through wordcount: (history, models)."""
    words = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu".split()
    history, models = [], []
    for turn in range(1, turns + 1):
        text = " ".join(words[(turn + i) % 12] for i in range(100))
        model = ScriptedProvider([calls(wc(f"c{turn}", text)), "That text has 100 words."])
        history = LOOP08.agent_step(f"How many words are in '{text}'?", history, model, "",
                                    trace or trace_to_text(), budget=budget)
        models.append(model)
    return history, models


def test_stage08_snipping_keeps_requests_under_budget_and_valid_for_both_apis():
    budget = 1200
    history, models = long_session(budget)
    assert len(history) == 40, "the history keeps all ten turns"
    overhead = LOOP08.estimate_tokens(["", [(t.name, t.description, t.schema)
                                            for t in LOOP08.TOOLS]])
    for model in models:
        for call in model.calls:
            sent = call["messages"]
            assert LOOP08.estimate_tokens(sent) + overhead <= budget
            assert sent[0]["role"] == "user", "a snipped history must start at a turn"
            assert accepted(sent) is None, f"refused after snipping: {accepted(sent)}"
    assert len(models[-1].calls[0]["messages"]) < len(history)


@pytest.mark.parametrize("name, messages, expected_roles", [
    # an orphan result (its call was lost) is dropped
    ("orphan", [{"role": "user", "content": "a"},
                {"role": "tool", "tool_call_id": "ghost", "name": "now", "content": "x"},
                {"role": "assistant", "content": "b"}], ["user", "assistant"]),
    # a call without a result gets a stand-in, right after its turn's real results
    ("missing", [{"role": "user", "content": "a"},
                 {"role": "assistant", "content": "",
                  "tool_calls": [{"id": "1", "name": "now", "args": {}},
                                 {"id": "2", "name": "now", "args": {}}]},
                 {"role": "tool", "tool_call_id": "2", "name": "now", "content": "noon"},
                 {"role": "user", "content": "b"}],
     ["user", "assistant", "tool", "tool", "user"]),
])
def test_stage08_prepare_repairs_what_strict_apis_refuse(name, messages, expected_roles):
    assert accepted(messages), f"the '{name}' case should start out broken"
    before = copy.deepcopy(messages)
    sent = CONTEXT08.prepare(messages, 10_000)
    assert [m["role"] for m in sent] == expected_roles
    assert accepted(sent) is None, accepted(sent)
    assert messages == before, "prepare works on a copy; the history is not touched"
    if name == "missing":
        assert sent[2]["content"] == "noon" and sent[3]["content"] == CONTEXT08.MISSING_RESULT


def stray_results() -> list[dict]:
    """A history a crash or a resumed checkpoint can leave: one call answered twice, and
    a result that arrives after the next user message (late)."""
    ask = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "name": "now", "args": {}}, {"id": "c2", "name": "now", "args": {}}]}
    return [{"role": "user", "content": "a"}, ask,
            {"role": "tool", "tool_call_id": "c1", "name": "now", "content": "noon"},
            {"role": "tool", "tool_call_id": "c1", "name": "now", "content": "noon again"},
            {"role": "user", "content": "b"},
            {"role": "tool", "tool_call_id": "c2", "name": "now", "content": "late"}]


@pytest.mark.parametrize("number", ["08", "09", "10"])
def test_prepare_drops_repeated_and_late_results_as_exercise_5_does(number):
    # the repair exercise 5 asks for: each result answers, once, a call of the turn just
    # before it; c2's late result is dropped and its call gets the stand-in instead
    context = load_stage(number, "context")
    messages = stray_results()
    assert accepted(messages), "the history should start out refused"
    sent = context.prepare(messages, 10_000)
    assert [(m["role"], m.get("content")) for m in sent[2:]] == [
        ("tool", "noon"), ("tool", context.MISSING_RESULT), ("user", "b")], sent
    assert accepted(sent) is None, accepted(sent)


def test_stage08_snipping_never_parts_a_call_from_its_result():
    turn = [{"role": "user", "content": "q" * 400},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c", "name": "now", "args": {}}]},
            {"role": "tool", "tool_call_id": "c", "name": "now", "content": "r" * 400},
            {"role": "assistant", "content": "a"}]
    messages = turn + copy.deepcopy(turn) + [{"role": "user", "content": "last"}]
    for budget in range(0, 800, 7):
        sent = CONTEXT08.snip_oldest_turns(messages, budget)
        assert sent in (messages, messages[4:], messages[8:]), f"budget {budget}: cut mid-turn"
    assert CONTEXT08.snip_oldest_turns(messages, 10) == messages[8:], (
        "the current turn is always sent, even over budget")


def test_stage08_a_real_token_count_corrects_the_estimate():
    # the API says the last request was far bigger than estimated (a long system prompt,
    # say): the next request of the turn must make room by snipping the old turn
    old = [{"role": "user", "content": "old " * 100}, {"role": "assistant", "content": "ok"}]
    huge = Reply("", [wc("c1")], "tool_use", {"input_tokens": 1990, "output_tokens": 5})
    model = ScriptedProvider([huge, "done"])
    LOOP08.agent_step("new", old, model, "", budget=2000)
    assert model.calls[0]["messages"][0] == old[0], "the estimate alone fits: nothing snipped"
    assert model.calls[1]["messages"][0]["content"] == "new", "the real count must win"


def test_stage08_an_estimated_usage_is_not_taken_for_a_real_count():
    old = [{"role": "user", "content": "old " * 100}, {"role": "assistant", "content": "ok"}]
    guess = Reply("", [wc("c1")], "tool_use",
                  {"input_tokens": 1990, "output_tokens": 5, "estimated": True})
    model = ScriptedProvider([guess, "done"])
    LOOP08.agent_step("new", old, model, "", budget=2000)
    assert model.calls[1]["messages"][0] == old[0]


def test_stage08_trace_shows_the_context_size_and_what_was_snipped():
    trace = trace_to_text()
    long_session(900, turns=4, trace=trace)
    out = trace.console.file.getvalue()
    assert "context: ~" in out and "of 900 tokens" in out
    assert "old messages snipped" in out


def test_stage08_end_to_end_offline_snips_with_a_small_budget():
    done = run_stage("08", "--budget", "300", stdin=(
        "What time is it?\nHow many words are in 'to be or not to be'?\n"
        "What is 12 * (3 + 4)?\n"))
    assert done.returncode == 0, done.stderr
    assert "old messages snipped" in done.stdout and "84" in done.stdout


def budget_report() -> str:
    """Stage 08's README table: tokens sent per turn over ten turns, with and without."""
    none = long_session(10**9)[1]
    kept = long_session(CONTEXT08.CONTEXT_BUDGET)[1]
    rows = [(sum(LOOP08.estimate_tokens(c["messages"]) for c in a.calls),
             sum(LOOP08.estimate_tokens(c["messages"]) for c in b.calls))
            for a, b in zip(none, kept, strict=True)]
    top = max(r[0] for r in rows)
    lines = [f"turn  history  no budget  budget {CONTEXT08.CONTEXT_BUDGET}"
             "   █ sent with the budget, ░ extra without it"]
    for turn, (free, capped) in enumerate(rows, 1):
        bar = "█" * round(capped / top * 36) + "░" * (round(free / top * 36)
                                                       - round(capped / top * 36))
        lines.append(f"{turn:>4}  {turn * 4:>7}  {free:>9}  {capped:>11}   {bar}")
    return "\n".join(lines)


def test_stage08_readme_table_is_what_the_code_measures():
    table = budget_report()
    for readme in with_twins([stage_dir("08") / "README.md"]):
        assert table in readme.read_text(encoding="utf-8"), (
            f"stages/08_memory_budget/{readme.name}'s budget table is out of date; "
            "measured now:\n" + table)


# ---------------------------------------------------------------- stage 09: stop reasons


def test_stage09_a_plain_answer_completes():
    turn = LOOP09.agent_step("x", [], ScriptedProvider([calls(wc("c1")), "3 words"]), "")
    assert (turn.answer, turn.stop_reason) == ("3 words", "completed")
    assert turn.messages[-1] == {"role": "assistant", "content": "3 words"}


@every_later_loop
def test_the_cap_ends_with_a_summary_from_a_call_with_the_tools_switched_off(loop):
    model = ScriptedProvider([calls(wc("c1")), calls(wc("c2", "a b")),
                              "I counted twice; the answer is still missing."])
    turn = loop.agent_step("x", [], model, "be brief", max_iterations=2)
    assert turn.stop_reason == "max_iterations"
    assert turn.answer == "I counted twice; the answer is still missing."
    last = model.calls[-1]
    assert len(model.calls) == 3 and last["options"].tool_choice == "none", (
        "the wrap-up keeps the tools defined and switches them off")
    assert [t.name for t in last["tools"]] == [t.name for t in loop.TOOLS]
    assert last["system"].startswith("be brief") and loop.WRAP_UP in last["system"]
    assert [m["role"] for m in last["messages"]] == [
        "user", "assistant", "tool", "assistant", "tool"], "the scratchpad goes as it is"
    assert accepted(last["messages"]) is None
    assert accepted(turn.messages) is None, "the kept history must stay valid"


@every_later_loop
def test_the_wrap_up_is_sent_the_history_cut_to_the_budget(loop, monkeypatch):
    dump = Tool("dump", "Return a log.", {"type": "object"}, lambda args: "line\n" * 20000)
    monkeypatch.setattr(loop, "TOOLS", [dump])  # one observation far over any budget
    model = ScriptedProvider([calls(ToolCall("c1", "dump", {})), "Summary."])
    turn = loop.agent_step("x", [], model, "", budget=3000, max_iterations=1)
    assert turn.answer == "Summary."
    sent = model.calls[-1]["messages"]
    assert loop.estimate_tokens(sent) < 3000, "the wrap-up must fit the budget like any call"


@every_later_loop
def test_a_wrap_up_cut_off_at_the_token_limit_says_so(loop):
    model = ScriptedProvider([calls(wc("c1")), Reply("I counted th", [], "max_tokens")])
    turn = loop.agent_step("x", [], model, "", max_iterations=1)
    assert turn.answer.startswith("I counted th") and "cut off" in turn.answer


@every_later_loop
@pytest.mark.parametrize("stop", ["stop_sequence", "pause_turn", "model_context_window_exceeded",
                                  "a_reason_from_next_year"])
def test_a_stop_reason_that_is_not_an_ordinary_end_runs_no_tool(loop, stop, monkeypatch):
    ran = []
    tools = [Tool("wordcount", "count", {"type": "object"}, lambda a: ran.append(a) or "1")]
    monkeypatch.setattr(loop, "TOOLS", tools)
    turn = loop.agent_step("x", [], ScriptedProvider([calls(wc("c1"), stop=stop)]), "")
    assert ran == [], f"calls that came with stop reason {stop!r} must not run"
    assert turn.stop_reason == "model_stopped" and stop in turn.answer
    assert accepted(turn.messages) is None


@every_later_loop
def test_every_documented_stop_reason_has_a_gate(loop):
    documented = {"end_turn", "tool_use", "stop_sequence", "max_tokens", "refusal",
                  "pause_turn", "model_context_window_exceeded",  # Anthropic
                  "content_filter"}  # OpenAI's, besides stop/tool_calls/length mapped above
    assert documented <= loop.GATES.keys()
    assert {loop.GATES[r] for r in ("refusal", "content_filter")} == {"refuse"}


@every_later_loop
def test_the_same_call_again_and_again_ends_the_turn_as_no_progress(loop):
    again = [calls(wc(f"c{i}", "same words")) for i in range(5)]
    model = ScriptedProvider([*again, "I kept counting the same words."])
    screen_trace = trace_to_text()
    turn = loop.agent_step("x", [], model, "", screen_trace)
    assert turn.stop_reason == "no_progress" and len(model.calls) == loop.REPEATS + 1
    assert model.calls[-1]["options"].tool_choice == "none", "it ends with a wrap-up"
    shown = screen_trace.console.file.getvalue()
    assert "2 times of 3" in shown and "3 times of 3" in shown, "the trace counts"


@every_later_loop
def test_different_calls_and_one_parallel_reply_are_progress(loop):
    model = ScriptedProvider([calls(wc("a", "one"), wc("b", "one"), wc("c", "one")),
                              calls(wc("d", "two words")), calls(wc("e", "three more words")),
                              calls(wc("f", "and four more words")), "Done."])
    turn = loop.agent_step("x", [], model, "")
    assert turn.stop_reason == "completed", "equal calls in one reply, or equal results of "
    "different calls, are not going in circles"


@every_later_loop
def test_the_same_error_from_other_arguments_is_no_progress(loop):
    model = ScriptedProvider([calls(ToolCall(f"c{i}", "nosuchtool", {"try": i}))
                              for i in range(3)] + ["Sorry."])
    turn = loop.agent_step("x", [], model, "")
    assert turn.stop_reason == "no_progress"


@every_later_loop
@pytest.mark.parametrize("wrap_up", [
    calls(wc("c9")),  # the model asks for a tool anyway: not run, not an answer
    calls(wc("c9"), text="Let me count once more."),  # its text is no summary either
    "   ",  # nothing said
    ProviderError("offline: boom"),  # the wrap-up call itself fails
])
def test_a_useless_wrap_up_falls_back_to_a_plain_message(loop, wrap_up):
    model = ScriptedProvider([calls(wc("c1")), wrap_up])
    turn = loop.agent_step("x", [], model, "", max_iterations=1)
    assert turn.stop_reason == "max_iterations"
    assert turn.answer == loop.NO_SUMMARY.format(n=1)


# (stop reason, how the turn ends, whether the reply's calls run): the gate table's rows
GATE_ROWS = [
    ("end_turn", "completed", True),  # calls with an ordinary end still run
    ("tool_use", "completed", True),
    ("max_tokens", "max_tokens", False),  # tried once more with room, cut again: reported
    ("refusal", "refusal", False),
    ("content_filter", "refusal", False),
    ("stop_sequence", "model_stopped", False),
    ("pause_turn", "model_stopped", False),
    ("model_context_window_exceeded", "model_stopped", False),
    ("a_reason_from_next_year", "model_stopped", False),
]


@every_later_loop
@pytest.mark.parametrize("stop, ends, runs", GATE_ROWS)
def test_each_row_of_the_gate_table_does_what_it_says(loop, stop, ends, runs):
    reply = calls(wc("c1"), stop=stop, text="Counting.")
    again = [reply] if stop == "max_tokens" else []  # cut inside a call: tried once more
    model = ScriptedProvider([reply, *again, "3 words."])
    turn = loop.agent_step("x", [], model, "")
    results = [m for m in turn.messages if m["role"] == "tool"]
    assert turn.stop_reason == ends
    assert (results == [{"role": "tool", "tool_call_id": "c1", "name": "wordcount",
                         "content": "3"}]) is runs and (results == []) is not runs
    if runs:
        assert turn.answer == "3 words."
    elif ends == "max_tokens":
        assert len(model.calls) == 2 and "cut off at the token limit" in turn.answer
    if not runs and ends != "refusal":
        assert turn.answer.endswith(": its tool calls were not run]")
    assert accepted(turn.messages) is None


def test_stage09_offline_model_sums_up_at_the_cap():
    turn = LOOP09.agent_step("What time is it, and what is 12 / 0?", [], OfflineProvider(),
                             "", max_iterations=1)
    assert turn.stop_reason == "max_iterations"
    assert "division by zero" in turn.answer, "the summary should use what the tools said"


@pytest.mark.parametrize("stop", ["refusal", "content_filter"])
def test_stage09_a_refusal_is_a_reason_and_its_tool_calls_never_run(stop):
    ran = []
    tools = [Tool("wordcount", "count", {"type": "object"}, lambda a: ran.append(a) or "1")]
    original = LOOP09.TOOLS[:]
    LOOP09.TOOLS[:] = tools
    try:
        turn = LOOP09.agent_step("x", [], ScriptedProvider([calls(wc("c1"), stop=stop)]), "")
    finally:
        LOOP09.TOOLS[:] = original
    assert turn.stop_reason == "refusal" and ran == []
    assert accepted(turn.messages) is None


class LimitedScripted(ScriptedProvider):
    """Scripted replies from a provider with a reply limit, as the SDK providers have."""

    max_tokens = 100

    def turn(self, messages, system, tools, options=None):
        asked = options.max_tokens if options else None
        self.limits = [*getattr(self, "limits", []), asked or self.max_tokens]
        yield from super().turn(messages, system, tools, options)


def test_stage09_a_call_cut_off_at_max_tokens_is_retried_with_more_room():
    cut = calls(ToolCall("c1", "wordcount", {}, error="the arguments were not valid JSON"),
                stop="max_tokens")
    model = LimitedScripted([cut, calls(wc("c2")), "3 words"])
    turn = LOOP09.agent_step("x", [], model, "")
    assert turn.stop_reason == "completed" and model.limits == [100, 200, 100]
    assert model.max_tokens == 100, "the extra room is for the retry only"
    assert [m.get("tool_call_id") for m in turn.messages if m["role"] == "tool"] == ["c2"]


@pytest.mark.parametrize("stage", [LOOP09, LOOP10], ids=["09", "10"])
@pytest.mark.sdk
def test_the_retry_sends_the_room_it_promises_through_the_wire_view(stage):
    from shared.wire import WireTap

    cut = anthropic_stream(tools=[("toolu_1", "wordcount", ['{"text": "a b'])],
                           stop_reason="max_tokens")
    done = anthropic_stream(tools=[("toolu_2", "wordcount", ['{"text": "a b"}'])])
    with FakeAPI("anthropic") as api:
        api.queue(cut, done, anthropic_stream(["2 words."]))
        model = AnthropicProvider(api_key="sk-test-key-0123456789", base_url=api.base_url,
                                  max_tokens=1024)
        screen = io.StringIO()
        trace = Trace(make_console(file=screen, width=100))
        turn = stage.agent_step("x", [], WireTap(model, trace.console), "", trace)
    assert turn.stop_reason == "completed" and api.violations == []
    assert [body["max_tokens"] for body in api.requests] == [1024, 2048, 1024]
    assert "with room for 2048 tokens" in screen.getvalue()


@pytest.mark.parametrize("kind, stop, reason", [
    ("anthropic", "refusal", "refusal"), ("openai", "content_filter", "refusal"),
    ("anthropic", "end_turn", "completed"), ("openai", "stop", "completed"),
])
@pytest.mark.sdk
def test_stage09_reasons_from_the_real_sdks(kind, stop, reason):
    sse = (anthropic_stream(["I can't help with that."], stop_reason=stop) if kind ==
           "anthropic" else openai_stream(["I can't help with that."], finish_reason=stop))
    with FakeAPI(kind) as api:
        api.queue(sse)
        cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
        provider = cls(api_key="sk-test-key-0123456789", base_url=api.base_url)
        turn = LOOP09.agent_step("x", [], provider, "")
    assert api.violations == [] and turn.stop_reason == reason


def test_stage09_end_to_end_the_footer_says_why_each_turn_ended():
    done = run_stage("09", "--max-iterations", "1",
                     stdin="What time is it, and what is 12 / 0?\nhello\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("turn ended:") == 2
    assert "turn ended: max_iterations" in done.stdout
    assert "turn ended: completed" in done.stdout


# ---------------------------------------------------------------- stage 10: concurrency


@pytest.fixture
def tools10(monkeypatch):
    """Install test tools into stage 10: tools10({"name": fn}, read_only={...})."""
    def install(tools: dict, read_only: set):
        registry = [Tool(n, n, {"type": "object"}, fn) for n, fn in tools.items()]
        monkeypatch.setattr(LOOP10, "find_tool",
                            lambda name: next((t for t in registry if t.name == name), None))
        monkeypatch.setattr(LOOP10, "READ_ONLY", set(read_only))
    return install


def test_stage10_read_only_calls_really_run_at_the_same_time(tools10):
    # each call waits until every call has started: only concurrent calls can finish
    started, everyone = [], asyncio.Event()

    async def meet(args):
        started.append(args["n"])
        if len(started) == 3:
            everyone.set()
        await everyone.wait()
        return f"met {args['n']}"

    tools10({"meet": meet}, read_only={"meet"})
    results = asyncio.run(LOOP10.run_calls([ToolCall(str(n), "meet", {"n": n})
                                            for n in range(3)]))
    assert results == ["met 0", "met 1", "met 2"], "read-only calls must overlap in time"


def test_stage10_results_keep_call_order_whatever_finishes_first(tools10):
    done = []

    async def ordered(args):  # call n waits until every call after it has finished
        while len(done) < 2 - args["n"]:
            await asyncio.sleep(0.001)
        done.append(args["n"])
        return f"result {args['n']}"

    tools10({"ordered": ordered}, read_only={"ordered"})
    results = asyncio.run(LOOP10.run_calls([ToolCall(str(n), "ordered", {"n": n})
                                            for n in range(3)]))
    assert done == [2, 1, 0], "the test's calls should finish in reverse"
    assert results == ["result 0", "result 1", "result 2"]


def test_stage10_a_call_that_changes_something_makes_the_reply_run_in_order(tools10):
    log = []

    async def read(args):
        log.append(f"start {args['n']}")
        await asyncio.sleep(0.01)
        log.append(f"end {args['n']}")
        return "r"

    def write(args):
        log.append("write")
        return "w"

    tools10({"read": read, "write": write}, read_only={"read"})
    asyncio.run(LOOP10.run_calls([ToolCall("1", "read", {"n": 1}), ToolCall("2", "write", {}),
                                  ToolCall("3", "read", {"n": 3})]))
    assert log == ["start 1", "end 1", "write", "start 3", "end 3"]


def test_stage10_a_slow_tool_times_out_as_an_error_observation(tools10, monkeypatch):
    async def hang(args):
        await asyncio.sleep(60)

    tools10({"hang": hang, "wordcount": lambda a: "3"}, read_only={"hang", "wordcount"})
    monkeypatch.setattr(LOOP10, "TIMEOUT", 0.05)
    model = ScriptedProvider([calls(ToolCall("a", "hang", {}), wc("b")), "partly done"])
    turn = LOOP10.agent_step("x", [], model, "")
    results = [m for m in model.calls[1]["messages"] if m["role"] == "tool"]
    assert results[0]["content"].startswith("Error: hang took longer than 0.05 s")
    assert results[1]["content"] == "3" and turn.stop_reason == "completed"


def test_stage10_a_plain_tool_that_blocks_is_bounded_and_freezes_nobody(tools10, monkeypatch):
    release = threading.Event()

    def stuck(args):  # a plain function, no await: a database that does not answer
        release.wait(5)
        return "too late"

    tools10({"stuck": stuck, "wordcount": lambda a: "3"}, read_only={"stuck", "wordcount"})
    monkeypatch.setattr(LOOP10, "TIMEOUT", 0.2)
    began = time.perf_counter()
    try:
        results = LOOP10.run_all([ToolCall("a", "stuck", {}), wc("b")])
    finally:
        release.set()
    assert time.perf_counter() - began < 2, "the timeout must hold for a plain tool too"
    assert results[0] == "Error: stuck took longer than 0.2 s and was stopped"
    assert results[1] == "3"


def test_stage10_a_tools_own_timeout_is_not_reported_as_ours(tools10):
    def gives_up(args):
        raise TimeoutError("the socket timed out")

    async def gives_up_async(args):
        raise TimeoutError("the lock timed out")

    tools10({"plain": gives_up, "async": gives_up_async}, read_only={"plain", "async"})
    results = LOOP10.run_all([ToolCall("a", "plain", {}), ToolCall("b", "async", {})])
    assert results == ["Error: TimeoutError: the socket timed out",
                       "Error: TimeoutError: the lock timed out"]


class Unprintable:
    def __str__(self):
        raise ValueError("no text for this")


@pytest.mark.parametrize("name", [42, ["a", "list"], {"a": "dict"}, None, "x" * 500])
def test_stage10_a_hostile_tool_name_is_an_observation_not_a_crash(name):
    model = ScriptedProvider([calls(ToolCall("c1", name, {})), "fine"])
    turn = LOOP10.agent_step("x", [], model, "", trace_to_text())
    result = next(m for m in turn.messages if m["role"] == "tool")
    assert result["content"].startswith("Error: unknown tool")
    assert turn.stop_reason == "completed"


def test_stage10_a_result_whose_text_fails_is_an_observation(tools10):
    tools10({"odd": lambda a: Unprintable()}, read_only={"odd"})
    assert LOOP10.run_all([ToolCall("a", "odd", {})]) == ["Error: ValueError: no text for this"]


def test_stage10_agent_step_works_inside_a_running_event_loop():
    async def notebook_cell():  # as in Jupyter: a loop already runs in this thread
        model = ScriptedProvider([calls(wc("c1")), "3 words"])
        return LOOP10.agent_step("x", [], model, "")

    assert asyncio.run(notebook_cell()).answer == "3 words"


def test_stage10_every_reply_runs_on_the_sessions_one_event_loop(tools10):
    loops = []

    async def where(args):
        loops.append(asyncio.get_running_loop())
        return "here"

    tools10({"where": where}, read_only={"where"})
    model = ScriptedProvider([calls(ToolCall("a", "where", {})), calls(ToolCall("b", "where", {})),
                              "done"])
    LOOP10.agent_step("x", [], model, "")
    assert len(loops) == 2 and loops[0] is loops[1]


def test_stage10_trace_shows_each_call_start_and_end_offsets():
    trace = trace_to_text()
    calls3 = [ToolCall(f"f{i}", "fetch", {"url": f"u{i}", "seconds": 0.05}) for i in range(3)]
    results = asyncio.run(LOOP10.run_calls(calls3, trace))
    out = trace.console.file.getvalue()
    lines = [line for line in out.splitlines() if "fetch" in line and "→" in line]
    assert len(lines) == 3 and all("stand-in page for u" in r for r in results)
    starts = [float(line.split()[1]) for line in lines]
    ends = [float(line.split()[3]) for line in lines]
    assert max(starts) < min(ends), f"the fetches should overlap:\n{out}"


def test_stage10_fetch_and_search_are_async_read_only_and_described():
    tools = {t.name: t for t in TOOLS10.TOOLS}
    assert {"fetch", "search"} <= TOOLS10.READ_ONLY and "note" not in TOOLS10.READ_ONLY
    for name in ("fetch", "search"):
        assert asyncio.iscoroutinefunction(tools[name].run)
        assert "seconds" in tools[name].schema["properties"]


def test_readme_stage_maps_cover_08_to_10():
    for path in with_twins([ROOT / "README.md", ROOT / "stages" / "README.md"]):
        text = path.read_text(encoding="utf-8")
        for name in ("08_memory_budget", "09_stop_reasons", "10_concurrent_tools"):
            assert name in text, f"{path.relative_to(ROOT)} does not list {name}"


if __name__ == "__main__":
    print(budget_report())


@every_later_loop
def test_ctrl_c_mid_turn_keeps_the_turn_so_far_and_the_next_request_repairs_it(loop):
    calls_then_cut = calls(wc("c1"), wc("c2", "a b"))
    model = ScriptedProvider([calls_then_cut, KeyboardInterrupt(), "Two counts: 3 and 2."])
    turn = loop.agent_step("count twice", [], model, "")
    assert turn.stop_reason == "cancelled"
    assert [m["role"] for m in turn.messages] == ["user", "assistant", "tool", "tool",
                                                  "assistant"], "the calls and results stay"
    # a turn cut between a call and its result: the next request must still be valid
    cut = turn.messages[:3] + turn.messages[4:]  # the second result never arrived
    screen = trace_to_text()
    after = loop.agent_step("and now?", cut, model, "", screen)
    sent = model.calls[-1]["messages"]
    assert accepted(sent) is None, "prepare() repaired the missing result"
    assert "1 missing results filled in" in screen.console.file.getvalue()
    assert after.stop_reason == "completed"


@pytest.mark.parametrize("stage", ["08", "09", "10"])
def test_a_script_whose_usage_is_not_numbers_runs_the_stage_to_its_answer(stage, tmp_path):
    """A usage block of strings and nulls (a script, or a server) used to crash 08-10
    with a TypeError where they add the counts up."""
    script = [{"text": "Hello there.", "usage": {"input_tokens": "12", "output_tokens": None,
                                                 "cache_read_input_tokens": "lots"}}]
    done = run_stage(stage, stdin="hi\n", script=script, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "Hello there." in done.stdout and "Traceback" not in done.stderr


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
@pytest.mark.parametrize("loop", [LOOP09, LOOP10], ids=["09", "10"])
def test_a_server_repeating_call_ids_never_gets_the_kept_scratchpad_refused(kind, loop):
    """09 and 10 keep each turn's tool rounds: one refused request used to make every
    later line refused too. Here the server numbers its calls call_0 every time."""
    make = anthropic_stream if kind == "anthropic" else openai_stream
    with FakeAPI(kind) as api:
        api.queue(make(["\n "], tools=[("call_0", "now", ["{}"]), ("call_0", "now", ["{}"])]),
                  make(["It is noon."]),
                  make([], tools=[("call_0", "now", ["{}"])]), make(["Still noon."]))
        cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
        provider = cls(api_key="sk-test-key-0123456789", base_url=api.base_url)
        first = loop.agent_step("time?", [], provider, "")
        second = loop.agent_step("and now?", first.messages, provider, "")
    assert api.violations == [], api.violations
    assert (first.answer, second.answer) == ("It is noon.", "Still noon.")
    assert second.stop_reason == "completed"


def turn_reasons(source: str) -> set[str]:
    """The reasons stage 09's loop can end a turn with: the word-like string constants it
    passes to Turn, finish and wrap_up."""
    import ast

    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") in (
                "Turn", "finish", "wrap_up"):
            found |= {a.value for a in node.args if isinstance(a, ast.Constant)
                      and isinstance(a.value, str) and a.value.isidentifier()}
    return found


@pytest.mark.parametrize("where", ["main.py", "loop.py"])
def test_stage09_docstrings_name_every_reason_a_turn_can_end_with(where):
    # main.py's docstring is what `tao list` and `tao tour` show of the stage
    import ast

    folder = stage_dir("09")
    reasons = turn_reasons((folder / "loop.py").read_text(encoding="utf-8"))
    assert len(reasons) >= 8, reasons
    doc = ast.get_docstring(ast.parse((folder / where).read_text(encoding="utf-8")))
    missing = sorted(r for r in reasons if not re.search(rf"\b{r}\b", doc))
    assert not missing, f"stage 09's {where} docstring leaves out {missing}"


# ======================================================================================
# What the model is sent (`context.prepare`, stages 08-10; 09 and 10 carry 08's
# context.py), at its edges: what happens when the history is exactly the budget? When
# even the current turn is over it? Do the counts in the trace add up?

CONTEXTS = {number: load_stage(number, "context") for number in ("08", "09", "10")}


@pytest.fixture(params=sorted(CONTEXTS), ids=lambda number: number)
def context(request):
    return CONTEXTS[request.param]


class Notes:
    """A trace that keeps what it is told to note."""

    def __init__(self):
        self.lines = []

    def note(self, text):
        self.lines.append(text)


def user(text):
    return {"role": "user", "content": text}


def answer(text):
    return {"role": "assistant", "content": text}


def asking(*ids):
    return {"role": "assistant", "content": "",
            "tool_calls": [{"id": i, "name": "now", "args": {}} for i in ids]}


def result(call_id, text="noon"):
    return {"role": "tool", "tool_call_id": call_id, "name": "now", "content": text}


def reported(context, messages, budget, overhead=0):
    """(what was sent, the total the trace gives, {what it counted: how many})."""
    notes = Notes()
    sent = context.prepare(messages, budget, overhead, trace=notes)
    (line,) = notes.lines
    total = int(re.search(r"~(\d+)", line).group(1))
    counts = {}
    for part in line.split(" · ")[1:]:
        number, what = part.split(" ", 1)
        counts[what] = int(number)
    return sent, total, counts


def count(counts, word):
    """The count whose label has `word` in it (0 when the trace leaves it out)."""
    return next((n for what, n in counts.items() if word in what), 0)


# ---------------------------------------------------------------- context: the budget's edges


def test_a_history_that_exactly_fits_the_budget_is_sent_whole(context):
    messages = [user("a" * 200), answer("b" * 40), user("c")]
    exact = context.estimate_tokens(messages)
    assert context.prepare(messages, exact) == messages, "exactly the budget is within it"
    assert context.prepare(messages, exact - 1) == messages[2:], "one token over is not"


def test_the_overhead_counts_against_the_budget_token_for_token(context):
    messages = [user("a" * 200), answer("b" * 40), user("c")]
    exact = context.estimate_tokens(messages)
    assert context.prepare(messages, exact + 7, overhead=7) == messages
    assert context.prepare(messages, exact + 7, overhead=8) == messages[2:]


def test_a_current_turn_over_budget_is_sent_whole_and_alone(context):
    messages = [user("first"), answer("one"), user("second"), answer("two"),
                user("third " * 50), asking("c1"), result("c1", "x" * 400)]
    assert context.snip_oldest_turns(messages, 0) == messages[4:]
    assert context.prepare(messages, 1) == messages[4:]


def test_a_history_with_no_user_message_is_one_turn(context):
    messages = [answer("Hello, I am Tao."), answer("Ask me anything.")]
    assert context.snip_oldest_turns(messages, 10_000) == messages
    assert context.snip_oldest_turns(messages, 0) == messages, "the only turn goes whole"


def test_the_estimate_counts_characters_not_their_escapes(context):
    plain, accented = [user("e" * 400)], [user("é" * 400)]
    assert context.estimate_tokens(accented) == context.estimate_tokens(plain)


# ---------------------------------------------------------------- context: capping results


def test_a_result_at_the_cap_is_sent_whole_and_one_character_more_is_cut(context):
    cap = context.MAX_OBSERVATION
    at, over = "r" * cap, "r" * (cap + 1)
    sent = context.prepare([user("q"), asking("c1"), result("c1", at)], 10**6)
    assert sent[2]["content"] == at
    sent = context.prepare([user("q"), asking("c1"), result("c1", over)], 10**6)
    assert sent[2]["content"].startswith(at) and sent[2]["content"] != over


def test_the_cut_says_how_many_characters_it_took_and_they_add_up(context):
    cap, long = context.MAX_OBSERVATION, "0123456789" * (context.MAX_OBSERVATION // 4)
    sent = context.prepare([user("q"), asking("c1"), result("c1", long)], 10**6)
    kept, marker = sent[2]["content"][:cap], sent[2]["content"][cap:]
    assert kept == long[:cap]
    assert int(re.search(r"\d+", marker).group()) == len(long) - cap


def test_only_tool_results_are_capped(context):
    long = "w " * context.MAX_OBSERVATION
    messages = [user(long), answer(long), user("and?")]
    assert context.prepare(messages, 10**6) == messages


# ---------------------------------------------------------------- context: repairs


def test_a_call_left_unanswered_gets_its_stand_in_before_the_next_reply(context):
    # strict APIs want a call's result right after it, before anything else is said
    messages = [user("q"), asking("c1"), answer("sorry, that was cut off"), user("next")]
    sent = context.prepare(messages, 10**6)
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "assistant", "user"]
    assert sent[2]["tool_call_id"] == "c1" and sent[2]["content"] == context.MISSING_RESULT


def mixed_history(context):
    """A history with every repair in it, and turns enough to snip."""
    return [user("old " * 100), asking("k1"), result("k1", "z" * (context.MAX_OBSERVATION + 5)),
            answer("ok"),
            user("q"), result("ghost"), asking("c1", "c2"), result("c1"), answer("half"),
            user("now")]


def test_a_history_read_back_from_json_is_sent_as_the_original(context):
    # a saved session comes back as new strings: roles must be compared by value
    history = mixed_history(context)
    again = json.loads(json.dumps(history))
    for budget in (10**6, 60):
        assert context.prepare(again, budget) == context.prepare(history, budget)
    sent = context.prepare(again, 10**6)
    assert [m.get("tool_call_id") for m in sent if m["role"] == "tool"] == ["k1", "c1", "c2"]
    assert sent[2]["content"] != history[2]["content"], "the long result is capped"
    assert context.prepare(again, 60) == context.prepare(history, 60)[-1:] == history[-1:]


# ---------------------------------------------------------------- context: what the trace counts


def test_the_trace_counts_each_repair_and_they_add_up(context):
    messages = [user("q"), *(result(f"ghost{i}") for i in range(5)), asking("c1", "c2", "c3")]
    sent, _, counts = reported(context, messages, 10**6)
    assert count(counts, "orphan") == 5
    assert count(counts, "missing") == 3
    assert count(counts, "capped") == 0 and count(counts, "snipped") == 0
    assert len(sent) == len(messages) - 5 + 3


def test_the_trace_counts_what_was_capped_and_snipped_and_the_total(context):
    long = "x" * (context.MAX_OBSERVATION + 1000)
    messages = [user("a"), asking("k1"), result("k1", long), asking("k2"), result("k2"),
                answer("ok"), user("b"), answer("fine"), user("c")]
    sent, total, counts = reported(context, messages, budget=140, overhead=40)
    assert sent == messages[6:]
    assert count(counts, "capped") == 1
    assert count(counts, "snipped") == len(messages) - len(sent)
    assert count(counts, "orphan") == 0 and count(counts, "missing") == 0
    assert total == context.estimate_tokens(sent) + 40


# ======================================================================================
# The loops of stages 09 and 10 at their edges. Stage 10 is a copy of stage 09 plus
# concurrency, so what stage 09's own tests hold (a cut-off reply, a refusal, a failed
# call, the real token count) is held here for both copies; then stage 10's timeline
# of overlapping calls.

LOOPS = pytest.mark.parametrize("loop", [LOOP09, LOOP10], ids=["09", "10"])


def fresh(text: str) -> str:
    """`text` as a new string object, the way one parsed from an API's JSON arrives."""
    return json.loads(json.dumps(text))


class Recorder:
    """A trace that keeps every act, observation and note it is given."""

    def __init__(self):
        self.acts, self.observed, self.notes = [], [], []

    def act(self, name, args, call_id=None):
        self.acts.append(call_id)

    def observe(self, name, result, call_id=None):
        self.observed.append((call_id, result))

    def note(self, text):
        self.notes.append(text)

    def __getattr__(self, name):  # iteration, and anything else a loop may show
        return lambda *args, **kwargs: None


class Limited(ScriptedProvider):
    """Scripted replies from a provider with a reply limit, as the SDK providers have."""

    max_tokens = 1000


def asked_limits(model):
    return [call["options"].max_tokens for call in model.calls]


# ---------------------------------------------------------------- cut off at the limit


@LOOPS
@pytest.mark.parametrize("stop", ["max_tokens", fresh("max_tokens")], ids=["literal", "json"])
def test_a_call_cut_off_is_retried_once_with_twice_the_providers_room(loop, stop):
    cut = calls(ToolCall("c1", "wordcount", {}, error="not valid JSON"), stop=stop)
    model = Limited([cut, calls(wc("c2")), "3 words"])
    trace = Recorder()
    turn = loop.agent_step("x", [], model, "", trace)
    assert turn.stop_reason == "completed"
    assert asked_limits(model) == [None, 2000, None], "the extra room is for the retry only"
    assert [n for n in trace.notes if "2000" in n], "the trace says how much room"


@LOOPS
def test_a_provider_with_no_limit_of_its_own_is_retried_with_its_default(loop):
    cut = calls(ToolCall("c1", "wordcount", {}, error="not valid JSON"), stop="max_tokens")
    model = ScriptedProvider([cut, calls(wc("c2")), "3 words"])
    trace = Recorder()
    turn = loop.agent_step("x", [], model, "", trace)
    assert turn.stop_reason == "completed" and asked_limits(model) == [None, None, None]
    assert not [n for n in trace.notes if "room" in n and "None" in n]


@LOOPS
def test_text_cut_off_is_reported_as_it_is_without_a_retry(loop):
    model = ScriptedProvider([Reply("The answer is", [], "max_tokens")])
    turn = loop.agent_step("x", [], model, "")
    assert turn.stop_reason == "max_tokens" and turn.answer.startswith("The answer is")
    assert len(model.calls) == 1


@LOOPS
def test_a_call_cut_off_twice_is_reported_and_never_run(loop):
    cut = calls(ToolCall("c1", "wordcount", {}, error="cut"), stop="max_tokens", text="Let")
    model = ScriptedProvider([cut, cut])
    turn = loop.agent_step("x", [], model, "")
    text_only = loop.agent_step("x", [], ScriptedProvider([Reply("Let", [], "max_tokens")]), "")
    assert turn.stop_reason == "max_tokens" and turn.answer.startswith("Let")
    assert all(m["role"] != "tool" for m in turn.messages)
    assert "not run" in turn.answer, "it says its calls were not run"
    assert "not run" not in text_only.answer, "a reply with no calls has none to not run"
    assert accepted(turn.messages) is None


# ---------------------------------------------------------------- refusals, failures


@LOOPS
def test_a_refusal_keeps_what_the_model_said_and_names_a_silent_one(loop):
    said = loop.agent_step("x", [], ScriptedProvider([Reply("I can't help.", [], "refusal")]), "")
    silent = loop.agent_step("x", [], ScriptedProvider([Reply("", [], "refusal")]), "")
    assert (said.stop_reason, said.answer) == ("refusal", "I can't help.")
    assert silent.stop_reason == "refusal" and silent.answer.strip()


@LOOPS
def test_a_failed_model_call_is_an_error_and_the_turn_so_far_is_kept(loop):
    model = ScriptedProvider([calls(wc("c1")), ProviderError("anthropic: overloaded")])
    turn = loop.agent_step("x", [], model, "")
    assert (turn.stop_reason, turn.answer) == ("error", "anthropic: overloaded")
    assert [m["role"] for m in turn.messages] == ["user", "assistant", "tool", "assistant"]
    assert accepted(turn.messages) is None


@LOOPS
def test_a_failed_wrap_up_falls_back_to_a_plain_message(loop):
    model = ScriptedProvider([calls(wc("c1")), ProviderError("offline: boom")])
    turn = loop.agent_step("x", [], model, "", max_iterations=1)
    assert (turn.stop_reason, turn.answer) == ("max_iterations", loop.NO_SUMMARY.format(n=1))


@LOOPS
@pytest.mark.parametrize("stop", ["end_turn", "stop_sequence", "tool_use", fresh("end_turn")])
def test_a_wrap_up_that_ended_normally_is_the_answer_as_it_is(loop, stop):
    model = ScriptedProvider([calls(wc("c1")), Reply("Counted once.", [], stop)])
    turn = loop.agent_step("x", [], model, "", max_iterations=1)
    assert turn.answer == "Counted once."


@LOOPS
def test_a_wrap_up_cut_off_says_so_when_its_reason_came_from_json(loop):
    model = ScriptedProvider([calls(wc("c1")), Reply("I counted th", [], fresh("max_tokens"))])
    turn = loop.agent_step("x", [], model, "", max_iterations=1)
    assert turn.answer.startswith("I counted th") and turn.answer != "I counted th"


# ---------------------------------------------------------------- the real token count


def old_turn():
    return [{"role": "user", "content": "old " * 100}, {"role": "assistant", "content": "ok"}]


@LOOPS
def test_a_real_count_bigger_than_the_estimate_makes_room_by_snipping(loop):
    huge = Reply("", [wc("c1")], "tool_use", {"input_tokens": 1990, "output_tokens": 5})
    model = ScriptedProvider([huge, "done"])
    loop.agent_step("new", old_turn(), model, "", budget=2000)
    assert model.calls[0]["messages"][0] == old_turn()[0]
    assert model.calls[1]["messages"][0]["content"] == "new", "the real count must win"


@LOOPS
def test_a_real_count_that_fits_keeps_the_history(loop):
    # the estimate alone fits; a real count of about the estimate must keep fitting
    first = [*old_turn(), {"role": "user", "content": "new"}]
    estimate = loop.estimate_tokens(first)
    exact = Reply("", [wc("c1")], "tool_use", {"input_tokens": estimate + 300,
                                               "output_tokens": 5})
    model = ScriptedProvider([exact, "done"])
    loop.agent_step("new", old_turn(), model, "", budget=estimate + 400)
    assert model.calls[1]["messages"][0] == old_turn()[0], "100 tokens to spare: no snip"


@LOOPS
def test_an_estimated_usage_is_not_taken_for_a_real_count(loop):
    guess = Reply("", [wc("c1")], "tool_use",
                  {"input_tokens": 1990, "output_tokens": 5, "estimated": True})
    model = ScriptedProvider([guess, "done"])
    loop.agent_step("new", old_turn(), model, "", budget=2000)
    assert model.calls[1]["messages"][0] == old_turn()[0]


# ---------------------------------------------------------------- going in circles


@LOOPS
def test_the_same_call_with_its_arguments_in_another_order_is_no_progress(loop):
    other_order = ToolCall("c2", "wordcount", {"lang": "en", "text": "a b"})
    orders = [ToolCall("c1", "wordcount", {"text": "a b", "lang": "en"}), other_order,
              ToolCall("c3", "wordcount", {"text": "a b", "lang": "en"})]
    model = ScriptedProvider([calls(c) for c in orders] + ["Stuck."])
    turn = loop.agent_step("x", [], model, "")
    assert turn.stop_reason == "no_progress"


@LOOPS
def test_one_call_is_no_news_for_the_progress_check(loop):
    trace = Recorder()
    loop.agent_step("x", [], ScriptedProvider([calls(wc("c1")), "3 words"]), "", trace)
    assert not [n for n in trace.notes if "no progress" in n]


@LOOPS
def test_the_trace_sees_every_call_and_each_its_own_result(loop):
    trace = Recorder()
    model = ScriptedProvider([calls(wc("c1", "one"), wc("c2", "one two")), "done"])
    turn = loop.agent_step("x", [], model, "", trace)
    results = {m["tool_call_id"]: m["content"] for m in turn.messages if m["role"] == "tool"}
    assert trace.acts == ["c1", "c2"]
    assert trace.observed == [("c1", results["c1"]), ("c2", results["c2"])]
    assert results["c1"] != results["c2"]


# ---------------------------------------------------------------- 10: the timeline


def bars(text):
    """Each line's bar, between its | marks."""
    return [line.split("|")[1] for line in text.splitlines()]


def test_the_timeline_draws_each_call_where_it_ran():
    spans = [("whole", 0.0, 2.0), ("second_half", 1.0, 2.0), ("first_quarter", 0.0, 0.5)]
    drawn = bars(LOOP10.timeline(spans, width=20))
    assert drawn[0] == "█" * 20
    assert drawn[1] == " " * 10 + "█" * 10
    assert drawn[2] == "█" * 5 + " " * 15


def test_an_instant_call_is_one_cell_wide_and_all_instant_calls_draw():
    drawn = bars(LOOP10.timeline([("a", 0.0, 0.0), ("b", 0.0, 0.0)], width=10))
    assert drawn == ["█" + " " * 9] * 2


def test_an_instant_call_at_the_very_end_stays_inside_the_bar():
    drawn = bars(LOOP10.timeline([("a", 0.0, 1.0), ("b", 1.0, 1.0)], width=10))
    assert drawn[1] == " " * 9 + "█"


def test_the_timeline_bars_line_up_whatever_the_names():
    text = LOOP10.timeline([("a_very_long_tool_name", 0.0, 1.0), ("ls", 0.5, 1.0)])
    assert len({line.index("|") for line in text.splitlines()}) == 1
    assert len({len(bar) for bar in bars(text)}) == 1


def test_run_calls_times_each_call_from_the_start_of_the_reply(monkeypatch):
    seen = []
    monkeypatch.setattr(LOOP10, "timeline", lambda spans: seen.append(spans) or "")
    started = time.perf_counter()
    results = LOOP10.run_all([wc("c1"), wc("c2", "x y")])
    took = time.perf_counter() - started
    assert len(results) == 2
    ((first, second),) = seen
    for name, began, ended in (first, second):
        assert name == "wordcount" and 0 <= began <= ended <= took, (began, ended, took)


def test_a_plain_tool_left_behind_by_its_timeout_does_not_hold_the_process(monkeypatch):
    release = threading.Event()
    blocking = Tool("block", "Wait for ever.", {"type": "object"}, lambda args: release.wait(10))
    monkeypatch.setattr(LOOP10, "find_tool", lambda name: blocking)
    monkeypatch.setattr(LOOP10, "TIMEOUT", 0.05)
    before = set(threading.enumerate())
    try:
        (result,) = LOOP10.run_all([ToolCall("c1", "block", {})])
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        assert result.startswith("Error") and left, "the blocked thread is still there"
        assert all(t.daemon for t in left), "a thread left behind must not keep Python alive"
    finally:
        release.set()


# ---------------------------------------------------------------- issue 32: a wrap-up that
# breaks off mid-stream is one answer, marked as elsewhere


@pytest.mark.parametrize("stage", [d.name[:2] for d in STAGE_DIRS if d.name >= "09"])  # and on
def test_a_wrap_up_that_breaks_off_mid_stream_is_one_answer_marked_cut_off(stage, tmp_path):
    script = [{"text": "", "tool_calls": [{"id": "c1", "name": "wordcount",
                                           "args": {"text": "a b"}}]},
              {"error": "the server hung up", "partial": "I counted the words and fo"}]
    out = run_stage(stage, "--max-iterations", "1", stdin="count 'a b'\n\n", script=script,
                    tmp_path=tmp_path)
    assert out.returncode == 0, out.stderr
    screen = out.stdout
    assert "I counted the words and fo [cut off]" in screen, screen
    assert screen.count("tao  ") == 1, "one answer: the half sentence, marked"
    assert "I stopped after" not in screen  # no second, fallback answer under it
