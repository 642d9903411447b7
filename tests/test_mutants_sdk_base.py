"""The SDK providers' shared half (shared/providers/sdk_base.py), the parts that need no
SDK: what the surviving mutants of a sampled benchmarks/mutation.py run asked. Which
port does a URL without one name? Is each HTTP status reported as itself? What does an
error with no message say?"""

from __future__ import annotations

import email.utils
import json
import time
from types import SimpleNamespace

import pytest

from shared.providers import sdk_base
from shared.providers.base import ProviderError, Reasoning, Reply
from shared.providers.sdk_base import (
    STATUS_FAILURES,
    SDKProvider,
    StreamBroke,
    endpoint,
    server_message,
)


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


def test_an_error_with_no_message_is_named_by_its_kind():
    assert server_message(TimeoutError()) == "TimeoutError"
    assert server_message(ValueError("the body was cut")) == "the body was cut"


# ---------------------------------------------------------------- reading the stream


class Lines:
    """A response whose body is the given lines (what `iter_lines` yields)."""

    def __init__(self, *lines, content_type="text/event-stream", body=b""):
        self.lines, self.headers, self.body = lines, {"content-type": content_type}, body
        self.closed = False

    def iter_lines(self):
        return iter(self.lines)

    def read(self):
        return self.body

    def close(self):
        self.closed = True


def test_sse_events_end_at_a_blank_line_and_done_is_not_an_event():
    events = sdk_base.sse_data(Lines(
        "event: a", 'data: {"n": 1}', "", ": a comment", "", 'data:{"n": 2}', "",
        'data: {"n":', "data: 3}", "", "data: [DONE]", "", 'data: {"n": 4}'))
    assert list(events) == [{"n": 1}, {"n": 2}, {"n": 3}]  # the last one never ended


def test_a_sse_line_that_is_not_json_breaks_the_stream_for_good():
    with pytest.raises(StreamBroke) as broke:
        list(sdk_base.sse_data(Lines("data: {oops", "")))
    assert not broke.value.retry


def test_shown_deltas_split_into_text_and_reasoning():
    assert sdk_base.split_shown(["a", Reasoning("r1"), "b", Reasoning("r2")]) == ("ab", "r1r2")


# ---------------------------------------------------------------- small judgements


@pytest.mark.parametrize(("headers", "wait"), [
    ({"retry-after-ms": "1500"}, 1.5), ({"retry-after": "2"}, 2.0),
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),  # the finer one wins
    ({"retry-after-ms": "soon", "retry-after": "3"}, 3.0), ({"retry-after": "-4"}, 0.0),
    ({}, None), (None, None), ({"retry-after": "whenever"}, None)])
def test_a_retry_after_header_is_read_in_its_own_unit(headers, wait):
    assert sdk_base.asked_wait(headers) == wait


def test_a_retry_after_date_is_the_time_until_then():
    later = email.utils.formatdate(time.time() + 100, usegmt=True)
    assert 90 < sdk_base.asked_wait({"retry-after": later}) <= 100
    earlier = email.utils.formatdate(time.time() - 100, usegmt=True)
    assert sdk_base.asked_wait({"retry-after": earlier}) == 0.0


def test_a_message_is_one_line_of_at_most_200_characters():
    assert sdk_base.summarize("a\n  b\tc") == "a b c"
    assert sdk_base.summarize("x" * 200) == "x" * 200
    cut = sdk_base.summarize("y" * 201)
    assert len(cut) == 200 and cut.startswith("y" * 197) and not cut.startswith("y" * 198)


def test_an_html_page_is_named_by_its_title():
    page = "<!DOCTYPE html><html><head><title> 502 Bad\nGateway </title></head></html>"
    assert "502 Bad Gateway" in sdk_base.summarize(page) and "<" not in sdk_base.summarize(page)
    assert "<" not in sdk_base.summarize("<html><body>down</body></html>")
    assert sdk_base.summarize("a < b and <b>bold</b>") == "a < b and <b>bold</b>"


@pytest.mark.parametrize(("body", "said"), [
    ({"error": {"message": "bad model"}}, "bad model"), ({"message": "flat"}, "flat"),
    ({"error": {"code": 7}}, '{"error": {"code": 7}}'), ("plain text", "plain text")])
def test_the_server_s_own_words_are_taken_from_its_body(body, said):
    error = Exception("the exception's text")
    error.body = body
    assert sdk_base.server_message(error) == said


def test_an_empty_body_falls_back_to_the_exception_text():
    error = Exception("the exception's text")
    error.body = ""
    assert sdk_base.server_message(error) == "the exception's text"


def test_timeout_from_the_keyword_then_the_environment_then_the_default():
    assert sdk_base.timeout_from(5, {"TAO_TIMEOUT": "9"}) == 5.0
    assert sdk_base.timeout_from(None, {"TAO_TIMEOUT": " 9 "}) == 9.0
    assert sdk_base.timeout_from(None, {"TAO_TIMEOUT": "  "}) == sdk_base.DEFAULT_TIMEOUT
    assert sdk_base.timeout_from(None, {"TAO_TIMEOUT": "86399"}) == 86399.0


@pytest.mark.parametrize("raw", ["0", "-1", "86400", "ten", "nan"])
def test_a_tao_timeout_that_is_not_a_sane_number_of_seconds_is_refused(raw):
    with pytest.raises(ProviderError):
        sdk_base.timeout_from(None, {"TAO_TIMEOUT": raw})


@pytest.mark.parametrize("value", [0, -2])
def test_a_timeout_keyword_that_is_not_positive_is_refused(value):
    with pytest.raises(ProviderError):
        sdk_base.timeout_from(value, {})


def test_the_secrets_in_a_url_are_its_password_and_query_values():
    assert sdk_base.url_secrets("http://u:pw@h/v1?key=k1&x=&t=k2") == ["pw", "k1", "k2"]
    assert sdk_base.url_secrets(None) == [] and sdk_base.url_secrets("http://h/") == []


def test_a_pydantic_refusal_names_the_field_it_disliked():
    said = ("1 validation error: [{'type': 'string_type', 'loc': ('body', 'messages', 2, "
            "'typed-dict', 'content'), 'msg': 'Input should be a valid string'}]")
    assert sdk_base.refused_as_malformed(said)
    assert sdk_base.disliked(said) == "messages[2].content: Input should be a valid string"
    assert not sdk_base.refused_as_malformed("model not found")
    assert sdk_base.disliked("model not found") == "model not found"


def test_a_fastapi_refusal_skips_the_union_members_and_the_role_mismatches():
    detail = [{"loc": ["body", "messages", 1, "ChatCompletionUserMessage", "role"],
               "msg": "Input should be 'user'"},
              {"loc": ["body", "messages", 1, "function-after", "content"], "msg": "Field "
               "required"}]
    said = json.dumps({"detail": detail})
    assert sdk_base.disliked(said) == "messages[1].content: Field required"
    only_roles = json.dumps({"detail": detail[:1]})
    assert sdk_base.disliked(only_roles) == "messages[1].role: Input should be 'user'"
    assert sdk_base.disliked(json.dumps({"detail": [{"msg": "broken"}]})) == "broken"


# ---------------------------------------------------------------- the retry loop


class StatusError(Exception):
    def __init__(self, status, message="", headers=None):
        super().__init__(message)
        self.status_code, self.body = status, {"error": {"message": message}}
        self.response = SimpleNamespace(headers=headers or {})


class ConnectionFailed(Exception):
    pass


class TimedOut(ConnectionFailed):
    pass


SDK = SimpleNamespace(APIStatusError=StatusError, APIConnectionError=ConnectionFailed,
                      APITimeoutError=TimedOut,
                      Timeout=lambda total, connect: (total, connect))
KEY = "sk-fake-key-0123456789"


class Client:
    def __init__(self, api_key, base_url, max_retries, timeout):
        self.base_url = base_url or "https://api.example.org/v1"
        self.timeout, self.max_retries = timeout, max_retries


class Fake(SDKProvider):
    """An SDK provider on a fake SDK: each attempt takes the next of `attempts`, an
    exception to raise on opening or the events of a response."""

    name = "fake"
    key_var = "FAKE_API_KEY"

    def __init__(self, *attempts, max_retries=2, timeout=None, base_url=None):
        self._setup(SDK, Client, KEY, base_url, timeout, max_retries)
        self.attempts_left, self.opened, self.notes = list(attempts), 0, []
        self.on_notice = self.notes.append

    def request(self, messages, system="", tools=()):
        return {"messages": messages}

    def with_options(self, params, options):
        return params

    def _open(self, params):
        self.opened += 1
        attempt = self.attempts_left.pop(0)
        if isinstance(attempt, BaseException):
            raise attempt
        self.response = attempt if isinstance(attempt, Lines) else Lines(*(
            line for event in attempt for line in (f"data: {json.dumps(event)}", "")))
        return SimpleNamespace(response=self.response)

    def _assemble(self, events, shown):
        for event in events:
            if "break" in event:
                raise StreamBroke("the stream broke off", retry=True)
            shown.append(event["text"])
            yield event["text"]
        yield Reply(text=sdk_base.split_shown(shown)[0])


@pytest.fixture
def waits(monkeypatch):
    slept = []
    monkeypatch.setattr(sdk_base.time, "sleep", slept.append)
    return slept


def talk(provider):
    return list(provider.turn([{"role": "user", "content": "hi"}], "", ()))


HELLO = [{"text": "Hel"}, {"text": "lo"}]


def test_a_stream_is_read_through_and_its_response_closed(waits):
    provider = Fake(HELLO)
    out = talk(provider)
    assert out[:2] == ["Hel", "lo"] and out[2].text == "Hello"
    assert provider.response.closed and provider.opened == 1 and waits == []


def test_failures_before_any_text_are_retried_with_doubling_waits(waits):
    provider = Fake(StatusError(503), ConnectionFailed("reset"), HELLO)
    assert talk(provider)[-1].text == "Hello"
    assert provider.opened == 3 and waits == [1.0, 2.0] and len(provider.notes) == 2


def test_the_attempts_run_out_after_three_and_the_error_says_how_many(waits):
    provider = Fake(StatusError(503), StatusError(503), StatusError(503), HELLO)
    with pytest.raises(ProviderError) as failed:
        talk(provider)
    assert provider.opened == 3 and len(waits) == 2 and "3" in str(failed.value)


@pytest.mark.parametrize(("max_retries", "attempts"), [(0, 1), (1, 2), (2, 3), (9, 3),
                                                      (-5, 1)])
def test_the_attempts_are_one_more_than_the_retries_and_at_most_three(max_retries, attempts):
    assert Fake(max_retries=max_retries).attempts == attempts


def test_a_failure_once_text_is_shown_is_not_retried_and_keeps_the_text(waits):
    provider = Fake([{"text": "Hal"}, {"break": True}], HELLO)
    with pytest.raises(ProviderError) as failed:
        talk(provider)
    assert provider.opened == 1 and waits == [] and failed.value.partial == "Hal"


def test_a_wait_the_server_asks_for_is_honoured_up_to_the_limit(waits):
    asked = {"retry-after": str(sdk_base.MAX_WAIT)}
    assert talk(Fake(StatusError(429, headers=asked), HELLO))[-1].text == "Hello"
    assert waits == [sdk_base.MAX_WAIT]
    too_long = Fake(StatusError(429, headers={"retry-after": str(sdk_base.MAX_WAIT + 1)}),
                    HELLO)
    with pytest.raises(ProviderError):
        talk(too_long)
    assert too_long.opened == 1 and waits == [sdk_base.MAX_WAIT]


def test_a_retry_wait_never_exceeds_the_limit():
    provider = Fake(max_retries=2)
    provider.retry_base = 20.0
    failure = sdk_base.Failure("busy", "wait", retry=True)
    assert [provider._retry_wait(failure, n, []) for n in (1, 2, 3)] == [
        20.0, sdk_base.MAX_WAIT, None]
    assert provider._retry_wait(sdk_base.Failure("no", "x"), 1, []) is None


def test_errors_that_are_already_one_line_or_a_stub_pass_through(waits):
    stub = NotImplementedError("the exercise's stub")
    with pytest.raises(NotImplementedError):
        talk(Fake(stub, HELLO))
    mine = ProviderError("already said")
    with pytest.raises(ProviderError) as failed:
        talk(Fake(mine, HELLO))
    assert failed.value is mine


def test_the_key_never_appears_in_a_note_or_an_error(waits):
    echoed = StatusError(503, f"bad key {KEY}")
    provider = Fake(echoed, StatusError(401, f"rejected {KEY}"))
    with pytest.raises(ProviderError) as failed:
        talk(provider)
    assert provider.notes and all(KEY not in note for note in provider.notes)
    assert KEY not in str(failed.value) and sdk_base.endpoint(Client(
        None, None, 0, 0).base_url) in str(failed.value)


def test_an_answer_that_is_not_an_event_stream_is_not_retried(waits):
    page = Lines(content_type="text/html; charset=utf-8", body=b"<html>login</html>")
    provider = Fake(page, HELLO)
    with pytest.raises(ProviderError):
        talk(provider)
    assert provider.opened == 1 and page.closed
    typed = Lines('data: {"text": "ok"}', "", content_type="text/event-stream; charset=utf-8")
    assert talk(Fake(typed))[-1].text == "ok"


def test_the_wire_view_sees_each_event_before_it_is_assembled(waits):
    provider = Fake(HELLO)
    seen = []
    provider.on_wire_event = lambda kind, data: seen.append((kind, data))
    assert talk(provider)[-1].text == "Hello"
    assert seen == [("chunk", HELLO[0]), ("chunk", HELLO[1])]


# ---------------------------------------------------------------- setting up


def test_the_connect_timeout_is_ten_seconds_or_the_whole_timeout_if_shorter():
    assert Fake(timeout=60)._client.timeout == (60.0, sdk_base.CONNECT_TIMEOUT)
    assert Fake(timeout=4)._client.timeout == (4.0, 4.0)
    assert Fake()._client.max_retries == 0  # the SDK's own retries are off: ours count


def test_the_secrets_are_the_key_and_the_base_url_s_credentials_once_each():
    provider = Fake(base_url="http://me:hunter2hunter2@127.0.0.1:8080/v1?token=tok")
    assert provider.secrets == (KEY, "hunter2hunter2", "tok")
    assert provider.endpoint == "http://127.0.0.1:8080"


# ---------------------------------------------------------------- classifying failures


class ConnectError(Exception):
    pass


class ReadTimeout(Exception):
    pass


def classified(exc, **kwargs):
    return Fake(**kwargs)._failure(exc)


def test_nothing_listening_is_not_retried_and_a_silence_is():
    assert not classified(ConnectError()).retry
    wrapped = ConnectionFailed("connection error")
    wrapped.__cause__ = ConnectError()
    assert not classified(wrapped).retry
    assert classified(ReadTimeout()).retry and classified(TimedOut()).retry
    assert classified(ConnectionFailed("dropped")).retry


def test_ollama_s_port_gets_ollama_s_hint():
    ollama = classified(ConnectError(), base_url="http://127.0.0.1:11434/v1").hint
    other = classified(ConnectError(), base_url="http://127.0.0.1:8080/v1").hint
    assert ollama != other and "ollama" in ollama.lower()


def test_a_transport_error_is_retried_and_a_bug_is_not():
    transport = type("RemoteProtocolError", (Exception,), {"__module__": "httpx._exceptions"})
    assert classified(transport()).retry
    assert not classified(KeyError("slot")).retry
    assert classified(StreamBroke("cut", retry=True)).retry
    assert not classified(StreamBroke("odd shape")).retry


@pytest.mark.parametrize(("status", "retry"), [
    (400, False), (401, False), (403, False), (404, False), (418, False), (429, True),
    (499, False),
    (500, True), (502, True), (503, True), (504, True), (529, True), (599, True)])
def test_which_http_statuses_are_retried(status, retry):
    assert classified(StatusError(status, "something")).retry is retry


def test_a_server_error_that_says_the_request_was_malformed_is_sent_once():
    said = "1 validation error: Field required"
    assert not classified(StatusError(500, said)).retry
    assert not classified(StatusError(400, said)).retry


def test_a_retried_status_carries_the_wait_the_server_asked_for():
    assert classified(StatusError(503, headers={"retry-after": "4"})).wait == 4.0
    assert classified(StatusError(503)).wait is None


def test_the_error_line_says_more_only_after_more_than_one_attempt():
    provider = Fake()
    failure = sdk_base.Failure("busy", "try later")
    once, twice = provider._error(failure, 1, ""), provider._error(failure, 2, "")
    assert str(once) != str(twice) and "2" in str(twice) and "2" not in str(once)
    waited = provider._error(sdk_base.Failure("busy", "try", wait=sdk_base.MAX_WAIT + 10), 1,
                             "")
    assert f"{sdk_base.MAX_WAIT + 10:.0f}" in str(waited)
    at_limit = provider._error(sdk_base.Failure("busy", "try", wait=sdk_base.MAX_WAIT), 1, "")
    assert str(at_limit) == str(provider._error(sdk_base.Failure("busy", "try"), 1, ""))


def test_a_model_check_that_fails_is_one_line():
    provider = Fake()

    def broken():
        raise ConnectError()
    provider._has_model = broken
    with pytest.raises(ProviderError):
        provider.model_available()
    provider._has_model = lambda: True
    assert provider.model_available()


@pytest.mark.parametrize(("status", "names_the_key"), [(401, True), (403, True), (400, False),
                                                       (402, False), (404, False)])
def test_only_a_rejected_key_points_at_the_key_variable(status, names_the_key):
    assert ("FAKE_API_KEY" in classified(StatusError(status, "no")).hint) is names_the_key


def test_a_rate_limit_is_retried_even_when_its_message_reads_like_a_refusal():
    assert classified(StatusError(429, "validation error: slow down")).retry


def test_only_an_sdk_wrapped_error_is_named_by_its_cause():
    plain = KeyError("slot")
    plain.__cause__ = ConnectError()
    assert classified(plain) == classified(KeyError("slot"))
