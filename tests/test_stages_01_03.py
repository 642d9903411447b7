"""Stages 01-03 run as a learner runs them: main.py, lines on stdin, output read back
(in this process, dressed as a fresh one: see helpers.run_stage)."""

from __future__ import annotations

import io
import json

import pytest
from helpers import load_stage, run_stage

from shared.providers import ProviderError, ScriptedProvider
from shared.trace import Trace, make_console


def test_stage01_sends_one_question_and_prints_the_answer(tmp_path):
    done = run_stage("01", "What", "is", "2+2?", script=["Four."], tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "you> What is 2+2?" in done.stdout and "tao  Four." in done.stdout


def test_stage01_reads_the_question_from_stdin_when_none_is_given(tmp_path):
    done = run_stage("01", stdin="héllo wörld ✓\n", script=["ok ✓"], tmp_path=tmp_path)
    assert "you> héllo wörld ✓" in done.stdout and "tao  ok ✓" in done.stdout


def test_stage01_with_a_missing_key_is_one_line_not_a_traceback():
    done = run_stage("01", "--provider", "anthropic", "hi")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith("error: anthropic: ANTHROPIC_API_KEY")
    assert "Traceback" not in done.stderr


def test_stage01_help_helps():
    done = run_stage("01", "--help")
    assert done.returncode == 0 and "--provider" in done.stdout and "one request" in done.stdout


@pytest.mark.parametrize("number", ["02", "03"])
def test_chat_keeps_history_and_ends_on_an_empty_line(number):
    done = run_stage(number, stdin="my name is Ada\nwhat is my name?\n\nnever read\n",
                     COLUMNS="250")  # a streamed answer wraps at the screen's edge too
    assert done.returncode == 0, done.stderr
    assert 'Earlier you said "my name is Ada"' in done.stdout
    assert "never read" not in done.stdout


@pytest.mark.parametrize("number", ["02", "03"])
def test_chat_ends_cleanly_on_ctrl_d(number, tmp_path):
    done = run_stage(number, stdin="hello", script=["hi back"], tmp_path=tmp_path)
    assert done.returncode == 0 and "tao  hi back" in done.stdout


def test_chat_takes_a_very_long_line_and_non_ascii(tmp_path):
    long_line = "ü" * 100_000
    done = run_stage("02", stdin=f"{long_line}\n日本語\n", script=["a", "b"],
                     tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    shown = done.stdout.replace("\n", "")  # the echo wraps at the terminal width
    assert long_line in shown and "tao  a" in done.stdout and "日本語" in done.stdout


def test_stage03_sends_the_system_prompt_the_offline_model_reads_it():
    done = run_stage("03", stdin="who are you?\n")
    assert "I'm Tao" in done.stdout


# in-process: what each request contained


def scripted_chat(number, lines, replies, monkeypatch):
    """Run a stage's chat() in-process on `lines`; return (provider, what was shown)."""
    stage = load_stage(number)
    feed = iter(lines)

    def fake_input(prompt=""):
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None  # the keyboard's Ctrl-D

    monkeypatch.setattr("builtins.input", fake_input)
    provider = replies if isinstance(replies, ScriptedProvider) else ScriptedProvider(replies)
    trace = Trace(make_console(file=io.StringIO(), width=80))
    args = (provider, trace) if number == "02" else (provider, trace, "SYSTEM")
    stage.chat(*args)
    return provider, trace.console.file.getvalue()


class InterruptedOnce(ScriptedProvider):
    """The first reply gets one delta out, then the learner presses Ctrl-C."""

    def turn(self, messages, system, tools, options=None):
        if not self.calls:
            self.calls.append({"messages": list(messages)})
            yield "half"
            raise KeyboardInterrupt
        self.replies.insert(0, "unused")  # keep ScriptedProvider's turn count aligned
        yield from super().turn(messages, system, tools)


def test_ctrl_c_during_a_reply_cancels_it_and_keeps_history(monkeypatch):
    provider, out = scripted_chat("02", ["first", "second"], InterruptedOnce(["answer"]),
                                  monkeypatch)
    assert provider.calls[1]["messages"] == [{"role": "user", "content": "second"}]
    assert "reply cancelled" in out and "tao  answer" in out


def test_each_turn_sends_the_whole_history(monkeypatch):
    provider, _ = scripted_chat("02", ["one", "two"], ["A", "B"], monkeypatch)
    assert provider.calls[1]["messages"] == [
        {"role": "user", "content": "one"}, {"role": "assistant", "content": "A"},
        {"role": "user", "content": "two"}]


def test_stage03_system_prompt_goes_beside_the_history_not_in_it(monkeypatch):
    provider, _ = scripted_chat("03", ["hi"], ["hello"], monkeypatch)
    assert provider.calls[0]["system"] == "SYSTEM"
    assert provider.calls[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_a_provider_error_mid_chat_is_shown_and_the_chat_goes_on(monkeypatch):
    failing = ProviderError("openai: the stream broke off mid-reply: boom")
    provider, out = scripted_chat("02", ["one", "two"], [failing, "fine"], monkeypatch)
    assert "error  openai: the stream broke off" in out and "tao  fine" in out
    assert provider.calls[1]["messages"] == [{"role": "user", "content": "two"}]


def test_context_builds_persona_then_instructions():
    context = load_stage("03", "context")
    prompt = context.build_context()
    assert prompt.startswith(context.PERSONA) and prompt.endswith(context.INSTRUCTIONS)


# a turn that fails with ProviderError: the history stays as it was, the chat goes on

FAULT = {"error": "openai: the stream broke off mid-reply", "partial": "Hel"}


def scripted_from_json(entries, tmp_path):
    """A ScriptedProvider read from a TAO_SCRIPT file, as a stage's process reads it."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return ScriptedProvider.from_file(str(path))


def test_stage02_a_stream_that_breaks_off_leaves_no_trace_in_the_history(monkeypatch,
                                                                         tmp_path):
    provider = scripted_from_json(["A", FAULT, "fine"], tmp_path)
    provider, out = scripted_chat("02", ["one", "two", "three"], provider, monkeypatch)
    # the failed turn ("two") is absent from the next request: as if never sent
    assert provider.calls[2]["messages"] == [
        {"role": "user", "content": "one"}, {"role": "assistant", "content": "A"},
        {"role": "user", "content": "three"}]
    lines = out.splitlines()
    assert "tao  Hel [cut off]" in lines, "the streamed text must stay, marked as cut off"
    assert "error  openai: the stream broke off mid-reply" in lines
    assert "tao  fine" in lines


def test_stage02_end_to_end_a_fault_is_one_line_and_the_chat_goes_on(tmp_path):
    done = run_stage("02", stdin="one\ntwo\n", script=[FAULT, "fine"], tmp_path=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "tao  Hel [cut off]" in done.stdout and "tao  fine" in done.stdout
