"""The provider contract every stage talks to, and the records it trades in.

Messages use one provider-neutral shape (flat dicts, OpenAI-like):

    {"role": "user", "content": "..."}
    {"role": "assistant", "content": "...", "tool_calls": [{"id", "name", "args"}]}
    {"role": "tool", "tool_call_id": "...", "name": "...", "content": "..."}

Each SDK-backed provider translates them into its own wire format and back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: JSON Schema for its arguments, `run(args) -> str`."""

    name: str
    description: str
    schema: dict
    run: Callable[[dict], Any]


@dataclass
class ToolCall:
    """One tool call the model asked for; `id` threads the result back to it."""

    id: str
    name: str
    args: dict
    error: str = ""  # set when the arguments arrived broken: the loop reports it as an observation


@dataclass
class Reply:
    """One assembled model turn."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    stop_reason: str = "end_turn"
    usage: dict = field(default_factory=dict)  # {"input_tokens": n, "output_tokens": n}

    def assistant_message(self) -> dict:
        """The reply as an internal-format assistant message, ready to append."""
        message: dict = {"role": "assistant", "content": self.text}
        if self.tool_calls:
            message["tool_calls"] = [
                {"id": c.id, "name": c.name, "args": c.args} for c in self.tool_calls
            ]
        return message


def parse_args(raw: str) -> tuple[dict, str]:
    """Decode streamed tool arguments: (args, "") or ({}, why they were refused)."""
    if not raw.strip():
        return {}, ""  # a call with no arguments streams no JSON at all
    try:
        args = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"the arguments were not valid JSON ({exc.msg}): {raw[:200]!r}"
    except RecursionError:
        return {}, f"the arguments are nested too deeply to read: {raw[:200]!r}"
    if not isinstance(args, dict):
        return {}, f"the arguments must be a JSON object, got: {raw[:200]!r}"
    return args, ""


def tool_calls_from(slots: dict[int, dict]) -> list[ToolCall]:
    """ToolCalls from streamed slots {index: {"id", "name", "json"}}, in index order."""
    calls = []
    for index in sorted(slots):
        slot = slots[index]
        args, error = parse_args(slot["json"])
        calls.append(ToolCall(slot["id"], slot["name"], args, error))
    return calls


class ProviderError(Exception):
    """A failure a learner can act on, already phrased as one line (no key inside)."""


TextCallback = Callable[[str], None] | None


class Provider:
    """Base class: one model behind two entry points.

    `stream` yields text deltas (stages 01-06); `call` runs one turn with tools and
    returns a `Reply`, sending text deltas to `on_text_delta` as they arrive (stage 07).
    """

    name = "provider"
    model = ""

    def stream(self, messages: list[dict], system: str = "") -> Iterator[str]:
        """Yield the reply's text deltas as they arrive."""
        for item in self.turn(messages, system, ()):
            if isinstance(item, str):
                yield item

    def call(
        self,
        messages: list[dict],
        system: str = "",
        tools: Iterable[Tool] = (),
        on_text_delta: TextCallback = None,
    ) -> Reply:
        """Run one model turn; text deltas go to `on_text_delta` live; return the Reply."""
        for item in self.turn(messages, system, tuple(tools)):
            if type(item) is not str:  # the Reply comes last
                return item
            if on_text_delta is not None:
                on_text_delta(item)
        raise ProviderError(f"{self.name}: the reply ended without a result")

    def turn(
        self, messages: list[dict], system: str, tools: tuple[Tool, ...]
    ) -> Iterator[str | Reply]:
        """The one method a provider writes: yield text deltas, then the Reply last."""
        raise NotImplementedError

    def describe(self) -> str:
        """One line for the screen: which model answers."""
        return f"{self.name} ({self.model})" if self.model else self.name


def sdk_error(exc: Exception, *, provider: str, key_var: str, base_url: str | None,
              secrets: Iterable[str | None] = ()) -> ProviderError:
    """Turn an SDK exception (anthropic or openai: same class names) into one clear line."""
    kind = type(exc).__name__
    status = getattr(exc, "status_code", None)
    detail = redact(_server_message(exc), secrets)
    where = base_url or f"the {provider} API"
    if kind in ("APIConnectionError", "APITimeoutError"):
        hint = (
            "is Ollama running? start it with `ollama serve`"
            if provider == "ollama" or ":11434" in (base_url or "")
            else "is the server running and the address right?"
        )
        verb = "timed out talking to" if kind == "APITimeoutError" else "could not reach"
        return ProviderError(f"{provider}: {verb} {where}: {hint}")
    if status == 200:  # the HTTP answer had begun: an error event arrived mid-stream
        return ProviderError(f"{provider}: the stream broke off mid-reply: {detail}")
    if status in (401, 403):
        return ProviderError(
            f"{provider}: the API key was rejected ({status}): set {key_var} to a valid key"
        )
    if status == 404:
        return ProviderError(f"{provider}: not found (404): check the model name ({detail})")
    if status == 429:
        return ProviderError(
            f"{provider}: rate limited (429), still after the SDK's retries: wait and retry"
        )
    if status in (500, 502, 503, 529) or kind == "OverloadedError":
        return ProviderError(
            f"{provider}: the server is overloaded or failing ({status}), still after the "
            f"SDK's retries: try again shortly ({detail})"
        )
    if status is not None:
        return ProviderError(f"{provider}: request refused ({status}): {detail}")
    return ProviderError(f"{provider}: the stream broke off: {detail}")


def _server_message(exc: Exception) -> str:
    """The server's own error message if there is one, else the exception text."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return str(exc) or type(exc).__name__


_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*]{6,}")  # OpenAI and Anthropic keys start sk-


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    """Remove API keys (the given ones, and anything shaped like one) from text."""
    for secret in secrets:
        if secret and len(secret) >= 8:  # real keys are long; never mangle short words
            text = text.replace(secret, "[key hidden]")
    return _KEY_LIKE.sub("[key hidden]", text)
