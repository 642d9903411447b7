"""`--show-wire` (shared/wire): the bodies shown are the bodies sent, the events shown
are in the APIs' documented order, and the screen stays readable at 80 columns."""

from __future__ import annotations

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
    OfflineProvider,
    Provider,
    ProviderError,
    Reply,
    ScriptedProvider,
    ToolCall,
)
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.base import NO_OPTIONS
from shared.providers.openai_provider import OpenAIProvider
from shared.wire import WireLog, WireTap, elide, synthesize, would_send
from shared.wire.render import STRING_LIMIT, log_line, show_request

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

LOOP04 = load_stage("04", "loop")
LOOP07 = load_stage("07", "loop")
KEY = "sk-test-SECRET-key-0123456789"
FLAVOURS = ["anthropic", "openai"]


def console(width: int = 80) -> Console:
    return Console(file=io.StringIO(), width=width, highlight=False)


def shown(tap: WireTap) -> str:
    return tap.console.file.getvalue()


def squashed(text: str) -> str:
    """Text with all whitespace removed: long lines wrap at spaces on screen."""
    return re.sub(r"\s+", "", text)


def sdk(kind: str, base_url: str = "http://127.0.0.1:9", **kwargs):
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


# ------------------------------------------------------------------ the request body


def test_stage04_protocol_prompt_is_in_the_body_shown_offline():
    tap = WireTap(OfflineProvider(), console(), "anthropic")
    system = LOOP04.build_agent_system()
    answer = "".join(tap.stream([{"role": "user", "content": "What time is it?"}], system))
    assert tap.last_request["system"][0]["text"] == system, "the body must carry the prompt"
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
    tap = WireTap(model, console(), flavour)
    answer = LOOP07.agent_step("What time is it, and how many words in 'a b c'?", [], tap,
                               LOOP07.build_agent_system())
    assert answer == "It is noon; 3 words." and len(model.calls) == 2
    body, out = tap.last_request, shown(tap)
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
    provider = sdk(flavour, model=model, max_tokens=321)
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
        tap = WireTap(sdk(flavour, api.base_url), console())
        reply = tap.call(messages, "Be brief.", LOOP07.TOOLS)
    assert reply.text == "Hi there." and api.violations == []
    assert api.requests == [tap.last_request], "the body shown must be the body sent"
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


def _log(events) -> WireLog:
    log = WireLog()
    for kind, data in events:
        log.record(kind or "chunk", data)
    return log


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
@pytest.mark.parametrize("reply", [two_tool_reply(), Reply("Just text, no tools.", [],
                                                           "end_turn", {"input_tokens": 9,
                                                                        "output_tokens": 4}),
                                   Reply("Cut off mid", [], "max_tokens",
                                         {"input_tokens": 5, "output_tokens": 3})])
def test_the_real_sdk_assembles_a_synthesized_stream_back_into_the_reply(flavour, reply):
    events = synthesize(flavour, reply, "m")
    sse = SSE([(kind, data) for kind, data in events] if flavour == "anthropic" else
              [(None, "[DONE]" if kind == "[DONE]" else data) for kind, data in events])
    with FakeAPI(flavour) as api:
        api.queue(sse)
        got = sdk(flavour, api.base_url).call([{"role": "user", "content": "hi"}])
    assert (got.text, got.stop_reason, got.usage) == (reply.text, reply.stop_reason,
                                                      reply.usage)
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
    assert WireTap(sdk("anthropic"), console(), "openai").flavour == "anthropic"
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
        client = sdk(flavour, api.base_url)._client
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
    kind = "content_block_delta" if flavour == "anthropic" else "chunk"
    text = [line for line in tap.last_log.lines() if line.kind == kind and line.pieces]
    assert [(line.count, line.pieces) for line in text] == [(3, ["Hel", "lo, wo", "rld"])], (
        "the folded count must be the number of deltas the learner saw arrive")


# ------------------------------------------------------------------ faults on the wire view


def _tapped_call(flavour, sse, messages=None, tools=(), **provider_kwargs):
    """One call through a WireTap on the real provider against the fake; (tap, result)."""
    with FakeAPI(flavour) as api:
        api.queue(sse)
        base = provider_kwargs.pop("base_url", api.base_url)
        tap = WireTap(sdk(flavour, base, max_retries=0, **provider_kwargs), console())
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
        tap._show_request([{"role": "user", "content": "hi"}], "", (), NO_OPTIONS)
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
    tap._show_request([{"role": "user", "content": "hi"}], "", (), NO_OPTIONS)
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
