# Don't change the tests! They tell you when exercises/e18_empty_reply.py is done.
from exercise_support import need

from shared.providers import ScriptedProvider

MESSAGES = [{"role": "user", "content": "what time is it?"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "name": "now", "args": {}}]},
            {"role": "tool", "tool_call_id": "c1", "name": "now", "content": "12:00"}]


def ask(ex, replies):
    final_answer = need(ex, "final_answer", "provider", "messages", "system")
    model = ScriptedProvider([*replies, "a reply that should never be asked for"])
    return final_answer(model, [dict(m) for m in MESSAGES], "Be brief."), model


def test_an_answer_the_first_time_is_used_as_it_is(ex):
    result, model = ask(ex, ["It is noon."])
    assert result == ("It is noon.", "completed") and len(model.calls) == 1
    assert model.calls[0]["system"] == "Be brief." and model.calls[0]["tools"] == []


def test_a_blank_reply_is_asked_again_with_the_nudge(ex):
    result, model = ask(ex, ["", "It is noon."])
    assert result == ("It is noon.", "completed")
    assert len(model.calls) == 2, "one blank reply: exactly one more call"
    assert model.calls[1]["system"] == f"Be brief.\n\n{ex.NUDGE}", (
        "the retry keeps the system prompt and adds the nudge after a blank line")
    assert model.calls[1]["messages"] == MESSAGES, (
        "the retry sends the same messages: a blank assistant message would be refused")


def test_whitespace_is_blank_too(ex):
    result, model = ask(ex, ["  \n ", "Noon."])
    assert result == ("Noon.", "completed") and len(model.calls) == 2


def test_two_blank_replies_end_the_turn_as_empty(ex):
    result, model = ask(ex, ["", " \n"])
    assert result == ("", "empty")
    assert len(model.calls) == 2, f"one retry only, not {len(model.calls) - 1}"
