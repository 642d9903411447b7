# Don't change the tests! They tell you when exercises/e06_scratchpad.py is done.
from exercise_support import need
from fake_api import check_openai

from shared.providers import Reply, ScriptedProvider, ToolCall
from shared.providers.openai_provider import to_openai

TIME_CALL = Reply("Checking.", [ToolCall("c1", "now", {})], "tool_use")


def test_agent_step_returns_every_message_it_added(ex):
    agent_step = need(ex, "agent_step", "user_message", "history", "provider", "system")
    answer, added = agent_step("time?", [], ScriptedProvider([TIME_CALL, "It is noon."]), "")
    assert answer == "It is noon."
    assert [m["role"] for m in added] == ["user", "assistant", "tool", "assistant"], (
        "a turn with one tool call adds: user, assistant (with tool_calls), tool, assistant")
    assert added[1]["tool_calls"] == [{"id": "c1", "name": "now", "args": {}}]
    assert added[2]["tool_call_id"] == "c1" and added[3]["content"] == "It is noon."


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
    assert check_openai(body, {"authorization": "Bearer k"}) is None
