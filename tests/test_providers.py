"""Provider selection, the scripted double and the fallback (the offline model has
test_offline_model.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import clean_env

from shared.providers import (
    FallbackProvider,
    OfflineProvider,
    Options,
    ProviderError,
    Reply,
    ScriptedProvider,
    Tool,
    ToolCall,
    build_provider,
    choose_provider,
    get_provider,
)

NOW = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
           lambda args: "t")


def ask(text):
    return [{"role": "user", "content": text}]


# ---------------------------------------------------------------- choosing a provider


@pytest.mark.parametrize(("flag", "env", "expected"), [
    (None, {}, "offline"),
    (None, {"ANTHROPIC_API_KEY": "a"}, "anthropic"),
    (None, {"OPENAI_API_KEY": "o"}, "openai"),
    (None, {"OPENAI_BASE_URL": "http://127.0.0.1:1234/v1"}, "openai"),
    (None, {"ANTHROPIC_API_KEY": "a", "OPENAI_API_KEY": "o"}, "anthropic"),
    (None, {"TAO_PROVIDER": "ollama", "ANTHROPIC_API_KEY": "a"}, "ollama"),
    ("offline", {"TAO_PROVIDER": "ollama", "ANTHROPIC_API_KEY": "a"}, "offline"),
])
def test_choice_order_is_flag_then_env_then_keys_then_offline(flag, env, expected):
    name, why = choose_provider(flag, env)
    assert name == expected and why


def test_unknown_provider_is_one_clear_line():
    with pytest.raises(ProviderError, match="unknown provider 'gpt': choose one of"):
        build_provider("gpt")


def test_chosen_sdk_provider_without_its_key_names_the_variable():
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        get_provider("anthropic")


def test_tao_model_sets_the_model(monkeypatch):
    monkeypatch.setenv("TAO_MODEL", "tiny-1")
    assert get_provider("offline").model == "tiny-1"


def test_offline_path_imports_neither_sdk_and_says_what_it_is():
    code = ("import sys\nfrom shared.stage_main import open_session, stage_parser\n"
            "with open_session(stage_parser('').parse_args([])) as (p, trace):\n"
            "    print(''.join(p.stream([{'role': 'user', 'content': 'hi'}])))\n"
            "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[]"), "building the offline model imported an SDK"
    assert "offline" in done.stderr and "ANTHROPIC_API_KEY" in done.stderr
    assert done.stderr.count("model:") == 1


# ---------------------------------------------------------------- scripted and fallback


def test_scripted_replays_in_order_and_records_what_it_was_shown():
    model = ScriptedProvider(["first", Reply("", [ToolCall("c1", "now", {})], "tool_use")])
    messages = ask("hi")
    assert list(model.stream(messages, "sys")) == ["first"]
    messages.append({"role": "assistant", "content": "first"})
    reply = model.call(messages, "sys", [NOW])
    assert reply.tool_calls[0].name == "now"
    assert model.calls[0] == {"messages": ask("hi"), "system": "sys", "tools": [],
                              "options": Options()}
    assert model.calls[1]["tools"] == [NOW] and len(model.calls[1]["messages"]) == 2
    with pytest.raises(ProviderError, match="ran out of replies after turn 2"):
        model.call(messages)


class Broken(ScriptedProvider):
    """Says `before` word by word, then fails."""

    def __init__(self, before=""):
        super().__init__([])
        self.before = before

    def turn(self, messages, system, tools, options=None):
        self.calls.append(messages)
        yield from self.before.split()
        raise ProviderError("broken: connection lost")


def test_fallback_moves_on_only_before_the_first_delta():
    backup = ScriptedProvider(["from backup", "again"])
    model = FallbackProvider([Broken(), backup])
    assert "".join(model.stream(ask("hi"))) == "from backup"
    seen = []
    assert model.call(ask("hi"), on_text_delta=seen.append).text == "again"
    assert "".join(seen) == "again"


def test_fallback_never_duplicates_output_after_a_delta():
    backup = ScriptedProvider(["never used"])
    model = FallbackProvider([Broken("half an answer"), backup])
    seen = []
    with pytest.raises(ProviderError, match="connection lost"):
        for delta in model.stream(ask("hi")):
            seen.append(delta)
    assert seen == ["half", "an", "answer"] and backup.calls == []
    with pytest.raises(ProviderError):
        model.call(ask("hi"), on_text_delta=seen.append)
    assert backup.calls == []


def test_fallback_reports_every_failure_when_all_fail():
    with pytest.raises(ProviderError, match="every provider failed: .*lost.*lost"):
        FallbackProvider([Broken(), Broken()]).call(ask("hi"))


def test_offline_model_calls_no_tool_when_told_none_and_only_the_named_one():
    now = Tool("now", "Return the current time.", {"type": "object", "properties": {}},
               lambda args: "12:00")
    words = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: "2")
    model = OfflineProvider()
    question = [{"role": "user", "content": "What time is it now?"}]
    assert [c.name for c in model.call(question, "", (now, words)).tool_calls] == ["now"]
    assert model.call(question, "", (now, words), tool_choice="none").tool_calls == []
    named = model.call(question, "", (now, words), tool_choice="wordcount")
    assert all(c.name == "wordcount" for c in named.tool_calls)


def test_offline_model_ends_its_reply_before_a_stop_sequence():
    model = OfflineProvider()
    question = [{"role": "user", "content": "hello"}]
    whole = model.call(question).text
    word = whole.split()[2]
    reply = model.call(question, stop=[word])
    assert reply.text == whole[:whole.index(word)]
    assert reply.stop_reason == "stop_sequence"
    assert "".join(model.stream(question, stop=word)) == reply.text


def test_a_script_entry_with_usage_that_is_not_numbers_gives_whole_numbers(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps([{"text": "ok", "usage": {
        "input_tokens": "12", "output_tokens": None, "cache_read_input_tokens": [3],
        "estimated": 1}}]), encoding="utf-8")
    reply = ScriptedProvider.from_file(str(path)).call([{"role": "user", "content": "hi"}])
    assert reply.usage == {"input_tokens": 12, "estimated": True}
