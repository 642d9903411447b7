"""`--show-wire` (shared/wire): the bodies shown are the bodies sent, the events shown
are in the APIs' documented order, and the screen stays readable at 80 columns. First
its pieces, with no SDK; then the wire view around real SDK providers."""

from __future__ import annotations

import importlib
import io
import json
import re
import subprocess
import sys

import pytest
from fake_api import SSE, FakeAPI, anthropic_stream, openai_stream
from helpers import ROOT, clean_env, load_stage, run_stage
from rich.console import Console

from shared.providers import (
    DEFAULT_MODELS,
    FallbackProvider,
    OfflineProvider,
    Options,
    Provider,
    ProviderError,
    Reply,
    ScriptedProvider,
    ToolCall,
)
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.base import NO_OPTIONS
from shared.providers.openai_provider import OpenAIProvider
from shared.wire import (
    WireLog,
    WireTap,
    body,
    elide,
    events,
    render,
    synthesize,
    wire_flavour,
    would_send,
)
from shared.wire.events import Line
from shared.wire.render import STRING_LIMIT, log_line, show_request

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

LOOP04 = load_stage("04", "loop")
LOOP07 = load_stage("07", "loop")
KEY = "sk-test-SECRET-key-0123456789"
WIDE = 2000  # columns: a stage's system prompt (1,000 characters at most shown) fits one line
FLAVOURS = ["anthropic", "openai"]


def console(width: int = 80) -> Console:
    return Console(file=io.StringIO(), width=width, highlight=False)


def shown(tap: WireTap) -> str:
    return tap.console.file.getvalue()


def bodies_shown(tap: WireTap) -> list[dict]:
    """The request bodies the tap printed, read back off its screen (give it a console
    wide enough that no string of the JSON wraps: `console(WIDE)`)."""
    bodies, block = [], []
    for line in shown(tap).splitlines():
        if block or line.startswith("{"):
            block.append(line.rstrip())
            if block[-1].endswith("}") and (len(block) == 1 or block[-1] == "}"):
                bodies.append(json.loads("\n".join(block)))
                block = []
    return bodies


def _log(events) -> WireLog:
    """A log of these (kind, data) events, an OpenAI chunk's kind None as "chunk"."""
    log = WireLog()
    for kind, data in events:
        log.record(kind or "chunk", data)
    return log


def squashed(text: str) -> str:
    """Text with all whitespace removed: long lines wrap at spaces on screen."""
    return re.sub(r"\s+", "", text)


def real_provider(kind: str, base_url: str = "http://127.0.0.1:9", **kwargs):
    """The real provider of this kind (its SDK imported), pointed at `base_url`."""
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    return cls(api_key=KEY, base_url=base_url, **kwargs)


def two_tool_reply(first="toolu_01A", second="toolu_01B") -> Reply:
    return Reply("Checking both.", [ToolCall(first, "now", {}),
                                    ToolCall(second, "wordcount", {"text": "a b c"})],
                 "tool_use", {"input_tokens": 31, "output_tokens": 17})


CONVERSATION = [  # one finished tool round, then a follow-up question
    {"role": "user", "content": "What time is it, and how many words in 'a b c'?"},
    {"role": "assistant", "content": "Checking both.", "tool_calls": [
        {"id": "call_1", "name": "now", "args": {}},
        {"id": "call_2", "name": "wordcount", "args": {"text": "a b c"}}]},
    {"role": "tool", "tool_call_id": "call_1", "name": "now", "content": "noon"},
    {"role": "tool", "tool_call_id": "call_2", "name": "wordcount", "content": "3"},
    {"role": "assistant", "content": "It is noon; 3 words."},
    {"role": "user", "content": "And 12 * 7?"},
]


# ---------------------------------------------------------------- the pieces, no SDK
# What the wire view is made of, piece by piece, read off its screen where it shows
# them: which TAO_SHOW_WIRE values, which body, which events, which lines. No real SDK
# here (the `sdk` fixture stands in for one), so a mutation run of shared/wire stops at
# the first failure early; with the real SDKs, further down.


def test_a_stop_sequence_is_shown_in_the_body_either_api_would_send():
    # stage 06 streams with stop=("<tool_result",): --show-wire openai with the offline
    # model built this body on a stand-in without the setting that gates stop
    hi = [{"role": "user", "content": "hi"}]
    assert would_send("openai", hi, options=Options(stop=("<tool_result",)))["stop"] == [
        "<tool_result"]
    assert would_send("anthropic", hi, options=Options(stop=("<tool_result",)))[
        "stop_sequences"] == ["<tool_result"]


@pytest.mark.parametrize(("value", "flavour"), [
    (None, None), ("", None), ("0", None), ("1", "anthropic"), (" Anthropic ", "anthropic"),
    ("OPENAI", "openai")])
def test_show_wire_values_turn_it_off_or_pick_an_api(value, flavour):
    assert wire_flavour(value) == flavour


@pytest.mark.parametrize("value", ["yes", "2", "ollama"])
def test_a_show_wire_value_it_does_not_know_is_refused(value):
    with pytest.raises(ProviderError):
        wire_flavour(value)


def test_a_wire_tap_for_an_api_it_does_not_know_is_refused():
    with pytest.raises(ProviderError):
        WireTap(ScriptedProvider(["hi"]), console(), "ollama")


def test_the_body_goes_to_the_api_s_path_and_a_server_s_url_shows_no_credentials():
    assert body.endpoint("anthropic") == "/v1/messages"
    assert body.endpoint("openai") == "/v1/chat/completions"
    assert body.endpoint("openai", "http://127.0.0.1:8080/v1/") == (
        "http://127.0.0.1:8080/v1/chat/completions")
    url = body.shown_url("https://me:hunter2@api.example.org/v1?key=s3cret&x=")
    assert "hunter2" not in url and "me:" not in url and "s3cret" not in url
    assert url.startswith("https://api.example.org/v1?") and url.count("[hidden]") == 2


def test_the_sdk_provider_of_a_fallback_is_its_first_and_names_the_flavour(sdk):
    openai = OpenAIProvider(api_key=KEY)  # on the stand-in SDK
    chain = FallbackProvider([openai, OfflineProvider()])
    assert body.sdk_provider(chain) is openai and body.flavour_of(chain) == "openai"
    assert body.flavour_of(AnthropicProvider(api_key=KEY)) == "anthropic"
    assert body.sdk_provider(OfflineProvider()) is None and body.flavour_of(
        OfflineProvider()) is None
    offline_first = FallbackProvider([OfflineProvider(), openai])
    assert body.sdk_provider(offline_first) is None


class NotGiven:
    """Named as the SDKs name their 'leave this key out' placeholder."""


class Omit:
    """Likewise, the other name it goes by."""


def test_the_body_leaves_out_what_travels_elsewhere_and_merges_extra_body():
    params = {"model": "m", "timeout": 5, "extra_headers": {"h": "1"}, "extra_query": {},
              "extra_body": {"top_k": 3}, "stop": ("a",), "seed": NotGiven(),
              "user": Omit(), "n": 0}
    assert body.body_of(params) == {"model": "m", "top_k": 3, "stop": ["a"], "n": 0}
    assert body.body_of({"model": "m", "extra_body": None}) == {"model": "m"}


def test_the_body_a_provider_would_send_is_its_request_on_a_stand_in():
    hi = [{"role": "user", "content": "hi"}]
    sent = would_send("openai", hi, "Be brief.", options=Options(max_tokens=7),
                      model="gpt-test", max_tokens=99)
    assert sent["model"] == "gpt-test" and sent["max_completion_tokens"] == 7
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["stream_options"] == {"include_usage": True}
    sent = would_send("anthropic", hi, max_tokens=99)
    assert sent["max_tokens"] == 99 and sent["model"] == DEFAULT_MODELS["anthropic"]


# ---- the tap around a turn, as its screen shows it


def sections(tap: WireTap) -> list[str]:
    """The tap's screen cut at each request: one piece per model call shown."""
    return shown(tap).split("request · ")[1:]


def test_a_stream_shows_its_request_once_and_the_turn_its_response():
    tap = WireTap(ScriptedProvider(["Hello there", "Again"]), console(WIDE), "openai")
    assert "".join(tap.stream([{"role": "user", "content": "hi"}])) == "Hello there"
    first, = sections(tap)
    assert first.count("\nresponse ") == 1 and "[DONE]" in first  # synthesized: no wire
    assert bodies_shown(tap)[0]["messages"][-1]["content"] == "hi"
    tap.call([{"role": "user", "content": "more"}])  # a later turn shows its own request
    assert len(sections(tap)) == 2 and bodies_shown(tap)[1]["messages"][-1] == {
        "role": "user", "content": "more"}


@pytest.mark.parametrize(("flavour", "first", "last"), [
    ("anthropic", "message_start", "message_stop"), ("openai", "chunk", "[DONE]")])
def test_the_synthesized_events_follow_the_flavour_asked_for(flavour, first, last):
    tap = WireTap(ScriptedProvider(["Hi"]), console(), flavour)
    tap.call([{"role": "user", "content": "hi"}])
    log = shown(tap).split("would stream it\n")[1].split("\nstop_reason ")[0].splitlines()
    assert log[0].startswith(first) and log[-1].startswith(last)


def test_a_turn_that_fails_at_once_shows_the_failure_and_no_reply_then_raises():
    tap = WireTap(ScriptedProvider([ProviderError("offline: broken")]), console(), "openai")
    with pytest.raises(ProviderError):
        tap.call([{"role": "user", "content": "hi"}])
    out = shown(tap)
    assert "the call failed: offline: broken" in out and "stop_reason" not in out


def test_usage_from_a_model_with_no_wire_is_said_to_be_its_own():
    counted = Reply("Hi", usage={"input_tokens": 3, "output_tokens": 1})
    tap = WireTap(ScriptedProvider([counted, Reply("Hi")]), console(), "openai")
    tap.call([{"role": "user", "content": "hi"}])
    tap.call([{"role": "user", "content": "hi"}])
    counts, none = sections(tap)
    assert "usage comes from the scripted model, not from an API" in counts
    assert "usage comes from" not in none


def test_the_wire_hook_is_lent_to_every_provider_of_a_fallback_and_put_back():
    class Reports(ScriptedProvider):
        def turn(self, messages, system, tools, options=NO_OPTIONS):
            self.on_wire_event("ping", {"type": "ping"})
            yield from super().turn(messages, system, tools, options)

    first, second = ScriptedProvider([ProviderError("first: down")]), Reports(["b"])
    before = []
    first.on_wire_event = before.append
    chain = FallbackProvider([first, second])
    chain.on_notice = lambda note: None
    tap = WireTap(chain, console(), "anthropic")
    assert tap.call([{"role": "user", "content": "hi"}]).text == "b"
    assert "1 events as they arrived" in shown(tap)  # the second provider's ping, shown
    assert first.on_wire_event == before.append
    assert "on_wire_event" not in vars(second) and "on_wire_event" not in vars(chain)


def test_the_keys_of_the_wrapped_provider_are_the_ones_hidden():
    said = [{"role": "user", "content": "my words: secret-one-1234"}]
    provider = ScriptedProvider(["ok", "ok"])
    tap = WireTap(provider, console())
    tap.call(said)
    assert "secret-one-1234" in shown(tap)  # no secrets given: nothing to hide
    provider.secrets = ("secret-one-1234", "secret-two-5678")
    tap = WireTap(provider, console())
    tap.call(said)
    assert "secret-one-1234" not in shown(tap) and "[key hidden]" in shown(tap)


def test_a_tap_takes_the_conversation_by_name_as_any_provider_does():
    tap = WireTap(ScriptedProvider(["Hi"]), console(), "openai")
    assert "".join(tap.stream(messages=[{"role": "user", "content": "hi"}], system="s")) == "Hi"


def test_the_response_starts_on_a_fresh_line_only_after_streamed_text():
    def response_after(reply):
        tap = WireTap(ScriptedProvider([reply]), console(), "openai")
        tap.call([{"role": "user", "content": "hi"}])
        return shown(tap).split("response ")[0]

    assert response_after(Reply("Hi")).endswith("}\n\n")  # the streamed line ended
    assert response_after(Reply("", [ToolCall("c1", "now", {})], "tool_use")).endswith("}\n")
    assert not response_after(Reply("", [ToolCall("c1", "now", {})], "tool_use")).endswith(
        "\n\n")


# ---- the events of a reply, synthesized, and the log that folds them

REPLIES = [
    Reply("Hello there, friend.", [], "end_turn", {"input_tokens": 12, "output_tokens": 5}),
    Reply("Checking.", [ToolCall("toolu_1", "calculator", {"expression": "2 * (3 + 4)"}),
                        ToolCall("toolu_2", "clock", {})], "tool_use",
          {"input_tokens": 40, "output_tokens": 22}),
    Reply("", [ToolCall("call_9", "wordcount", {"text": "a b c d e f g h i j k l m n"})],
          "tool_use", {"input_tokens": 7, "output_tokens": 3}),
    Reply("cut sho", [], "max_tokens", {"input_tokens": 1, "output_tokens": 2}),
]


def streamed(flavour, events_) -> list[str]:
    """The text pieces of synthesized events, in order."""
    if flavour == "anthropic":
        return [d["delta"]["text"] for k, d in events_
                if k == "content_block_delta" and d["delta"]["type"] == "text_delta"]
    return [d["choices"][0]["delta"]["content"] for k, d in events_
            if k == "chunk" and d.get("choices") and d["choices"][0]["delta"].get("content")]


def arguments(flavour, events_) -> list[str]:
    """The argument fragments of synthesized events, in order."""
    if flavour == "anthropic":
        return [d["delta"]["partial_json"] for k, d in events_
                if k == "content_block_delta" and d["delta"]["type"] == "input_json_delta"]
    return [c["function"]["arguments"] for k, d in events_ if k == "chunk" and d["choices"]
            for c in d["choices"][0]["delta"].get("tool_calls", ())
            if c["function"]["arguments"]]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_deltas_that_really_streamed_are_the_ones_synthesized(flavour):
    reply = Reply("Hello there")
    assert streamed(flavour, synthesize(flavour, reply, "m", ["Hel", "", "lo there"])) == [
        "Hel", "lo there"]
    assert "".join(streamed(flavour, synthesize(flavour, reply, "m", ["other"]))) == (
        "Hello there")
    cut_short = synthesize(flavour, reply, "m", ["Hel"])
    assert "".join(streamed(flavour, cut_short)) == "Hello there"


def test_a_reply_without_usage_streams_zero_counts():
    anthropic = dict(synthesize("anthropic", Reply("Hi"), "m"))
    assert anthropic["message_start"]["message"]["usage"]["input_tokens"] == 0
    assert anthropic["message_delta"]["usage"]["output_tokens"] == 0
    openai = synthesize("openai", Reply("Hi"), "m")[-2][1]["usage"]
    assert openai == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def test_text_without_its_deltas_streams_in_word_sized_pieces():
    assert events.text_pieces(Reply("one two  three ")) == ["one ", "two  ", "three "]
    assert events.text_pieces(Reply("  lead")) == ["  lead"]
    assert events.text_pieces(Reply("")) == []


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_arguments_stream_in_pieces_of_at_most_json_piece_characters(flavour):
    for args in ({}, {"a": 1}, {"expression": "x" * 40}):
        raw = json.dumps(args)
        pieces = arguments(flavour, synthesize(flavour, Reply("", [ToolCall("c", "t", args)]),
                                               "m"))
        assert "".join(pieces) == raw and all(len(p) <= events.JSON_PIECE for p in pieces)
        assert len(pieces) == -(-len(raw) // events.JSON_PIECE)


def test_anthropic_blocks_are_numbered_from_zero_with_one_ping_after_the_first():
    synthesized = synthesize("anthropic", REPLIES[1], "claude-x")
    kinds = [kind for kind, _ in synthesized]
    assert kinds.count("ping") == 1 and kinds[kinds.index("ping") - 1] == "content_block_start"
    starts = [d for kind, d in synthesized if kind == "content_block_start"]
    assert [s["index"] for s in starts] == [0, 1, 2]
    assert [s["content_block"]["type"] for s in starts] == ["text", "tool_use", "tool_use"]
    assert synthesized[0][1]["message"]["model"] == "claude-x"
    only_tools = [d["index"] for k, d in synthesize("anthropic", REPLIES[2], "m")
                  if k == "content_block_start"]
    assert only_tools == [0]


def test_openai_chunks_end_with_the_finish_reason_the_usage_and_done():
    synthesized = synthesize("openai", REPLIES[1], "gpt-x")
    finish = [d["choices"][0]["finish_reason"] for k, d in synthesized
              if k == "chunk" and d["choices"]]
    assert finish[:-1] == [None] * (len(finish) - 1) and finish[-1] == "tool_calls"
    usage = synthesized[-2][1]["usage"]
    assert usage == {"prompt_tokens": 40, "completion_tokens": 22, "total_tokens": 62}
    assert synthesized[-1][0] == "[DONE]" and synthesized[0][1]["model"] == "gpt-x"
    assert {d["choices"][0]["index"] for k, d in synthesized if k == "chunk" and d["choices"]} == {
        0}  # one answer: every chunk's only choice is choice 0
    odd = synthesize("openai", Reply("x", stop_reason="refusal", usage={
        "input_tokens": "n/a"}), "m")
    assert odd[-3][1]["choices"][0]["finish_reason"] == "refusal"
    assert odd[-2][1]["usage"]["total_tokens"] == 0


def test_each_finish_reason_maps_back_to_its_stop_reason():
    assert events.FINISH_REASONS == {"end_turn": "stop", "tool_use": "tool_calls",
                                     "max_tokens": "length"}


def delta(text, index=0, kind="text_delta"):
    key = "partial_json" if kind == "input_json_delta" else "text"
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: text}}


def test_consecutive_deltas_of_one_block_and_kind_fold_with_a_count():
    lines = _log([("content_block_delta", delta("Hel")), ("content_block_delta", delta("lo")),
                  ("content_block_delta", delta('{"a"', 1, "input_json_delta")),
                  ("content_block_delta", delta(": 1}", 1, "input_json_delta")),
                  ("content_block_delta", delta("more"))]).lines()
    assert [(line.count, "".join(line.pieces), line.payload) for line in lines] == [
        (2, "Hello", "text"), (2, '{"a": 1}', "json"), (1, "more", "text")]


def test_events_without_a_payload_never_fold():
    lines = _log([("ping", {"type": "ping"}), ("ping", {"type": "ping"}),
                  ("content_block_stop", {"index": 0}),
                  ("content_block_stop", {"index": 0})]).lines()
    assert [line.count for line in lines] == [1, 1, 1, 1]


def test_openai_text_chunks_fold_and_a_chunk_carrying_more_stands_alone():
    def chunk(**delta_and_finish):
        finish = delta_and_finish.pop("finish", None)
        return ("chunk", {"choices": [{"delta": delta_and_finish, "finish_reason": finish}]})

    lines = _log([chunk(role="assistant", content=""), chunk(content="Hi"),
                  chunk(content=" you"), chunk(content="!", finish="stop"),
                  ("chunk", {"choices": [], "usage": {"prompt_tokens": 3}})]).lines()
    assert [line.count for line in lines] == [1, 2, 1, 1]
    assert "".join(lines[1].pieces) == "Hi you" and lines[2].pieces == []
    assert lines[3].key == ("chunk", "usage")


def test_openai_argument_fragments_fold_as_json_and_a_call_s_head_does_not():
    head = ("chunk", {"choices": [{"delta": {"tool_calls": [
        {"index": 0, "id": "c1", "function": {"name": "clock", "arguments": ""}}]}}]})
    piece = ("chunk", {"choices": [{"delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": "{}"}}]}}]})
    lines = _log([head, piece, piece]).lines()
    assert [(line.count, line.payload) for line in lines] == [(1, "text"), (2, "json")]
    assert "c1" in lines[0].detail and "clock" in lines[0].detail


def test_a_text_completion_chunk_and_typed_content_still_show_their_text():
    line, = _log([("chunk", {"choices": [{"text": "plain", "finish_reason": None}]})]).lines()
    assert line.pieces == ["plain"]
    line, = _log([("chunk", {"choices": [{"delta": {"content": [
        {"type": "text", "text": "typed"}]}}]})]).lines()
    assert "typed" in "".join(line.pieces)


def test_sdk_event_objects_become_plain_dicts():
    class Event:
        def __init__(self, method):
            setattr(self, method, lambda: {"type": method})

    log = _log([("a", Event("to_dict")), ("b", Event("model_dump")), ("c", {"a": 1}),
                ("d", 3)])
    assert [data for _, data in log.events] == [
        {"type": "to_dict"}, {"type": "model_dump"}, {"a": 1}, {"value": 3}]


def test_a_preview_is_whole_up_to_its_limit_and_then_cut_with_its_length():
    whole = "x" * events.PREVIEW
    assert json.loads(events.preview(whole)) == whole
    longer = whole + "y"
    cut = events.preview(longer)
    assert "y" not in cut and str(len(longer)) in cut
    assert events.preview('{"a": 1}', "json") == "'{\"a\": 1}'"


def test_usage_counts_show_in_the_api_s_order_and_only_whole_numbers():
    usage = events.usage_text({"output_tokens": 5, "zeta": 1, "input_tokens": 3,
                               "cache_read_input_tokens": 2, "estimated": None,
                               "total_tokens": "many"})
    order = [usage.index(key) for key in ("input_tokens", "cache_read_input_tokens",
                                          "output_tokens", "zeta")]
    assert order == sorted(order) and "estimated" not in usage and "many" not in usage
    assert events.usage_text(None) == events.usage_text({}) == events.usage_text(
        {"a": "b"}) != ""


def arrived(kind):
    return json.loads(json.dumps(kind))  # a kind as read off the wire: not the literal


def test_non_delta_events_say_what_they_carry():
    start = {"type": "message_start", "message": {"id": "msg_1", "model": "claude-x",
                                                  "usage": {"input_tokens": 9}}}
    detail = events.describe(arrived("message_start"), start).detail
    assert "msg_1" in detail and "claude-x" in detail and "9" in detail
    assert "{" not in detail  # a summary of the event, not its JSON
    tool = json.loads('{"index": 2, "content_block": {"type": "tool_use", "id": "tu_7", '
                      '"name": "clock"}}')  # as it came off the wire
    detail = events.describe("content_block_start", tool).detail
    assert "tu_7" in detail and "clock" in detail and "2" in detail
    stop = events.describe("message_delta", {"delta": {"stop_reason": "max_tokens"}}).detail
    assert "max_tokens" in stop
    error = events.describe("error", {"error": {"type": "overloaded_error",
                                                "message": "busy"}}).detail
    assert "overloaded_error" in error and "busy" in error
    assert events.describe("message_stop", {}).detail == ""
    assert json.loads(events.describe("custom", {"x": 1}).detail) == {"x": 1}
    assert json.loads(events.describe("zzz_later", {"x": 2}).detail) == {"x": 2}


def test_a_local_model_s_prompt_shows_its_token_count_and_its_text():
    line = events.describe(arrived("prompt"), {"tokens": 37, "text": "<|user|>hi"})
    assert line.key == ("prompt",) and "37" in line.detail and "<|user|>hi" in line.detail
    assert line.pieces == []


# ---- the screen


def test_a_string_is_elided_only_past_its_limit_keeping_both_ends():
    assert elide("x" * 30, 30) == "x" * 30
    cut = elide("a" * 20 + "b" * 11, 30)
    assert cut.startswith("a" * 20) and cut.endswith("b" * 10) and "31" in cut
    assert not cut.startswith("a" * 21) and not cut.endswith("b" * 11)


def test_a_json_value_is_elided_string_by_string_and_keys_hidden():
    value = {"long": "z" * 50, "nested": [{"key": "sk-ant-secret-0123456789"}], "n": 3}
    out = render.elided(value, limit=20, secrets=["sk-ant-secret-0123456789"])
    assert len(out["long"]) < 50 and out["n"] == 3
    assert "secret" not in json.dumps(out)


def test_past_max_depth_a_value_becomes_one_string():
    deep = inner = {}
    for _ in range(render.MAX_DEPTH + 3):
        inner["d"] = {}
        inner = inner["d"]
    out, depth = render.elided(deep), 0
    while isinstance(out, dict):
        out, depth = out["d"], depth + 1
    assert depth == render.MAX_DEPTH and isinstance(out, str)
    shallow = {"d": {"d": {}}}
    assert render.elided(shallow) == shallow
    lists = inner = []
    for _ in range(render.MAX_DEPTH + 3):
        inner.append([])
        inner = inner[0]
    out, depth = render.elided(lists), 0
    while isinstance(out, list):
        out, depth = out[0], depth + 1
    assert depth == render.MAX_DEPTH and isinstance(out, str)


def test_each_level_of_a_laid_out_value_is_indented_two_more_spaces():
    text = render.layout({"a": ["x" * 30, {"b": "y" * 30}]}, 20)
    indents = [len(line) - len(line.lstrip()) for line in text.splitlines()]
    assert indents == [0, 2, 4, 4, 6, 4, 2, 0] and json.loads(text)["a"][1]["b"] == "y" * 30


def test_one_line_json_keeps_its_characters():
    assert render.flat_json({"k": "é"}) == '{"k": "é"}'


def test_keys_are_laid_out_as_written_not_as_escapes():
    text = render.layout({"é" * 12: "ü", "b": [1, 2]}, 10)
    assert "é" * 12 in text and "\\u" not in text and json.loads(text)["é" * 12] == "ü"


def test_json_that_cannot_be_written_is_still_one_line():
    loop = []
    loop.append(loop)
    assert render.flat_json(loop).startswith("<list")
    assert render.flat_json({"a": "x" * 50}, 20) == elide(json.dumps({"a": "x" * 50}), 20)


@pytest.mark.parametrize("width", [20, 40, 80])
def test_the_laid_out_json_reads_back_as_the_same_value_and_fits_where_it_can(width):
    value = {"model": "m", "messages": [{"role": "user", "content": "hello " * 5},
                                        {"role": "assistant", "content": ""}],
             "tools": [], "stream": True, "n": [1, 2, 3]}
    text = render.layout(value, width)
    assert json.loads(text) == value
    flat = json.dumps(value)
    assert ("\n" in text) is (len(flat) >= width)


def test_a_value_exactly_one_short_of_the_width_stays_on_one_line():
    value = {"a": "b"}
    flat = json.dumps(value)
    assert render.layout(value, len(flat) + 1) == flat
    assert "\n" in render.layout(value, len(flat))
    assert "\n" in render.layout(value, len(flat) + 3, start=3)


def test_the_request_is_shown_whole_and_without_its_keys():
    screen = console()
    key = "sk-ant-api03-abcdefghijklmnop"
    show_request(screen, {"messages": [{"content": f"my key is {key}"}]},
                 f"request {key}", "a note", [key])
    out = screen.file.getvalue()
    assert key not in out and "my key is" in out


def test_the_response_shows_each_call_and_the_stop_reason_without_keys():
    screen = console()
    key = "sk-proj-abcdefghijklmnop"
    reply = Reply("", [ToolCall("c1", "clock", {"zone": key}),
                       ToolCall("c2", "calculator", {}, error="broken arguments")],
                  "tool_use", {"input_tokens": 4})
    lines = [Line("content_block_delta", "text_delta", ("k",), [f"a{key}", "b"], count=2)]
    render.show_response(screen, lines, "response", "note", reply, f"footer {key}", [key])
    out = screen.file.getvalue()
    assert key not in out and "c1" in out and "c2" in out and "broken arguments" in out
    assert "tool_use" in out and "footer" in out and "×2" in out


def test_a_log_line_shows_its_count_only_when_it_folded_more_than_one():
    one = log_line(Line("ping", "", ("ping",))).plain
    two = log_line(Line("content_block_delta", "text_delta", ("k",), ["a", "b"],
                        count=2)).plain
    assert "×" not in one and "×2" in two and '"ab"' in two


# ------------------------------------------------------------------ the request body


def test_stage04_protocol_prompt_is_in_the_body_shown_offline():
    tap = WireTap(OfflineProvider(), console(WIDE), "anthropic")
    system = LOOP04.build_agent_system()
    answer = "".join(tap.stream([{"role": "user", "content": "What time is it?"}], system))
    body, = bodies_shown(tap)
    assert body["system"][0]["text"] == system, "the body must carry the prompt"
    out = shown(tap)
    # the whole protocol, JSON-escaped as on the wire, not elided in the middle
    protocol = json.dumps(LOOP04.TOOL_INSTRUCTIONS, ensure_ascii=False)[1:-1]
    assert squashed(protocol) in squashed(out), (
        "the protocol prompt of stage 04 must be visible whole in the body shown")
    assert "POST /v1/messages" in out and "nothing is sent" in out
    assert "as the anthropic API would stream it" in out
    assert '"tool": "now"' in answer and "text_delta" in out


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_stage07_ids_pair_in_the_body_after_a_scripted_two_iteration_turn(flavour):
    model = ScriptedProvider([two_tool_reply(), "It is noon; 3 words."])
    tap = WireTap(model, console(WIDE), flavour)
    answer = LOOP07.agent_step("What time is it, and how many words in 'a b c'?", [], tap,
                               LOOP07.build_agent_system())
    assert answer == "It is noon; 3 words." and len(model.calls) == 2
    body, out = bodies_shown(tap)[-1], shown(tap)
    if flavour == "anthropic":
        asked, answered = body["messages"][1]["content"], body["messages"][2]["content"]
        assert [b["id"] for b in asked if b["type"] == "tool_use"] == ["toolu_01A", "toolu_01B"]
        assert [b["tool_use_id"] for b in answered] == ["toolu_01A", "toolu_01B"], (
            "each tool_result must echo its tool_use id, in the user turn right after")
        assert '"tool_use_id": "toolu_01B"' in out
    else:
        calls = body["messages"][2]["tool_calls"]
        assert [c["id"] for c in calls] == ["toolu_01A", "toolu_01B"]
        assert [m["tool_call_id"] for m in body["messages"][3:5]] == ["toolu_01A", "toolu_01B"]
        assert body["messages"][0]["role"] == "system"
        assert '"tool_call_id": "toolu_01B"' in out
    assert out.count("request · POST") == 2 and out.count("\nresponse ") == 2


@pytest.mark.parametrize("flavour,model", [("anthropic", None), ("openai", None),
                                           ("openai", "llama3.2")])
def test_bodies_built_offline_equal_what_the_real_providers_build(flavour, model):
    provider = real_provider(flavour, model=model, max_tokens=321)
    tools = tuple(LOOP07.TOOLS)
    expected = provider.request(CONVERSATION, "Be brief.", tools)
    got = would_send(flavour, CONVERSATION, "Be brief.", tools, model=provider.model,
                     max_tokens=321)
    assert got == expected, "the offline body must be the provider's own request()"
    # a compatible server's model gets max_tokens; OpenAI's own, max_completion_tokens
    if model == "llama3.2":
        assert "max_tokens" in got and "max_completion_tokens" not in got


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_body_shown_is_the_body_the_server_receives_and_the_key_never_shows(flavour):
    stream = (anthropic_stream if flavour == "anthropic" else openai_stream)(["Hi ", "there."])
    silent_call = [  # a tool round with no text: OpenAI's content is null, Anthropic's absent
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c9", "name": "now",
                                                             "args": {}}]},
        {"role": "tool", "tool_call_id": "c9", "name": "now", "content": "noon"}]
    messages = CONVERSATION[:-1] + [{"role": "user", "content": "again?"}, *silent_call,
                                    {"role": "user", "content": f"my key is {KEY}"}]
    with FakeAPI(flavour) as api:
        api.queue(stream)
        tap = WireTap(real_provider(flavour, api.base_url), console(WIDE))
        reply = tap.call(messages, "Be brief.", LOOP07.TOOLS)
    assert reply.text == "Hi there." and api.violations == []
    sent = json.loads(json.dumps(api.requests).replace(KEY, "[key hidden]"))
    assert bodies_shown(tap) == sent, "the body shown must be the body sent, key hidden"
    out = shown(tap)
    assert KEY not in out and "[key hidden]" in out, "a key must never reach the screen"
    assert f"POST {api.base_url}" in out
    # an SDK-backed provider reports the events it really read, in order
    assert "events as they arrived" in out and "would stream it" not in out
    first = "message_start" if flavour == "anthropic" else "chunk"
    assert first in out and out.index(first) < out.index("Hi there")


# ------------------------------------------------------------------ layout


def test_elision_keeps_head_and_tail_and_counts_the_whole_string():
    text = "".join(f"{i:04d}" for i in range(1500))  # 6,000 distinct characters
    cut = elide(text, 300)
    head, tail = cut.split("… [6,000 chars] …")
    assert text.startswith(head) and text.endswith(tail), "head and tail must be the ends"
    assert (len(head), len(tail)) == (200, 100)
    assert elide(text[:300], 300) == text[:300], "a string that fits is left alone"
    assert "[301 chars]" in elide(text[:301], 300)


def test_at_80_columns_no_line_is_cropped_and_long_strings_are_elided():
    result = "word " * 1000  # a 5,000-character tool result
    messages = CONVERSATION[:3] + [{"role": "tool", "tool_call_id": "call_2",
                                    "name": "wordcount", "content": result}]
    body = would_send("anthropic", messages, LOOP04.build_agent_system(), LOOP07.TOOLS)
    screen = console(80)
    show_request(screen, body, "request", "note")
    out = screen.file.getvalue()
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 80, "a line wider than the screen is cropped"
    keys = set(re.findall(r'"(\w+)":', json.dumps(body)))
    missing = {key for key in keys if f'"{key}":' not in out}
    assert not missing, f"keys cut on screen: {sorted(missing)}"
    assert out.count(f"[{len(result):,} chars]") == 1, "the long result must be elided once"
    assert len(out) < len(result), "eliding must make the screen shorter than the result"
    assert '"required": ["text"]' in out, "short lists stay on one line"
    assert '  "messages": [' in lines and "  ]," in lines, "long lists take a line per item"
    assert squashed(json.dumps(body["system"][0]["text"], ensure_ascii=False)) in squashed(
        out), "a prompt that fits the string limit is shown whole, however it wraps"
    assert STRING_LIMIT >= len(LOOP04.build_agent_system())


# ------------------------------------------------------------------ the response log


def test_consecutive_anthropic_deltas_fold_with_a_count():
    events = anthropic_stream(["Hel", "lo", " wor", "ld"], tools=[
        ("toolu_9", "wordcount", ['{"te', 'xt": "a', ' b"}'])]).events
    lines = [log_line(line).plain for line in _log(events).lines()]
    assert 'content_block_delta ×4 text_delta "Hello world"' in lines
    assert "content_block_delta ×3 input_json_delta '{\"text\": \"a b\"}'" in lines
    assert "content_block_start index 1 tool_use id toolu_9 name wordcount" in lines
    assert lines[-2:] == ["message_delta stop_reason tool_use usage output_tokens 12",
                          "message_stop"]
    assert len(lines) == len(events) - 3 - 2, "only consecutive deltas of one block fold"


def test_deltas_fold_only_while_consecutive():
    delta = {"type": "content_block_delta", "index": 0,
             "delta": {"type": "text_delta", "text": "ab"}}
    log = _log([("content_block_delta", delta), ("content_block_delta", delta),
                ("ping", {"type": "ping"}), ("content_block_delta", delta)])
    assert [(line.kind, line.count) for line in log.lines()] == [
        ("content_block_delta", 2), ("ping", 1), ("content_block_delta", 1)]


def test_openai_chunks_fold_by_field_and_tool_call_index():
    sse = openai_stream(["a", "b", "c"], tools=[("call_1", "now", ["{", "}"]),
                                                ("call_2", "wordcount", ['{"text"', ': "x"}'])])
    lines = [log_line(line).plain for line in _log(sse.events[:-1]).lines()]
    assert lines == [
        "chunk delta.role assistant",
        'chunk ×3 delta.content "abc"',
        "chunk delta.tool_calls[0] id call_1 name now",
        "chunk ×2 delta.tool_calls[0].function.arguments '{}'",
        "chunk delta.tool_calls[1] id call_2 name wordcount",
        "chunk ×2 delta.tool_calls[1].function.arguments '{\"text\": \"x\"}'",
        "chunk finish_reason tool_calls",
        "chunk choices [] usage prompt_tokens 25 · completion_tokens 12 · total_tokens 37",
    ]


def test_a_long_folded_text_is_cut_with_its_length():
    pieces = [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                       "delta": {"type": "text_delta", "text": "x" * 30}})] * 5
    line = log_line(_log(pieces).lines()[0]).plain
    assert line == 'content_block_delta ×5 text_delta "' + "x" * 40 + '…" (150 chars)'


def _signature(kind, data) -> tuple:
    """An event's place in the documented order, ignoring how text is split."""
    if kind == "content_block_delta":
        return (kind, data["index"], data["delta"]["type"])
    if data == "[DONE]" or kind == "[DONE]":
        return ("[DONE]",)
    if kind in (None, "chunk"):
        if not data["choices"]:
            return ("usage",)
        delta, finish = data["choices"][0]["delta"], data["choices"][0]["finish_reason"]
        calls = [(c["index"], "id" in c) for c in delta.get("tool_calls", [])]
        return (tuple(sorted(k for k in delta if k != "tool_calls")), tuple(calls), finish)
    return (kind, data.get("index"))


def _runs(events) -> list[tuple]:
    out = []
    for kind, data in events:
        sig = _signature(kind, data)
        if not out or out[-1] != sig:
            out.append(sig)
    return out


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_synthesized_events_follow_the_documented_order(flavour):
    reply = two_tool_reply()
    documented = (anthropic_stream if flavour == "anthropic" else openai_stream)(
        ["Checking ", "both."], tools=[("toolu_01A", "now", ["{}"]),
                                       ("toolu_01B", "wordcount", ['{"text": "a b c"}'])])
    assert _runs(synthesize(flavour, reply, "m")) == _runs(documented.events)


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("reply", [two_tool_reply(), *REPLIES], ids=range(1 + len(REPLIES)))
def test_the_real_sdk_assembles_a_synthesized_stream_back_into_the_reply(flavour, reply):
    events = synthesize(flavour, reply, "m")
    sse = SSE([(kind, data) for kind, data in events] if flavour == "anthropic" else
              [(None, "[DONE]" if kind == "[DONE]" else data) for kind, data in events])
    seen = []
    with FakeAPI(flavour) as api:
        api.queue(sse)
        got = real_provider(flavour, api.base_url).call([{"role": "user", "content": "hi"}],
                                                        on_text_delta=seen.append)
    assert (got.text, got.stop_reason, got.usage) == (reply.text, reply.stop_reason,
                                                      reply.usage)
    assert "".join(seen) == reply.text
    assert [(c.id, c.name, c.args) for c in got.tool_calls] == [
        (c.id, c.name, c.args) for c in reply.tool_calls]


# ------------------------------------------------------------------ the hook, the wrapper


class Reporting(Provider):
    """Reports its events through on_wire_event, as the SDK providers will."""

    name, model = "reporting", "r-1"

    def __init__(self, fail_after: int | None = None):
        self.fail_after = fail_after

    def turn(self, messages, system, tools, options=None):
        events = anthropic_stream(["Hello", " there"]).events
        for n, (kind, data) in enumerate(events):
            if n == self.fail_after:
                raise ProviderError("reporting: the stream broke off mid-reply: Overloaded")
            self.on_wire_event(kind, data)
            if kind == "content_block_delta":
                yield data["delta"]["text"]
        yield Reply("Hello there", usage={"input_tokens": 25, "output_tokens": 12})


def test_reported_events_are_shown_as_they_arrived_and_the_hook_is_removed_after():
    provider = Reporting()
    tap = WireTap(provider, console())
    assert "".join(tap.stream([{"role": "user", "content": "hi"}])) == "Hello there"
    out = shown(tap)
    assert "events as they arrived" in out and "synthesized" not in out
    assert "message_start id msg_fake01 model claude-fake" in out
    assert 'content_block_delta ×2 text_delta "Hello there"' in out
    assert "on_wire_event" not in vars(provider), "the hook must not outlive the turn"


def test_a_broken_stream_shows_what_arrived_and_raises_the_same_error():
    tap = WireTap(Reporting(fail_after=4), console())
    with pytest.raises(ProviderError, match="broke off mid-reply"):
        tap.call([{"role": "user", "content": "hi"}])
    out = shown(tap)
    assert "the call failed: reporting: the stream broke off" in out
    assert "content_block_start index 0 text" in out and "message_stop" not in out


@pytest.mark.parametrize("value,flavour", [(None, None), ("", None), ("0", None),
                                           ("1", "anthropic"), ("anthropic", "anthropic"),
                                           (" OpenAI ", "openai")])
def test_a_session_reads_tao_show_wire(value, flavour):
    env = {"TAO_PROVIDER": "offline"} | ({} if value is None else {"TAO_SHOW_WIRE": value})
    with session_of(env) as (provider, trace):
        if flavour is None:
            assert not isinstance(provider, WireTap)
        else:
            assert isinstance(provider, WireTap) and provider.flavour == flavour
            assert provider.console is trace.console, "the wire shows on the trace's screen"
            assert not isinstance(provider.provider, WireTap), "never wrapped twice"


def test_the_show_wire_option_wins_over_tao_show_wire():
    with session_of({"TAO_SHOW_WIRE": "anthropic"}, show_wire="openai") as (provider, _):
        assert provider.flavour == "openai"


def session_of(env: dict, **options):
    """A stage's session from `options` (as stage_parser would give them) and `env`."""
    import argparse

    from shared.stage_main import open_session

    defaults = {"provider": None, "model": None, "save_trace": None, "show_wire": None,
                "quirk": None}
    return open_session(argparse.Namespace(**(defaults | options)), env)


def test_a_bad_tao_show_wire_is_one_line_naming_the_choices():
    with pytest.raises(ProviderError) as caught:
        session_of({"TAO_SHOW_WIRE": "yes"})
    message = str(caught.value)
    assert "\n" not in message and "'yes'" in message
    assert all(choice in message for choice in ("'1'", "'anthropic'", "'openai'"))


def test_the_wrapper_forwards_everything_else_and_sdk_providers_show_their_own_api():
    model = ScriptedProvider(["hi"], model="script-9")
    tap = WireTap(model, console(), "openai")
    assert (tap.name, tap.model, tap.describe()) == ("scripted", "script-9", model.describe())
    assert tap.call([{"role": "user", "content": "x"}]).text == "hi"
    assert tap.calls is model.calls and len(model.calls) == 1
    assert WireTap(real_provider("anthropic"), console(), "openai").flavour == "anthropic"
    with pytest.raises(ProviderError, match="choose one of anthropic, openai"):
        WireTap(model, console(), "gemini")


def test_the_offline_wire_never_imports_an_sdk():
    code = ("import sys; from shared.wire import WireTap; from shared.providers import "
            "OfflineProvider; from rich.console import Console; import io\n"
            "for flavour in ('anthropic', 'openai'):\n"
            "    tap = WireTap(OfflineProvider(), Console(file=io.StringIO()), flavour)\n"
            "    ''.join(tap.stream([{'role': 'user', 'content': 'What time is it?'}]))\n"
            "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(), cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", "showing the wire offline must not import an SDK"


def test_stream_shows_the_request_when_called_so_it_comes_before_any_reply_label():
    tap = WireTap(OfflineProvider(), console())
    deltas = tap.stream([{"role": "user", "content": "hello"}], "You are Tao.")
    assert "request · POST /v1/messages" in shown(tap), "shown before the first delta is read"
    assert "".join(deltas).startswith("I'm Tao")
    out = shown(tap)
    assert out.count("request · POST") == 1, "one request shown per model call"
    assert out.index("request · POST") < out.index("\nresponse ")


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_the_log_reads_the_sdks_own_event_objects_like_the_raw_json(flavour):
    """What the lead's hook will pass: the SDK's parsed events, not the raw SSE."""
    sse = (anthropic_stream if flavour == "anthropic" else openai_stream)(
        ["Let me ", "check."], tools=[("call_7", "wordcount", ['{"text"', ': "a b"}'])])
    # the SDKs hand over neither Anthropic's keep-alive pings nor OpenAI's [DONE]
    raw = _log([(kind, data) for kind, data in sse.events if kind != "ping" and data != "[DONE]"])
    parsed = WireLog()
    with FakeAPI(flavour) as api:
        api.queue(sse)
        sdk_module = importlib.import_module(flavour)
        client = (sdk_module.Anthropic if flavour == "anthropic" else sdk_module.OpenAI)(
            api_key=KEY, base_url=api.base_url)
        if flavour == "anthropic":
            with client.messages.create(model="m", max_tokens=50, stream=True, messages=[
                    {"role": "user", "content": "hi"}]) as events:
                for event in events:
                    parsed.record(event.type, event)
        else:
            for chunk in client.chat.completions.create(model="m", stream=True, messages=[
                    {"role": "user", "content": "hi"}]):
                parsed.record("chunk", chunk)
    assert [log_line(line).plain for line in parsed.lines()] == [
        log_line(line).plain for line in raw.lines()]


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_arguments_that_arrived_broken_are_not_invented_on_the_synthesized_wire(flavour):
    broken = ToolCall("toolu_X", "wordcount", {}, "the arguments were not valid JSON: '{\"te'")
    events = synthesize(flavour, Reply("", [broken], "tool_use"), "m")
    fragments = [data for _, data in events if "partial_json" in json.dumps(data)
                 or '"arguments": "{' in json.dumps(data)]
    assert fragments == [], "a broken call's arguments are unknown: none may be shown"
    tap = WireTap(ScriptedProvider([Reply("", [broken], "tool_use")]), console(), flavour)
    tap.call([{"role": "user", "content": "count"}])
    assert "(the arguments were not valid JSON:" in shown(tap)


def test_a_whole_tool_call_in_one_chunk_shows_its_arguments():
    """Local servers (Ollama among them) send id, name and arguments in one chunk."""
    chunk = {"choices": [{"index": 0, "finish_reason": None, "delta": {"tool_calls": [
        {"index": 0, "id": "call_a", "type": "function",
         "function": {"name": "now", "arguments": "{}"}},
        {"index": 1, "id": "call_b", "type": "function",
         "function": {"name": "wordcount", "arguments": '{"text": "a b"}'}}]}}]}
    lines = [log_line(line).plain for line in _log([("chunk", chunk), ("chunk", chunk)]).lines()]
    line = ("chunk delta.tool_calls[0] id call_a name now arguments '{}' "
            "delta.tool_calls[1] id call_b name wordcount arguments '{\"text\": \"a b\"}'")
    assert lines == [line, line], "whole calls are shown whole and never folded together"


class Chunky(Provider):
    """Streams its text in the pieces given, as a real model's tokens would come."""

    name, model = "chunky", "c-1"

    def turn(self, messages, system, tools, options=None):
        yield from ["Hel", "lo, wo", "rld"]
        yield Reply("Hello, world")


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_synthesized_text_deltas_are_the_deltas_the_model_streamed(flavour):
    tap = WireTap(Chunky(), console(), flavour)
    tap.call([{"role": "user", "content": "hi"}])
    text = [line for line in shown(tap).splitlines() if '"Hello, world"' in line]
    assert len(text) == 1 and "×3 " in text[0], (
        "the folded count must be the number of deltas the learner saw arrive")


# ------------------------------------------------------------------ faults on the wire view


def _tapped_call(flavour, sse, messages=None, tools=(), **provider_kwargs):
    """One call through a WireTap on the real provider against the fake; (tap, result)."""
    with FakeAPI(flavour) as api:
        api.queue(sse)
        base = provider_kwargs.pop("base_url", api.base_url)
        tap = WireTap(real_provider(flavour, base, max_retries=0, **provider_kwargs), console())
        try:
            result = tap.call(messages or [{"role": "user", "content": "hi"}], "", tools)
        except ProviderError as exc:
            result = exc
    return tap, result


def test_a_password_or_key_in_openai_base_url_never_shows_on_the_wire(monkeypatch):
    with FakeAPI("openai") as api:
        host = api.base_url.removeprefix("http://")
    for url in (f"http://learner:hunter2pass@{host}", f"http://{host}?key=query-secret-123"):
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        tap = WireTap(OpenAIProvider(api_key=KEY), console())
        tap.stream([{"role": "user", "content": "hi"}])  # shown at once, sent only when read
        out = shown(tap)
        assert "hunter2pass" not in out and "query-secret-123" not in out, out
        assert "learner" not in out and "127.0.0.1" in out  # still says where it goes


ESCAPES = "clear\x1b[2J c1\x9b31m osc\x1b]0;pwned\x07 bidi\u202etxt.exe nul\x00"


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_terminal_escapes_from_the_server_are_shown_never_sent_to_the_terminal(flavour):
    make = anthropic_stream if flavour == "anthropic" else openai_stream
    sse = make([ESCAPES], tools=[("call_e1", "wordcount",
                                  [json.dumps({"text": ESCAPES}, ensure_ascii=False)])])
    history = [{"role": "user", "content": "hi"},
               {"role": "assistant", "content": "earlier \x9b31m reply \u202e"},
               {"role": "user", "content": "again"}]
    tap, reply = _tapped_call(flavour, sse, history, LOOP07.TOOLS)
    assert not isinstance(reply, ProviderError), reply
    out = shown(tap)
    for raw in ("\x1b", "\x9b", "\x07", "\u202e", "\x00"):
        assert raw not in out, f"{raw!r} reached the terminal"
    # shown as the escapes that name them (JSON's own, \u001b, inside JSON text)
    assert "\\x9b" in out and ("\\x1b" in out or "\\u001b" in out)


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_arguments_of_200_kb_are_elided_on_the_wire(flavour):
    make = anthropic_stream if flavour == "anthropic" else openai_stream
    raw = json.dumps({"text": "word " * 40_000})
    tap, reply = _tapped_call(flavour, make([], tools=[("call_big", "wordcount", [raw])]),
                              tools=LOOP07.TOOLS)
    assert reply.tool_calls[0].args["text"].count("word") == 40_000  # the call is whole
    out = shown(tap)
    assert len(out) < 20_000, f"{len(out):,} characters on screen"
    assert "chars" in out


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_arguments_nested_600_deep_are_shown_without_a_crash(flavour):
    make = anthropic_stream if flavour == "anthropic" else openai_stream
    deep = '{"a": ' * 600 + "1" + "}" * 600
    tap, reply = _tapped_call(flavour, make([], tools=[("call_d1", "wordcount", [deep])]),
                              tools=LOOP07.TOOLS)
    assert not isinstance(reply, ProviderError), reply
    history = [{"role": "user", "content": "hi"}, reply.assistant_message(),
               {"role": "tool", "tool_call_id": "call_d1", "name": "wordcount",
                "content": "0"}]
    tap, second = _tapped_call(flavour, make(["ok"]), history, LOOP07.TOOLS)
    assert not isinstance(second, ProviderError) and second.text == "ok", second
    assert "request" in shown(tap) and len(shown(tap)) < 20_000


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_an_id_and_a_name_of_10_kb_are_elided_on_the_wire(flavour):
    make = anthropic_stream if flavour == "anthropic" else openai_stream
    huge_id, huge_name = "call_" + "i" * 10_000, "n" * 10_000
    tap, reply = _tapped_call(flavour, make([], tools=[(huge_id, huge_name, ["{}"])]),
                              tools=LOOP07.TOOLS)
    assert reply.tool_calls[0].id == huge_id  # the reply keeps what came
    assert len(shown(tap)) < 10_000, f"{len(shown(tap)):,} characters on screen"


def test_content_sent_as_typed_parts_shows_on_the_wire():
    from fake_api import chat_chunk, chat_stream

    sse = chat_stream(chat_chunk({"content": [{"type": "text", "text": "Hello"}]}),
                      chat_chunk({"content": [{"type": "text", "text": "!"}]}),
                      chat_chunk({}, "stop"))
    tap, reply = _tapped_call("openai", sse)
    assert not isinstance(reply, ProviderError) and reply.text == "Hello!", reply
    assert "Hello" in shown(tap) and "delta.content" in shown(tap)  # the parts, as JSON


def test_a_reply_whose_usage_is_not_numbers_is_still_synthesized():
    reply = Reply("ok", [], "end_turn", {"input_tokens": "12", "output_tokens": None})
    events = synthesize("openai", reply, "gpt-fake")
    usage = next(data for _, data in events if data.get("usage"))["usage"]
    assert usage == {"prompt_tokens": 12, "completion_tokens": 0, "total_tokens": 12}


def test_the_title_names_the_address_the_sdk_posts_to_even_from_anthropic_base_url(
        monkeypatch):
    """The anthropic SDK reads ANTHROPIC_BASE_URL itself: the title must say where the
    body really goes, still with no password in it."""
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://learner:hunter2pass@127.0.0.1:9")
    tap = WireTap(AnthropicProvider(api_key=KEY), console())
    tap.stream([{"role": "user", "content": "hi"}])  # shown at once, sent only when read
    assert "POST http://127.0.0.1:9/v1/messages" in shown(tap)
    assert "hunter2pass" not in shown(tap)


def test_constrain_gives_the_local_model_a_grammar_of_the_stages_registry(monkeypatch):
    import shared.stage_main as stage_main

    built = {}

    def build(name, model=None, **kwargs):  # the local provider, without llama.cpp
        built.update(kwargs, name=name)
        return ScriptedProvider(["ok"])

    monkeypatch.setattr(stage_main, "build_provider", build)
    registry = {"now": lambda args: "12:00", "wordcount": lambda args: "3"}
    args = stage_main.stage_parser("", registry).parse_args(["--constrain",
                                                            "--provider", "local"])
    with stage_main.open_session(args, {}) as (provider, _):
        pass
    assert built["name"] == "local"
    grammar = built["grammar"]
    assert '\\"now\\"' in grammar and '\\"wordcount\\"' in grammar, "each tool"
    assert "calculator" not in grammar


def test_constrain_is_refused_in_one_line_for_a_model_that_takes_no_grammar():
    from shared.stage_main import open_session, stage_parser

    args = stage_parser("", {"now": lambda a: ""}).parse_args(["--constrain"])
    with pytest.raises(ProviderError) as refused:
        open_session(args, {"TAO_PROVIDER": "offline"})
    assert "--provider local" in str(refused.value) and "\n" not in str(refused.value)


def test_only_a_stage_with_a_registry_takes_constrain():
    from shared.stage_main import stage_parser

    with pytest.raises(SystemExit):
        stage_parser("").parse_args(["--constrain"])


@pytest.mark.parametrize(("args", "api"), [
    (["--show-wire", "hi there"], "anthropic"),  # the flag first, as the README says
    (["hi there", "--show-wire"], "anthropic"),
    (["--show-wire", "openai", "hi there"], "openai"),
])
def test_show_wire_goes_before_or_after_a_question(args, api):
    done = run_stage("01", *args)
    assert done.returncode == 0, done.stderr
    assert "you> hi there" in done.stdout, done.stdout
    endpoint = "POST /v1/chat/completions" if api == "openai" else "POST /v1/messages"
    assert f"request · {endpoint}" in done.stdout, done.stdout[:400]
