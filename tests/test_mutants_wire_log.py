"""The wire view's events and their display (shared/wire/events.py, render.py), without an
SDK: the questions the surviving mutants of benchmarks/mutation.py asked. Do the events
synthesized for a reply assemble back into that same reply, in either API? Which deltas
fold into one line, and which never do? Where exactly is a long string cut, and does the
laid-out JSON still read back as the same value?"""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.base import Reply, ToolCall
from shared.providers.openai_provider import OpenAIProvider
from shared.wire import events, render
from shared.wire.events import Line, WireLog

REPLIES = [
    Reply("Hello there, friend.", [], "end_turn", {"input_tokens": 12, "output_tokens": 5}),
    Reply("Checking.", [ToolCall("toolu_1", "calculator", {"expression": "2 * (3 + 4)"}),
                        ToolCall("toolu_2", "clock", {})], "tool_use",
          {"input_tokens": 40, "output_tokens": 22}),
    Reply("", [ToolCall("call_9", "wordcount", {"text": "a b c d e f g h i j k l m n"})],
          "tool_use", {"input_tokens": 7, "output_tokens": 3}),
    Reply("cut sho", [], "max_tokens", {"input_tokens": 1, "output_tokens": 2}),
]


def reassembled(flavour, reply, deltas=None):
    cls = AnthropicProvider if flavour == "anthropic" else OpenAIProvider
    provider = cls.__new__(cls)  # no SDK client: only the assembly runs
    data = [d for kind, d in events.synthesize(flavour, reply, "m", deltas) if kind != "[DONE]"]
    return list(provider._assemble(iter(data), []))


@pytest.mark.parametrize("flavour", ["anthropic", "openai"])
@pytest.mark.parametrize("reply", REPLIES, ids=range(len(REPLIES)))
def test_synthesized_events_assemble_back_into_the_same_reply(flavour, reply):
    out = reassembled(flavour, reply)
    got = out[-1]
    assert "".join(out[:-1]) == reply.text == got.text
    assert [(c.id, c.name, c.args) for c in got.tool_calls] == [
        (c.id, c.name, c.args) for c in reply.tool_calls]
    assert got.stop_reason == reply.stop_reason
    assert (got.usage["input_tokens"], got.usage["output_tokens"]) == (
        reply.usage["input_tokens"], reply.usage["output_tokens"])


@pytest.mark.parametrize("flavour", ["anthropic", "openai"])
def test_the_deltas_that_really_streamed_are_the_ones_synthesized(flavour):
    reply = Reply("Hello there")
    assert reassembled(flavour, reply, ["Hel", "", "lo there"])[:-1] == ["Hel", "lo there"]
    assert "".join(reassembled(flavour, reply, ["other"])[:-1]) == "Hello there"
    assert "".join(reassembled(flavour, reply, ["Hel"])[:-1]) == "Hello there"  # cut short


def test_a_reply_without_usage_streams_zero_counts():
    anthropic = dict(events.synthesize("anthropic", Reply("Hi"), "m"))
    assert anthropic["message_start"]["message"]["usage"]["input_tokens"] == 0
    assert anthropic["message_delta"]["usage"]["output_tokens"] == 0
    openai = events.synthesize("openai", Reply("Hi"), "m")[-2][1]["usage"]
    assert openai == {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}


def test_text_without_its_deltas_streams_in_word_sized_pieces():
    assert events.text_pieces(Reply("one two  three ")) == ["one ", "two  ", "three "]
    assert events.text_pieces(Reply("  lead")) == ["  lead"]
    assert events.text_pieces(Reply("")) == []


def test_arguments_stream_in_pieces_of_at_most_json_piece_characters():
    for args in ({}, {"a": 1}, {"expression": "x" * 40}):
        raw = json.dumps(args)
        pieces = events._json_pieces(ToolCall("c", "t", args))
        assert "".join(pieces) == raw and all(len(p) <= events.JSON_PIECE for p in pieces)
        assert len(pieces) == -(-len(raw) // events.JSON_PIECE)
    assert events._json_pieces(ToolCall("c", "t", {}, error="broken JSON")) == []


def test_anthropic_blocks_are_numbered_from_zero_with_one_ping_after_the_first():
    synthesized = events.synthesize("anthropic", REPLIES[1], "claude-x")
    kinds = [kind for kind, _ in synthesized]
    assert kinds.count("ping") == 1 and kinds[kinds.index("ping") - 1] == "content_block_start"
    starts = [d for kind, d in synthesized if kind == "content_block_start"]
    assert [s["index"] for s in starts] == [0, 1, 2]
    assert [s["content_block"]["type"] for s in starts] == ["text", "tool_use", "tool_use"]
    assert synthesized[0][1]["message"]["model"] == "claude-x"
    only_tools = [d["index"] for k, d in events.synthesize("anthropic", REPLIES[2], "m")
                  if k == "content_block_start"]
    assert only_tools == [0]


def test_openai_chunks_end_with_the_finish_reason_the_usage_and_done():
    synthesized = events.synthesize("openai", REPLIES[1], "gpt-x")
    finish = [d["choices"][0]["finish_reason"] for k, d in synthesized
              if k == "chunk" and d["choices"]]
    assert finish[:-1] == [None] * (len(finish) - 1) and finish[-1] == "tool_calls"
    usage = synthesized[-2][1]["usage"]
    assert usage == {"prompt_tokens": 40, "completion_tokens": 22, "total_tokens": 62}
    assert synthesized[-1][0] == "[DONE]" and synthesized[0][1]["model"] == "gpt-x"
    assert {d["choices"][0]["index"] for k, d in synthesized if k == "chunk" and d["choices"]} == {
        0}  # one answer: every chunk's only choice is choice 0
    odd = events.synthesize("openai", Reply("x", stop_reason="refusal", usage={
        "input_tokens": "n/a"}), "m")
    assert odd[-3][1]["choices"][0]["finish_reason"] == "refusal"
    assert odd[-2][1]["usage"]["total_tokens"] == 0


def test_each_finish_reason_maps_back_to_its_stop_reason():
    assert events.FINISH_REASONS == {"end_turn": "stop", "tool_use": "tool_calls",
                                     "max_tokens": "length"}


# ---------------------------------------------------------------- folding the log


def delta(text, index=0, kind="text_delta"):
    key = "partial_json" if kind == "input_json_delta" else "text"
    return {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: text}}


def logged(*pairs):
    log = WireLog()
    for kind, data in pairs:
        log.record(kind, data)
    return log.lines()


def test_consecutive_deltas_of_one_block_and_kind_fold_with_a_count():
    lines = logged(("content_block_delta", delta("Hel")), ("content_block_delta", delta("lo")),
                   ("content_block_delta", delta('{"a"', 1, "input_json_delta")),
                   ("content_block_delta", delta(": 1}", 1, "input_json_delta")),
                   ("content_block_delta", delta("more")))
    assert [(line.count, "".join(line.pieces), line.payload) for line in lines] == [
        (2, "Hello", "text"), (2, '{"a": 1}', "json"), (1, "more", "text")]


def test_events_without_a_payload_never_fold():
    lines = logged(("ping", {"type": "ping"}), ("ping", {"type": "ping"}),
                   ("content_block_stop", {"index": 0}), ("content_block_stop", {"index": 0}))
    assert [line.count for line in lines] == [1, 1, 1, 1]


def test_openai_text_chunks_fold_and_a_chunk_carrying_more_stands_alone():
    def chunk(**delta_and_finish):
        finish = delta_and_finish.pop("finish", None)
        return ("chunk", {"choices": [{"delta": delta_and_finish, "finish_reason": finish}]})

    lines = logged(chunk(role="assistant", content=""), chunk(content="Hi"),
                   chunk(content=" you"), chunk(content="!", finish="stop"),
                   ("chunk", {"choices": [], "usage": {"prompt_tokens": 3}}))
    assert [line.count for line in lines] == [1, 2, 1, 1]
    assert "".join(lines[1].pieces) == "Hi you" and lines[2].pieces == []
    assert lines[3].key == ("chunk", "usage")


def test_openai_argument_fragments_fold_as_json_and_a_call_s_head_does_not():
    head = ("chunk", {"choices": [{"delta": {"tool_calls": [
        {"index": 0, "id": "c1", "function": {"name": "clock", "arguments": ""}}]}}]})
    piece = ("chunk", {"choices": [{"delta": {"tool_calls": [
        {"index": 0, "function": {"arguments": "{}"}}]}}]})
    lines = logged(head, piece, piece)
    assert [(line.count, line.payload) for line in lines] == [(1, "text"), (2, "json")]
    assert "c1" in lines[0].detail and "clock" in lines[0].detail


def test_a_text_completion_chunk_and_typed_content_still_show_their_text():
    line, = logged(("chunk", {"choices": [{"text": "plain", "finish_reason": None}]}))
    assert line.pieces == ["plain"]
    line, = logged(("chunk", {"choices": [{"delta": {"content": [{"type": "text",
                                                                  "text": "typed"}]}}]}))
    assert "typed" in "".join(line.pieces)


def test_sdk_event_objects_become_plain_dicts():
    class Event:
        def __init__(self, method):
            setattr(self, method, lambda: {"type": method})

    assert events._as_dict(Event("to_dict")) == {"type": "to_dict"}
    assert events._as_dict(Event("model_dump")) == {"type": "model_dump"}
    assert events._as_dict({"a": 1}) == {"a": 1} and events._as_dict(3) == {"value": 3}


def test_a_preview_is_whole_up_to_its_limit_and_then_cut_with_its_length():
    whole = "x" * events.PREVIEW
    assert json.loads(events.preview(whole)) == whole
    longer = whole + "y"
    cut = events.preview(longer)
    assert "y" not in cut and str(len(longer)) in cut
    assert events.preview('{"a": 1}', "json") == "'{\"a\": 1}'"


def test_usage_counts_show_in_the_api_s_order_and_only_whole_numbers():
    shown = events.usage_text({"output_tokens": 5, "zeta": 1, "input_tokens": 3,
                               "cache_read_input_tokens": 2, "estimated": None,
                               "total_tokens": "many"})
    order = [shown.index(key) for key in ("input_tokens", "cache_read_input_tokens",
                                          "output_tokens", "zeta")]
    assert order == sorted(order) and "estimated" not in shown and "many" not in shown
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


# ---------------------------------------------------------------- the screen


def test_a_string_is_elided_only_past_its_limit_keeping_both_ends():
    assert render.elide("x" * 30, 30) == "x" * 30
    cut = render.elide("a" * 20 + "b" * 11, 30)
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
    assert render.flat_json({"a": "x" * 50}, 20) == render.elide(json.dumps({"a": "x" * 50}), 20)


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


def screen():
    return Console(file=io.StringIO(), width=80, highlight=False)


def test_the_request_is_shown_whole_and_without_its_keys():
    console = screen()
    key = "sk-ant-api03-abcdefghijklmnop"
    render.show_request(console, {"messages": [{"content": f"my key is {key}"}]},
                        f"request {key}", "a note", [key])
    out = console.file.getvalue()
    assert key not in out and "my key is" in out


def test_the_response_shows_each_call_and_the_stop_reason_without_keys():
    console = screen()
    key = "sk-proj-abcdefghijklmnop"
    reply = Reply("", [ToolCall("c1", "clock", {"zone": key}),
                       ToolCall("c2", "calculator", {}, error="broken arguments")],
                  "tool_use", {"input_tokens": 4})
    lines = [Line("content_block_delta", "text_delta", ("k",), [f"a{key}", "b"], count=2)]
    render.show_response(console, lines, "response", "note", reply, f"footer {key}", [key])
    out = console.file.getvalue()
    assert key not in out and "c1" in out and "c2" in out and "broken arguments" in out
    assert "tool_use" in out and "footer" in out and "×2" in out


def test_a_log_line_shows_its_count_only_when_it_folded_more_than_one():
    one = render.log_line(Line("ping", "", ("ping",))).plain
    two = render.log_line(Line("content_block_delta", "text_delta", ("k",), ["a", "b"],
                               count=2)).plain
    assert "×" not in one and "×2" in two and '"ab"' in two
