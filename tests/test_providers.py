"""Provider selection, the offline model, the scripted double and the fallback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from helpers import clean_env

from shared.cli.repo import load_stage
from shared.providers import (
    FallbackProvider,
    OfflineProvider,
    ProviderError,
    Reply,
    ScriptedProvider,
    Tool,
    ToolCall,
    build_provider,
    choose_provider,
    get_provider,
)
from shared.providers.offline import QUIRKS

JSON_PROTOCOL = load_stage("06", "loop").build_agent_system()  # what stages 04-06 send
NOW = Tool("now", "Return the current UTC time.", {"type": "object", "properties": {}},
           lambda args: "t")
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: "3")


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
    code = ("import sys\nfrom shared.providers import get_provider\n"
            "p = get_provider()\nprint(''.join(p.stream([{'role': 'user', 'content': 'hi'}])))\n"
            "print(sorted(m for m in ('anthropic', 'openai') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(), timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[]"), "building the offline model imported an SDK"
    assert "offline" in done.stderr and "ANTHROPIC_API_KEY" in done.stderr
    assert done.stderr.count("model:") == 1


# ---------------------------------------------------------------- the offline model


def test_offline_json_protocol_time_question_takes_two_turns():
    model = OfflineProvider()
    messages = ask("What time is it?")
    first = "".join(model.stream(messages, JSON_PROTOCOL))
    assert json.loads(first) == {"tool": "now", "args": {}}
    messages += [{"role": "assistant", "content": first},
                 {"role": "user", "content": "<tool_result tool=now>\n2026-05-01T09:30\n"
                                             "</tool_result>"}]
    second = "".join(model.stream(messages, JSON_PROTOCOL))
    assert "2026-05-01T09:30" in second and not second.startswith("{")


def test_offline_picks_wordcount_with_the_quoted_text():
    reply = "".join(OfflineProvider().stream(
        ask("How many words are in 'the quick brown fox'?"), JSON_PROTOCOL))
    assert json.loads(reply) == {"tool": "wordcount", "args": {"text": "the quick brown fox"}}


def test_offline_answers_plainly_when_no_tool_fits_and_says_what_it_is():
    reply = "".join(OfflineProvider().stream(ask("Write me a poem"), JSON_PROTOCOL))
    assert not reply.lstrip().startswith("{")
    assert "offline model" in reply and "now" in reply and "wordcount" in reply


def test_offline_without_tools_never_emits_a_tool_call():
    reply = "".join(OfflineProvider().stream(ask("What time is it?"), "You are Tao."))
    assert "Tao" in reply and "{" not in reply


def test_offline_remembers_the_conversation():
    history = ask("my name is Ada") + [{"role": "assistant", "content": "ok"}] + ask("and?")
    assert "my name is Ada" in "".join(OfflineProvider().stream(history))


def test_offline_streams_in_small_deltas():
    deltas = list(OfflineProvider().stream(ask("hello there")))
    assert len(deltas) > 5 and max(len(d) for d in deltas) < 20


def test_offline_native_two_tool_question_calls_both_in_one_reply():
    model = OfflineProvider()
    messages = ask("What time is it, and how many words are in "
                   "'the quick brown fox jumps over the lazy dog'?")
    reply = model.call(messages, "", [NOW, WORDCOUNT])
    assert [(c.name, c.args) for c in reply.tool_calls] == [
        ("now", {}), ("wordcount", {"text": "the quick brown fox jumps over the lazy dog"})]
    assert reply.stop_reason == "tool_use"
    messages.append(reply.assistant_message())
    for call, result in zip(reply.tool_calls, ["2026-05-01T09:30", "9"], strict=True):
        messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                         "content": result})
    final = model.call(messages, "", [NOW, WORDCOUNT])
    assert final.tool_calls == [] and "2026-05-01T09:30" in final.text and "9" in final.text


@pytest.mark.parametrize(("quirk", "check"), [
    ("blank_lines", lambda r: r.startswith("\n\n{") and json.loads(r)),
    ("fenced", lambda r: r.startswith("```json\n")),
    ("prose", lambda r: not r.startswith("{") and r.rstrip().endswith("}")),
    ("broken_json", lambda r: r.startswith("{") and _not_json(r)),
    ("unknown_tool", lambda r: json.loads(r)["tool"] not in ("now", "wordcount")),
])
def test_offline_quirks_show_real_model_mistakes(quirk, check):
    reply = "".join(OfflineProvider(quirk=quirk).stream(ask("What time is it?"), JSON_PROTOCOL))
    assert check(reply), reply


def _not_json(text):
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def test_every_quirk_is_tested_and_a_bad_one_is_refused():
    assert set(QUIRKS) == {"blank_lines", "fenced", "prose", "broken_json", "unknown_tool"}
    with pytest.raises(ProviderError, match="unknown quirk"):
        OfflineProvider(quirk="sulky")


# ---------------------------------------------------------------- scripted and fallback


def test_scripted_replays_in_order_and_records_what_it_was_shown():
    model = ScriptedProvider(["first", Reply("", [ToolCall("c1", "now", {})], "tool_use")])
    messages = ask("hi")
    assert list(model.stream(messages, "sys")) == ["first"]
    messages.append({"role": "assistant", "content": "first"})
    reply = model.call(messages, "sys", [NOW])
    assert reply.tool_calls[0].name == "now"
    assert model.calls[0] == {"messages": ask("hi"), "system": "sys", "tools": []}
    assert model.calls[1]["tools"] == [NOW] and len(model.calls[1]["messages"]) == 2
    with pytest.raises(ProviderError, match="ran out of replies after turn 2"):
        model.call(messages)


class Broken(ScriptedProvider):
    """Says `before` word by word, then fails."""

    def __init__(self, before=""):
        super().__init__([])
        self.before = before

    def turn(self, messages, system, tools):
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
