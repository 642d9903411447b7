"""The wire view's own logic (shared/wire/__init__.py, body.py) in process: the questions
the surviving mutants of benchmarks/mutation.py asked. Which TAO_SHOW_WIRE values turn it
on, and to which API? Is a body that carries stop sequences shown for both APIs? Which
keyword arguments stay out of the body? Is the wrapped provider's hook put back?"""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from shared import wire
from shared.providers import FallbackProvider, OfflineProvider, ProviderError, ScriptedProvider
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.base import NO_OPTIONS, Options, Reply
from shared.providers.defaults import DEFAULT_MODELS
from shared.providers.openai_provider import OpenAIProvider
from shared.wire import WireLog, WireTap, body, wire_flavour


def test_a_stop_sequence_is_shown_in_the_body_either_api_would_send():
    # stage 06 streams with stop=("<tool_result",): --show-wire openai with the offline
    # model built this body on a stand-in without the setting that gates stop
    hi = [{"role": "user", "content": "hi"}]
    assert body.would_send("openai", hi, options=Options(stop=("<tool_result",)))["stop"] == [
        "<tool_result"]
    assert body.would_send("anthropic", hi, options=Options(stop=("<tool_result",)))[
        "stop_sequences"] == ["<tool_result"]


# ---------------------------------------------------------------- which API, which body


@pytest.mark.parametrize(("value", "flavour"), [
    (None, None), ("", None), ("0", None), ("1", "anthropic"), (" Anthropic ", "anthropic"),
    ("OPENAI", "openai")])
def test_show_wire_values_turn_it_off_or_pick_an_api(value, flavour):
    assert wire_flavour(value) == flavour


@pytest.mark.parametrize("value", ["yes", "2", "ollama"])
def test_a_show_wire_value_it_does_not_know_is_refused(value):
    with pytest.raises(ProviderError):
        wire_flavour(value)


def test_a_wire_tap_for_an_api_it_does_not_know_is_refused():
    with pytest.raises(ProviderError):
        WireTap(ScriptedProvider(["hi"]), quiet(), "ollama")


def test_the_body_goes_to_the_api_s_path_and_a_server_s_url_shows_no_credentials():
    assert body.endpoint("anthropic") == "/v1/messages"
    assert body.endpoint("openai") == "/v1/chat/completions"
    assert body.endpoint("openai", "http://127.0.0.1:8080/v1/") == (
        "http://127.0.0.1:8080/v1/chat/completions")
    shown = body.shown_url("https://me:hunter2@api.example.org/v1?key=s3cret&x=")
    assert "hunter2" not in shown and "me:" not in shown and "s3cret" not in shown
    assert shown.startswith("https://api.example.org/v1?") and shown.count("[hidden]") == 2


def bare(cls):
    return cls.__new__(cls)  # an SDK provider with no SDK client: nothing imported


def test_the_sdk_provider_of_a_fallback_is_its_first_and_names_the_flavour():
    openai = bare(OpenAIProvider)
    chain = FallbackProvider([openai, OfflineProvider()])
    assert body.sdk_provider(chain) is openai and body.flavour_of(chain) == "openai"
    assert body.flavour_of(bare(AnthropicProvider)) == "anthropic"
    assert body.sdk_provider(OfflineProvider()) is None and body.flavour_of(
        OfflineProvider()) is None
    offline_first = FallbackProvider([OfflineProvider(), openai])
    assert body.sdk_provider(offline_first) is None


class NotGiven:
    pass


class Omit:
    pass


def test_the_body_leaves_out_what_travels_elsewhere_and_merges_extra_body():
    params = {"model": "m", "timeout": 5, "extra_headers": {"h": "1"}, "extra_query": {},
              "extra_body": {"top_k": 3}, "stop": ("a",), "seed": NotGiven(),
              "user": Omit(), "n": 0}
    assert body.body_of(params) == {"model": "m", "top_k": 3, "stop": ["a"], "n": 0}
    assert body.body_of({"model": "m", "extra_body": None}) == {"model": "m"}


def test_the_body_a_provider_would_send_is_its_request_on_a_stand_in():
    hi = [{"role": "user", "content": "hi"}]
    sent = body.would_send("openai", hi, "Be brief.", options=Options(max_tokens=7),
                           model="gpt-test", max_tokens=99)
    assert sent["model"] == "gpt-test" and sent["max_completion_tokens"] == 7
    assert sent["messages"][0] == {"role": "system", "content": "Be brief."}
    assert sent["stream_options"] == {"include_usage": True}
    sent = body.would_send("anthropic", hi, max_tokens=99)
    assert sent["max_tokens"] == 99 and sent["model"] == DEFAULT_MODELS["anthropic"]


# ---------------------------------------------------------------- the tap around a turn


def quiet():
    return Console(file=io.StringIO(), width=80)


def test_a_stream_shows_its_request_once_and_the_turn_its_response(monkeypatch):
    requests, responses = [], []
    monkeypatch.setattr(wire, "show_request", lambda *a, **k: requests.append(a[1]))
    monkeypatch.setattr(wire, "show_response", lambda *a, **k: responses.append(a[2]))
    tap = WireTap(ScriptedProvider(["Hello there", "Again"]), quiet(), "openai")
    assert "".join(tap.stream([{"role": "user", "content": "hi"}])) == "Hello there"
    assert len(requests) == 1 and len(responses) == 1
    assert requests[0] == tap.last_request and requests[0]["messages"][-1]["content"] == "hi"
    assert tap.last_log.events[-1][0] == "[DONE]"  # synthesized: the scripted model has no wire
    tap.call([{"role": "user", "content": "more"}])  # a later turn shows its own request
    assert len(requests) == 2 and requests[1]["messages"][-1]["content"] == "more"


def test_the_synthesized_events_follow_the_flavour_asked_for():
    tap = WireTap(ScriptedProvider(["Hi"]), quiet(), "anthropic")
    tap.call([{"role": "user", "content": "hi"}])
    kinds = [kind for kind, _ in tap.last_log.events]
    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"


def test_a_failed_turn_shows_what_arrived_then_raises(monkeypatch):
    shown = []
    monkeypatch.setattr(wire, "show_response",
                        lambda console, lines, title, note, reply, footer, secrets:
                        shown.append((reply, footer)))
    tap = WireTap(ScriptedProvider([ProviderError("offline: broken")]), quiet(), "openai")
    with pytest.raises(ProviderError):
        tap.call([{"role": "user", "content": "hi"}])
    (reply, footer), = shown
    assert reply is None and "offline: broken" in footer


def test_usage_from_a_model_with_no_wire_is_said_to_be_its_own(monkeypatch):
    footers = []
    monkeypatch.setattr(wire, "show_response",
                        lambda console, lines, title, note, reply, footer, secrets:
                        footers.append(footer))
    counted = Reply("Hi", usage={"input_tokens": 3, "output_tokens": 1})
    tap = WireTap(ScriptedProvider([counted, Reply("Hi")]), quiet(), "openai")
    tap.call([{"role": "user", "content": "hi"}])
    tap.call([{"role": "user", "content": "hi"}])
    assert footers[0] and "scripted" in footers[0] and footers[1] == ""


def test_events_a_provider_reports_are_shown_as_they_arrived_not_synthesized():
    class Wired(ScriptedProvider):
        def turn(self, messages, system, tools, options=NO_OPTIONS):
            self.on_wire_event("ping", {"type": "ping"})
            yield from super().turn(messages, system, tools, options)

    provider = Wired(["Hi"])
    tap = WireTap(provider, quiet(), "anthropic")
    tap.call([{"role": "user", "content": "hi"}])
    assert tap.last_log.events == [("ping", {"type": "ping"})]
    assert "on_wire_event" not in vars(provider)  # the hook is taken back after the turn


def test_the_wire_hook_is_put_back_on_every_provider_of_a_fallback():
    first, second = ScriptedProvider(["a"]), ScriptedProvider(["b"])
    before = []
    first.on_wire_event = before.append
    chain = FallbackProvider([first, second])
    log = WireLog()
    with wire._listening(chain, log.record):
        assert first.on_wire_event == log.record and second.on_wire_event == log.record
        assert chain.on_wire_event == log.record
    assert first.on_wire_event == before.append
    assert "on_wire_event" not in vars(second) and "on_wire_event" not in vars(chain)


def test_the_keys_of_the_wrapped_provider_are_the_ones_hidden():
    provider = ScriptedProvider(["hi"])
    assert WireTap(provider, quiet())._secrets() == []
    provider.secrets = ("sk-one", "sk-two")
    assert WireTap(provider, quiet())._secrets() == ["sk-one", "sk-two"]


def test_a_tap_takes_the_conversation_by_name_as_any_provider_does():
    tap = WireTap(ScriptedProvider(["Hi"]), quiet(), "openai")
    assert "".join(tap.stream(messages=[{"role": "user", "content": "hi"}], system="s")) == "Hi"


def test_the_response_starts_on_a_fresh_line_only_after_streamed_text():
    def shown_after(deltas):
        tap = WireTap(ScriptedProvider([]), quiet(), "openai")
        tap._show_response(WireLog(), Reply("Hi"), deltas)
        return tap.console.file.getvalue()

    assert shown_after(["Hi"]).startswith("\n") and not shown_after([]).startswith("\n")
