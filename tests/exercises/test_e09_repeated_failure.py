# Don't change the tests! They tell you when exercises/e09_repeated_failure.py is done.
import pytest
from exercise_support import need

from shared.providers import ProviderError, Reply, ScriptedProvider, ToolCall


def calc(expression, call_id="c"):
    return Reply("", [ToolCall(call_id, "calculator", {"expression": expression})], "tool_use")


def run(ex, replies):
    agent_step = need(ex, "agent_step", "user_message", "history", "provider", "system")
    model = ScriptedProvider(replies)
    return agent_step("compute", [], model, ""), model


def test_the_same_failing_call_twice_stops_the_turn(ex):
    answer, model = run(ex, [calc("1/0"), calc("1/0"), calc("1/0"), "never reached"])
    assert len(model.calls) == 2, (
        f"it should stop after the second failure, not after {len(model.calls)} calls")
    error = ex.stage.run_tool(ToolCall("c", "calculator", {"expression": "1/0"}))
    expected = f"Stopped: calculator failed twice in a row with the same arguments: {error}"
    assert answer == expected, (
        f"the turn should end with\n  {expected}\n(the tool's name, then its error as "
        f"run_tool gave it), not\n  {answer}")


def test_the_stop_quotes_the_repeated_calls_own_error(ex):
    answer, model = run(ex, [calc("1/0"), calc("2 +"), calc("2 +"), "never reached"])
    error = ex.stage.run_tool(ToolCall("c", "calculator", {"expression": "2 +"}))
    assert len(model.calls) == 3 and answer == (
        f"Stopped: calculator failed twice in a row with the same arguments: {error}"), (
        "1/0 failed, then '2 +' failed twice: the turn stops on '2 +', quoting its error "
        f"({error!r}), not an earlier one; it ended with {answer!r}")


def test_the_same_failing_call_twice_in_one_reply_stops_too(ex):
    twice = Reply("", [ToolCall("a", "calculator", {"expression": "1/0"}),
                       ToolCall("b", "calculator", {"expression": "1/0"})], "tool_use")
    answer, model = run(ex, [twice, calc("1/0"), "never reached"])
    assert len(model.calls) == 1 and answer.startswith(
        "Stopped: calculator failed twice in a row"), (
        "one reply whose two calls are the same failing call: the second call comes just "
        f"after the first, so the turn stops there; the model was asked {len(model.calls)} "
        f"times and the answer was {answer!r}")


def test_stage_07s_loop_is_kept_when_nothing_repeats(ex):
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    script = [calc("1/0"), Reply("Two at once.", [ToolCall("w", "wordcount", {"text": "a b"}),
                                                  ToolCall("k", "calculator", {"expression":
                                                                               "1/0"})]),
              calc("2/0"), "Some of it failed."]
    theirs, ours = ScriptedProvider(script), ScriptedProvider(script)
    expected = ex.stage.agent_step("compute", [dict(m) for m in earlier], theirs, "Be brief.")
    given = [dict(m) for m in earlier]
    answer = need(ex, "agent_step", "user_message", "history", "provider", "system")(
        "compute", given, ours, "Be brief.")
    assert answer == expected == "Some of it failed.", (
        f"no failing call follows itself here (1/0, then wordcount, then 1/0, then 2/0), so "
        f"the turn runs as stage 07's does, to {expected!r}; it ended with {answer!r}")
    assert ours.calls == theirs.calls, (
        "each request should be what stage 07's loop sends: the history, the question, each "
        "reply and every one of its results, the system prompt, stage 07's tools")
    assert given == earlier, "agent_step must leave the history it is given as it was"


def test_argument_order_does_not_make_calls_different(ex):
    key = need(ex, "call_key", "call")
    a = ToolCall("1", "wordcount", {"text": "x", "lang": "en"})
    b = ToolCall("2", "wordcount", {"lang": "en", "text": "x"})
    c = ToolCall("3", "wordcount", {"text": "y", "lang": "en"})
    assert key(a) == key(b), "the same arguments in another order are the same call"
    assert key(a) != key(c) and key(a) != key(ToolCall("4", "now", a.args))
    nested = ToolCall("5", "search", {"query": "x", "filters": {"site": "a", "lang": "en"}})
    again = ToolCall("6", "search", {"filters": {"lang": "en", "site": "a"}, "query": "x"})
    assert key(nested) == key(again), (
        "arguments compared as JSON with sorted keys: keys inside nested objects are sorted "
        "too, so these two calls are the same")
    assert key(ToolCall("7", "calculator", {"expression": 1})) != key(
        ToolCall("8", "calculator", {"expression": "1"})), "1 and \"1\" are not equal arguments"


def test_a_different_failure_or_a_success_in_between_resets(ex):
    answer, model = run(ex, [calc("1/0"), calc("2/0"), calc("1/0"), calc("1+1"), calc("1/0"),
                             "All done."])
    assert answer == "All done.", (
        f"no failure repeated right after itself, yet it stopped: {answer!r}")
    assert len(model.calls) == 6


def test_one_failure_then_a_fix_answers_normally(ex):
    answer, _ = run(ex, [calc("1/0"), calc("1/1"), "It is 1."])
    assert answer == "It is 1."


def test_each_result_goes_back_to_the_model(ex):
    _, model = run(ex, [calc("1/0"), calc("1/1"), "It is 1."])
    second = model.calls[1]["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "tool"], (
        "the second request should carry the call and its result; its roles are "
        f"{[m['role'] for m in second]}")
    assert "division by zero" in second[2]["content"], "the model must see what went wrong"


def test_the_iteration_cap_still_holds(ex):
    cap = ex.stage.MAX_ITERATIONS
    replies = [calc(f"{n}+1") for n in range(cap + 3)]
    try:
        answer, model = run(ex, replies)
    except ProviderError:
        pytest.fail(f"the model was asked more than {cap} times: keep stage 07's "
                    "MAX_ITERATIONS cap", pytrace=False)
    assert len(model.calls) == cap and answer.startswith("Stopped"), (
        f"calls that keep working are not failures, but the cap of {cap} still ends the turn")
