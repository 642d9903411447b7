"""The two SDKs, as far as the providers use them, answered in this process.

`InProcessSDK(monkeypatch)` stands in for both `anthropic` and `openai` in `sys.modules`
for one test, so a provider built then is the real provider class on a stand-in client.
Each `messages.create(**params)` or `chat.completions.create(**params)` is kept in
`requests` and answered with the next queued response: an `SSE` (read back as the lines
the fake server writes for it), a `Page`, or an exception to raise; the SDKs' error
classes are stand-ins too (`APIStatusError(503, "busy")`). No socket and no real SDK: a
test of what a provider makes of an event or a refusal costs no SDK import (seconds),
which keeps it off the SDK worker and the provider modules' mutation runs quick. What
the real SDKs and the HTTP fake add is tested with `FakeAPI`.
"""

from __future__ import annotations

import json
import sys
import types
from types import SimpleNamespace

from .streams import SSE, Page


class APIStatusError(Exception):
    """An HTTP error status as the SDKs raise it: `status_code`, `body`, and the
    response's `headers`."""

    def __init__(self, status: int, message: str = "", headers: dict | None = None,
                 body=None):
        super().__init__(message)
        self.status_code = status
        self.body = {"error": {"message": message}} if body is None else body
        self.response = SimpleNamespace(headers=headers or {})


class NotFoundError(APIStatusError):
    """404: an unknown model, say."""

    def __init__(self, message: str = ""):
        super().__init__(404, message)


class APIConnectionError(Exception):
    """The connection failed; the transport's own error is its `__cause__`."""


class APITimeoutError(APIConnectionError):
    """No data within the timeout."""


class Response:
    """The HTTP response a stream reads: its headers, its lines, `read()`, `close()`."""

    def __init__(self, lines: list[str], content_type: str = "text/event-stream",
                 body: bytes = b""):
        self.lines, self.body, self.closed = lines, body, False
        self.headers = {"content-type": content_type}

    def iter_lines(self):
        return iter(self.lines)

    def read(self) -> bytes:
        return self.body

    def close(self) -> None:
        self.closed = True


def sse_lines(sse: SSE) -> list[str]:
    """The lines of `sse` as the fake server writes them: `event:`, `data:`, a blank."""
    lines = []
    for event, data in sse.events:
        lines += [f"event: {event}"] if event else []
        lines += [f"data: {data if isinstance(data, str) else json.dumps(data)}", ""]
    return lines


class Client:
    """`anthropic.Anthropic(...)` or `openai.OpenAI(...)`: what the providers call on it."""

    def __init__(self, sdk: InProcessSDK, default_url: str, *, api_key: str,
                 base_url=None, max_retries: int = 2, timeout=None):
        self.api_key, self.max_retries, self.timeout = api_key, max_retries, timeout
        self.base_url = base_url or default_url
        self.messages = SimpleNamespace(create=sdk.answer)
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=sdk.answer))
        self.models = SimpleNamespace(list=sdk.list_models, retrieve=sdk.retrieve_model)
        sdk.clients.append(self)


class InProcessSDK:
    """Both SDKs for one test; `queue()` what the next requests get."""

    APIStatusError, NotFoundError = APIStatusError, NotFoundError
    APIConnectionError, APITimeoutError = APIConnectionError, APITimeoutError

    def __init__(self, monkeypatch):
        self.requests: list[dict] = []
        self.responses: list = []
        self.clients: list[Client] = []
        self.models: list[str] | BaseException = []  # what the server lists, or raises
        self.response: Response | None = None  # the last stream served
        module = types.ModuleType("sdk_stand_in")
        module.Anthropic = lambda **kwargs: Client(self, "https://api.anthropic.com", **kwargs)
        module.OpenAI = lambda **kwargs: Client(self, "https://api.openai.com/v1", **kwargs)
        module.Timeout = lambda total, connect=None: (total, connect)
        for cls in (APIStatusError, NotFoundError, APIConnectionError, APITimeoutError):
            setattr(module, cls.__name__, cls)
        for name in ("anthropic", "openai"):
            monkeypatch.setitem(sys.modules, name, module)

    def queue(self, *responses) -> InProcessSDK:
        """Add responses (SSE, Page, or an exception), one per request in order."""
        self.responses.extend(responses)
        return self

    def answer(self, **params):
        """`create(**params)`: keep the request, raise or serve the next response."""
        self.requests.append(params)
        response = self.responses.pop(0)
        if isinstance(response, BaseException):
            raise response
        if isinstance(response, Page):  # its body read as lines, whatever its type says
            self.response = Response(response.body.splitlines(), response.content_type,
                                     response.body.encode())
        else:
            self.response = Response(sse_lines(response))
        return SimpleNamespace(response=self.response)

    def list_models(self):
        """`models.list()`: the models this server has, each with its `id`."""
        if isinstance(self.models, BaseException):
            raise self.models
        return [SimpleNamespace(id=model) for model in self.models]

    def retrieve_model(self, model: str):
        """`models.retrieve(model)`, or NotFoundError for a model it does not have."""
        known = {m.id for m in self.list_models()}
        if model not in known:
            raise NotFoundError(f"model: {model}")
        return SimpleNamespace(id=model)
