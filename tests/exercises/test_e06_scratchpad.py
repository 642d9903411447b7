# Don't change the tests! They tell you when exercises/e06_scratchpad.py is done.
import pytest
from exercise_support import need
from fake_api import check_openai

from shared.providers import ProviderError, Reply, ScriptedProvider, ToolCall
from shared.providers.openai_provider import to_openai

TIME_CALL = Reply("Checking.", [ToolCall("c1", "now", {})], "tool_use")


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


def test_the_kept_history_is_one_a_strict_api_accepts(ex):
    chat = need(ex, "chat", "lines", "provider", "system")
    model = ScriptedProvider([TIME_CALL, "It is noon.", TIME_CALL, "Still noon."])
    history = chat(["time?", "and now?"], model, "")
    body = {"model": "m", "stream": True, "messages": to_openai(history)}
    problem = check_openai(body, {"authorization": "Bearer k"})
    assert problem is None, f"the API would refuse the kept history: {problem}"
