"""What the trace shows of each model call: tokens, stop reasons, ids, the turn, notes."""

from __future__ import annotations

import io

import pytest
from helpers import load_stage

from shared.providers import Reply, ScriptedProvider, ToolCall
from shared.providers.base import Provider, tool_calls_from
from shared.stage_main import connect
from shared.trace import OBSERVE_CHARS, Trace, make_console

LOOP05, LOOP07 = load_stage("05", "loop"), load_stage("07", "loop")


def screen_trace() -> tuple[Trace, io.StringIO]:
    screen = io.StringIO()
    return Trace(make_console(file=screen, width=120)), screen


def finished(trace: Trace, screen: io.StringIO) -> str:
    trace.finish()
    return screen.getvalue()


def test_native_ids_tokens_stop_reasons_and_the_turn_summary():
    calls = [ToolCall("toolu_A1", "now", {}), ToolCall("toolu_B2", "wordcount", {"text": "a b"})]
    model = ScriptedProvider([
        Reply("Let me check.", calls, "tool_use", {"input_tokens": 120, "output_tokens": 30,
                                                   "cache_read_input_tokens": 7}),
        Reply("Noon; 2 words.", [], "end_turn", {"input_tokens": 200, "output_tokens": 9}),
    ])
    trace, screen = screen_trace()
    model = connect(model, trace)
    trace.request("time and words?")
    answer = LOOP07.agent_step("time and words?", [], model, "", trace, trace.stream_delta)
    trace.answer(answer)
    out = finished(trace, screen)
    assert out.count("Let me check.") == 1, "text streamed live is shown once, not again"
    think = out.index("think · the text above came before its tool calls")
    assert out.index("Let me check.") < think < out.index("act · now · toolu_A1")
    assert "120 in / 30 out tokens · cache read 7 · stop tool_use" in out[think:]
    assert "observe · now · toolu_A1" in out and "act · wordcount · toolu_B2" in out
    assert "observe · wordcount · toolu_B2" in out
    summary = out.splitlines()[-1]
    assert summary.startswith("turn: 2 model calls · 2 iterations · 320 in / 39 out tokens")
    assert "stop end_turn" in summary and "estimated" not in summary


def test_text_before_calls_that_was_not_streamed_gets_its_own_think_panel():
    calls = [ToolCall("toolu_A1", "now", {})]
    model = connect(ScriptedProvider([
        Reply("Checking the clock.", calls, "tool_use", {"input_tokens": 5, "output_tokens": 2}),
        Reply("Noon.", [], "end_turn")]), (screen := screen_trace())[0])
    trace = screen[0]
    trace.answer(LOOP07.agent_step("time?", [], model, "", trace))  # nothing streamed live
    out = finished(*screen)
    assert out.count("Checking the clock.") == 1
    panel = out.index("think · before its tool calls")
    assert panel < out.index("Checking the clock.") < out.index("act · now · toolu_A1")


def test_json_line_stages_get_tokens_from_stream_and_the_estimate_is_labelled():
    model = ScriptedProvider([
        Reply('{"tool": "wordcount", "args": {"text": "a b c"}}', [], "end_turn",
              {"input_tokens": 50, "output_tokens": 12, "estimated": True}),
        Reply("Three.", [], "end_turn", {"input_tokens": 80, "output_tokens": 2,
                                          "estimated": True}),
    ])
    trace, screen = screen_trace()
    model = connect(model, trace)
    trace.request("count")
    trace.answer(LOOP05.agent_step("count", [], model, "", trace))
    out = finished(trace, screen)
    assert "50 in / 12 out tokens (estimated) · stop end_turn" in out  # on the think panel
    assert "turn: 2 model calls · 2 iterations · 130 in / 14 out tokens (estimated)" in out


def test_a_streamed_answer_ends_with_what_its_one_call_cost():
    model = ScriptedProvider([Reply("Hi there.", [], "max_tokens",
                                    {"input_tokens": 9, "output_tokens": 4})])
    trace, screen = screen_trace()
    model = connect(model, trace)
    trace.request("hi")
    trace.stream_answer(model.stream([{"role": "user", "content": "hi"}]))
    out = finished(trace, screen)
    assert "turn: 1 model call · 9 in / 4 out tokens · stop max_tokens" in out


def test_tokens_a_server_did_not_report_are_said_to_be_missing():
    unreported = {"not_reported": True}  # what an SDK provider gets from such a server
    calls = [ToolCall("call_1", "now", {})]
    model = ScriptedProvider([Reply("", calls, "tool_use", unreported),
                              Reply("Noon.", [], "end_turn", unreported)])
    trace, screen = screen_trace()
    model = connect(model, trace)
    trace.request("time?")
    trace.answer(LOOP07.agent_step("time?", [], model, "", trace, trace.stream_delta))
    out = finished(trace, screen)
    assert "model replied with tool calls" in out
    assert out.count("tokens not reported by the server") == 2  # that call, and the turn
    assert " in / " not in out  # no count is made up
    summary = out.splitlines()[-1]
    assert summary.startswith("turn: 2 model calls") and "not reported" in summary


def test_a_turn_where_only_some_calls_were_counted_says_so():
    model = ScriptedProvider([Reply("", [ToolCall("call_1", "now", {})], "tool_use",
                                    {"input_tokens": 40, "output_tokens": 5}),
                              Reply("Noon.", [], "end_turn", {"not_reported": True})])
    trace, screen = screen_trace()
    model = connect(model, trace)
    trace.request("time?")
    trace.answer(LOOP07.agent_step("time?", [], model, "", trace, trace.stream_delta))
    summary = finished(trace, screen).splitlines()[-1]
    assert "40 in / 5 out tokens (not all reported by the server)" in summary


def test_a_cut_observation_says_how_much_the_model_read():
    trace, screen = screen_trace()
    trace.observe("dump", "x" * 3000)
    out = finished(trace, screen)
    assert f"showing {OBSERVE_CHARS:,} of 3,000 characters here" in out
    assert "the model read" not in out, "the trace cannot know what a later request sends"
    trace, screen = screen_trace()
    trace.observe("dump", "short")
    assert "showing" not in finished(trace, screen), "an uncut panel says nothing about it"


def test_retry_notes_reach_the_connected_trace_not_stderr(capsys):
    trace, screen = screen_trace()
    connect(model := Provider(), trace)
    model.notice("overloaded (529): retrying in 1 s, attempt 2 of 3")
    out = finished(trace, screen)
    assert "overloaded (529): retrying in 1 s, attempt 2 of 3" in out
    assert capsys.readouterr().err == ""
    Provider().notice("with no trace connected")  # nobody to show it: one line on stderr
    assert capsys.readouterr().err == "note: with no trace connected\n"


def test_two_sessions_in_one_process_hear_only_their_own_provider():
    first, second = screen_trace(), screen_trace()
    one = connect(ScriptedProvider([Reply("A.", [], "end_turn",
                                          {"input_tokens": 11, "output_tokens": 1})]), first[0])
    two = connect(ScriptedProvider([Reply("B.", [], "end_turn",
                                          {"input_tokens": 22, "output_tokens": 2})]), second[0])
    for (trace, _), model in ((first, one), (second, two)):
        trace.request("hi")
        trace.stream_answer(model.stream([{"role": "user", "content": "hi"}]))
    one.notice("a note for the first")
    out_one, out_two = finished(*first), finished(*second)
    assert "turn: 1 model call · 11 in / 1 out tokens" in out_one and "22 in" not in out_one
    assert "turn: 1 model call · 22 in / 2 out tokens" in out_two and "11 in" not in out_two
    assert "a note for the first" in out_one and "a note" not in out_two


def test_show_wire_prints_the_protocol_prompt_of_stage_04():
    from helpers import run_stage

    done = run_stage("04", "--show-wire", stdin="What time is it?\n", COLUMNS="250")
    assert done.returncode == 0, done.stderr
    assert "request · POST /v1/messages" in done.stdout
    assert "You have access to tools. To call a tool" in done.stdout, "the protocol prompt is sent"


def test_show_wire_openai_pairs_tool_call_ids_in_stage_07():
    from helpers import run_stage

    done = run_stage("07", "--show-wire", "openai", stdin="What time is it?\n",
                     COLUMNS="250")
    assert done.returncode == 0, done.stderr
    assert "request · POST /v1/chat/completions" in done.stdout
    second = done.stdout.split("iteration 2", 1)[1]
    assert '"tool_call_id": "offline_call_1"' in second, "the result names its call"
    assert '"id": "offline_call_1"' in second, "the assistant turn carries the call's id"


def test_without_show_wire_nothing_of_the_wire_is_printed():
    from helpers import run_stage

    done = run_stage("07", stdin="What time is it?\n", COLUMNS="250")
    assert "request · POST" not in done.stdout


@pytest.mark.sdk
def test_prompt_cache_counts_come_through_both_real_sdks_to_the_usage():
    from fake_api import FakeAPI, anthropic_stream, openai_stream

    from shared.providers.anthropic_provider import AnthropicProvider
    from shared.providers.openai_provider import OpenAIProvider

    claude = anthropic_stream(["Hi."])
    claude.events[0][1]["message"]["usage"].update(cache_read_input_tokens=1800,
                                                   cache_creation_input_tokens=0)
    gpt = openai_stream(["Hi."])
    name, last = next((n, d) for n, d in reversed(gpt.events)
                      if isinstance(d, dict) and d.get("usage"))
    last["usage"]["prompt_tokens_details"] = {"cached_tokens": 1024}
    for flavour, stream, cls, read in (("anthropic", claude, AnthropicProvider, 1800),
                                       ("openai", gpt, OpenAIProvider, 1024)):
        with FakeAPI(flavour) as api:
            api.queue(stream)
            reply = cls(api_key="sk-test-cache-0000", base_url=api.base_url).call(
                [{"role": "user", "content": "hi"}])
        assert reply.usage["cache_read_input_tokens"] == read, flavour
        assert "cache_creation_input_tokens" not in reply.usage, "a zero count is left out"


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_a_key_the_server_echoes_in_a_reply_is_never_shown_even_split_across_deltas(kind):
    from fake_api import FakeAPI, anthropic_stream, openai_stream

    from shared.providers.anthropic_provider import AnthropicProvider
    from shared.providers.openai_provider import OpenAIProvider

    key = "sk-test-echoed-0123456789"
    parts = ["Your key is sk-te", "st-echo", "ed-0123456789, and ", "again: " + key, "."]
    build = anthropic_stream if kind == "anthropic" else openai_stream
    with FakeAPI(kind) as api:
        api.queue(build(parts))
        cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
        trace, screen = screen_trace()
        model = connect(cls(api_key=key, base_url=api.base_url), trace)
        trace.request("what is my key?")
        answer = LOOP07.agent_step("what is my key?", [], model, "", trace, trace.stream_delta)
        trace.answer(answer)
    out = finished(trace, screen)
    assert key not in out and "0123456789" not in out, out
    assert out.count("[key hidden]") == 2 and "Your key is [key hidden], and again" in out


def test_held_back_text_is_shown_when_it_turns_out_not_to_be_a_secret():
    trace, screen = screen_trace()
    trace.secrets = ("sk-secret-abcdef",)
    for delta in ["price: sk-", "se", "ll it"]:  # starts like the secret, then is not
        trace.stream_delta(delta)
    trace.answer("price: sk-sell it")
    out = finished(trace, screen)
    assert "price: sk-sell it" in out and "[key hidden]" not in out


def test_a_reply_cut_off_inside_held_back_text_shows_what_was_held():
    trace, screen = screen_trace()
    trace.secrets = ("sk-secret-abcdef",)
    trace.stream_delta("it broke at sk-se")
    trace.error("the stream broke off")
    out = finished(trace, screen)
    assert "it broke at sk-se [cut off]" in out


def act_panel(out: str, call_id: str) -> str:
    """The body of the act panel of call `call_id`, its box characters stripped."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if "act ·" in line and call_id in line)
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("╰"))
    return "\n".join(line.strip("│ ") for line in lines[start + 1:end]) + "\n" + lines[end]


def test_broken_arguments_show_in_the_act_panel_as_the_model_sent_them():
    # from an API: tool_calls_from keeps the text it could not read
    (broken,) = tool_calls_from([{"id": "c1", "name": "wordcount", "json": '{"text": "to be'}])
    model = ScriptedProvider([Reply("", [broken], "tool_use"), "done"])
    trace, screen = screen_trace()
    model = connect(model, trace)
    LOOP07.agent_step("count", [], model, "", trace, trace.stream_delta)
    panel = act_panel(finished(trace, screen), "c1")
    assert '{"text": "to be' in panel and "the arguments as sent: not readable" in panel
    assert panel.splitlines()[0] != "{}", "the panel hid what the model sent"


def test_the_offline_broken_json_quirk_shows_the_half_it_sent():
    from shared.providers import OfflineProvider

    trace, screen = screen_trace()
    model = connect(OfflineProvider(quirk="broken_json"), trace)
    LOOP07.agent_step("how many words are in 'a b c d'?", [], model, "", trace,
                      trace.stream_delta)
    panel = act_panel(finished(trace, screen), "offline_call_1")
    assert panel.startswith('{"text":') and "not readable" in panel, panel
