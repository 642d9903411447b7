"""OpenAI Chat Completions, streamed; with `base_url`, any compatible server (Ollama...)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

from .base import Provider, ProviderError, Reply, Tool, sdk_error, tool_calls_from
from .defaults import DEFAULT_MAX_TOKENS, DEFAULT_MODELS, KEY_VARS, OLLAMA_BASE_URL

# finish_reason -> the stop reasons tao uses everywhere (Anthropic's names)
STOP_REASONS = {"stop": "end_turn", "tool_calls": "tool_use", "length": "max_tokens"}


class OpenAIProvider(Provider):
    name = "openai"

    def __init__(self, model: str | None = None, *, api_key: str | None = None,
                 base_url: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
                 max_retries: int = 2, name: str = "openai"):
        self.name = name
        self.model = model or DEFAULT_MODELS.get(name, DEFAULT_MODELS["openai"])
        self.max_tokens = max_tokens
        self.base_url = base_url or os.environ.get("OPENAI_BASE_URL") or None
        self._key = api_key or os.environ.get(KEY_VARS["openai"])
        if not self._key:
            if not self.base_url:
                raise ProviderError(
                    "openai: OPENAI_API_KEY is not set: export OPENAI_API_KEY=<your key>, set"
                    " OPENAI_BASE_URL for a local server, or use --provider offline|ollama"
                )
            self._key = "not-needed"  # local servers ignore the key, the SDK wants one
        import openai  # imported here so the offline path never pays for it

        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=self._key, base_url=self.base_url, max_retries=max_retries
        )

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The keyword arguments for `client.chat.completions.create`, in OpenAI's shapes."""
        wire = [{"role": "system", "content": system}] if system else []
        params: dict = {
            "model": self.model,
            "messages": wire + to_openai(messages),
            "stream": True,
            "stream_options": {"include_usage": True},  # usage arrives in a last chunk
        }
        # OpenAI's own models want max_completion_tokens (its reasoning models refuse
        # max_tokens); compatible servers running other models know max_tokens
        openai_model = re.match(r"(gpt-|o\d|chatgpt)", self.model)
        params["max_completion_tokens" if openai_model else "max_tokens"] = self.max_tokens
        if tools:
            params["tools"] = [
                {"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.schema}}
                for t in tools
            ]
        return params

    def turn(self, messages, system, tools: tuple[Tool, ...]) -> Iterator[str | Reply]:
        params = self.request(messages, system, tools)
        reply, text = Reply(), []
        calls: dict[int, dict] = {}  # tool-call fragments arrive keyed by index
        try:
            for chunk in self._client.chat.completions.create(**params):
                if chunk.usage:
                    reply.usage = {"input_tokens": chunk.usage.prompt_tokens,
                                   "output_tokens": chunk.usage.completion_tokens}
                if not chunk.choices:  # the usage-only chunk has no choices
                    continue
                choice = chunk.choices[0]
                delta = choice.delta
                if delta.content:
                    text.append(delta.content)
                    yield delta.content
                for frag in delta.tool_calls or ():
                    call = calls.setdefault(frag.index, {"id": "", "name": "", "json": ""})
                    if frag.id:
                        call["id"] = frag.id
                    if frag.function and frag.function.name:
                        call["name"] = frag.function.name
                    if frag.function and frag.function.arguments:
                        call["json"] += frag.function.arguments
                if choice.finish_reason:
                    reply.stop_reason = STOP_REASONS.get(choice.finish_reason,
                                                         choice.finish_reason)
        except self._sdk.OpenAIError as exc:
            raise self._error(exc) from None
        reply.text = "".join(text)
        reply.tool_calls = tool_calls_from(calls)
        yield reply

    def model_available(self) -> bool:
        """Whether the server lists this model (for `tao doctor`)."""
        try:
            ids = {m.id for m in self._client.models.list()}
        except self._sdk.OpenAIError as exc:
            raise self._error(exc) from None
        return self.model in ids or f"{self.model}:latest" in ids  # Ollama adds :latest

    def _error(self, exc: Exception) -> ProviderError:
        return sdk_error(exc, provider=self.name, key_var=KEY_VARS["openai"],
                         base_url=self.base_url, secrets=[self._key])


def ollama(model: str | None = None, **kwargs) -> OpenAIProvider:
    """The `ollama` preset: OpenAIProvider pointed at a local Ollama server."""
    kwargs.setdefault("base_url", os.environ.get("OLLAMA_BASE_URL", OLLAMA_BASE_URL))
    return OpenAIProvider(model, name="ollama", **kwargs)


def to_openai(messages: list[dict]) -> list[dict]:
    """Internal messages -> Chat Completions messages (arguments travel as JSON strings)."""
    out: list[dict] = []
    for m in messages:
        role = m["role"]
        if role == "assistant":
            if not m.get("content") and not m.get("tool_calls"):
                continue  # an empty assistant turn is refused by the API: leave it out
            wire: dict = {"role": "assistant", "content": m.get("content") or None}
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
