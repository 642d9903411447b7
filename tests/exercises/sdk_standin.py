"""Real providers with a stand-in SDK client, so exercise tests stay fast.

Importing the `anthropic` SDK takes seconds on a small machine, and `tao check` has to
answer in under two. The providers' own tests drive the real SDKs against tests/fake_api;
the exercise tests only need what the SDKs hand the providers: an HTTP response whose
body is the documented server-sent events, in the documented order. The providers read
those `data:` lines themselves (shared/providers/sdk_base.py), so the stand-in serves them as
text and the providers' real parsing and assembly run. `provider(cls, kind, *streams)`
builds an AnthropicProvider or OpenAIProvider (or a learner's subclass) whose client
replays one queued stream per request, records each request and checks it with
fake_api's rules. Events are plain dicts, as they are on the wire.
"""

from __future__ import annotations

import json
from types import SimpleNamespace as Obj

from fake_api import check_anthropic, check_openai

HEADERS = {"anthropic": {"x-api-key": "k", "anthropic-version": "1"},
           "openai": {"authorization": "Bearer k"}}


class StandInError(Exception):
    """The API's refusal of a request, where the SDK would raise its status error."""

    status_code = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.body = {"error": {"message": message}}
        self.response = Obj(headers={})


class StandInConnectionError(Exception):
    """Stands in for the SDKs' APIConnectionError (never raised here)."""


class StandInTimeout(StandInConnectionError):
    """Stands in for the SDKs' APITimeoutError (never raised here)."""


SDK = Obj(Timeout=lambda *args, **kwargs: None, APIStatusError=StandInError,
          APIConnectionError=StandInConnectionError, APITimeoutError=StandInTimeout)


class Stream(list):
    """The events of one reply (dicts), served as a server-sent event response."""

    kind = "anthropic"

    @property
    def response(self):
        """What the SDK's streamed response offers the provider: headers and lines."""
        return Obj(headers={"content-type": "text/event-stream"},
                   iter_lines=self.lines, close=lambda: None, read=lambda: b"")

    def lines(self):
        """The SSE lines: `event:` (Anthropic only) and `data:`, a blank line after each."""
        for event in self:
            if self.kind == "anthropic":
                yield f"event: {event['type']}"
            yield "data: " + json.dumps(event)
            yield ""
        if self.kind == "openai":
            yield "data: [DONE]"
            yield ""


def anthropic_events(text: list[str], tools=(), stop_reason=None) -> Stream:
    """Messages API stream events: text deltas, then tool_use blocks with JSON fragments."""
    events = [{"type": "message_start", "message": {
        "id": "msg_1", "type": "message", "role": "assistant", "content": [],
        "model": "stand-in-model", "stop_reason": None,
        "usage": {"input_tokens": 10, "output_tokens": 1}}}]
    blocks = 0
    if text:
        events.append({"type": "content_block_start", "index": 0,
                       "content_block": {"type": "text", "text": ""}})
        events += [{"type": "content_block_delta", "index": 0,
                    "delta": {"type": "text_delta", "text": t}} for t in text]
        events.append({"type": "content_block_stop", "index": 0})
        blocks = 1
    for n, (call_id, name, fragments) in enumerate(tools, start=blocks):
        events.append({"type": "content_block_start", "index": n, "content_block": {
            "type": "tool_use", "id": call_id, "name": name, "input": {}}})
        events += [{"type": "content_block_delta", "index": n,
                    "delta": {"type": "input_json_delta", "partial_json": f}}
                   for f in fragments]
        events.append({"type": "content_block_stop", "index": n})
    stop = stop_reason or ("tool_use" if tools else "end_turn")
    events += [{"type": "message_delta", "delta": {"stop_reason": stop},
                "usage": {"output_tokens": 5}},
               {"type": "message_stop"}]
    return Stream(events)


def openai_chunks(text: list[str], tools=(), finish_reason=None) -> Stream:
    """Chat Completions chunks: content deltas, then tool-call fragments keyed by index."""

    def chunk(delta=None, finish=None, usage=None):
        choices = [] if delta is None else [
            {"index": 0, "delta": delta, "finish_reason": finish}]
        return {"id": "chatcmpl-1", "object": "chat.completion.chunk",
                "model": "stand-in-model", "choices": choices, "usage": usage}

    chunks = [chunk({"role": "assistant", "content": t}) for t in text]
    for index, (call_id, name, fragments) in enumerate(tools):
        for n, fragment in enumerate(fragments):
            call = {"index": index, "function": {"arguments": fragment}}
            if n == 0:  # only a call's first fragment carries its id and name
                call.update(id=call_id, type="function")
                call["function"]["name"] = name
            chunks.append(chunk({"tool_calls": [call]}))
    finish = finish_reason or ("tool_calls" if tools else "stop")
    chunks.append(chunk({}, finish))
    chunks.append(chunk(usage={"prompt_tokens": 10, "completion_tokens": 5,
                               "total_tokens": 15}))
    stream = Stream(chunks)
    stream.kind = "openai"
    return stream


class StandInClient:
    """`client.messages.create` / `client.chat.completions.create`, replaying streams."""

    base_url = "http://stand-in.invalid/v1/"

    def __init__(self, kind: str, streams):
        self.kind, self.streams = kind, list(streams)
        self.requests: list[dict] = []
        self.violations: list[str] = []
        self.on_request = None  # a test's look at the world while a request is in flight
        self.messages = Obj(create=self.create)
        self.chat = Obj(completions=Obj(create=self.create))

    def create(self, **params):
        """Record and check the request, then hand back the next queued stream."""
        self.requests.append(params)
        if self.on_request is not None:
            self.on_request(params)
        check = check_anthropic if self.kind == "anthropic" else check_openai
        problem = check(params, HEADERS[self.kind])
        if problem:
            self.violations.append(problem)
            raise StandInError(f"the API would refuse this request: {problem}")
        if not self.streams:
            raise StandInError("stand-in API: no reply queued for this request")
        return self.streams.pop(0)


def provider(cls, kind: str, *streams):
    """An instance of `cls` (a provider class or a subclass) on a stand-in client."""
    made = cls.__new__(cls)
    made.model, made.max_tokens, made.base_url = "stand-in-model", 1024, None
    made.include_usage = True  # what OpenAIProvider.__init__ sets
    if kind == "openai":
        made.name = "openai"
    client = StandInClient(kind, streams)
    # private on purpose: the SDK's client is swapped for the stand-in here
    made._setup(SDK, lambda **settings: client, "stand-in-key", None, None, 0)
    return made
