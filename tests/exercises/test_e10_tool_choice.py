# Don't change the tests! They tell you when exercises/e10_tool_choice.py is done.
import pytest
from exercise_support import need
from fake_api import FakeAPI, anthropic_stream, openai_stream

from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider

EXPECTED = {
    ("anthropic", "auto"): {"type": "auto"},
    ("anthropic", "any"): {"type": "any"},
    ("anthropic", "now"): {"type": "tool", "name": "now"},
    ("openai", "auto"): "auto",
    ("openai", "any"): "required",
    ("openai", "now"): {"type": "function", "function": {"name": "now"}},
}


@pytest.mark.parametrize(("kind", "choice"), list(EXPECTED))
def test_each_choice_in_each_providers_shape(ex, kind, choice):
    got = need(ex, "tool_choice", "kind", "choice")(kind, choice)
    assert got == EXPECTED[kind, choice], (
        f"{kind} spells {choice!r} as {EXPECTED[kind, choice]!r}, got {got!r}")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_force_now_sends_a_request_the_api_accepts(ex, kind):
    make = anthropic_stream if kind == "anthropic" else openai_stream
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    with FakeAPI(kind) as api:
        api.queue(make([], tools=[("call_1", "now", ["{}"])]))
        provider = cls(api_key="test-key-123456789", base_url=api.base_url)
        reply = need(ex, "force_now", "provider", "messages")(
            provider, [{"role": "user", "content": "hello"}])
    assert api.violations == [], f"the API refused the request: {api.violations}"
    assert api.requests[0].get("tool_choice") == EXPECTED[kind, "now"], (
        "the request should carry tool_choice forcing `now`")
    assert [c.name for c in reply.tool_calls] == ["now"]
    assert "request" not in vars(provider), "leave the provider as you found it"
