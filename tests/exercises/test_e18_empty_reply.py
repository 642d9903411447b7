# Don't change the tests! They tell you when exercises/e18_empty_reply.py is done.
from exercise_support import need

from shared.providers import ScriptedProvider
from tao.repo import load_stage

SYSTEM = load_stage("09", "context").build_context()  # stage 09's own system prompt


def messages():
    """A turn as stage 09 has it when it asks for the final answer: the question, the
    model's sentence and calls, the results. A new copy on every call."""
    return [{"role": "user", "content": "What time is it, and how many words are in 'to be "
                                        "or not to be'?"},
            {"role": "assistant", "content": "I'll use now and wordcount.", "tool_calls": [
                {"id": "offline_call_1", "name": "now", "args": {}},
                {"id": "offline_call_2", "name": "wordcount",
                 "args": {"text": "to be or not to be"}}]},
            {"role": "tool", "tool_call_id": "offline_call_1", "name": "now",
             "content": "2026-12-01T12:00:00+00:00"},
            {"role": "tool", "tool_call_id": "offline_call_2", "name": "wordcount",
             "content": "6"}]


def ask(ex, replies, system=SYSTEM, given=None):
    final_answer = need(ex, "final_answer", "provider", "messages", "system")
    model = ScriptedProvider([*replies, "a reply that should never be asked for"])
    return final_answer(model, messages() if given is None else given, system), model


def test_an_answer_the_first_time_is_used_as_it_is(ex):
    result, model = ask(ex, ["It is noon, and that text has 6 words."])
    assert result == ("It is noon, and that text has 6 words.", "completed"), (
        f"a reply with text is the answer: expected it with 'completed', got {result}")
    assert len(model.calls) == 1, f"one good reply needs one call, not {len(model.calls)}"
    assert model.calls[0]["system"] == SYSTEM and model.calls[0]["tools"] == [], (
        "the first call sends the system prompt as given, and no tools")


def test_the_docstrings_example(ex):
    result, model = ask(ex, ["It is noon."], system="Be brief.")
    assert result == ("It is noon.", "completed"), (
        f'final_answer(provider, messages, "Be brief.") with a model that says "It is noon." '
        f"should give ('It is noon.', 'completed'), not {result}")
    assert model.calls[0]["system"] == "Be brief." and model.calls[0]["messages"] == messages()


def test_the_callers_messages_are_not_changed(ex):
    given = messages()
    ask(ex, ["", "It is noon."], given=given)
    assert given == messages(), (
        "final_answer changed the list it was given (it now ends with "
        f"{given[-1]}): the nudge goes into the system prompt of the retry, never into "
        "the history")


def test_a_blank_reply_is_asked_again_with_the_nudge(ex):
    result, model = ask(ex, ["", "It is noon."])
    assert result == ("It is noon.", "completed"), f"the retry's text is the answer: {result}"
    assert len(model.calls) == 2, (
        f"one blank reply: exactly one more call, but the model was called {len(model.calls)}"
        " times")
    assert model.calls[1]["system"] == f"{SYSTEM}\n\n{ex.NUDGE}", (
        "the retry keeps the system prompt and adds the nudge after a blank line; it sent "
        f"a system prompt ending {model.calls[1]['system'][-90:]!r}")
    assert model.calls[1]["tools"] == [], "the retry offers no tools either"
    assert model.calls[1]["messages"] == messages(), (
        "the retry sends the same messages: no blank assistant message (both APIs refuse "
        f"one) and no nudge as a message; it sent {len(model.calls[1]['messages'])} messages"
        f" ending {model.calls[1]['messages'][-1]}")


def test_the_nudge_follows_whatever_the_system_prompt_is(ex):
    for system in ("Be brief.", "You are a careful assistant.\nAnswer in French."):
        _, model = ask(ex, ["", "Midi."], system=system)
        sent = model.calls[-1]["system"]
        assert sent == f"{system}\n\n{ex.NUDGE}", (
            f"with the system prompt {system!r}, the retry should send it, a blank line and "
            f"the nudge; it sent {sent!r}")


def test_whitespace_is_blank_too(ex):
    result, model = ask(ex, ["  \n ", "Noon."])
    assert result == ("Noon.", "completed") and len(model.calls) == 2, (
        f"a reply of only spaces and newlines is blank: asked again, expected ('Noon.', "
        f"'completed') after 2 calls, got {result} after {len(model.calls)}")


def test_a_one_character_answer_is_an_answer(ex):
    result, model = ask(ex, ["6"])
    assert result == ("6", "completed") and len(model.calls) == 1, (
        f"'6' is a whole answer (how many words?): expected ('6', 'completed') from one call,"
        f" got {result} after {len(model.calls)} calls")


def test_two_blank_replies_end_the_turn_as_empty(ex):
    for replies in (["", " \n"], ["  ", ""]):
        result, model = ask(ex, replies)
        assert result == ("", "empty"), (
            f"two blank replies ({replies}) end as ('', 'empty'): an empty text, never the "
            f"blank one, got {result}")
        assert len(model.calls) == 2, f"one retry only, not {len(model.calls) - 1}"
