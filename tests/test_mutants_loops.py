"""The loops of stages 09 and 10 at the edges the surviving mutants of
benchmarks/mutation.py found. Stage 10 is a copy of stage 09 plus concurrency, so what
stage 09's own tests hold (a cut-off reply, a refusal, a failed call, the real token
count) is held here for both copies; then stage 10's timeline of overlapping calls."""

from __future__ import annotations

import json
import threading
import time

import pytest
from helpers import load_stage

from shared.providers import ProviderError, Reply, ScriptedProvider
from shared.providers.base import Tool, ToolCall

LOOP09, LOOP10 = load_stage("09", "loop"), load_stage("10", "loop")
LOOPS = pytest.mark.parametrize("loop", [LOOP09, LOOP10], ids=["09", "10"])


def calls(*tool_calls, stop="tool_use", text=""):
    return Reply(text, list(tool_calls), stop)


def wc(call_id, text="a b c", **more):
    return ToolCall(call_id, "wordcount", {"text": text, **more})


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
    orders = [wc("c1", "a b", lang="en"), other_order, wc("c3", "a b", lang="en")]
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


# ---------------------------------------------------------------- stage 10: the timeline


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
