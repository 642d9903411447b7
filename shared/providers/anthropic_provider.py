"""Anthropic's Messages API, streamed, behind the tao Provider contract."""

from __future__ import annotations

import os
from collections.abc import Iterator

from .base import Provider, ProviderError, Reply, Tool, sdk_error, tool_calls_from
from .defaults import DEFAULT_MAX_TOKENS, DEFAULT_MODELS, KEY_VARS

# Anthropic's stop reasons are the names tao uses everywhere, so they pass through.


class AnthropicProvider(Provider):
    name = "anthropic"

    def __init__(self, model: str | None = None, *, api_key: str | None = None,
                 base_url: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
                 max_retries: int = 2):
        self.model = model or DEFAULT_MODELS["anthropic"]
        self.max_tokens = max_tokens
        self.base_url = base_url
        self._key = api_key or os.environ.get(KEY_VARS["anthropic"])
        if not self._key:
            raise ProviderError(
                "anthropic: ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=<your key>,"
                " or pick another provider with --provider offline|openai|ollama"
            )
        import anthropic  # imported here so the offline path never pays for it

        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=self._key, base_url=base_url, max_retries=max_retries
        )

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The keyword arguments for `client.messages.create`, in Anthropic's shapes."""
        params: dict = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": to_anthropic(messages),
            "stream": True,
        }
        if system:
            # the system prompt (and the tools before it) is the same every turn:
            # mark it cacheable so later turns are read from the prompt cache
            params["system"] = [
                {"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}
            ]
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.schema}
                for t in tools
            ]
        return params

    def turn(self, messages, system, tools: tuple[Tool, ...]) -> Iterator[str | Reply]:
        params = self.request(messages, system, tools)
        reply, text = Reply(), []
        blocks: dict[int, dict] = {}  # content block index -> tool_use being assembled
        try:
            # the raw event stream: the messages.stream() helper would also parse each
            # tool's input itself, and raise a bare ValueError on JSON it cannot read
            with self._client.messages.create(**params) as stream:
                for event in stream:
                    kind = event.type
                    if kind == "content_block_delta":
                        delta = event.delta
                        if delta.type == "text_delta":
                            text.append(delta.text)
                            yield delta.text
                        elif delta.type == "input_json_delta":
                            blocks[event.index]["json"] += delta.partial_json
                    elif kind == "content_block_start":
                        block = event.content_block
                        if block.type == "tool_use":
                            blocks[event.index] = {"id": block.id, "name": block.name, "json": ""}
                    elif kind == "message_start":
                        reply.usage["input_tokens"] = event.message.usage.input_tokens
                    elif kind == "message_delta":
                        reply.stop_reason = event.delta.stop_reason or reply.stop_reason
                        reply.usage["output_tokens"] = event.usage.output_tokens
        except self._sdk.AnthropicError as exc:
            raise self._error(exc) from None
        reply.text = "".join(text)
        reply.tool_calls = tool_calls_from(blocks)
        yield reply

    def model_available(self) -> bool:
        """Whether the API knows this model (one small request; for `tao doctor`)."""
        try:
            self._client.models.retrieve(self.model)
        except self._sdk.NotFoundError:
            return False
        except self._sdk.AnthropicError as exc:
            raise self._error(exc) from None
        return True

    def _error(self, exc: Exception) -> ProviderError:
        return sdk_error(exc, provider=self.name, key_var=KEY_VARS["anthropic"],
                         base_url=self.base_url, secrets=[self._key])


def to_anthropic(messages: list[dict]) -> list[dict]:
    """Internal messages -> Anthropic `messages`: tool calls become `tool_use` blocks,
    tool results become `tool_result` blocks inside the next user turn."""
    out: list[dict] = []
    for m in messages:
        role = m["role"]
        if role == "tool":
            # tool_result must echo the tool_use id; results of one round share a user turn
            block = {"type": "tool_result", "tool_use_id": m["tool_call_id"],
                     "content": str(m.get("content", ""))}
            if out and out[-1]["role"] == "user" and _has_tool_results(out[-1]):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif role == "assistant":
            blocks = []
            if m.get("content"):
                blocks.append({"type": "text", "text": m["content"]})
            for call in m.get("tool_calls") or ():
                blocks.append({"type": "tool_use", "id": call["id"], "name": call["name"],
                               "input": call.get("args") or {}})
            if blocks:  # an empty assistant turn is refused by the API: leave it out
                out.append({"role": "assistant", "content": blocks})
        elif role == "user":
            if out and out[-1]["role"] == "user" and _has_tool_results(out[-1]):
                # text after tool results joins their turn, after them (results come first)
                out[-1]["content"].append({"type": "text", "text": m["content"]})
            else:
                out.append({"role": "user", "content": m["content"]})
        else:
            raise ProviderError(f"anthropic: unknown message role {role!r}")
    return out


def _has_tool_results(message: dict) -> bool:
    content = message["content"]
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)
