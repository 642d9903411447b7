"""What the SDK-backed providers share: timeouts, retries, one-line errors, reading SSE.

A streamed reply can fail in two places. Before the first byte of the answer (the
server refuses, is overloaded, cannot be reached) the request may be retried, at most
3 attempts and never waiting more than 30 s. Once the answer streams, a failure
ends the turn: the text already shown stays on screen, marked as cut off, and never
enters the history. Either way the learner gets one `ProviderError` line: what
happened, which endpoint (scheme://host:port, no credentials), what to try.
"""

from __future__ import annotations

import email.utils
import json
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from .base import NO_OPTIONS, Options, Provider, ProviderError, Reasoning, Reply, Tool, redact

DEFAULT_TIMEOUT = 60.0  # seconds of silence allowed between two events
CONNECT_TIMEOUT = 10.0  # a server that accepts nothing for this long is not there
MAX_ATTEMPTS = 3
MAX_WAIT = 30.0  # the longest pause before a retry; a server asking for more gets an error


def endpoint(url) -> str:
    """`scheme://host:port` of a URL: no user, password, path or query string."""
    parts = urlsplit(str(url))
    host = parts.hostname or "unknown-host"
    host = f"[{host}]" if ":" in host else host
    try:
        port = parts.port or {"https": 443, "http": 80}.get(parts.scheme)
    except ValueError:  # a port that is not a number
        port = None
    return f"{parts.scheme or 'http'}://{host}" + (f":{port}" if port else "")


def url_secrets(url) -> list[str]:
    """The parts of a URL that may be credentials: its password and query values."""
    parts = urlsplit(str(url or ""))
    return [v for v in [parts.password, *(v for _, v in parse_qsl(parts.query))] if v]


def timeout_from(value: float | None, env=None) -> float:
    """Seconds of silence allowed: the `timeout=` keyword, else TAO_TIMEOUT, else 60."""
    if value is None:
        raw = (os.environ if env is None else env).get("TAO_TIMEOUT", "").strip()
        if not raw:
            return DEFAULT_TIMEOUT
        try:
            value = float(raw)
        except ValueError:
            value = -1.0
        if not 0 < value < 86400:
            raise ProviderError(f"TAO_TIMEOUT={raw!r} is not a number of seconds: set it "
                                "to a positive number such as 60, or unset it")
    if not 0 < value:
        raise ProviderError(f"timeout={value!r}: give a positive number of seconds")
    return float(value)


class StreamBroke(Exception):
    """The answer's event stream ended early or carried something this client cannot read."""

    def __init__(self, what: str, retry: bool = False,
                 hint: str = "try again; if it keeps happening, check the server"):
        super().__init__(what)
        self.what, self.retry, self.hint = what, retry, hint


def sse_data(response) -> Iterator[dict]:
    """Each `data:` payload of a server-sent event stream, decoded from JSON.

    An event is `event: <name>` (optional) and `data: <json>` lines ended by a blank
    line. OpenAI ends its stream with `data: [DONE]`, which is skipped here: the
    reply counts as complete only when the provider has seen its own final event."""
    data: list[str] = []
    for line in response.iter_lines():
        if line.startswith("data:"):
            data.append(line[6:] if line.startswith("data: ") else line[5:])
        elif not line and data:
            payload = "\n".join(data)
            data = []
            if payload == "[DONE]":
                continue
            try:
                yield json.loads(payload)
            except ValueError:
                raise StreamBroke(f"the server sent a line that is not JSON: "
                                  f"{payload[:80]!r}") from None


def split_shown(shown: list[str]) -> tuple[str, str]:
    """(text, reasoning) from the deltas shown so far (reasoning ones are `Reasoning`)."""
    text = "".join(part for part in shown if type(part) is str)
    return text, "".join(part for part in shown if type(part) is Reasoning)


@dataclass
class Failure:
    """A failure, classified: a short name for notes, what to try, whether to retry."""

    what: str
    hint: str
    retry: bool = False
    wait: float | None = None  # how long the server asked us to wait, if it said


def asked_wait(headers) -> float | None:
    """Seconds a `retry-after-ms` or `retry-after` header asks for, or None."""
    headers = headers or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers.get(name)) * scale)
        except (TypeError, ValueError):
            pass
    try:  # retry-after may also be an HTTP date
        when = email.utils.parsedate_to_datetime(headers.get("retry-after"))
        return max(0.0, when.timestamp() - time.time())
    except (TypeError, ValueError):
        return None


def summarize(text: str) -> str:
    """A server's message in one short line: an HTML page becomes its title."""
    if re.search(r"<\s*(!doctype|html|head|body)\b", text, re.IGNORECASE):
        title = re.search(r"<title[^>]*>(.*?)</title>", text, re.IGNORECASE | re.DOTALL)
        text = f"an HTML page ({title.group(1).strip()})" if title else "an HTML page"
    text = " ".join(text.split())
    return text if len(text) <= 200 else text[:197] + "..."


def server_message(exc: Exception) -> str:
    """The server's own error message if there is one, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        return json.dumps(body)  # some servers nest their message deeper
    if isinstance(body, str) and body:
        return body
    return str(exc) or type(exc).__name__


# what a server says when it could not validate a request (pydantic, FastAPI, llama.cpp)
_MALFORMED = re.compile(r"validation error|Input should be|Field required|'loc': \(|"
                        r"\"loc\": \[|invalid_request_error|Invalid '?\w+'? type|"
                        r"Extra inputs are not permitted", re.IGNORECASE)
# one complaint in the str() of a pydantic error list: where, and what it wanted
_COMPLAINT = re.compile(r"'loc': \(([^)]*)\), 'msg': (?:'([^']*)'|\"([^\"]*)\")")


def refused_as_malformed(said: str) -> bool:
    """Whether a server's error message says the request itself was malformed."""
    return bool(_MALFORMED.search(said))


def disliked(said: str) -> str:
    """What a refusal complains about, in one short line: `messages[2].content: Input
    should be a valid string` from a pydantic error list, else the message itself."""
    complaints = []
    for parts, msg in _complaints(said):
        path = ""
        for part in parts:
            if part in ("body", "typed-dict") or part.startswith("function-") or (
                    part[:1].isupper()):  # e.g. ChatCompletionRequestAssistantMessage
                continue  # the request body itself, and pydantic's names for union members
            path += f"[{part}]" if part.isdigit() else (f".{part}" if path else part)
        complaints.append((path, msg))
    # a union of message types fails once per member: the role mismatches say nothing
    useful = [c for c in complaints if not c[0].endswith(".role")] or complaints
    if useful:
        path, msg = useful[0]
        return summarize(f"{path}: {msg}" if path else msg)
    return summarize(said)


def _complaints(said: str) -> list[tuple[list[str], str]]:
    """(location parts, message) of each complaint: FastAPI's JSON `detail` list, or the
    str() of a pydantic error list inside a message."""
    try:
        detail = json.loads(said).get("detail")
    except (ValueError, AttributeError):
        detail = None
    if isinstance(detail, list):
        return [([str(p) for p in d.get("loc", [])], str(d.get("msg", "")))
                for d in detail if isinstance(d, dict)]
    return [([p.strip().strip("'\"") for p in where.split(",") if p.strip()], one or two)
            for where, one, two in _COMPLAINT.findall(said)]


STATUS_FAILURES = {
    429: ("rate limited (429)", "wait a minute and try again"),
    500: ("server error (500)", "the server failed; try again shortly"),
    502: ("bad gateway (502)", "a proxy in between failed; try again shortly"),
    503: ("unavailable (503)", "the server is busy or restarting; try again shortly"),
    504: ("gateway timeout (504)", "the server took too long; try again shortly"),
    529: ("overloaded (529)", "the API is overloaded; try again in a minute"),
}


class SDKProvider(Provider):
    """The shared half of the Anthropic and OpenAI providers: the key, the timeout,
    the retry loop, and turning every failure into one `ProviderError` line.

    A subclass sets `key_var`, builds `request()`, opens the stream in `_open()`
    and assembles its events in `_assemble()`.

    `secrets` lists every string this provider must never show: its API key, and a
    password or query values in its base URL. Every note and error it sends is redacted
    with it (`redact`); anything else that shows what a server said (a trace, the wire
    view) is given the same list."""

    key_var = ""
    retry_base = 1.0  # seconds before the first retry, doubled for each later one

    def _setup(self, sdk, client_class, api_key: str, base_url, timeout, max_retries: int):
        """Build the SDK client with our timeout and our retries (the SDK's are off)."""
        self.timeout = timeout_from(timeout)
        self.attempts = max(1, min(int(max_retries) + 1, MAX_ATTEMPTS))
        self._sdk = sdk
        self._client = client_class(
            api_key=api_key, base_url=base_url, max_retries=0,
            timeout=sdk.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT, self.timeout)))
        self.endpoint = endpoint(self._client.base_url)
        self.secrets = tuple(dict.fromkeys(s for s in (
            api_key, *url_secrets(base_url), *url_secrets(self._client.base_url)) if s))

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Yield deltas and the Reply; retry a failed request while nothing is shown."""
        params = self.with_options(self.request(messages, system, tools), options)
        for attempt in range(1, self.attempts + 1):
            shown: list[str] = []  # what this attempt has put on the screen
            try:
                yield from self._attempt(params, shown)
                return
            except (ProviderError, NotImplementedError):
                # already one line; or an exercise stub inside the provider: "not attempted"
                raise
            except Exception as exc:  # every failure becomes one ProviderError line
                failure = self._failure(exc)
                wait = self._retry_wait(failure, attempt, shown)
                if wait is None:
                    raise self._error(failure, attempt, split_shown(shown)[0]) from None
            # the failure may quote what the server said, a key it echoed included
            self.notice(redact(f"{failure.what}: retrying in {wait:g} s, "
                               f"attempt {attempt + 1} of {self.attempts}", self.secrets))
            time.sleep(wait)

    def with_options(self, params: dict, options: Options) -> dict:
        """`params` (from `request()`) with this call's options in the API's words."""
        raise NotImplementedError

    def _retry_wait(self, failure: Failure, attempt: int, shown: list) -> float | None:
        """Seconds to wait before the next attempt, or None when there is none."""
        if shown or not failure.retry or attempt >= self.attempts:
            return None
        if failure.wait is not None:
            return failure.wait if failure.wait <= MAX_WAIT else None
        return min(self.retry_base * 2 ** (attempt - 1), MAX_WAIT)

    def _attempt(self, params: dict, shown: list) -> Iterator[str | Reply]:
        """One request: open the stream, check it is one, assemble its events."""
        stream = self._open(params)
        response = stream.response
        try:
            kind = response.headers.get("content-type", "").split(";")[0]
            if kind != "text/event-stream":
                body = summarize(response.read().decode("utf-8", "replace"))
                raise StreamBroke(
                    f"the server answered with {kind or 'no content type'}, not an event "
                    f"stream: {body}", hint="check the base URL (an API's usually ends in "
                    "/v1); a proxy or a login page may be answering instead")
            events = sse_data(response)
            if self.on_wire_event is not None:
                events = self._tapped(events)
            yield from self._assemble(events, shown)
        finally:
            response.close()

    def _tapped(self, events: Iterator[dict]) -> Iterator[dict]:
        """The events, each shown to `on_wire_event` first (as `wire_kind` names it)."""
        for data in events:
            self.on_wire_event(self.wire_kind(data), data)
            yield data

    def wire_kind(self, data: dict) -> str:
        """What `on_wire_event` calls this event: OpenAI's chunks have no type."""
        return "chunk"

    def _failure(self, exc: Exception) -> Failure:
        """Classify any exception from a turn (SDK, transport, or stream)."""
        if isinstance(exc, StreamBroke):
            return Failure(exc.what, exc.hint, exc.retry)
        if isinstance(exc, self._sdk.APIStatusError):
            return self._status_failure(exc)
        sdk_wrapped = isinstance(exc, self._sdk.APIConnectionError)
        name = type(exc.__cause__ if sdk_wrapped and exc.__cause__ else exc).__name__
        if name in ("ConnectError", "ConnectTimeout"):
            # a server that is not there will not be there in 3 s either: no retry
            return Failure("could not connect", self._connect_hint())
        if "Timeout" in name or isinstance(exc, self._sdk.APITimeoutError):
            return Failure(f"no data for {self.timeout:g} s", "the server may be overloaded; "
                           "try again, or give it longer with TAO_TIMEOUT=<seconds>", retry=True)
        if sdk_wrapped or type(exc).__module__.split(".")[0].startswith("httpx"):
            return Failure("the connection dropped", "check the network and try again",
                           retry=True)
        return Failure(f"reading the reply failed ({name}: {summarize(str(exc))})",
                       "if it happens again, check any change made to the provider code, "
                       "or report it")

    def _status_failure(self, exc) -> Failure:
        """Classify an HTTP error status the SDK raised."""
        status = exc.status_code
        detail = summarize(server_message(exc))
        if status in (401, 403):
            return Failure(f"the API key was rejected ({status})",
                           f"set {self.key_var} to a valid key")
        if status == 404:
            return Failure(f"not found (404): {detail}",
                           "check the model name and the base URL")
        if status >= 500 and refused_as_malformed(server_message(exc)):
            # some servers answer a request they could not validate with a 5xx: sending
            # it again gets the same answer, so it is sent once
            return Failure(f"request refused ({status}): the server disliked "
                           f"{disliked(server_message(exc))}",
                           "the kit sent a shape this server does not accept: report it, "
                           "with the server's name and version")
        if status in STATUS_FAILURES or status >= 500:
            what, hint = STATUS_FAILURES.get(
                status, (f"server error ({status})", "the server failed; try again shortly"))
            return Failure(what, f"{hint} ({detail})", retry=True,
                           wait=asked_wait(getattr(exc.response, "headers", None)))
        return Failure(f"request refused ({status}): {disliked(server_message(exc))}",
                       "check the model name and the request")

    def _connect_hint(self) -> str:
        """What to try when nothing answers at the endpoint."""
        if self.name == "ollama" or self.endpoint.endswith(":11434"):
            return "is Ollama running? start it with `ollama serve`"
        return "is the server running and the address right?"

    def _error(self, failure: Failure, attempt: int, partial: str) -> ProviderError:
        """The one line a learner sees, with every secret removed."""
        what, hint = failure.what, failure.hint
        if partial:
            what = "the stream broke off mid-reply" + (
                "" if "broke off" in what else f": {what}")
        elif failure.wait is not None and failure.wait > MAX_WAIT:
            what += f", and the server asked to wait {failure.wait:.0f} s before a retry"
            hint = "try again after that wait"
        elif attempt > 1:
            what += f", still after {attempt} attempts"
        line = f"{self.name}: {what} ({self.endpoint}): {hint}"
        return ProviderError(redact(line, self.secrets), partial)

    def model_available(self) -> bool:
        """Whether the server knows this model (one small request; for `tao doctor`)."""
        try:
            return self._has_model()
        except ProviderError:
            raise
        except Exception as exc:
            raise self._error(self._failure(exc), 1, "") from None
