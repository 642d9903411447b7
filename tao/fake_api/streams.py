"""What the fake API can answer: a stream, an error, a raw page; and builders for the
documented event sequences and error bodies of both APIs."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field


@dataclass
class SSE:
    """A streamed 200 response: (event name or None, data) pairs.

    With `gate`, the server sends `pause_after` events, then waits for the gate; with
    `delay`, it sleeps that long between events. `reset_after=n` resets the connection
    (TCP RST) after n events; `stall_after=n` goes silent after n events until the fake
    shuts down. `sent` records when each event left (perf_counter), and `finished` is
    set once the last one has."""

    events: list[tuple[str | None, object]]
    pause_after: int | None = None
    gate: threading.Event | None = None
    delay: float = 0.0
    reset_after: int | None = None
    stall_after: int | None = None
    sent: list[float] = field(default_factory=list)
    finished: threading.Event = field(default_factory=threading.Event)


@dataclass
class HTTPError:
    """An error answer: status, JSON body, extra headers. The text `{key}` anywhere in
    the body is replaced by the API key the request carried (a server echoing it)."""

    status: int
    body: dict
    headers: dict = field(default_factory=dict)


@dataclass
class Page:
    """A raw answer that is not an event stream, e.g. a proxy's HTML page with 200."""

    status: int
    body: str
    content_type: str = "text/html; charset=utf-8"


def invalid_request(kind: str, message: str) -> HTTPError:
    """The 400 the API sends for a request it refuses, in its own error shape."""
    if kind == "anthropic":
        return HTTPError(400, {"type": "error", "error": {
            "type": "invalid_request_error", "message": message}})
    return HTTPError(400, {"error": {"message": message, "type": "invalid_request_error",
                                     "param": None, "code": None}})


def api_error(kind: str, status: int) -> HTTPError:
    """The error a real API sends for this status (retry hints kept short for tests)."""
    names = {401: "authentication_error", 429: "rate_limit_error", 500: "api_error",
             529: "overloaded_error"}
    message = {401: "invalid x-api-key", 429: "Number of requests has exceeded your rate limit",
               500: "Internal server error", 529: "Overloaded"}[status]
    retry = {"retry-after-ms": "5"} if status in (429, 500, 529) else {}
    if kind == "anthropic":
        body = {"type": "error", "error": {"type": names[status], "message": message}}
    else:
        if status == 401:
            message = "Incorrect API key provided: sk-test-************cret."
        body = {"error": {"message": message, "type": names[status], "param": None,
                          "code": None}}
    return HTTPError(status, body, retry)



def anthropic_stream(text_parts=(), tools=(), stop_reason=None, usage=(25, 12),
                     error_after=None) -> SSE:
    """Messages API events: message_start, one content block per text/tool_use (the
    tool's input streamed as input_json_delta fragments), message_delta, message_stop.

    `tools` holds (id, name, [json fragments]); `error_after=n` sends an `error` event
    after n events instead of finishing."""
    events: list = [("message_start", {"type": "message_start", "message": {
        "id": "msg_fake01", "type": "message", "role": "assistant", "content": [],
        "model": "claude-fake", "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": usage[0], "output_tokens": 1}}})]
    index = 0
    if text_parts:
        events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
        events.append(("ping", {"type": "ping"}))
        for part in text_parts:
            events.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                   "delta": {"type": "text_delta", "text": part}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
        index = 1
    for tool_id, name, fragments in tools:
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "tool_use", "id": tool_id,
                                                                 "name": name, "input": {}}}))
        for fragment in fragments:
            events.append(("content_block_delta", {
                "type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": fragment}}))
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        index += 1
    stop = stop_reason or ("tool_use" if tools else "end_turn")
    events.append(("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": usage[1]}}))
    events.append(("message_stop", {"type": "message_stop"}))
    if error_after is not None:
        events = events[:error_after] + [("error", {"type": "error", "error": {
            "type": "overloaded_error", "message": "Overloaded"}})]
    return SSE(events)


def openai_stream(text_parts=(), tools=(), finish_reason=None, usage=(25, 12),
                  error_after=None) -> SSE:
    """Chat Completions chunks: a role chunk, content deltas, tool-call fragments keyed
    by index (id and name in the first), a finish chunk, the usage chunk with empty
    `choices` (stream_options.include_usage), then [DONE]."""

    def chunk(delta, finish=None):
        """One chunk with one choice."""
        return (None, {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                       "created": 1767225600, "model": "gpt-fake",
                       "choices": [{"index": 0, "delta": delta, "logprobs": None,
                                    "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": part}) for part in text_parts]
    for index, (call_id, name, fragments) in enumerate(tools):
        events.append(chunk({"tool_calls": [{"index": index, "id": call_id, "type": "function",
                                             "function": {"name": name, "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": f}}]})
                   for f in fragments]
    events.append(chunk({}, finish_reason or ("tool_calls" if tools else "stop")))
    events.append((None, {"id": "chatcmpl-fake", "object": "chat.completion.chunk",
                          "created": 1767225600, "model": "gpt-fake", "choices": [],
                          "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                    "total_tokens": sum(usage)}}))
    if error_after is not None:
        events = events[:error_after] + [(None, {"error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error"}})]
    events.append((None, "[DONE]"))
    return SSE(events)


def chat_chunk(delta: dict | None = None, finish: str | None = None, **extra) -> tuple:
    """One Chat Completions chunk for a hand-built stream; `extra` adds or replaces
    top-level keys (e.g. `usage=`, or `choices=` for a wrong shape)."""
    choice = {"index": 0, "delta": {} if delta is None else delta, "finish_reason": finish}
    body = {"id": "chatcmpl-compat", "object": "chat.completion.chunk",
            "created": 1767225600, "model": "compat-model", "choices": [choice]}
    body.update(extra)
    return (None, body)


def chat_stream(*chunks, done: bool = True) -> SSE:
    """The given chunks, then `data: [DONE]` unless `done=False`."""
    return SSE(list(chunks) + ([(None, "[DONE]")] if done else []))
