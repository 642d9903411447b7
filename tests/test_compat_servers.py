"""OpenAI-compatible servers stream tool calls their own way; each shape is replayed here.

Where each shape was seen (public code and issue trackers):
- Ollama: each call whole in one chunk, every call at `index: 0` with its own id
  (ollama/ollama#15457, fixed for clients in vercel/ai#14277); `finish_reason: "stop"`
  after tool calls (discussed in ollama/ollama#7963); thinking in `delta.reasoning`.
- vLLM: the next call reuses `index: 0` with a new id, its later fragments carry
  `id: ""`; SGLang repeats the call's id on every fragment (both compared in
  InternLM/lmdeploy#3412); `delta.reasoning_content` for reasoning models.
- llama.cpp's llama-server before ggml-org/llama.cpp#13800: the id inside `function`,
  the full name repeated on every fragment; older builds refuse tools with streaming
  ("Cannot use tools with stream", 500).
- LM Studio: tool calls with an empty id (lmstudio-ai/lmstudio-bug-tracker#830).
- Gemini's compatible endpoint and some proxies: no `index` at all (openai/openai-python#3246).
- Mistral refuses `stream_options` (422, openai/openai-agents-python#442), Databricks
  with 400 (anomalyco/opencode#4698).
- Mistral's reasoning models stream `content` as typed parts, `thinking` then `text`
  (openclaw/openclaw#68418, comet-ml/opik#8376).
- One id for two calls, from some models behind proxies (can1357/oh-my-pi#2055); and
  vLLM's end-of-stream flush repeating a call's id and name (vllm-project/vllm#44098),
  or its whole arguments (#51697, and lidge-jun/opencodex#361).
"""

from __future__ import annotations

import pytest
from fake_api import FakeAPI, HTTPError, chat_chunk, chat_stream

from shared.providers import ProviderError, Tool
from shared.providers.openai_provider import OpenAIProvider, ollama

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

NOW = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
           lambda args: "2026-01-01T00:00:00+00:00")
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: str(len(args["text"].split())))
TOOLS = {t.name: t for t in (NOW, WORDCOUNT)}
PRESETS = ["openai", "ollama"]


def build(preset, api):
    """The openai provider or the ollama preset, pointed at the fake."""
    if preset == "ollama":
        return ollama(base_url=api.base_url)
    return OpenAIProvider(api_key="sk-test-0123456789-secret", base_url=api.base_url)


def call(fn_name, args=None, **fields):
    """One tool-call fragment; `fields` sets id, index, or keys inside `function`."""
    function = {k.removeprefix("fn_"): v for k, v in fields.items() if k.startswith("fn_")}
    if fn_name is not None:
        function["name"] = fn_name
    if args is not None:
        function["arguments"] = args
    fragment = {k: v for k, v in fields.items() if not k.startswith("fn_")}
    fragment.setdefault("type", "function")
    return {**fragment, "function": function}


def calls_chunk(*fragments, finish=None, **extra):
    """A chunk whose delta carries these tool-call fragments."""
    return chat_chunk({"tool_calls": list(fragments)}, finish, **extra)


def round_trip(preset, sse):
    """Serve `sse`, run the tools, answer; return (reply, the fake API, the history).

    The follow-up request must be accepted: every id echoed back, arguments as JSON."""
    messages = [{"role": "user", "content": "what time is it, and count 'a b c'"}]
    with FakeAPI("openai") as api:
        api.queue(sse, chat_stream(chat_chunk({"content": "Done."}, "stop")))
        p = build(preset, api)
        reply = p.call(messages, "", list(TOOLS.values()))
        messages.append(reply.assistant_message())
        for c in reply.tool_calls:
            messages.append({"role": "tool", "tool_call_id": c.id, "name": c.name,
                             "content": TOOLS[c.name].run(c.args) if not c.error else c.error})
        assert p.call(messages, "", list(TOOLS.values())).text == "Done."
    assert api.violations == [], api.violations
    return reply, api, messages


def shape(reply):
    """(name, args, error) of each call, for comparing."""
    return [(c.name, c.args, c.error) for c in reply.tool_calls]


TWO_CALLS = [("now", {}, ""), ("wordcount", {"text": "a b c"}, "")]


@pytest.mark.parametrize("preset", PRESETS)
def test_ollama_whole_calls_all_at_index_0_with_finish_stop(preset):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": ""}),
        calls_chunk(call("now", "{}", id="call_o1", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="call_o2", index=0)),
        chat_chunk({}, "stop"))
    reply, api, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["call_o1", "call_o2"]
    assert reply.stop_reason == "tool_use"  # "stop" after tool calls still means tool use


@pytest.mark.parametrize("preset", PRESETS)
def test_no_index_key_at_all(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="call_n1")),
        calls_chunk(call(None, "{}")),
        calls_chunk(call("wordcount", "", id="call_n2")),
        calls_chunk(call(None, '{"text": ')), calls_chunk(call(None, '"a b c"}')),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS


@pytest.mark.parametrize("preset", PRESETS)
def test_vllm_second_call_reuses_index_0_with_a_new_id(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="chatcmpl-tool-a", index=0)),
        calls_chunk(call(None, "{}", id="", index=0)),
        calls_chunk(call("wordcount", "", id="chatcmpl-tool-b", index=0)),
        calls_chunk(call(None, '{"text": "a', id="", index=0)),
        calls_chunk(call(None, ' b c"}', id="", index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["chatcmpl-tool-a", "chatcmpl-tool-b"]


@pytest.mark.parametrize("preset", PRESETS)
def test_sglang_id_and_name_repeated_on_every_fragment(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="0", index=0)),
        calls_chunk(call("now", "{}", id="0", index=0)),
        calls_chunk(call("wordcount", "", id="1", index=0)),
        calls_chunk(call("wordcount", '{"text": ', id="1", index=0)),
        calls_chunk(call("wordcount", '"a b c"}', id="1", index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS  # the name is not "wordcountwordcount..."


@pytest.mark.parametrize("preset", PRESETS)
def test_old_llama_cpp_id_inside_function(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", index=0, fn_id="lc-1")),
        calls_chunk(call("wordcount", '{"text"', index=1, fn_id="lc-2")),
        calls_chunk(call("wordcount", ': "a b c"}', index=1, fn_id="lc-2")),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert [c.id for c in reply.tool_calls] == ["lc-1", "lc-2"]


@pytest.mark.parametrize("preset", PRESETS)
def test_empty_ids_are_made_up_unique_and_echoed_back(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", id="", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="", index=1)),
        chat_chunk({}, "tool_calls"))
    reply, api, _ = round_trip(preset, sse)
    ids = [c.id for c in reply.tool_calls]
    assert shape(reply) == TWO_CALLS
    assert all(ids) and len(set(ids)) == 2, ids
    follow_up = api.requests[-1]["messages"]
    assert [m["tool_call_id"] for m in follow_up if m["role"] == "tool"] == ids
    assert [c["id"] for c in follow_up[-3]["tool_calls"]] == ids


@pytest.mark.parametrize("preset", PRESETS)
def test_arguments_sent_as_an_object_not_a_string(preset):
    sse = chat_stream(
        calls_chunk(call("now", {}, id="call_j1", index=0)),
        calls_chunk(call("wordcount", {"text": "a b c"}, id="call_j2", index=1)),
        chat_chunk({}, "tool_calls"))
    reply, api, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    # sent back the documented way: arguments as a JSON string
    assert api.requests[-1]["messages"][-3]["tool_calls"][1]["function"]["arguments"] == (
        '{"text": "a b c"}')


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_deltas_stay_out_of_the_text_and_reach_their_callback(field):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": "", field: "The user wants"}),
        chat_chunk({"content": None, field: " a greeting."}),
        chat_chunk({"content": "Hello!"}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        text, thoughts = [], []
        p = ollama(base_url=api.base_url)
        reply = p.call([{"role": "user", "content": "hi"}], "", (), text.append,
                       on_reasoning_delta=thoughts.append)
        api.queue(sse)
        streamed = list(p.stream([{"role": "user", "content": "hi"}]))
    assert reply.text == "Hello!" and text == ["Hello!"] and streamed == ["Hello!"]
    assert thoughts == ["The user wants", " a greeting."]
    assert reply.reasoning == "The user wants a greeting."
    assert reply.assistant_message() == {"role": "assistant", "content": "Hello!"}


def test_a_server_that_sends_no_usage_gets_a_reply_that_says_so():
    # llama-cpp-python's server streams no usage at all (nor does it read stream_options)
    sse = chat_stream(chat_chunk({"content": "ok"}), chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}])
    assert reply.text == "ok" and reply.usage == {"not_reported": True}


def test_usage_on_the_finish_chunk():
    sse = chat_stream(chat_chunk({"content": "ok"}),
                      chat_chunk({}, "stop", usage={"prompt_tokens": 9, "completion_tokens": 1,
                                                    "total_tokens": 10}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}])
    assert reply.usage == {"input_tokens": 9, "output_tokens": 1}


@pytest.mark.parametrize("preset", PRESETS)
def test_an_error_that_ends_the_body_without_finish_or_done(preset):
    sse = chat_stream(chat_chunk({"content": "Partly"}),
                      (None, {"error": {"message": "model crashed: out of memory"}}),
                      done=False)
    with FakeAPI("openai") as api:
        api.queue(sse)
        with pytest.raises(ProviderError) as info:
            build(preset, api).call([{"role": "user", "content": "hi"}])
    assert "broke off mid-reply" in str(info.value) and info.value.partial == "Partly"


@pytest.mark.parametrize("preset", PRESETS)
def test_a_body_that_just_ends_without_finish_reason_is_broken_off(preset):
    with FakeAPI("openai") as api:
        api.queue(chat_stream(chat_chunk({"content": "Partly"}), done=True))
        with pytest.raises(ProviderError, match="broke off") as info:
            build(preset, api).call([{"role": "user", "content": "hi"}])
    assert info.value.partial == "Partly"


REFUSED_USAGE = HTTPError(422, {"object": "error", "message": {"detail": [
    {"type": "extra_forbidden", "loc": ["body", "stream_options", "include_usage"],
     "msg": "Extra inputs are not permitted", "input": True}]},
    "type": "invalid_request_error"})


def test_stream_options_refused_is_retried_without_it_and_remembered():
    with FakeAPI("openai") as api:
        api.queue(REFUSED_USAGE, chat_stream(chat_chunk({"content": "one"}, "stop")),
                  chat_stream(chat_chunk({"content": "two"}, "stop")))
        p = ollama(base_url=api.base_url)
        assert p.call([{"role": "user", "content": "hi"}]).text == "one"
        assert p.call([{"role": "user", "content": "again"}]).text == "two"
    assert ["stream_options" in body for body in api.requests] == [True, False, False]


def test_a_server_that_cannot_stream_tool_calls_says_so_once():
    refusal = HTTPError(500, {"error": {"code": 500, "message": "Cannot use tools with stream",
                                        "type": "server_error"}})
    with FakeAPI("openai") as api:
        api.queue(refusal, refusal, refusal)
        with pytest.raises(ProviderError) as info:
            ollama(base_url=api.base_url).call([{"role": "user", "content": "hi"}], "",
                                               [NOW])
    message = str(info.value)
    assert "cannot stream tool calls" in message and "before 07" in message
    assert len(api.requests) == 1  # not a passing overload: no retry


# ---- duplicate call ids: each call keeps its own name and arguments
# Seen in the wild: models behind some proxies emit one tool_call_id for two distinct
# calls (can1357/oh-my-pi#2055, openclaw/openclaw#40996); OpenAI then refuses the history
# ("Duplicate value for 'tool_call_id'", agno-agi/agno#5116).


@pytest.mark.parametrize("preset", PRESETS)
def test_two_calls_with_one_id_at_two_indexes_keep_their_own_names_and_arguments(preset):
    sse = chat_stream(
        calls_chunk(call("now", "", id="call_dup", index=0)),
        calls_chunk(call("wordcount", "", id="call_dup", index=1)),
        calls_chunk(call(None, "{}", index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=1)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    ids = [c.id for c in reply.tool_calls]
    assert ids[0] == "call_dup" and len(set(ids)) == 2, ids  # results cannot be mixed up


@pytest.mark.parametrize("preset", PRESETS)
def test_two_whole_calls_with_one_id_at_index_0_are_two_calls(preset):
    """Ollama's shape (each call whole at index 0), with the id repeated."""
    sse = chat_stream(
        calls_chunk(call("now", "{}", id="call_same", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', id="call_same", index=0)),
        chat_chunk({}, "stop"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS
    assert len({c.id for c in reply.tool_calls}) == 2


@pytest.mark.parametrize("preset", PRESETS)
def test_a_whole_call_sent_again_under_its_id_is_one_call_not_two(preset):
    """vLLM's end-of-stream flush re-sends a call's id and name, and sometimes its
    arguments (vllm-project/vllm#44098, #51697): a call must never run twice for it."""
    whole = call("wordcount", '{"text": "a b c"}', id="call_once", index=0)
    sse = chat_stream(calls_chunk(whole), calls_chunk(dict(whole)), chat_chunk({}, "stop"))
    reply, _, messages = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]
    assert len([m for m in messages if m["role"] == "tool"]) == 1


@pytest.mark.parametrize("preset", PRESETS)
def test_whole_arguments_sent_twice_at_one_index_are_taken_once(preset):
    """The arguments whole in one fragment, then again (lidge-jun/opencodex#361; vLLM's
    xlam parser, vllm-project/vllm#51697): joined, they would be broken JSON."""
    sse = chat_stream(
        calls_chunk(call("wordcount", "", id="call_t", index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=0)),
        calls_chunk(call(None, '{"text": "a b c"}', index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_flush_that_repeats_id_and_name_with_the_rest_of_the_arguments_continues(preset):
    """vllm-project/vllm#44098: the closing chunk repeats id, type and name with the
    remaining arguments."""
    sse = chat_stream(
        calls_chunk(call("wordcount", '{"text": ', id="call_f", index=0)),
        calls_chunk(call("wordcount", '"a b c"}', id="call_f", index=0), finish="tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == [TWO_CALLS[1]]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_new_name_at_a_known_index_without_an_id_is_a_new_call(preset):
    sse = chat_stream(
        calls_chunk(call("now", "{}", index=0)),
        calls_chunk(call("wordcount", '{"text": "a b c"}', index=0)),
        chat_chunk({}, "tool_calls"))
    reply, _, _ = round_trip(preset, sse)
    assert shape(reply) == TWO_CALLS


# ---- refusals: openai-python's ChoiceDelta has `refusal`, and finish_reason may be
# "content_filter"; a refusal streams in `delta.refusal` with finish_reason "stop"
# (vercel/ai reports the same: @ai-sdk/openai 3.0.138 surfaces it as text).


def test_content_filter_with_tool_calls_is_not_made_a_tool_use():
    sse = chat_stream(calls_chunk(call("now", "{}", id="call_cf", index=0)),
                      chat_chunk({}, "content_filter"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", [NOW])
    assert reply.stop_reason == "content_filter"  # stages 09-10 run no call it carries


@pytest.mark.parametrize("before", ["", "Sure, "])
def test_a_refusal_streams_as_shown_text_and_stops_with_refusal(before):
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": before or None, "refusal": None}),
        chat_chunk({"refusal": "I can't help"}), chat_chunk({"refusal": " with that."}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        seen = []
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", (),
                                          seen.append)
    assert "".join(seen) == reply.text == before + "I can't help with that."
    assert reply.stop_reason == "refusal"


def test_a_refusal_next_to_tool_calls_stops_with_refusal():
    sse = chat_stream(chat_chunk({"refusal": "No."}),
                      calls_chunk(call("now", "{}", id="call_r", index=0)),
                      chat_chunk({}, "tool_calls"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", [NOW])
    assert reply.stop_reason == "refusal"


# ---- content as a list of typed parts: Mistral's reasoning models stream a `thinking`
# part then `text` parts (seen by openclaw/openclaw#68418, comet-ml/opik#8376); other
# relays send [{"type": "text", ...}] alone (NousResearch/hermes-agent#64047)


def test_content_sent_as_typed_parts_is_read_as_text_and_reasoning():
    sse = chat_stream(
        chat_chunk({"role": "assistant", "content": [
            {"type": "thinking", "thinking": [{"type": "text", "text": "They greet me."}]}]}),
        chat_chunk({"content": [{"type": "text", "text": "Hello"}]}),
        chat_chunk({"content": [{"type": "text", "text": " there!"}, {"type": "image_url"}]}),
        chat_chunk({"content": "!"}),
        chat_chunk({}, "stop"))
    with FakeAPI("openai") as api:
        api.queue(sse)
        seen, thoughts = [], []
        reply = build("openai", api).call([{"role": "user", "content": "hi"}], "", (),
                                          seen.append, on_reasoning_delta=thoughts.append)
    assert reply.text == "Hello there!!" and "".join(seen) == reply.text
    assert reply.reasoning == "They greet me." and thoughts == ["They greet me."]
