"""The stages against llama-cpp-python's own server, through the real OpenAI SDK provider:
a multi-turn chat, a native tool round trip forced with tool_choice, `--show-wire`, the
turn line's tokens, and the refusal that started issue 20."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from fake_api.rules import FLAVOURS, first_problem
from helpers import ROOT, clean_env, load_stage, run_stage_process
from servers import STAGE_SECONDS, needs_the_extra

from shared.providers import Options, Provider, ProviderError
from shared.providers.openai_provider import OpenAIProvider, to_openai

needs_the_extra()
pytestmark = [pytest.mark.sdk, pytest.mark.timeout(400)]  # one worker: one server
MODEL = "smollm2"  # llama-cpp-python's server answers with its one model, whatever the name


def stage(number: str, server, *args, stdin: str):
    """Run a stage as a learner would, with --provider openai pointed at `server`."""
    done = run_stage_process(number, "--provider", "openai", *args, stdin=stdin,
                             timeout=STAGE_SECONDS, OPENAI_BASE_URL=server.base_url,
                             TAO_MODEL=MODEL)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout


def bodies(out: str) -> list[dict]:
    """The request bodies `--show-wire` printed (each a JSON object after its title)."""
    found = []
    for part in out.split("request · POST ")[1:]:
        text = part[part.index("{"):]
        depth = 0
        for end, char in enumerate(text):  # the body's closing brace ends it
            depth += {"{": 1, "}": -1}.get(char, 0)
            if depth == 0:
                found.append(json.loads(text[:end + 1].replace("\n", " ")))
                break
    return found


def test_a_multi_turn_chat_with_show_wire(llama_cpp_python):
    out = stage("02", llama_cpp_python, "--show-wire",
                stdin="My name is Ada.\nSay my name.\n\n")
    assert out.count(f"request · POST {llama_cpp_python.base_url}/chat/completions") == 2
    first, second = bodies(out)
    assert [m["role"] for m in first["messages"]][-1] == "user"
    # the second turn carries the whole history, the model's first answer included
    roles = [m["role"] for m in second["messages"]]
    assert roles[-3:] == ["user", "assistant", "user"]
    assert second["messages"][-3]["content"] == "My name is Ada."
    assert second["messages"][-2]["content"].strip()  # what the model really said
    assert re.search(r"chunk ×\d+ delta\.content", out)  # the real events, folded
    # llama-cpp-python streams no usage: each turn line says so instead of going quiet
    turns = [line for line in out.splitlines() if line.startswith("turn: ")]
    assert len(turns) == 2 and all("tokens not reported by the server" in t for t in turns)


class ForcedFirst(Provider):
    """The real provider, with the first call of a turn forced to one tool (tool_choice):
    so that even a 135M model calls. Each request body is kept."""

    def __init__(self, inner: OpenAIProvider, tool: str):
        self.inner, self.tool, self.bodies = inner, tool, []
        self.name, self.model = inner.name, inner.model

    def call(self, messages, system="", tools=(), on_text_delta=None, on_reasoning_delta=None,
             **options):
        if not self.bodies:
            options["tool_choice"] = self.tool
        self.bodies.append(self.inner.with_options(self.inner.request(messages, system, tools),
                                                   Options(**options)))
        return self.inner.call(messages, system, tools, on_text_delta, on_reasoning_delta,
                               **options)


def test_a_native_tool_round_trip_forced_with_tool_choice(llama_cpp_python):
    loop = load_stage("07", "loop")
    provider = ForcedFirst(OpenAIProvider(MODEL, base_url=llama_cpp_python.base_url,
                                          max_tokens=48), "wordcount")
    answer = loop.agent_step('How many words are in "the quick brown fox"?', [], provider,
                             loop.build_agent_system())
    first, second = provider.bodies[:2]
    assert first["tool_choice"] == {"type": "function", "function": {"name": "wordcount"}}
    assistant = next(m for m in second["messages"] if m.get("tool_calls"))
    assert assistant["content"] == ""  # the shape every server takes; null got a 500 here
    call = assistant["tool_calls"][0]
    assert call["function"]["name"] == "wordcount"
    assert isinstance(json.loads(call["function"]["arguments"]), dict)
    result = next(m for m in second["messages"] if m["role"] == "tool")
    assert result["tool_call_id"] == call["id"]
    # the stage's own tool ran on what the model chose: a count, or the error it read
    assert result["content"].isdigit() or result["content"].startswith("Error:")
    assert isinstance(answer, str) and not answer.startswith("Stopped")


def test_the_server_refuses_null_content_as_the_fakes_flavour_says(llama_cpp_python):
    history = [{"role": "user", "content": "What time is it?"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "call_1", "name": "now", "args": {}}]},
               {"role": "tool", "tool_call_id": "call_1", "name": "now", "content": "noon"}]
    body = {"model": MODEL, "max_tokens": 8, "messages": to_openai(history)}
    status, _ = llama_cpp_python.post(body)
    assert status == 200  # what tao sends now
    old = json.loads(json.dumps(body))
    old["messages"][1]["content"] = None  # what tao used to send
    status, answer = llama_cpp_python.post(old)
    said = answer["error"]["message"]
    rules, fake_status = FLAVOURS["llama-cpp-python"]
    assert status == fake_status == 500
    assert "Input should be a valid string" in said and "'content')" in said
    assert "Input should be a valid string" in first_problem(rules, old, {})


class OldShape(OpenAIProvider):
    """The OpenAI provider as it was before issue 20: tool-call turns with null content."""

    def request(self, messages, system="", tools=()):
        params = super().request(messages, system, tools)
        for m in params["messages"]:
            if m.get("tool_calls") and not m["content"]:
                m["content"] = None
        return params


def test_a_refused_request_is_sent_once_with_one_line_naming_the_field(llama_cpp_python):
    history = [{"role": "user", "content": "What time is it?"},
               {"role": "assistant", "content": "", "tool_calls": [
                   {"id": "call_1", "name": "now", "args": {}}]},
               {"role": "tool", "tool_call_id": "call_1", "name": "now", "content": "noon"}]
    before = llama_cpp_python.posts()
    with pytest.raises(ProviderError) as info:
        OldShape(MODEL, base_url=llama_cpp_python.base_url, max_tokens=8).call(history)
    assert llama_cpp_python.posts() - before == 1  # not three times
    message = str(info.value)
    assert "\n" not in message and "(500)" in message
    assert "messages[1].content: Input should be a valid string" in message


def test_stage_07_shows_its_tools_on_the_wire_and_says_tokens_were_not_reported(
        llama_cpp_python):
    out = stage("07", llama_cpp_python, "--show-wire", stdin="Hello!\n\n")
    (body,) = bodies(out)
    assert [t["function"]["name"] for t in body["tools"]] == ["now", "wordcount",
                                                              "calculator"]
    assert "finish_reason" in out and "chunk" in out
    turn = next(line for line in out.splitlines() if line.startswith("turn: "))
    assert "tokens not reported by the server" in turn


@pytest.mark.timeout(1500)
def test_the_injection_drill_through_the_server_stops_everything_it_tries(llama_cpp_python):
    # the model runs as it is: SmolLM2-135M may call no tool at all (its recording, in
    # tests/recordings/drill_smollm2/, is the ordinary suite's copy of one such run)
    done = subprocess.run([sys.executable, "-m", "tao", "drill", "--provider", "openai",
                           "--json"], capture_output=True, text=True, cwd=ROOT, timeout=1400,
                          env=clean_env(OPENAI_BASE_URL=llama_cpp_python.base_url,
                                        TAO_MODEL=MODEL))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    results = json.loads(done.stdout)["attacks"]
    assert len(results) == 6 and not [r for r in results if r["canaries_seen_in"]]
    assert "not stopped" not in {r["stopped_by"] for r in results}
