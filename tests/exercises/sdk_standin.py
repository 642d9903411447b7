"""Real providers with a stand-in SDK client, so exercise tests stay fast.

Importing the `anthropic` SDK takes seconds on a small machine, and `tao check` has to
answer in under two. The providers' own tests drive the real SDKs against tests/fake_api;
the exercise tests only need what the SDKs hand the providers: event objects with the
documented fields, in the documented order. `provider(cls, kind, *streams)` builds an
AnthropicProvider or OpenAIProvider (or a learner's subclass) whose client replays one
queued stream per request, records each request and checks it with fake_api's rules.
"""

from __future__ import annotations

from types import SimpleNamespace as Obj

from fake_api import check_anthropic, check_openai

HEADERS = {"anthropic": {"x-api-key": "k", "anthropic-version": "1"},
           "openai": {"authorization": "Bearer k"}}


class StandInError(Exception):
    """What the stand-in raises where the SDK would raise its own error class."""


class Stream(list):
    """A list of events that also works as `with create(...) as stream`."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def anthropic_events(text: list[str], tools=(), stop_reason=None) -> Stream:
    """Messages API stream events: text deltas, then tool_use blocks with JSON fragments."""
    events = [Obj(type="message_start", message=Obj(usage=Obj(input_tokens=10)))]
    blocks = 0
    if text:
        events.append(Obj(type="content_block_start", index=0,
                          content_block=Obj(type="text", text="")))
        events += [Obj(type="content_block_delta", index=0, delta=Obj(type="text_delta", text=t))
                   for t in text]
        events.append(Obj(type="content_block_stop", index=0))
        blocks = 1
    for n, (call_id, name, fragments) in enumerate(tools, start=blocks):
        events.append(Obj(type="content_block_start", index=n,
                          content_block=Obj(type="tool_use", id=call_id, name=name, input={})))
        events += [Obj(type="content_block_delta", index=n,
                       delta=Obj(type="input_json_delta", partial_json=f)) for f in fragments]
        events.append(Obj(type="content_block_stop", index=n))
    stop = stop_reason or ("tool_use" if tools else "end_turn")
    events += [Obj(type="message_delta", delta=Obj(stop_reason=stop), usage=Obj(output_tokens=5)),
               Obj(type="message_stop")]
    return Stream(events)


def openai_chunks(text: list[str], tools=(), finish_reason=None) -> Stream:
    """Chat Completions chunks: content deltas, then tool-call fragments keyed by index."""

    def chunk(delta=None, finish=None, usage=None):
        choices = [] if delta is None else [Obj(delta=delta, finish_reason=finish, index=0)]
        return Obj(choices=choices, usage=usage)

    def delta(content=None, tool_calls=None):
        return Obj(role="assistant", content=content, tool_calls=tool_calls)

    chunks = [chunk(delta(content=t)) for t in text]
    for index, (call_id, name, fragments) in enumerate(tools):
        for n, fragment in enumerate(fragments):
            function = Obj(name=name if n == 0 else None, arguments=fragment)
            chunks.append(chunk(delta(tool_calls=[Obj(index=index, id=call_id if n == 0 else None,
                                                      type="function", function=function)])))
    finish = finish_reason or ("tool_calls" if tools else "stop")
    chunks.append(chunk(delta(), finish))
    chunks.append(chunk(usage=Obj(prompt_tokens=10, completion_tokens=5)))
    return Stream(chunks)


class StandInClient:
    """`client.messages.create` / `client.chat.completions.create`, replaying streams."""

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
    made._key = "stand-in-key"
    made._client = StandInClient(kind, streams)
    made._sdk = Obj(AnthropicError=StandInError, OpenAIError=StandInError)
    return made
