# Don't change the tests! They tell you when exercises/e07_malformed_args.py is done.
import pytest
from exercise_support import need
from fake_api import FakeAPI, anthropic_stream, openai_stream

from shared.cli.repo import load_stage
from shared.providers import anthropic_provider, base, openai_provider


@pytest.mark.parametrize(("raw", "args"), [
    ('{"text": "hi"}', {"text": "hi"}), ("", {}), ("  ", {}), ('{"n": [1, {"x": null}]}',
                                                                {"n": [1, {"x": None}]}),
])
def test_good_arguments_parse_with_no_note(ex, raw, args):
    assert need(ex, "parse_arguments", "raw")(raw) == (args, "")


@pytest.mark.parametrize("raw", ['{"text": "hi', "{'text': 'hi'}", "[1, 2]", '"text"',
                                 "{" * 5000, "not json at all"])
def test_broken_arguments_become_empty_args_and_a_note(ex, raw):
    args, note = need(ex, "parse_arguments", "raw")(raw)
    assert args == {}, f"broken arguments {raw[:30]!r} should give args == {{}}, got {args!r}"
    assert note and raw[:10] in note, (
        f"the note should say what went wrong and quote the start of the raw text; got {note!r}")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_both_providers_use_it_and_the_loop_feeds_the_note_back(ex, kind, monkeypatch):
    parse = need(ex, "parse_arguments", "raw")
    module = anthropic_provider if kind == "anthropic" else openai_provider
    monkeypatch.setattr(base, "parse_args", parse)  # your function, inside both providers
    make = anthropic_stream if kind == "anthropic" else openai_stream
    cls = module.AnthropicProvider if kind == "anthropic" else module.OpenAIProvider
    with FakeAPI(kind) as api:
        api.queue(make([], tools=[("call_1", "wordcount", ['{"text": ', '"unfinished'])]),
                  make(["Sorry, fixed."]))
        provider = cls(api_key="test-key-123456789", base_url=api.base_url)
        loop = load_stage("07", "loop")
        answer = loop.agent_step("count", [], provider, "")
    assert answer == "Sorry, fixed." and api.violations == []
    fed_back = str(api.requests[1]["messages"])
    assert "Error: " in fed_back and "unfinished" in fed_back, (
        "the second request should carry the note back to the model as an Error observation")
