"""A stand-in for the Anthropic and OpenAI HTTP APIs, on 127.0.0.1 only.

The real SDKs are pointed at it with `base_url`. It answers each request with the next
queued response: a documented SSE event sequence (built by the helpers below), an
HTTP error in the API's own error shape, or a raw page. Every request body is checked
against the documented request shape first (the named rules at the end); a malformed
one is refused with a 400, as the real API refuses it, and the reason is kept in
`violations` so a test can show it.

Faults a real network or server produces can be queued too: a stream cut short (the
connection simply closes: no chunked encoding, so the client cannot tell), a reset
(`reset_after`), a stall (`stall_after`), any raw `data:` line, any event shape.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


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


class FakeAPI:
    """`with FakeAPI("anthropic") as api:` then `api.queue(...)`, `api.base_url`.

    Each FakeAPI starts with nothing queued, requested or refused; the HTTP server under
    it is started once per kind and test process and lent to one FakeAPI at a time
    (`_SERVERS`), because starting and stopping one per test cost more than many tests.
    """

    def __init__(self, kind: str):
        assert kind in ("anthropic", "openai")
        self.kind = kind
        self.responses: list[SSE | HTTPError] = []
        self.requests: list[dict] = []
        self.violations: list[str] = []
        self.models: list[str] = []  # what GET /v1/models lists (for `tao doctor`)
        self.closing = threading.Event()  # wakes a stalled stream when the fake stops
        self._lock = threading.Lock()
        self.server = _SERVERS[kind].pop() if _SERVERS[kind] else _start_server()

    @property
    def base_url(self) -> str:
        """What to pass the SDK as `base_url` (OpenAI's includes /v1)."""
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}" + ("/v1" if self.kind == "openai" else "")

    def queue(self, *responses):
        """Add responses, served one per request in order."""
        self.responses.extend(responses)
        return self

    def __enter__(self):
        self.server.api = self  # connections made from now on are answered by this fake
        return self

    def __exit__(self, *exc):
        self.closing.set()
        self.server.api = None
        _SERVERS[self.kind].append(self.server)

    def next_response(self, body: dict, headers) -> SSE | HTTPError | Page:
        """Record the request, check it, and pick its answer."""
        with self._lock:
            self.requests.append(body)
            problem = (check_anthropic if self.kind == "anthropic" else check_openai)(
                body, headers)
            if problem:
                self.violations.append(problem)
                return invalid_request(self.kind, problem)
            if not self.responses:
                return HTTPError(500, {"error": {"message": "fake API: nothing queued"}})
            return self.responses.pop(0)


_SERVERS: dict[str, list[ThreadingHTTPServer]] = {"anthropic": [], "openai": []}  # idle ones


def _start_server() -> ThreadingHTTPServer:
    """A server on 127.0.0.1 that runs until the test process ends."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.api = None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _Handler(BaseHTTPRequestHandler):
    api: FakeAPI | None

    def setup(self):
        """Bind this connection to the fake in use when it opened, for all its requests."""
        super().setup()
        self.api = self.server.api

    def log_message(self, *args):  # keep test output clean
        """Keep test output clean."""
        pass

    def handle_one_request(self):
        """Serve a request, unless its fake has ended (a client from an earlier test)."""
        if self.api is None or self.api.closing.is_set():
            self.close_connection = True
            return
        super().handle_one_request()

    def do_POST(self):
        """Answer a request with the next queued response."""
        expected = "/v1/messages" if self.api.kind == "anthropic" else "/v1/chat/completions"
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path.split("?")[0] != expected:
            return self._send_json(404, {"error": {"message": f"no route {self.path}"}})
        try:
            body = json.loads(raw)
        except ValueError:
            return self._send_json(400, {"error": {"message": "body is not JSON"}})
        response = self.api.next_response(body, self.headers)
        if isinstance(response, HTTPError):
            return self._send_json(response.status, _echo_key(response.body, self.headers),
                                   response.headers)
        if isinstance(response, Page):
            return self._send_raw(response.status, response.body.encode(),
                                  response.content_type)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.end_headers()
        try:
            self._stream(response)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: fine
        finally:
            response.finished.set()

    def _stream(self, response: SSE):
        """Write the events, with the pauses and faults the response asks for."""
        for n, (event, data) in enumerate(response.events):
            if n == response.reset_after:
                return self._reset()
            if n == response.stall_after:
                self.api.closing.wait(timeout=30)
                return None
            if response.gate is not None and n == response.pause_after:
                response.gate.wait(timeout=5)
            elif response.delay and n:
                time.sleep(response.delay)
            text = data if isinstance(data, str) else json.dumps(data)
            prefix = f"event: {event}\n" if event else ""
            self.wfile.write(f"{prefix}data: {text}\n\n".encode())
            self.wfile.flush()
            response.sent.append(time.perf_counter())
        return None

    def _reset(self):
        """Close with a TCP reset (SO_LINGER 0), as a crashed proxy or a dropped NAT does."""
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        self.connection.close()

    def do_GET(self):
        """GET /v1/models and /v1/models/<name>, for `tao doctor`."""
        models = self.api.models
        if self.api.kind == "openai" and self.path == "/v1/models":
            return self._send_json(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in models]})
        name = self.path.removeprefix("/v1/models/")
        if self.api.kind == "anthropic" and name in models:
            return self._send_json(200, {"type": "model", "id": name, "display_name": name,
                                         "created_at": "2026-01-01T00:00:00Z"})
        self._send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                         "message": f"model: {name}"}})

    def _send_json(self, status, body, headers=None):
        self._send_raw(status, json.dumps(body).encode(), "application/json", headers)

    def _send_raw(self, status, data: bytes, content_type: str, headers=None):
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _echo_key(body: dict, headers) -> dict:
    """The body with `{key}` replaced by the key this request carried."""
    text = json.dumps(body)
    if "{key}" not in text:
        return body
    key = headers.get("x-api-key") or (headers.get("authorization") or "").removeprefix(
        "Bearer ")
    return json.loads(text.replace("{key}", key))


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


# ---------------------------------------------------------------- documented streams


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


# ---------------------------------------------------------------- request checks

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def first_problem(rules, body: dict, headers) -> str | None:
    """The first rule's complaint about this request, or None if every rule passes."""
    for rule in rules:
        problem = rule(body, headers)
        if problem:
            return problem
    return None


# ---- the Messages API's rules, one small function each


def anthropic_key(body, headers):
    """SDK 2.x sends the key as a Bearer token; older clients send x-api-key."""
    bearer = (headers.get("authorization") or "").startswith("Bearer ")
    if not headers.get("x-api-key") and not bearer:
        return "missing API key (x-api-key or Authorization: Bearer)"
    if not headers.get("anthropic-version"):
        return "missing anthropic-version header"


def anthropic_fields(body, headers):
    """Only known top-level fields; model, a positive max_tokens, stream: true."""
    allowed = {"model", "max_tokens", "messages", "system", "tools", "stream", "tool_choice",
               "metadata", "stop_sequences", "temperature", "top_p", "top_k", "thinking"}
    extra = [key for key in body if key not in allowed]
    if extra:
        return f"{extra[0]}: Extra inputs are not permitted"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required (a positive integer)"
    if body.get("stream") is not True:
        return "this fake serves streamed requests only (stream: true)"


def anthropic_system(body, headers):
    """`system` is a string or a list of non-empty text blocks (cache_control ephemeral)."""
    system = body.get("system")
    if system is None or isinstance(system, str):
        return None
    if not isinstance(system, list):
        return "system: must be a string or a list of text blocks"
    for block in system:
        if block.get("type") != "text" or not block.get("text"):
            return "system: text blocks must be non-empty text"
        if "cache_control" in block and block["cache_control"] != {"type": "ephemeral"}:
            return "system.cache_control: type must be ephemeral"


def anthropic_tools(body, headers):
    """Each tool: name, description, input_schema of type object; nothing else."""
    for tool in body.get("tools", []):
        extra = set(tool) - {"name", "description", "input_schema", "cache_control"}
        if extra:
            return f"tools: Extra inputs are not permitted: {sorted(extra)}"
        if not _TOOL_NAME.match(tool.get("name", "")):
            return "tools.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
        if (tool.get("input_schema") or {}).get("type") != "object":
            return "tools.input_schema.type: Input should be 'object'"


def anthropic_tool_choice(body, headers):
    """tool_choice: auto, any, tool (naming one of the tools) or none; only with tools."""
    choice = body.get("tool_choice")
    if choice is None:
        return None
    names = [t.get("name") for t in body.get("tools", [])]
    if choice.get("type") not in ("auto", "any", "tool", "none"):
        return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
    if choice["type"] == "tool" and choice.get("name") not in names:
        return f"tool_choice.name: {choice.get('name')!r} is not one of the tools"
    if choice["type"] != "none" and not names:
        return "tool_choice may only be specified while providing tools"


def anthropic_messages(body, headers):
    """A non-empty list starting with the user; each tool_use answered right after."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    owed: list[str] = []  # tool_use ids the next user turn must answer
    for i, m in enumerate(messages):
        if set(m) != {"role", "content"}:
            return f"messages.{i}: Extra inputs are not permitted ({sorted(set(m))})"
        if m["role"] not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        problem = _anthropic_results(i, m["role"], blocks, owed) or next(
            filter(None, (_check_anthropic_block(i, m["role"], b) for b in blocks)), None)
        if problem:
            return problem
        owed = [b["id"] for b in blocks if b["type"] == "tool_use"]
    if owed:
        return "messages: the last assistant turn's tool_use blocks have no tool_result"


def _anthropic_results(i: int, role: str, blocks: list, owed: list) -> str | None:
    """tool_result blocks answer exactly the previous turn's tool_use ids, first."""
    results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
    if owed:
        if role != "user" or sorted(results) != sorted(owed):
            return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {owed}")
        if [b.get("type") for b in blocks[: len(results)]] != ["tool_result"] * len(results):
            return f"messages.{i}: tool_result blocks must come first in the content"
    elif results:
        return (f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{results}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message.")
    return None


def _check_anthropic_block(i: int, role: str, block: dict) -> str | None:
    """One content block: text, tool_use (assistant only) or tool_result (user only)."""
    kind = block.get("type")
    if kind == "text":
        if set(block) - {"type", "text", "cache_control"}:
            return f"messages.{i}.content: text block has unexpected keys"
        if not isinstance(block.get("text"), str) or not block["text"]:
            return f"messages.{i}: text content blocks must be non-empty"
    elif kind == "tool_use":
        if role != "assistant":
            return f"messages.{i}: tool_use blocks are only allowed in assistant messages"
        if set(block) != {"type", "id", "name", "input"} or not isinstance(block["input"], dict):
            return f"messages.{i}: tool_use needs id, name and an object input"
        if not re.match(r"^[a-zA-Z0-9_-]+$", block["id"]):
            return f"messages.{i}.content.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    elif kind == "tool_result":
        if role != "user":
            return f"messages.{i}: tool_result blocks are only allowed in user messages"
        if set(block) - {"type", "tool_use_id", "content", "is_error", "cache_control"}:
            return f"messages.{i}: tool_result block has unexpected keys"
        if not isinstance(block.get("content", ""), str | list):
            return f"messages.{i}: tool_result content must be a string or blocks"
    else:
        return f"messages.{i}.content: unknown block type {kind!r}"
    return None


ANTHROPIC_RULES = (anthropic_key, anthropic_fields, anthropic_system, anthropic_tools,
                   anthropic_tool_choice, anthropic_messages)


def check_anthropic(body: dict, headers) -> str | None:
    """What the Messages API would refuse in this request, or None."""
    return first_problem(ANTHROPIC_RULES, body, headers)


# ---- Chat Completions' rules, one small function each


def openai_key(body, headers):
    """The key travels as a Bearer token."""
    if not (headers.get("authorization") or "").startswith("Bearer "):
        return "You didn't provide an API key (Authorization: Bearer ...)"


def openai_fields(body, headers):
    """Known fields only; a model; max_completion_tokens for OpenAI's newer models."""
    allowed = {"model", "messages", "stream", "stream_options", "tools", "tool_choice",
               "max_tokens", "max_completion_tokens", "temperature", "parallel_tool_calls"}
    extra = [key for key in body if key not in allowed]
    if extra:
        return f"Unrecognized request argument supplied: {extra[0]}"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    if "max_tokens" in body and re.match(r"^(gpt-5|o\d)", body["model"]):
        return ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.")
    if body.get("stream") is not True:
        return "this fake serves streamed requests only (stream: true)"
    if body.get("stream_options") not in (None, {"include_usage": True},
                                          {"include_usage": False}):
        return "stream_options: unknown shape"


def openai_tools(body, headers):
    """Each tool is {'type': 'function', 'function': {name, description, parameters}}."""
    for tool in body.get("tools", []):
        function = tool.get("function") or {}
        if tool.get("type") != "function" or set(tool) != {"type", "function"}:
            return "tools: each tool must be {'type': 'function', 'function': {...}}"
        if not _TOOL_NAME.match(function.get("name", "")):
            return "tools.function.name: must match '^[a-zA-Z0-9_-]{1,64}$'"
        if set(function) - {"name", "description", "parameters", "strict"}:
            return "tools.function: unexpected keys"


def openai_tool_choice(body, headers):
    """tool_choice: none, auto, required, or one named function among the tools."""
    choice = body.get("tool_choice")
    if choice is None:
        return None
    names = [t["function"]["name"] for t in body.get("tools", [])]
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if not (choice in ("auto", "none", "required") or (
            isinstance(choice, dict) and choice.get("type") == "function" and named)):
        return ("Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or "
                "{'type': 'function', 'function': {'name': ...}}")
    if named is not None and named not in names:
        return f"tool_choice: function {named!r} is not among the tools"
    if choice != "none" and not names:
        return "'tool_choice' is only allowed when 'tools' are specified"


_OPENAI_KEYS = {"system": {"role", "content", "name"}, "user": {"role", "content", "name"},
                "assistant": {"role", "content", "tool_calls", "name", "refusal"},
                "tool": {"role", "content", "tool_call_id"}}


def openai_messages(body, headers):
    """Known roles and keys; every tool_calls id answered by tool messages right after."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: must be a non-empty array"
    owed: list[str] = []  # tool_call ids still owed a tool message
    for i, m in enumerate(messages):
        keys = _OPENAI_KEYS.get(m.get("role"))
        if keys is None:
            return f"messages[{i}].role: invalid value {m.get('role')!r}"
        if set(m) - keys:
            return f"messages[{i}]: Unrecognized keys {sorted(set(m) - keys)}"
        problem = _openai_message(i, m, owed)
        if problem:
            return problem
    if owed:
        return f"messages: tool_calls without responses: {owed}"


def _openai_message(i: int, m: dict, owed: list) -> str | None:
    """One message in order; `owed` tracks the tool_call ids not yet answered."""
    if m["role"] == "tool":
        if m.get("tool_call_id") not in owed:
            return (f"messages[{i}]: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.")
        owed.remove(m["tool_call_id"])
        return None if isinstance(m.get("content"), str) else (
            f"messages[{i}].content: must be a string")
    if owed:
        return (f"messages[{i}]: An assistant message with 'tool_calls' must be followed by "
                f"tool messages responding to each 'tool_call_id'. Missing: {owed}")
    if m["role"] != "assistant":
        return None if isinstance(m.get("content"), str) else (
            f"messages[{i}].content: must be a string")
    calls = m.get("tool_calls")
    if not calls and not (isinstance(m.get("content"), str) and m["content"]):
        return f"messages[{i}]: assistant content is required unless tool_calls is set"
    for call in calls or ():
        if call.get("type") != "function" or not isinstance(call.get("id"), str):
            return f"messages[{i}].tool_calls: each needs an id and type 'function'"
        if len(call["id"]) > 40:
            return (f"Invalid 'messages[{i}].tool_calls[0].id': string too long. "
                    "Expected a string with maximum length 40")
        if not isinstance((call.get("function") or {}).get("arguments"), str):
            return f"messages[{i}].tool_calls.function.arguments: must be a string"
        owed.append(call["id"])
    return None


OPENAI_RULES = (openai_key, openai_fields, openai_tools, openai_tool_choice, openai_messages)


def check_openai(body: dict, headers) -> str | None:
    """What Chat Completions would refuse in this request, or None."""
    return first_problem(OPENAI_RULES, body, headers)
