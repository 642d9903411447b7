# Don't change the tests! They tell you when exercises/e10_tool_choice.py is done.
import pytest
import sdk_standin
from exercise_support import need

from shared.providers import ProviderError
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from tao.repo import load_stage

EXPECTED = {
    ("anthropic", "auto"): {"type": "auto"},
    ("anthropic", "any"): {"type": "any"},
    ("anthropic", "none"): {"type": "none"},
    ("anthropic", "now"): {"type": "tool", "name": "now"},
    ("anthropic", "wordcount"): {"type": "tool", "name": "wordcount"},
    ("openai", "auto"): "auto",
    ("openai", "any"): "required",
    ("openai", "none"): "none",
    ("openai", "now"): {"type": "function", "function": {"name": "now"}},
    ("openai", "wordcount"): {"type": "function", "function": {"name": "wordcount"}},
    ("anthropic", "WebSearch"): {"type": "tool", "name": "WebSearch"},  # names are exact
    ("openai", "WebSearch"): {"type": "function", "function": {"name": "WebSearch"}},
}
CLASSES = {"anthropic": AnthropicProvider, "openai": OpenAIProvider}
STREAMS = {"anthropic": sdk_standin.anthropic_events, "openai": sdk_standin.openai_chunks}
TOOLS = load_stage("07", "tools").TOOLS


def hello():
    return [{"role": "user", "content": "hello"}]


@pytest.mark.parametrize(("kind", "choice"), list(EXPECTED))
def test_each_choice_in_each_providers_shape(ex, kind, choice):
    got = need(ex, "tool_choice", "kind", "choice")(kind, choice)
    assert got == EXPECTED[kind, choice], (
        f"{kind} spells {choice!r} as {EXPECTED[kind, choice]!r}, got {got!r}")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_force_now_sends_a_request_the_api_accepts(ex, kind):
    provider = sdk_standin.provider(CLASSES[kind], kind,
                                    STREAMS[kind]([], tools=[("call_1", "now", ["{}"])]))
    bystander = sdk_standin.provider(CLASSES[kind], kind)
    during = []  # what another provider of the same class would send, mid-turn
    # private on purpose: the stand-in SDK client keeps every request it was sent
    client = provider._client
    client.on_request = lambda params: during.append(bystander.request(hello(), "", TOOLS))
    reply = need(ex, "force_now", "provider", "messages")(provider, hello())
    assert client.violations == [], f"the API would refuse the request: {client.violations}"
    assert client.requests[0].get("tool_choice") == EXPECTED[kind, "now"], (
        "the request should carry tool_choice forcing `now`")
    assert [c.name for c in reply.tool_calls] == ["now"]
    assert "tool_choice" not in during[0], (
        "another provider of the same class got tool_choice too: change this one object "
        "(provider.request = ...), not its class")
    assert "request" not in vars(provider), "leave the provider as you found it"
    assert "tool_choice" not in provider.request(hello(), "", TOOLS), (
        "after force_now the provider's requests are as before")


def test_force_now_on_an_openai_compatible_server_sends_openais_shape(ex):
    provider = sdk_standin.provider(OpenAIProvider, "openai",
                                    sdk_standin.openai_chunks([], tools=[("c1", "now", ["{}"])]))
    provider.name = "ollama"  # what shared.providers.openai_provider.ollama() builds
    need(ex, "force_now", "provider", "messages")(provider, hello())
    sent = provider._client.requests[0].get("tool_choice")
    assert sent == EXPECTED["openai", "now"], (
        "Ollama, vLLM, a local server: any OpenAIProvider speaks OpenAI's Chat Completions, "
        f"whatever its name; it should be sent {EXPECTED['openai', 'now']}, not {sent}")


@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_force_now_leaves_the_provider_as_it_was_when_the_turn_fails(ex, kind):
    provider = sdk_standin.provider(CLASSES[kind], kind)  # no reply queued: the call fails
    with pytest.raises(ProviderError):  # a provider's failure is the caller's to see
        need(ex, "force_now", "provider", "messages")(provider, hello())
    assert provider._client.requests, "the turn should have sent its request"
    assert "request" not in vars(provider) and "tool_choice" not in provider.request(
        hello(), "", TOOLS), (
        "the turn failed, and the provider kept the forced tool_choice: restore it whatever "
        "happens (try: ... finally: ...), as the change is only for the turn")
