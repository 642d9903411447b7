"""`--provider local`: the real SmolLM2-135M in the test process (or a stage's), through
llama.cpp. Its counts against llama-cpp-python's own, the stages as a learner runs them,
grammars obeyed, and tool_choice forcing a call even from a model this small."""

from __future__ import annotations

import json
import re

import pytest
from helpers import load_stage, run_stage_process
from servers import STAGE_SECONDS, needs_the_extra

from shared.providers import Options, ProviderError, build_provider
from shared.providers.local import tool_grammar

needs_the_extra()
pytestmark = [pytest.mark.sdk, pytest.mark.timeout(400)]  # one worker: one model in memory
TOOLS06 = load_stage("06", "tools").TOOLS
LOOP06 = load_stage("06", "loop")
QUESTIONS = ['How many words are in "the quick brown fox"?', "What time is it?",
             "What is 12 * (3 + 4)?", "Hello, who are you?"]


@pytest.fixture(scope="module")
def local():
    """One local provider for the module: the model loads once."""
    return build_provider("local", max_tokens=48)


@pytest.fixture
def constrained(local):
    """The same provider with a grammar set for one test (`grammar` is public)."""
    def use(grammar: str):
        local.grammar, local.max_tokens = grammar, 96  # room for a whole call
        return local

    yield use
    local.grammar, local.max_tokens = None, 48


def ask(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def test_the_counts_are_llama_cpps_own(local):
    events = []
    local.on_wire_event = lambda kind, data: events.append((kind, data))
    try:
        reply = local.call(ask("Name a colour."), "Answer in one word.", max_tokens=12)
    finally:
        del local.on_wire_event
    prompt = next(data for kind, data in events if kind == "prompt")
    # the oracle: llama-cpp-python counting the same prompt, not streamed (it counts then)
    # private on purpose: llama.cpp's tokenizer is the oracle
    llm = local._llm
    tokens = llm.tokenize(prompt["text"].encode(), add_bos=False, special=True)
    assert reply.usage["input_tokens"] == prompt["tokens"] == len(tokens)
    pieces = [d["choices"][0]["text"] for kind, d in events if kind == "chunk"]
    assert "".join(pieces) == reply.text  # every streamed piece, and nothing else
    again = llm.tokenize(reply.text.encode(), add_bos=False, special=True)
    assert reply.usage["output_tokens"] == len(again) or reply.stop_reason == "max_tokens"
    assert 0 < reply.usage["output_tokens"] <= 12 and "estimated" not in reply.usage


def test_tool_choice_none_leaves_the_tools_out_of_the_prompt(local):
    """The wrap-up of stages 09 and 10 asks with tool_choice="none": the model must not be
    told of tools it may not call (the prompt is what llama.cpp really reads)."""
    tool = TOOLS06["wordcount"]
    prompts = []
    local.on_wire_event = lambda kind, data: prompts.append(data["text"]) if kind == "prompt" \
        else None
    try:
        from shared.providers import Tool

        tools = (Tool("wordcount", "Count the words in a text.", {
            "type": "object", "properties": {"text": {"type": "string"}},
            "required": ["text"]}, lambda args: tool(**args)),)
        local.call(ask("Say hi."), "Be brief.", tools=tools, tool_choice="none", max_tokens=4)
        local.call(ask("Say hi."), "Be brief.", tools=tools, max_tokens=4)
    finally:
        del local.on_wire_event
    without, with_tools = prompts
    assert "Count the words in a text." not in without
    assert "Count the words in a text." in with_tools  # the check sees a described tool


def test_stage_02_chats_for_two_turns_with_real_token_counts():
    done = run_stage_process("02", "--provider", "local", "--show-wire",
                             stdin="Hi, I am Ada.\nWhat is my name?\n\n",  # short replies
                             timeout=STAGE_SECONDS)
    out = done.stdout
    assert done.returncode == 0, out[-2000:] + done.stderr[-2000:]
    assert "model: local (SmolLM2-135M-Instruct.Q4_1.gguf" in done.stderr
    assert out.count("request · local model, in this process") == 2
    prompts = re.findall(r"^prompt (\d+) tokens (.*)$", out, re.MULTILINE)
    assert len(prompts) == 2 and prompts[0][1].startswith('"<|im_start|>')
    second = out[out.rindex("\nprompt "):]
    second = second[:second.index("\nchunk")]
    # the history went into the second prompt: the first question, in the template's frame
    assert re.search(r"<\|im_start\|>user\\nHi,\s+I\s+am\s+Ada\.<\|im_end\|>", second)
    assert int(prompts[1][0]) > int(prompts[0][0])
    turns = [line for line in out.splitlines() if line.startswith("turn: ")]
    assert len(turns) == 2
    for turn, (fed, _) in zip(turns, prompts, strict=True):
        counted = re.search(r"(\d+) in / (\d+) out tokens", turn)
        assert counted and int(counted.group(1)) == int(fed) and int(counted.group(2)) > 0
        assert "estimated" not in turn and "not reported" not in turn


def test_with_the_registry_grammar_every_reply_is_a_call_that_parses(constrained):
    model = constrained(tool_grammar(TOOLS06, text=False))
    system = LOOP06.build_agent_system()
    for question in QUESTIONS[:3]:
        reply = "".join(model.stream(ask(question), system))
        # private on purpose: the course's own name for the parser
        call = LOOP06._parse_tool_call(reply)
        # well formed, a tool that exists: what the grammar buys (not a sensible call)
        assert call is not None, reply
        assert call["tool"] in TOOLS06 and isinstance(call["args"], dict)


def test_with_text_allowed_a_reply_that_opens_a_call_always_parses(constrained):
    model = constrained(tool_grammar(TOOLS06))
    system = LOOP06.build_agent_system()
    for question in QUESTIONS[1:3]:  # SmolLM2 answers these in prose, briefly
        reply = "".join(model.stream(ask(question), system))
        assert reply and not reply[0].isspace()
        assert not reply.startswith("{") or LOOP06._parse_tool_call(reply) is not None


@pytest.mark.parametrize("choice", ["required", "wordcount", "calculator"])
def test_tool_choice_forces_a_native_call(local, choice):
    tools = load_stage("07", "tools").TOOLS
    reply = local.call(ask(QUESTIONS[0]), "You are helpful.", tools, tool_choice=choice)
    assert reply.text == "" and reply.stop_reason == "tool_use" and len(reply.tool_calls) == 1
    call = reply.tool_calls[0]
    assert call.name in {t.name for t in tools} and not call.error
    if choice != "required":
        assert call.name == choice
    required = next(t for t in tools if t.name == call.name).schema.get("required", [])
    assert all(key in call.args for key in required)  # the schema's names, enforced


def test_a_native_round_trip_through_stage_07s_loop(local):
    loop = load_stage("07", "loop")

    class ForcedFirst:
        """The local model, its first call forced to wordcount."""

        def __init__(self):
            self.calls = 0

        def call(self, messages, system="", tools=(), on_text_delta=None, **options):
            self.calls += 1
            if self.calls == 1:
                options["tool_choice"] = "wordcount"
            return local.call(messages, system, tools, on_text_delta, **options)

    model = ForcedFirst()
    answer = loop.agent_step(QUESTIONS[0], [], model, loop.build_agent_system())
    assert model.calls >= 2 and isinstance(answer, str)


def test_tool_choice_none_sends_no_grammar_and_says_none(local):
    tools = load_stage("07", "tools").TOOLS
    params = local.with_options(local.request(ask("hi"), "", tools),
                                Options(tool_choice="none"))
    assert "grammar" not in params and params["tool_choice"] == "none"
    reply = local.call(ask("Say hi."), "", tools, tool_choice="none")
    assert reply.tool_calls == []


def test_a_grammar_llama_cpp_cannot_parse_is_one_line(constrained):
    with pytest.raises(ProviderError) as info:
        constrained("root ::= [unclosed").call(ask("hi"))
    assert "could not parse the grammar" in str(info.value) and "\n" not in str(info.value)


def test_the_request_on_the_wire_is_what_llama_cpp_got():
    done = run_stage_process("06", "--provider", "local", "--show-wire",
                             stdin="What time is it?\n\n", timeout=STAGE_SECONDS)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    body = out[out.index("{", out.index("request · local model")):]
    body = json.loads(body[:body.index("\n}") + 2].replace("\n", " "))
    assert body["model"] == "SmolLM2-135M-Instruct.Q4_1.gguf" and body["stream"] is True
    assert body["messages"][0]["role"] == "system" and "now" in body["messages"][0]["content"]
    assert re.search(r"^chunk( ×\d+)? text ", out, re.MULTILINE)
    assert "usage input_tokens" in out


def test_tao_compare_constrained_is_stage_06_under_the_grammar(tmp_path):
    """`tao compare --protocols constrained` on the real model: stage 06's loop, the reply
    held to the registry's grammar, so whatever the model does, no call it writes is
    malformed (a wrong tool or wrong arguments are still its own)."""
    from helpers import run_tao

    tasks = tmp_path / "tasks.toml"
    tasks.write_text('[[task]]\nid = "multiply"\nkind = "one_call"\n'
                     'prompt = "Use the calculator: what is 17 * 23?"\n'
                     'tools = ["calculator"]\nanswer = ["391"]\n'
                     '[[task]]\nid = "hello"\nkind = "no_tool"\nprompt = "Hello!"\n')
    out = run_tao("compare", "--provider", "local", "--protocols", "constrained",
                  "--tasks", str(tasks), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    summary = data["summary"]["constrained"]
    assert summary["runs"] == 2 and summary["iterations"] >= 2
    # llama.cpp took the grammar built from compare's registry (one it cannot parse is a
    # provider error on every call), and the model answered under it
    assert "provider" not in summary["errors"] and all(r["answer"] for r in data["results"])
    assert summary["well_formed"] == summary["calls"]
    assert not {"near_miss", "call_as_answer"} & set(summary["errors"]), summary["errors"]
