"""The fake API's HTTP server on 127.0.0.1, and `FakeAPI`, the handle a test (or `tao
port-test`) holds: it queues responses, records each request body, and refuses malformed
ones."""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from .rules import FLAVOURS, check_anthropic, check_openai, first_problem
from .streams import SSE, HTTPError, Page, invalid_request


class FakeAPI:
    """`with FakeAPI("anthropic") as api:` then `api.queue(...)`, `api.base_url`.

    Each FakeAPI starts with nothing queued, requested or refused; the HTTP server under
    it is started once per kind and test process and lent to one FakeAPI at a time
    (`_SERVERS`), because starting and stopping one per test cost more than many tests.
    """

    def __init__(self, kind: str, flavour: str | None = None):
        assert kind in ("anthropic", "openai") and (flavour is None or flavour in FLAVOURS)
        self.kind = kind
        self.flavour = flavour  # a real server's own refusals on top (rules.FLAVOURS)
        self.responses: list[SSE | HTTPError] = []
        self.requests: list[dict] = []
        self.violations: list[str] = []
        self.problems: list[str | None] = []  # one per request: why it was refused, or None
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
            self.problems.append(problem)
            if problem:
                self.violations.append(problem)
                return invalid_request(self.kind, problem)
            if self.flavour:
                rules, status = FLAVOURS[self.flavour]
                problem = self.problems[-1] = first_problem(rules, body, headers)
                if problem:
                    self.violations.append(problem)
                    return HTTPError(status, {"error": {
                        "message": problem, "type": "internal_server_error",
                        "param": None, "code": None}})
            if not self.responses:
                return HTTPError(500, {"error": {"message": "fake API: nothing queued"}})
            return self.responses.pop(0)


_SERVERS: dict[str, list[ThreadingHTTPServer]] = {"anthropic": [], "openai": []}  # idle ones


def _start_server() -> ThreadingHTTPServer:
    """A server on 127.0.0.1, on a free port, that runs until `stop_servers` (or the end
    of the process)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.api = None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def stop_servers() -> None:
    """Shut every idle server down and free its port (a program done with the fake: `tao
    port-test`); the next FakeAPI starts a new one."""
    for idle in _SERVERS.values():
        while idle:
            server = idle.pop()
            server.shutdown()
            server.server_close()


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
