"""What real networks and servers do to a streamed reply, and what the SDK providers'
shared half (shared/providers/sdk_base.py) makes of it: retries, waits, one-line errors.

First in this process, on a stand-in SDK; then through the real SDKs, each fault served
by the local fake API. Each test asserts the one-line `ProviderError` (or the recovery),
what was shown, and that the history is as it was.
"""

from __future__ import annotations

import email.utils
import json
import time

import pytest
from fake_api import SSE, FakeAPI, Page, anthropic_stream, api_error, openai_stream
from fake_api.sdk import Response, sse_lines

from shared.providers import ProviderError, Reasoning, Reply, Tool
from shared.providers.anthropic_provider import AnthropicProvider
from shared.providers.openai_provider import OpenAIProvider
from shared.providers.sdk_base import (
    CONNECT_TIMEOUT,
    MAX_WAIT,
    STATUS_FAILURES,
    StreamBroke,
    asked_wait,
    disliked,
    endpoint,
    refused_as_malformed,
    server_message,
    split_shown,
    sse_data,
    summarize,
    timeout_from,
    url_secrets,
)

pytestmark = pytest.mark.sdk  # real SDKs at work: these run in the SDK worker (conftest.py)

KEY = "sk-test-0123456789-secret"
KINDS = ["anthropic", "openai"]
WORDCOUNT = Tool("wordcount", "Count the words in a text.",
                 {"type": "object", "properties": {"text": {"type": "string"}}},
                 lambda args: str(len(str(args.get("text", "")).split())))


def provider(kind, api, **kwargs):
    """The real provider of this kind, pointed at the fake, recording its notes."""
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    p = cls(api_key=KEY, base_url=api.base_url, **kwargs)
    p.retry_base = 0.01  # keep the backoff short in tests
    p.notes = []  # retry notes, as the trace would receive them
    p.on_notice = p.notes.append
    return p


def story(kind, **kwargs) -> SSE:
    """A four-delta reply of this kind."""
    parts = ["Once", " upon", " a", " time"]
    return (anthropic_stream if kind == "anthropic" else openai_stream)(parts, **kwargs)


def text_events(sse: SSE) -> list[int]:
    """Positions of the events that carry answer text."""
    def has_text(data):
        """Whether this event carries answer text."""
        if not isinstance(data, dict):
            return False
        if data.get("type") == "content_block_delta":
            return data["delta"].get("type") == "text_delta"
        return any((c.get("delta") or {}).get("content") for c in data.get("choices") or ())
    return [n for n, (_, data) in enumerate(sse.events) if has_text(data)]


def cut(sse: SSE, n: int) -> SSE:
    """The first n events, then the connection closes (no chunked encoding: a clean EOF)."""
    return SSE(sse.events[:n])


def ask(messages, p, **kwargs):
    """call() with a record of what reached the screen; (reply or error, shown)."""
    shown: list[str] = []
    before = json.dumps(messages)
    try:
        result = p.call(messages, "", (), shown.append, **kwargs)
    except ProviderError as exc:
        result = exc
    assert json.dumps(messages) == before, "a failed turn must leave the history alone"
    return result, shown


def one_line(error) -> str:
    """The error's text, after checking it is one line without the key."""
    text = str(error)
    assert isinstance(error, ProviderError), f"expected a ProviderError, got {error!r}"
    assert "\n" not in text and KEY not in text, text
    return text


# ---------------------------------------------------------------- in this process
# What sdk_base.py does for both providers, on a stand-in SDK (the `sdk` fixture,
# fake_api/sdk.py): the retry loop, how each failure is classified, the one line a
# learner reads; and the small readers it is built from. No real SDK start-up, so a
# mutation run of sdk_base.py stops at the first failure early. With the real SDKs and
# the fake API's faults, further down.

HELLO = anthropic_stream(["Hel", "lo"])


class ConnectError(Exception):
    """Named as the transport names a refused connection."""


class ReadTimeout(Exception):
    """Named as the transport names a silence."""


@pytest.fixture
def waits(monkeypatch):
    """The pauses before each retry, taken instead of slept."""
    slept: list[float] = []
    monkeypatch.setattr(time, "sleep", slept.append)
    return slept


def stand_in(**kwargs) -> AnthropicProvider:
    """The Anthropic provider on the stand-in SDK, keeping its notes."""
    p = AnthropicProvider("claude-test", api_key=KEY, **kwargs)
    p.notes = []
    p.on_notice = p.notes.append
    return p


def talk(p) -> Reply:
    """One turn of `p`; its Reply."""
    return p.call([{"role": "user", "content": "hi"}])


def failed(sdk, *answers, **kwargs) -> str:
    """The one line a turn ends in, given these answers ('' if it ended in a reply)."""
    sdk.queue(*answers)
    try:
        talk(stand_in(**kwargs))
    except ProviderError as exc:
        return one_line(exc)
    return ""


def retried(sdk, failure, **kwargs) -> bool:
    """Whether a turn that meets `failure` first tries again (and then gets its reply)."""
    before = len(sdk.requests)
    said = failed(sdk, failure, HELLO, max_retries=1, **kwargs)
    sdk.responses.clear()
    assert bool(said) is (len(sdk.requests) - before == 1), said
    return not said


@pytest.mark.parametrize(("url", "shown"), [
    ("http://localhost/v1", "http://localhost:80"),
    ("https://user:secret@api.example.org/v1?key=k", "https://api.example.org:443"),
    ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"),
    ("http://[::1]:11434", "http://[::1]:11434"),
    ("https://api.anthropic.com", "https://api.anthropic.com:443"),
    ("http://user:pass@localhost:11434/v1?key=abc", "http://localhost:11434"),
    ("http://[::1]:8080/v1", "http://[::1]:8080"),
    ("http://host:notaport/v1", "http://host"),
])
def test_an_endpoint_is_scheme_host_and_port_only_with_the_schemes_own_port(url, shown):
    assert endpoint(url) == shown


def test_each_http_status_is_reported_as_itself():
    # the statuses the two APIs document for an overloaded or failing server
    assert {429, 500, 502, 503, 504, 529} <= STATUS_FAILURES.keys()
    for status, (what, hint) in STATUS_FAILURES.items():
        assert str(status) in what and hint


def test_sse_events_end_at_a_blank_line_and_done_is_not_an_event():
    events = sse_data(Response([
        "event: a", 'data: {"n": 1}', "", ": a comment", "", 'data:{"n": 2}', "",
        'data: {"n":', "data: 3}", "", "data: [DONE]", "", 'data: {"n": 4}']))
    assert list(events) == [{"n": 1}, {"n": 2}, {"n": 3}]  # the last one never ended


def test_a_sse_line_that_is_not_json_breaks_the_stream_for_good():
    with pytest.raises(StreamBroke) as broke:
        list(sse_data(Response(["data: {oops", ""])))
    assert not broke.value.retry


def test_shown_deltas_split_into_text_and_reasoning():
    assert split_shown(["a", Reasoning("r1"), "b", Reasoning("r2")]) == ("ab", "r1r2")


@pytest.mark.parametrize(("headers", "seconds"), [
    ({"retry-after-ms": "1500"}, 1.5), ({"retry-after": "2"}, 2.0),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the finer one wins
    ({"retry-after-ms": "soon", "retry-after": "3"}, 3.0), ({"retry-after": "-4"}, 0.0),
    ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),  # a date long past: no wait
    ({}, None), (None, None), ({"retry-after": "whenever"}, None)])
def test_the_wait_a_server_asks_for_is_read_in_its_own_unit(headers, seconds):
    assert asked_wait(headers) == seconds


def test_a_retry_after_date_is_the_time_until_then():
    later = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 90 < asked_wait({"retry-after": later}) <= 100
    earlier = email.utils.formatdate(time.time() - 100, usegmt=True)
    assert asked_wait({"retry-after": earlier}) == 0.0


def test_a_message_is_one_line_of_at_most_200_characters():
    assert summarize("a\n  b\tc") == "a b c"
    assert summarize("x" * 200) == "x" * 200
    cut_short = summarize("y" * 201)
    assert len(cut_short) == 200 and cut_short.startswith("y" * 197)
    assert not cut_short.startswith("y" * 198)


def test_an_html_page_is_named_by_its_title():
    page = "<!DOCTYPE html><html><head><title> 502 Bad\nGateway </title></head></html>"
    assert "502 Bad Gateway" in summarize(page) and "<" not in summarize(page)
    assert "<" not in summarize("<html><body>down</body></html>")
    assert summarize("a < b and <b>bold</b>") == "a < b and <b>bold</b>"


@pytest.mark.parametrize(("body", "said"), [
    ({"error": {"message": "bad model"}}, "bad model"), ({"message": "flat"}, "flat"),
    ({"error": {"code": 7}}, '{"error": {"code": 7}}'), ("plain text", "plain text")])
def test_the_server_s_own_words_are_taken_from_its_body(body, said):
    error = Exception("the exception's text")
    error.body = body
    assert server_message(error) == said


def test_a_message_falls_back_to_the_exception_text_then_its_kind():
    error = Exception("the exception's text")
    error.body = ""
    assert server_message(error) == "the exception's text"
    assert server_message(TimeoutError()) == "TimeoutError"
    assert server_message(ValueError("the body was cut")) == "the body was cut"


def test_timeout_from_the_keyword_then_the_environment_then_the_default():
    assert timeout_from(5, {"TAO_TIMEOUT": "9"}) == 5.0
    assert timeout_from(None, {"TAO_TIMEOUT": " 2.5 "}) == 2.5
    assert timeout_from(None, {"TAO_TIMEOUT": "  "}) == timeout_from(None, {}) == 60.0
    assert timeout_from(None, {"TAO_TIMEOUT": "86399"}) == 86399.0


@pytest.mark.parametrize("raw", ["0", "-1", "86400", "ten", "nan"])
def test_a_tao_timeout_that_is_not_a_sane_number_of_seconds_is_refused(raw):
    with pytest.raises(ProviderError):
        timeout_from(None, {"TAO_TIMEOUT": raw})


@pytest.mark.parametrize("value", [0, -2])
def test_a_timeout_keyword_that_is_not_positive_is_refused(value):
    with pytest.raises(ProviderError):
        timeout_from(value, {})


def test_the_secrets_in_a_url_are_its_password_and_query_values():
    assert url_secrets("http://u:pw@h/v1?key=k1&x=&t=k2") == ["pw", "k1", "k2"]
    assert url_secrets(None) == [] and url_secrets("http://h/") == []


def test_a_pydantic_refusal_names_the_field_it_disliked():
    said = ("1 validation error: [{'type': 'string_type', 'loc': ('body', 'messages', 2, "
            "'typed-dict', 'content'), 'msg': 'Input should be a valid string'}]")
    assert refused_as_malformed(said)
    assert disliked(said) == "messages[2].content: Input should be a valid string"
    assert not refused_as_malformed("model not found")
    assert disliked("model not found") == "model not found"


def test_a_fastapi_refusal_skips_the_union_members_and_the_role_mismatches():
    detail = [{"loc": ["body", "messages", 1, "ChatCompletionUserMessage", "role"],
               "msg": "Input should be 'user'"},
              {"loc": ["body", "messages", 1, "function-after", "content"], "msg": "Field "
               "required"}]
    said = json.dumps({"detail": detail})
    assert disliked(said) == "messages[1].content: Field required"
    only_roles = json.dumps({"detail": detail[:1]})
    assert disliked(only_roles) == "messages[1].role: Input should be 'user'"
    assert disliked(json.dumps({"detail": [{"msg": "broken"}]})) == "broken"


# ---- the retry loop


def test_a_stream_is_read_through_and_its_response_closed(sdk, waits):
    sdk.queue(HELLO)
    seen = []
    reply = stand_in().call([{"role": "user", "content": "hi"}], "", (), seen.append)
    assert seen == ["Hel", "lo"] and reply.text == "Hello"
    assert sdk.response.closed and len(sdk.requests) == 1 and waits == []


def test_failures_before_any_text_are_retried_with_doubling_waits(sdk, waits):
    sdk.queue(sdk.APIStatusError(503), sdk.APIConnectionError("reset"), HELLO)
    p = stand_in()
    assert talk(p).text == "Hello"
    assert len(sdk.requests) == 3 and waits == [1.0, 2.0] and len(p.notes) == 2


def test_the_attempts_run_out_after_three_and_the_error_says_how_many(sdk, waits):
    said = failed(sdk, *[sdk.APIStatusError(503)] * 3, HELLO)
    assert len(sdk.requests) == 3 and len(waits) == 2 and "after 3 attempts" in said


@pytest.mark.parametrize(("max_retries", "attempts"), [(0, 1), (1, 2), (2, 3), (9, 3),
                                                      (-5, 1)])
def test_the_attempts_are_one_more_than_the_retries_and_at_most_three(sdk, max_retries,
                                                                      attempts):
    assert stand_in(max_retries=max_retries).attempts == attempts


def test_a_failure_once_text_is_shown_is_not_retried_and_keeps_the_text(sdk, waits):
    cut_off = SSE(anthropic_stream(["Hal", "lo"]).events[:4])  # no message_stop
    sdk.queue(cut_off, HELLO)
    with pytest.raises(ProviderError) as failure:
        talk(stand_in())
    assert len(sdk.requests) == 1 and waits == [] and failure.value.partial == "Hal"


def test_a_wait_the_server_asks_for_is_honoured_up_to_the_limit(sdk, waits):
    asked = {"retry-after": str(MAX_WAIT)}
    sdk.queue(sdk.APIStatusError(429, headers=asked), HELLO)
    assert talk(stand_in()).text == "Hello" and waits == [MAX_WAIT]
    too_long = {"retry-after": str(MAX_WAIT + 1)}
    assert failed(sdk, sdk.APIStatusError(429, headers=too_long), HELLO)
    assert len(sdk.requests) == 3 and waits == [MAX_WAIT]


def test_a_retry_wait_never_exceeds_the_limit(sdk, waits):
    sdk.queue(*[sdk.APIStatusError(503)] * 3)
    p = stand_in()
    p.retry_base = 20.0
    with pytest.raises(ProviderError):
        talk(p)
    assert waits == [20.0, MAX_WAIT]
    assert failed(sdk, sdk.APIStatusError(400)) and waits == [20.0, MAX_WAIT]  # no retry


def test_errors_that_are_already_one_line_or_a_stub_pass_through(sdk, waits):
    sdk.queue(NotImplementedError("the exercise's stub"), HELLO)
    with pytest.raises(NotImplementedError):
        talk(stand_in())
    sdk.responses.clear()
    mine = ProviderError("already said")
    sdk.queue(mine, HELLO)
    with pytest.raises(ProviderError) as failure:
        talk(stand_in())
    assert failure.value is mine and waits == []


def test_the_key_never_appears_in_a_note_or_an_error(sdk, waits):
    sdk.queue(sdk.APIStatusError(503, f"bad key {KEY}"),
              sdk.APIStatusError(401, f"rejected {KEY}"))
    p = stand_in()
    with pytest.raises(ProviderError) as failure:
        talk(p)
    assert p.notes and all(KEY not in note for note in p.notes)
    assert KEY not in str(failure.value) and "https://api.anthropic.com:443" in str(
        failure.value)


def test_an_answer_that_is_not_an_event_stream_is_not_retried(sdk, waits):
    assert "not an event stream" in failed(sdk, Page(200, "<html>login</html>"), HELLO)
    assert len(sdk.requests) == 1 and sdk.response.closed
    sdk.responses.clear()
    body = "".join(line + "\n" for line in sse_lines(HELLO))
    typed = Page(200, body, "text/event-stream; charset=utf-8")
    sdk.queue(typed)
    assert talk(stand_in()).text == "Hello"


def test_the_wire_view_sees_each_event_before_it_is_assembled(sdk):
    sdk.queue(HELLO)
    p, seen = stand_in(), []
    p.on_wire_event = lambda kind, data: seen.append((kind, data))
    p.on_reply = lambda reply: seen.append(("reply", reply.text))
    talk(p)
    assert seen == [(kind, data) for kind, data in HELLO.events] + [("reply", "Hello")]


# ---- setting up


def test_the_connect_timeout_is_ten_seconds_or_the_whole_timeout_if_shorter(sdk):
    stand_in(timeout=60)
    stand_in(timeout=4)
    assert [client.timeout for client in sdk.clients] == [(60.0, CONNECT_TIMEOUT), (4.0, 4.0)]
    assert sdk.clients[0].max_retries == 0  # the SDK's own retries are off: ours count


def test_the_secrets_are_the_key_and_the_base_url_s_credentials_once_each(sdk):
    p = stand_in(base_url="http://me:hunter2hunter2@127.0.0.1:8080/v1?token=tok")
    assert p.secrets == (KEY, "hunter2hunter2", "tok")
    assert p.endpoint == "http://127.0.0.1:8080"


# ---- classifying failures


def test_nothing_listening_is_not_retried_and_a_silence_is(sdk, waits):
    assert not retried(sdk, ConnectError())
    wrapped = sdk.APIConnectionError("connection error")
    wrapped.__cause__ = ConnectError()
    assert not retried(sdk, wrapped)
    assert retried(sdk, ReadTimeout()) and retried(sdk, sdk.APITimeoutError("slow"))
    assert retried(sdk, sdk.APIConnectionError("dropped"))


def test_ollama_s_port_gets_ollama_s_hint(sdk):
    ollama = failed(sdk, ConnectError(), base_url="http://127.0.0.1:11434/v1")
    other = failed(sdk, ConnectError(), base_url="http://127.0.0.1:8080/v1")
    assert "ollama" in ollama.lower() and "ollama" not in other.lower()


def test_a_transport_error_is_retried_and_a_bug_is_not(sdk, waits):
    transport = type("RemoteProtocolError", (Exception,), {"__module__": "httpx._exceptions"})
    assert retried(sdk, transport())
    assert not retried(sdk, KeyError("slot"))
    assert retried(sdk, StreamBroke("cut", retry=True))
    assert not retried(sdk, StreamBroke("odd shape"))


@pytest.mark.parametrize(("status", "retry"), [
    (400, False), (401, False), (403, False), (404, False), (418, False), (429, True),
    (499, False),
    (500, True), (502, True), (503, True), (504, True), (529, True), (599, True)])
def test_which_http_statuses_are_retried(sdk, waits, status, retry):
    assert retried(sdk, sdk.APIStatusError(status, "something")) is retry


def test_a_server_error_that_says_the_request_was_malformed_is_sent_once(sdk, waits):
    said = "1 validation error: Field required"
    assert not retried(sdk, sdk.APIStatusError(500, said))
    assert not retried(sdk, sdk.APIStatusError(400, said))


def test_a_retried_status_waits_as_long_as_the_server_asked(sdk, waits):
    assert retried(sdk, sdk.APIStatusError(503, headers={"retry-after": "4"}))
    assert retried(sdk, sdk.APIStatusError(503))
    assert waits == [4.0, 1.0]  # else the provider's own first wait


def test_the_error_line_says_more_only_after_more_than_one_attempt(sdk, waits):
    once = failed(sdk, sdk.APIStatusError(503, "busy"), max_retries=0)
    twice = failed(sdk, *[sdk.APIStatusError(503, "busy")] * 2, max_retries=1)
    assert "still after 2 attempts" in twice and "attempts" not in once
    assert once == twice.replace(", still after 2 attempts", "")
    long_wait = {"retry-after": str(MAX_WAIT + 10)}
    waited = failed(sdk, sdk.APIStatusError(503, "busy", headers=long_wait))
    assert f"asked to wait {MAX_WAIT + 10:.0f} s" in waited
    at_limit = failed(sdk, sdk.APIStatusError(503, "busy", headers={
        "retry-after": str(MAX_WAIT)}), max_retries=0)
    assert at_limit == once


def test_a_model_check_that_fails_is_one_line(sdk):
    sdk.models = ConnectError()
    with pytest.raises(ProviderError):
        stand_in().model_available()
    sdk.models = ["claude-test"]
    assert stand_in().model_available()


@pytest.mark.parametrize(("status", "names_the_key"), [(401, True), (403, True), (400, False),
                                                       (402, False), (404, False)])
def test_only_a_rejected_key_points_at_the_key_variable(sdk, status, names_the_key):
    said = failed(sdk, sdk.APIStatusError(status, "no"))
    assert ("ANTHROPIC_API_KEY" in said) is names_the_key


def test_a_rate_limit_is_retried_even_when_its_message_reads_like_a_refusal(sdk, waits):
    assert retried(sdk, sdk.APIStatusError(429, "validation error: slow down"))


def test_only_an_sdk_wrapped_error_is_named_by_its_cause(sdk, waits):
    plain = KeyError("slot")
    plain.__cause__ = ConnectError()
    assert failed(sdk, plain, max_retries=0) == failed(sdk, KeyError("slot"), max_retries=0)


# ---------------------------------------------------------------- end to end
# The real SDKs against the fake API's faults.


# ---------------------------------------------------------------- cut short


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_closed_mid_reply_is_an_error_with_the_partial_text(kind):
    sse = story(kind)
    with FakeAPI(kind) as api:
        api.queue(cut(sse, text_events(sse)[1] + 1))  # two deltas, then EOF
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "broke off" in one_line(error)
    assert shown == ["Once", " upon"]
    assert error.partial == "Once upon"  # the stage shows it as cut off, keeps it out
    assert len(api.requests) == 1  # text was shown: no retry, it would repeat it


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_closed_before_any_text_is_retried(kind):
    sse = story(kind)
    with FakeAPI(kind) as api:
        api.queue(cut(sse, text_events(sse)[0]), story(kind))
        p = provider(kind, api)
        reply, shown = ask([{"role": "user", "content": "a story"}], p)
    assert reply.text == "Once upon a time" and "".join(shown) == reply.text
    assert len(api.requests) == 2
    assert p.notes and "attempt 2 of 3" in p.notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_a_stream_that_ends_without_its_final_event_is_not_complete(kind):
    """Every delta arrived, but not message_stop / a finish_reason: still broken off."""
    sse = story(kind)
    last = max(n for n, (_, d) in enumerate(sse.events)
               if isinstance(d, dict) and (d.get("type") == "message_delta" or any(
                   c.get("finish_reason") for c in d.get("choices") or ())))
    with FakeAPI(kind) as api:
        api.queue(cut(sse, last))
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "broke off" in one_line(error) and error.partial == "Once upon a time"


@pytest.mark.parametrize("kind", KINDS)
def test_an_error_event_before_any_text_is_retried(kind):
    """Anthropic's overloaded_error often arrives as the stream's first event."""
    with FakeAPI(kind) as api:
        api.queue(story(kind, error_after=1), story(kind))
        p = provider(kind, api)
        reply, _ = ask([{"role": "user", "content": "a story"}], p)
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes and p.notes[0].startswith("the server reported an error in the stream: ")


# ---------------------------------------------------------------- reset and stall


@pytest.mark.parametrize("kind", KINDS)
def test_a_connection_reset_mid_reply_is_one_line(kind):
    sse = story(kind)
    sse.reset_after = text_events(sse)[2]
    with FakeAPI(kind) as api:
        api.queue(sse)
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    message = one_line(error)
    assert "broke off mid-reply" in message and "connection" in message
    assert error.partial == "".join(shown) == "Once upon"


@pytest.mark.parametrize("kind", KINDS)
def test_a_reset_before_any_text_is_retried(kind):
    sse = story(kind)
    sse.reset_after = 0
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        reply, _ = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert reply.text == "Once upon a time" and len(api.requests) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_stall_mid_reply_is_bounded_by_the_timeout_and_names_the_wait(kind):
    sse = story(kind)
    sse.stall_after = text_events(sse)[1] + 1
    with FakeAPI(kind) as api:
        api.queue(sse)
        p = provider(kind, api, timeout=0.4)  # built first: the SDK import is not the stall
        start = time.monotonic()
        error, shown = ask([{"role": "user", "content": "a story"}], p)
        took = time.monotonic() - start
    assert "no data for 0.4 s" in one_line(error) and "TAO_TIMEOUT" in str(error)
    assert error.partial == "Once upon"
    assert took < 5, f"the stall was not cut at the timeout: {took:.1f} s"


@pytest.mark.parametrize("kind", KINDS)
def test_a_stall_before_any_text_counts_as_one_failed_attempt(kind, monkeypatch):
    monkeypatch.setenv("TAO_TIMEOUT", "0.4")
    sse = story(kind)
    sse.stall_after = 1
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        p = provider(kind, api)
        reply, _ = ask([{"role": "user", "content": "a story"}], p)
    assert p.timeout == 0.4
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes == ["no data for 0.4 s: retrying in 0.01 s, attempt 2 of 3"]


@pytest.mark.parametrize("value", ["soon", "-3", "0"])
def test_a_bad_tao_timeout_is_one_line_naming_the_variable(value, monkeypatch):
    monkeypatch.setenv("TAO_TIMEOUT", value)
    with pytest.raises(ProviderError, match="TAO_TIMEOUT") as info:
        OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_mid_reply_stays_ctrl_c_and_the_next_turn_works(kind):
    """Ctrl-C is the learner's, not a fault: never retried, never turned into an error."""
    def interrupt(delta):
        raise KeyboardInterrupt

    with FakeAPI(kind) as api:
        api.queue(story(kind), story(kind))
        p = provider(kind, api)
        with pytest.raises(KeyboardInterrupt):
            p.call([{"role": "user", "content": "a story"}], "", (), interrupt)
        assert p.call([{"role": "user", "content": "again"}]).text == "Once upon a time"
    assert len(api.requests) == 2 and p.notes == []


# ---------------------------------------------------------------- bad events


@pytest.mark.parametrize("kind", KINDS)
def test_a_malformed_data_line_is_one_line_and_not_retried(kind):
    sse = story(kind)
    at = text_events(sse)[1]
    sse.events[at] = (sse.events[at][0], '{"type": "content_block_delta", "ind')
    with FakeAPI(kind) as api:
        api.queue(sse, story(kind))
        error, shown = ask([{"role": "user", "content": "a story"}], provider(kind, api))
    assert "not JSON" in one_line(error) and error.partial == "Once"
    assert len(api.requests) == 1


def test_an_anthropic_delta_for_a_block_never_started_is_one_line():
    sse = anthropic_stream(["fine"])
    sse.events.insert(4, ("content_block_delta", {
        "type": "content_block_delta", "index": 7,
        "delta": {"type": "input_json_delta", "partial_json": "{}"}}))
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        error, _ = ask([{"role": "user", "content": "hi"}], provider("anthropic", api))
    assert "unexpected shape" in one_line(error)


def test_an_openai_chunk_of_the_wrong_shape_is_one_line():
    sse = openai_stream(["fine"])
    sse.events.insert(2, (None, {"id": "x", "object": "chat.completion.chunk",
                                 "choices": {"0": {"delta": {"content": "?"}}}}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        error, _ = ask([{"role": "user", "content": "hi"}], provider("openai", api))
    assert "unexpected shape" in one_line(error)


def test_an_openai_choice_without_a_delta_is_read_as_an_empty_one():
    sse = openai_stream(["fine"])
    sse.events.insert(2, (None, {"id": "x", "object": "chat.completion.chunk",
                                 "choices": [{"index": 0, "finish_reason": None}]}))
    with FakeAPI("openai") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider("openai", api))
    assert reply.text == "fine"


# ---------------------------------------------------------------- retries and pages


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_asking_for_a_long_wait_gets_an_error_at_once(kind):
    overloaded = api_error(kind, 529 if kind == "anthropic" else 429)
    overloaded.headers = {"retry-after": "3600"}
    with FakeAPI(kind) as api:
        api.queue(overloaded, story(kind))
        p = provider(kind, api)
        start = time.monotonic()
        error, _ = ask([{"role": "user", "content": "hi"}], p)
    assert "asked to wait 3600 s" in one_line(error)
    assert len(api.requests) == 1 and time.monotonic() - start < 5


@pytest.mark.parametrize("kind", KINDS)
def test_a_short_retry_after_is_honoured_and_announced(kind):
    busy = api_error(kind, 429)
    busy.headers = {"retry-after": "0.2"}
    with FakeAPI(kind) as api:
        api.queue(busy, story(kind))
        p = provider(kind, api)
        start = time.monotonic()
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert reply.text == "Once upon a time" and time.monotonic() - start >= 0.2
    assert p.notes == ["rate limited (429): retrying in 0.2 s, attempt 2 of 3"]


@pytest.mark.parametrize("kind", KINDS)
def test_max_retries_zero_turns_retries_off(kind):
    with FakeAPI(kind) as api:
        api.queue(api_error(kind, 500), story(kind))
        error, _ = ask([{"role": "user", "content": "hi"}],
                       provider(kind, api, max_retries=0))
    assert "server error (500)" in one_line(error) and len(api.requests) == 1


def test_without_a_notice_callback_the_retry_note_goes_to_stderr(capsys):
    with FakeAPI("openai") as api:
        api.queue(api_error("openai", 500), story("openai"))
        p = OpenAIProvider(api_key=KEY, base_url=api.base_url)
        assert p.call([{"role": "user", "content": "hi"}]).text == "Once upon a time"
    assert capsys.readouterr().err == (
        "note: server error (500): retrying in 0.005 s, attempt 2 of 3\n")


PAGE = ("<!DOCTYPE html><html><head><title>Captive portal: please log in</title></head>"
        "<body>" + "<p>lots of markup</p>" * 200 + "</body></html>")


@pytest.mark.parametrize("kind", KINDS)
def test_an_html_page_with_status_200_is_summarised_in_one_line(kind):
    with FakeAPI(kind) as api:
        api.queue(Page(200, PAGE))
        error, shown = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    message = one_line(error)
    assert "an HTML page (Captive portal: please log in)" in message
    assert "<" not in message and len(message) < 400 and shown == []


@pytest.mark.parametrize("kind", KINDS)
def test_an_html_error_page_is_summarised_in_one_line(kind):
    with FakeAPI(kind) as api:
        api.queue(*[Page(502, PAGE)] * 3)
        error, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    message = one_line(error)
    assert "bad gateway (502)" in message and "<" not in message and len(message) < 400


def test_nothing_listening_is_one_line_at_once_without_retries():
    """A refused connection is not a passing overload: waiting 3 s would only delay."""
    p = OpenAIProvider(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    p.notes = []
    p.on_notice = p.notes.append
    error, _ = ask([{"role": "user", "content": "hi"}], p)
    assert one_line(error) == ("openai: could not connect (http://127.0.0.1:9): is the server "
                               "running and the address right?")
    assert p.notes == []


# ---------------------------------------------------------------- hostile arguments


HOSTILE = [
    ('{"text": NaN}', "NaN"),
    ('{"text": Infinity}', "Infinity"),
    ('{"text": -Infinity}', "Infinity"),
    ('{"text": ' + "9" * 5000 + "}", "digit"),
    ('["a", "b"]', "JSON object"),
    ('{"text": "cut', "not valid JSON"),
]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("raw", "why"), HOSTILE)
def test_hostile_arguments_become_an_observation_and_the_next_request_is_valid(
        kind, raw, why):
    make = anthropic_stream if kind == "anthropic" else openai_stream
    messages = [{"role": "user", "content": "count"}]
    with FakeAPI(kind) as api:
        api.queue(make([], tools=[("call_h", "wordcount", [raw])]), make(["done"]))
        p = provider(kind, api)
        reply = p.call(messages, "", [WORDCOUNT])
        call = reply.tool_calls[0]
        assert call.args == {} and why in call.error, call.error
        messages += [reply.assistant_message(), {"role": "tool", "tool_call_id": call.id,
                                                 "name": call.name, "content": call.error}]
        assert p.call(messages, "", [WORDCOUNT]).text == "done"
    assert api.violations == []  # the second request was one the API accepts
    json.dumps(api.requests[-1], allow_nan=False)  # and plain JSON, no NaN inside


# ---------------------------------------------------------------- the small pieces




# ---------------------------------------------------------------- sessions that recover
# A reply joins the history and is sent back on every later request: whatever it held,
# the next request must be one the API accepts (the fake refuses what the API refuses).


def make(kind, *args, **kwargs) -> SSE:
    """A documented stream of this kind."""
    return (anthropic_stream if kind == "anthropic" else openai_stream)(*args, **kwargs)


def answered(messages: list[dict], reply) -> list[dict]:
    """`messages` with the reply and a result per call appended, as a stage's loop does
    (a call it cannot run is answered with its error), or a new question if none."""
    messages = messages + [reply.assistant_message()]
    for call in reply.tool_calls:
        messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name,
                         "content": call.error or WORDCOUNT.run(call.args)})
    return messages if reply.tool_calls else messages + [{"role": "user", "content": "and?"}]


def session(kind, *replies: SSE):
    """Each reply in turn, kept in the history; then one more turn that must be accepted.
    Returns (the fake, the last reply, the history)."""
    messages = [{"role": "user", "content": "count 'a b c'"}]
    with FakeAPI(kind) as api:
        api.queue(*replies, make(kind, ["done"]))
        p = provider(kind, api, max_retries=0)
        for _ in replies:
            messages = answered(messages, p.call(messages, "", [WORDCOUNT]))
        last = p.call(messages, "", [WORDCOUNT])
    return api, last, messages


RECOVERABLE = {
    # a `\ud800` escape in the server's JSON: a lone surrogate UTF-8 cannot encode
    "lone surrogate in text": lambda kind: make(kind, ["bad \ud800 text"]),
    "lone surrogate in arguments": lambda kind: make(
        kind, [], tools=[("call_s1", "wordcount", ['{"text": "a \\ud800 b"}'])]),
    "whitespace-only text before a call": lambda kind: make(
        kind, ["\n\n  "], tools=[("call_w1", "wordcount", ['{"text": "a b"}'])]),
    "a call id of 10 KB": lambda kind: make(
        kind, [], tools=[("call_" + "x" * 10_000, "wordcount", ['{"text": "a"}'])]),
    "a call id with characters the API refuses": lambda kind: make(
        kind, [], tools=[("functions.wordcount:0", "wordcount", ['{"text": "a"}'])]),
    "a call with no name": lambda kind: make(kind, [], tools=[("call_n1", "", ["{}"])]),
    "a name with dots and spaces": lambda kind: make(
        kind, [], tools=[("call_n2", "functions.word count", ["{}"])]),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", list(RECOVERABLE))
def test_after_a_hostile_reply_the_next_request_is_accepted(kind, fault):
    api, last, _ = session(kind, RECOVERABLE[fault](kind))
    assert api.violations == [], api.violations
    assert last.text == "done" and len(api.requests) == 2


@pytest.mark.parametrize("kind", KINDS)
def test_a_server_that_reuses_call_ids_across_rounds_is_still_answered(kind):
    """Small local models number their calls afresh each reply (call_0 every time)."""
    rounds = [make(kind, [], tools=[("call_0", "wordcount", [json.dumps({"text": words})])])
              for words in ("a", "a b", "a b c")]
    api, last, history = session(kind, *rounds)
    assert api.violations == [], api.violations
    assert last.text == "done" and len(api.requests) == 4
    assert [m["tool_call_id"] for m in history if m["role"] == "tool"] == ["call_0"] * 3


@pytest.mark.parametrize("kind", KINDS)
def test_what_is_sent_back_keeps_each_result_with_its_own_call(kind):
    """Renamed ids stay paired: the k-th result naming an id answers the k-th call."""
    rounds = [make(kind, [], tools=[("call_0", "wordcount", [json.dumps({"text": words})])])
              for words in ("a", "a b")]
    api, _, _ = session(kind, *rounds)
    pairs = _sent_pairs(kind, api.requests[-1]["messages"])
    assert [(args, result) for _, args, result in pairs] == [
        ({"text": "a"}, "1"), ({"text": "a b"}, "2")]
    assert len({call_id for call_id, _, _ in pairs}) == 2  # unique on the wire


def _sent_pairs(kind, wire: list[dict]) -> list[tuple]:
    """(id, arguments, result) for each call in a request body, results found by id."""
    if kind == "anthropic":
        blocks = [b for m in wire if isinstance(m["content"], list) for b in m["content"]]
        results = {b["tool_use_id"]: b["content"] for b in blocks if b["type"] == "tool_result"}
        return [(b["id"], b["input"], results[b["id"]]) for b in blocks
                if b["type"] == "tool_use"]
    results = {m["tool_call_id"]: m["content"] for m in wire if m["role"] == "tool"}
    return [(c["id"], json.loads(c["function"]["arguments"]), results[c["id"]])
            for m in wire if m.get("tool_calls") for c in m["tool_calls"]]


@pytest.mark.parametrize("kind", KINDS)
def test_the_history_itself_is_never_changed_by_what_is_sent(kind):
    api, _, history = session(kind, RECOVERABLE["lone surrogate in text"](kind))
    assert history[1]["content"] == "bad \ud800 text"  # the stage's record stays as it came
    assert "\ufffd" in json.dumps(api.requests[-1], ensure_ascii=False)


# ---------------------------------------------------------------- usage that is not numbers


def _with_usage(kind, usage) -> SSE:
    """A short reply whose usage block carries `usage` in the API's own field names."""
    sse = make(kind, ["fine"])
    for _, data in sse.events:
        if not isinstance(data, dict):
            continue
        if data.get("type") == "message_start":
            data["message"]["usage"] = usage["start"]
        elif data.get("type") == "message_delta":
            data["usage"] = usage["delta"]
        elif "usage" in data:
            data["usage"] = usage["chunk"]
    return sse


BAD_USAGE = {
    "strings and nulls": {"start": {"input_tokens": "25", "cache_read_input_tokens": "lots"},
                          "delta": {"output_tokens": None},
                          "chunk": {"prompt_tokens": "25", "completion_tokens": None,
                                    "prompt_tokens_details": {"cached_tokens": "x"}}},
    "floats, negatives and bools": {"start": {"input_tokens": 25.0, "output_tokens": -1},
                                    "delta": {"output_tokens": True},
                                    "chunk": {"prompt_tokens": 25.0, "completion_tokens": -3,
                                              "prompt_tokens_details": {"cached_tokens": True}}},
    "objects and lists": {"start": {"input_tokens": {"n": 1}}, "delta": {"output_tokens": [7]},
                          "chunk": {"prompt_tokens": [25], "completion_tokens": {"n": 1}}},
    "not a dict at all": {"start": "25 tokens", "delta": [7], "chunk": ["25", "7"]},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("fault", list(BAD_USAGE))
def test_usage_that_is_not_numbers_never_reaches_the_caller(kind, fault):
    """Stages 08-10 add the counts up: each one given must be a whole number, and a bad
    usage block costs the reply nothing."""
    with FakeAPI(kind) as api:
        api.queue(_with_usage(kind, BAD_USAGE[fault]))
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "fine"
    counts = {k: n for k, n in reply.usage.items() if k not in ("not_reported", "estimated")}
    assert all(type(n) is int and n >= 0 for n in counts.values()), reply.usage
    if fault != "not a dict at all" and fault != "objects and lists":
        assert reply.usage["input_tokens"] == 25  # a count sent as "25" or 25.0 is kept
    elif kind == "openai":  # nothing usable came: said so, never made up
        assert reply.usage == {"not_reported": True}, reply.usage


# ---------------------------------------------------------------- secrets in notes


def _error_first(kind, message: str) -> SSE:
    """A stream whose first event is an error quoting `message` (no text shown yet)."""
    sse = story(kind, error_after=1)
    data = next(d for _, d in sse.events if isinstance(d, dict) and "error" in d)
    data["error"]["message"] = message
    return sse


@pytest.mark.parametrize("kind", KINDS)
def test_a_key_the_server_echoes_mid_stream_never_reaches_a_retry_note(kind):
    """A key not shaped like sk-...: only the provider's own list of secrets can hide it."""
    token = "local-token-abcdefgh"
    with FakeAPI(kind) as api:
        api.queue(_error_first(kind, f"bad credentials {token}, try again"), story(kind))
        p = (AnthropicProvider if kind == "anthropic" else OpenAIProvider)(
            api_key=token, base_url=api.base_url)
        p.retry_base = 0.01
        notes = []
        p.on_notice = notes.append
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "Once upon a time" and len(notes) == 1
    assert token not in notes[0] and "bad credentials [key hidden]" in notes[0], notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_every_secret_a_provider_holds_is_in_its_secrets(kind):
    """The one documented list the trace (or anyone) can redact with."""
    url = "http://learner:hunter2pass@127.0.0.1:9/v1?key=query-secret-123"
    p = (AnthropicProvider if kind == "anthropic" else OpenAIProvider)(
        api_key="local-token-abcdefgh", base_url=url)
    assert {"local-token-abcdefgh", "hunter2pass", "query-secret-123"} <= set(p.secrets)
    assert all(isinstance(s, str) and s for s in p.secrets)


def test_a_fallback_exposes_every_provider_s_secrets():
    from shared.providers.fallback import FallbackProvider

    first = OpenAIProvider(api_key="local-token-abcdefgh", base_url="http://127.0.0.1:9/v1")
    second = AnthropicProvider(api_key=KEY, base_url="http://u:pw-secret-1@127.0.0.1:9")
    assert set(FallbackProvider([first, second]).secrets) >= {
        "local-token-abcdefgh", KEY, "pw-secret-1"}


# ---------------------------------------------------------------- odd fields, one reply each


def _anthropic_tool(block_extra=None, name="wordcount", deltas=('{"text": "a b"}',)):
    """An Anthropic stream with one tool_use block, its start block amended."""
    sse = anthropic_stream([], tools=[("toolu_odd", name, list(deltas))])
    for _, data in sse.events:
        if isinstance(data, dict) and data.get("type") == "content_block_start":
            data["content_block"].update(block_extra or {})
    return sse


def _openai_tool(name, arguments='{"text": "a b"}', finish="tool_calls"):
    """An OpenAI stream with one whole tool call in one chunk."""
    from fake_api import chat_chunk, chat_stream

    return chat_stream(chat_chunk({"tool_calls": [{"index": 0, "id": "call_odd", "type":
                                                   "function", "function": {
                                                       "name": name, "arguments": arguments}}]}),
                       chat_chunk({}, finish))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", [123, ["now"], {"name": "now"}])
def test_a_tool_name_that_is_not_a_string_arrives_as_one(kind, name):
    sse = _anthropic_tool(name=name) if kind == "anthropic" else _openai_tool(name)
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert isinstance(reply.tool_calls[0].name, str) and reply.tool_calls[0].name


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("reason", [7, {"type": "stop"}, ["stop"]])
def test_a_stop_reason_that_is_not_a_string_costs_no_reply(kind, reason):
    sse = story(kind)
    for _, data in sse.events:
        if not isinstance(data, dict):
            continue
        if data.get("type") == "message_delta":
            data["delta"]["stop_reason"] = reason
        for choice in data.get("choices") or ():
            if choice.get("finish_reason"):
                choice["finish_reason"] = reason
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "Once upon a time" and isinstance(reply.stop_reason, str)


def test_an_anthropic_tool_input_sent_whole_in_its_start_block_is_used():
    """Some compatible servers put the input in content_block_start and stream none."""
    sse = _anthropic_tool({"input": {"text": "a b"}}, deltas=())
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider("anthropic", api))
    assert reply.tool_calls[0].args == {"text": "a b"}


def test_an_anthropic_start_block_input_gives_way_to_streamed_deltas():
    sse = _anthropic_tool({"input": {"text": "stale"}}, deltas=('{"text": ', '"a b"}'))
    with FakeAPI("anthropic") as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "count"}], provider("anthropic", api))
    assert reply.tool_calls[0].args == {"text": "a b"}


def test_an_openai_done_before_any_choice_is_an_unfinished_reply_and_retried():
    from fake_api import chat_stream

    with FakeAPI("openai") as api:
        api.queue(chat_stream(), story("openai"))
        p = provider("openai", api)
        reply, _ = ask([{"role": "user", "content": "hi"}], p)
    assert reply.text == "Once upon a time" and len(api.requests) == 2
    assert p.notes and "broke off" in p.notes[0]


@pytest.mark.parametrize("kind", KINDS)
def test_usage_sent_twice_keeps_the_last_counts(kind):
    sse = story(kind)
    if kind == "openai":  # usage on the finish chunk as well as in its own chunk
        finish = next(d for _, d in sse.events if isinstance(d, dict) and any(
            c.get("finish_reason") for c in d.get("choices") or ()))
        finish["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
    else:  # message_delta's usage is cumulative: a second one supersedes the first
        delta = next(d for _, d in sse.events if isinstance(d, dict)
                     and d.get("type") == "message_delta")
        sse.events.insert(sse.events.index(("message_delta", delta)),
                          ("message_delta", {**delta, "usage": {"output_tokens": 1}}))
    with FakeAPI(kind) as api:
        api.queue(sse)
        reply, _ = ask([{"role": "user", "content": "hi"}], provider(kind, api))
    assert reply.usage == {"input_tokens": 25, "output_tokens": 12}


@pytest.mark.parametrize("kind", KINDS)
def test_undecodable_bytes_in_what_the_learner_typed_or_a_tool_read_are_sent(kind):
    """Terminal input and file reads with errors="surrogateescape" hold lone surrogates
    (\\udc80-\\udcff): the request must still be one the SDK can encode."""
    messages = [{"role": "user", "content": "count caf\udce9"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "call_u1", "name": "wordcount", "args": {"text": "caf\udce9"}}]},
                {"role": "tool", "tool_call_id": "call_u1", "name": "wordcount",
                 "content": "read caf\udce9: 1"}]
    with FakeAPI(kind) as api:
        api.queue(make(kind, ["1 word."]))
        reply, _ = ask(messages, provider(kind, api))
    assert not isinstance(reply, ProviderError), reply
    assert reply.text == "1 word." and api.violations == []


@pytest.mark.parametrize("kind", KINDS)
def test_stages_02_to_06_recover_too_their_stream_sends_the_same_cleaned_history(kind):
    """Stages 02-06 call stream(), not call(): the same translation, the same cleaning."""
    with FakeAPI(kind) as api:
        api.queue(make(kind, ["bad \ud800 text"]), make(kind, ["fine"]))
        p = provider(kind, api, max_retries=0)
        first = "".join(p.stream([{"role": "user", "content": "hi"}]))
        history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": first},
                   {"role": "user", "content": "again"}]
        assert "".join(p.stream(history)) == "fine"
    assert api.violations == [] and len(api.requests) == 2


def test_escape_codes_a_server_sends_in_a_retried_error_never_reach_stderr_raw(capsys):
    with FakeAPI("openai") as api:
        api.queue(_error_first("openai", "overloaded \x1b[2J\x9b31m"), story("openai"))
        p = OpenAIProvider(api_key=KEY, base_url=api.base_url)
        p.retry_base = 0.01
        assert p.call([{"role": "user", "content": "hi"}]).text == "Once upon a time"
    err = capsys.readouterr().err
    assert "overloaded" in err and "\x1b" not in err and "\x9b" not in err, err
