"""OpenAI Chat Completions, streamed; with `base_url`, any compatible server (Ollama...).

Top to bottom: the request (`request`, `to_openai`), the stream (`_assemble`, `_read`),
the reply (`usage_from`). What compatible servers do otherwise is in `compat.py`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator

from . import compat
from .base import Options, ProviderError, Reasoning, Reply
from .defaults import DEFAULT_MAX_TOKENS, DEFAULT_MODELS, KEY_VARS, OLLAMA_BASE_URL
from .sanitize import as_text, sendable, usage_counts
from .sdk_base import Failure, SDKProvider, StreamBroke, server_message, split_shown, summarize

# finish_reason -> the stop reasons tao uses everywhere (Anthropic's names)
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


class OpenAIProvider(SDKProvider):
    """Chat Completions, streamed: OpenAI's API, or any server that speaks it."""

    name = "openai"
    key_var = KEY_VARS["openai"]

    def __init__(self, model: str | None = None, *, api_key: str | None = None,
                 base_url: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
                 max_retries: int = 2, name: str = "openai", timeout: float | None = None):
        self.name = name
        self.model = model or DEFAULT_MODELS.get(name, DEFAULT_MODELS["openai"])
        self.max_tokens = max_tokens
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self.include_usage = True  # turned off for the session if the server refuses it
        self.takes_stop = True  # likewise for stop sequences (GPT-5-family models refuse them)
        key = api_key or os.environ.get(self.key_var)
        if not key:
            if not self.base_url:
                raise ProviderError(
                    "openai: OPENAI_API_KEY is not set: export OPENAI_API_KEY=<your key>, set"
                    " OPENAI_BASE_URL for a local server, or use --provider offline|ollama"
                )
            key = "not-needed"  # local servers ignore the key, the SDK wants one
        import openai  # imported here so the offline path never pays for it

        self._setup(openai, openai.OpenAI, key, self.base_url, timeout, max_retries)

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The keyword arguments for `client.chat.completions.create`, in OpenAI's shapes."""
        wire = [{"role": "system", "content": system}] if system else []
        params: dict = {"model": self.model, "messages": wire + to_openai(messages),
                        "stream": True}
        if self.include_usage:
            params["stream_options"] = {"include_usage": True}  # usage in a last chunk
        # the cap on the reply's length, under the name this model's server knows
        params[compat.token_limit_field(self.model)] = self.max_tokens
        if tools:
            params["tools"] = [
                {"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.schema}}
                for t in tools
            ]
        return params

    def with_options(self, params: dict, options: Options) -> dict:
        """`params` with this call's options in OpenAI's words."""
        params = dict(params)
        if options.max_tokens:
            params[compat.token_limit_field(self.model)] = options.max_tokens
        if options.tool_choice and params.get("tools"):
            params["tool_choice"] = openai_tool_choice(options.tool_choice)
        if options.stop and self.takes_stop:
            params["stop"] = list(options.stop)
        return params

    def _open(self, params: dict):
        """Send the request; a field the server refuses it for (`compat.refused_field`)
        goes once more without, and later turns leave it out from the start."""
        try:
            return self._client.chat.completions.create(**params)
        except self._sdk.APIStatusError as exc:
            refused = compat.refused_field(exc.status_code, server_message(exc), params)
            if refused is None:
                raise
        del params[refused]  # the attempts left in this turn go without it too
        if refused == "stop":
            self.takes_stop = False
            self.notice(f"{self.model} refuses stop sequences: sent without them")
        else:
            self.include_usage = False
        return self._open(params)

    def _assemble(self, chunks, shown: list) -> Iterator[str | Reply]:
        """Chat Completions chunks -> text deltas, then the Reply; complete only once a
        choice has carried a finish_reason."""
        reply, calls = Reply(), compat.ToolCallAssembler()
        try:
            finish, refused = yield from self._read(chunks, reply, calls, shown)
        except (KeyError, TypeError, AttributeError) as exc:
            raise StreamBroke(f"the server sent a chunk of an unexpected shape "
                              f"({type(exc).__name__}: {exc})") from None
        if finish is None:
            raise StreamBroke("the stream broke off before the reply was complete",
                              retry=True)
        reply.text, reply.reasoning = split_shown(shown)
        reply.usage = compat.reported(reply.usage)
        reply.tool_calls = calls.calls()
        reply.stop_reason = "refusal" if refused else STOP_REASONS.get(finish, finish)
        compat.tool_use_after_stop(reply)
        yield reply

    def _read(self, chunks, reply: Reply, calls, shown: list):
        """Walk the chunks into `reply`, `calls` and `shown`, yielding the deltas; return
        the finish_reason (None if none came) and whether the model refused."""
        finish, refused = None, False
        for chunk in chunks:
            if chunk.get("error"):  # a server-side error can end the body early
                raise StreamBroke(f"the server reported an error in the stream: "
                                  f"{summarize(str(error_text(chunk['error'])))}", retry=True)
            if chunk.get("usage"):  # on its own chunk, or (some servers) the last one
                reply.usage = usage_from(chunk["usage"])
            for choice in (chunk.get("choices") or ())[:1]:
                delta = choice.get("delta") or {}
                content, thought = compat.text_and_thought(delta)
                if thought:  # reasoning models think aloud in their own field
                    shown.append(Reasoning(thought))
                    yield shown[-1]
                if content:
                    shown.append(content + "")  # text, or a TypeError: a wrong shape
                    yield content
                refusal = delta.get("refusal")
                if refusal:  # the model declined: its words are the answer shown
                    shown.append(refusal + "")
                    refused = True
                    yield refusal
                for fragment in delta.get("tool_calls") or ():
                    calls.add(fragment)
                if choice.get("finish_reason"):  # as text, whatever shape it came in
                    finish = as_text(choice["finish_reason"])
        return finish, refused

    def _status_failure(self, exc) -> Failure:
        """As for any server, unless it is old llama.cpp refusing tools with streaming."""
        return (compat.cannot_stream_tools(exc.status_code, server_message(exc))
                or super()._status_failure(exc))

    def _has_model(self) -> bool:
        """Whether the server lists this model."""
        return compat.lists_model({m.id for m in self._client.models.list()}, self.model)


def to_openai(messages: list[dict]) -> list[dict]:
    """Internal messages -> Chat Completions messages (arguments travel as JSON strings)."""
    out: list[dict] = []
    for m in sendable(messages):  # whatever came back before, a request the API accepts
        role = m["role"]
        if role == "assistant":
            if not m.get("content") and not m.get("tool_calls"):
                continue  # an empty assistant turn is refused by the API: leave it out
            # a turn of tool calls with no text carries "", not null: the one shape
            # OpenAI, llama.cpp, llama-cpp-python, Ollama and vLLM all accept
            wire: dict = {"role": "assistant", "content": m.get("content") or ""}
            if m.get("tool_calls"):
                wire["tool_calls"] = [
                    {"id": c["id"], "type": "function", "function": {
                        "name": c["name"], "arguments": json.dumps(c.get("args") or {})}}
                    for c in m["tool_calls"]
                ]
            out.append(wire)
        elif role == "tool":
            # tool_call_id must echo the id of the call this answers
            out.append({"role": "tool", "tool_call_id": m["tool_call_id"],
                        "content": str(m.get("content", ""))})
        elif role == "user":
            out.append({"role": "user", "content": m["content"]})
        else:
            raise ProviderError(f"{role!r} is not a message role tao knows")
    return out


def openai_tool_choice(choice: str) -> str | dict:
    """tao's tool_choice ("auto", "none", "required", a tool's name) in OpenAI's shape."""
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def error_text(error) -> str:
    """The message inside a mid-stream `error` payload, whatever its shape."""
    return error.get("message", error) if isinstance(error, dict) else error


def usage_from(usage) -> dict:
    """OpenAI's usage counts under the names and meanings tao uses (Anthropic's), whole
    numbers only (a count a server sent as anything else is left out). OpenAI's
    `prompt_tokens` includes the part read from its cache; Anthropic's `input_tokens`
    does not, so the cached part moves to `cache_read_input_tokens` alone."""
    if not isinstance(usage, dict):
        return {}
    details = usage.get("prompt_tokens_details")
    counted = usage_counts({
        "input_tokens": usage.get("prompt_tokens"),
        "output_tokens": usage.get("completion_tokens"),
        # OpenAI caches long prompts by itself, and says how much it read
        "cache_read_input_tokens": details.get("cached_tokens") if isinstance(
            details, dict) else None})
    if not counted.get("cache_read_input_tokens"):
        counted.pop("cache_read_input_tokens", None)
    elif "input_tokens" in counted:
        counted["input_tokens"] = max(0, counted["input_tokens"]
                                      - counted["cache_read_input_tokens"])
    return counted


def ollama(model: str | None = None, **kwargs) -> OpenAIProvider:
    """The `ollama` preset: OpenAIProvider pointed at a local Ollama server."""
    kwargs.setdefault("base_url", os.environ.get("OLLAMA_BASE_URL", OLLAMA_BASE_URL))
    return OpenAIProvider(model, name="ollama", **kwargs)
