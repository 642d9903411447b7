# Don't change the tests! They tell you when exercises/e06_scratchpad.py is done.
import pytest
from exercise_support import need
from fake_api import check_openai

from shared.providers import ProviderError, Reply, ScriptedProvider, ToolCall
from shared.providers.openai_provider import to_openai

TIME_CALL = Reply("Checking.", [ToolCall("c1", "now", {})], "tool_use")  # Replies are copied


def two_calls():
    """What the offline model sends for two questions at once: a sentence, two calls."""
    return Reply("I'll use now and wordcount.", [
        ToolCall("offline_call_1", "now", {}),
        ToolCall("offline_call_2", "wordcount", {"text": "to be or not to be"})], "tool_use")


def step(ex):
    return need(ex, "agent_step", "user_message", "history", "provider", "system")


def test_agent_step_returns_every_message_it_added(ex):
    answer, added = step(ex)("time?", [], ScriptedProvider([TIME_CALL, "It is noon."]), "")
    assert answer == "It is noon."
    assert [m["role"] for m in added] == ["user", "assistant", "tool", "assistant"], (
        "a turn with one tool call adds: user, assistant (with tool_calls), tool, assistant")
    assert added[1]["tool_calls"] == [{"id": "c1", "name": "now", "args": {}}]
    assert added[2]["tool_call_id"] == "c1" and added[3]["content"] == "It is noon."


def test_within_a_turn_the_model_sees_the_tool_result(ex):
    model = ScriptedProvider([TIME_CALL, "It is noon."])
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    step(ex)("time?", earlier, model, "")
    second = model.calls[1]["messages"]
    assert second[:3] == earlier + [{"role": "user", "content": "time?"}], (
        "each request starts with the history, then this turn's question")
    assert [m["role"] for m in second[3:]] == ["assistant", "tool"], (
        "the second request of the turn should carry the model's call and the tool's result;"
        f" after the question it holds {[m['role'] for m in second[3:]]}")
    assert second[4]["tool_call_id"] == "c1" and second[4]["content"], "the result itself"


def test_several_calls_in_one_reply_each_add_their_result(ex):
    answer, added = step(ex)("time and words?", [],
                             ScriptedProvider([two_calls(), "Noon; 6 words."]), "")
    assert [m["role"] for m in added] == ["user", "assistant", "tool", "tool", "assistant"], (
        "a reply with two calls adds the assistant message, then one result per call; the "
        f"roles added were {[m['role'] for m in added]}")
    assert added[1] == two_calls().assistant_message(), (
        "the assistant message is the reply as the model sent it: its sentence and both "
        f"calls; got {added[1]}")
    assert [m["tool_call_id"] for m in added[2:4]] == ["offline_call_1", "offline_call_2"]
    assert added[3]["content"] == "6", "each call's own result, in the order of the calls"
    assert answer == "Noon; 6 words." == added[-1]["content"]


def test_requests_are_stage_07s_and_the_history_stays(ex):
    earlier = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    counts = Reply("I'll use wordcount twice.", [  # no `now`: the clock would differ
        ToolCall("w1", "wordcount", {"text": "to be"}), ToolCall("w2", "wordcount",
                                                                 {"text": "or not"})])
    script = [counts, Reply("", [ToolCall("k1", "calculator", {"expression": "2+2"})]),
              "Done twice."]
    theirs, ours = ScriptedProvider(script), ScriptedProvider(script)
    ex.stage.agent_step("go", [dict(m) for m in earlier], theirs, "Be brief.")
    given = [dict(m) for m in earlier]
    step(ex)("go", given, ours, "Be brief.")
    assert given == earlier, "agent_step must leave the history it is given as it was"
    assert len(ours.calls) == len(theirs.calls) == 3
    for n, (got, want) in enumerate(zip(ours.calls, theirs.calls, strict=True), start=1):
        assert got["messages"] == want["messages"], (
            f"request {n} should hold what stage 07's holds (the history, the question, "
            f"then each reply and its results); its roles were "
            f"{[m['role'] for m in got['messages']]}, stage 07's "
            f"{[m['role'] for m in want['messages']]}")
        assert got["system"] == "Be brief." and got["tools"] == want["tools"], (
            f"request {n} should carry the system prompt given and stage 07's tools")


def test_the_iteration_cap_holds(ex):
    cap = ex.stage.MAX_ITERATIONS
    model = ScriptedProvider([TIME_CALL] * (cap + 3))
    try:
        answer, added = step(ex)("time?", [], model, "")
    except ProviderError:
        pytest.fail(f"the model was asked {len(model.calls)} times: stop after "
                    f"MAX_ITERATIONS ({cap})", pytrace=False)
    assert len(model.calls) == cap and answer.startswith("Stopped"), (
        f"a model that never stops calling tools is asked {cap} times, then the turn stops")
    assert added[-1] == {"role": "assistant", "content": answer}, (
        "the stop message is the turn's last assistant message, so the history stays valid")


def test_chat_shows_the_next_turn_what_the_tools_said(ex):
    chat = need(ex, "chat", "lines", "provider", "system")
    model = ScriptedProvider([TIME_CALL, "It is noon.", "The tool said exactly that."])
    history = chat(["time?", "what did the tool return?"], model, "")
    second_request = model.calls[2]["messages"]
    tool_messages = [m for m in second_request if m["role"] == "tool"]
    assert len(tool_messages) == 1 and tool_messages[0]["tool_call_id"] == "c1", (
        "the second turn's request should still contain the first turn's tool result")
    assert [m["role"] for m in history] == [
        "user", "assistant", "tool", "assistant", "user", "assistant"]
    assert chat([], ScriptedProvider([]), "") == [], "no lines, no history"


def test_the_kept_history_is_one_a_strict_api_accepts(ex):
    chat = need(ex, "chat", "lines", "provider", "system")
    model = ScriptedProvider([TIME_CALL, "It is noon.", TIME_CALL, "Still noon."])
    history = chat(["time?", "and now?"], model, "")
    body = {"model": "m", "stream": True, "messages": to_openai(history)}
    problem = check_openai(body, {"authorization": "Bearer k"})
    assert problem is None, f"the API would refuse the kept history: {problem}"
