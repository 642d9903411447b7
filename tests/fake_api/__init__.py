"""A stand-in for the Anthropic and OpenAI HTTP APIs, on 127.0.0.1 only.

The real SDKs are pointed at it with `base_url`. It answers each request with the next
queued response: a documented SSE event sequence, an HTTP error in the API's own error
shape, or a raw page. Every request body is checked against the documented request shape
first; a malformed one is refused with a 400, as the real API refuses it, and the reason
is kept in `violations` so a test can show it.

Three modules, one job each:
- `server`: the HTTP server and `FakeAPI`, which queues responses and records requests;
- `streams`: the responses it can send (`SSE`, `HTTPError`, `Page`) and builders for the
  documented event sequences and error bodies;
- `rules`: the documented request shapes, one small named rule each.

And `sdk`: the two SDKs stood in for in the test's own process (`InProcessSDK`, the
`sdk` fixture of conftest.py), serving the same `SSE` streams with no socket and no SDK.

Faults a real network or server produces can be queued too: a stream cut short (the
connection simply closes: no chunked encoding, so the client cannot tell), a reset
(`reset_after`), a stall (`stall_after`), any raw `data:` line, any event shape.
"""

from .rules import (
    ANTHROPIC_RULES,
    OPENAI_RULES,
    check_anthropic,
    check_openai,
    first_problem,
)
from .server import FakeAPI
from .streams import (
    SSE,
    HTTPError,
    Page,
    anthropic_stream,
    api_error,
    chat_chunk,
    chat_stream,
    invalid_request,
    openai_stream,
)

__all__ = ["ANTHROPIC_RULES", "OPENAI_RULES", "SSE", "FakeAPI", "HTTPError", "Page",
           "anthropic_stream", "api_error", "chat_chunk", "chat_stream", "check_anthropic",
           "check_openai", "first_problem", "invalid_request", "openai_stream"]
