"""Anthropic's Messages API, streamed, behind the tao Provider contract.

Top to bottom: the request (`request`, `to_anthropic`), the stream (`_assemble`,
`_read`), the reply (`read_start`, `read_delta`). What compatible servers do otherwise
is in `compat.py`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from . import compat
from .base import Options, ProviderError, Reasoning, Reply, tool_calls_from
from .defaults import DEFAULT_MAX_TOKENS, DEFAULT_MODELS, KEY_VARS
from .sanitize import as_text, sendable, usage_counts
from .sdk_base import SDKProvider, StreamBroke, split_shown, summarize

# prompt-cache counts Anthropic reports in a reply's usage (0 below the cacheable minimum)
CACHE_KEYS = ("cache_read_input_tokens", "cache_creation_input_tokens")


class AnthropicProvider(SDKProvider):
    """Claude through the Messages API, streamed; `base_url` points it elsewhere."""

    name = "anthropic"
    key_var = KEY_VARS["anthropic"]

    def __init__(self, model: str | None = None, *, api_key: str | None = None,
                 base_url: str | None = None, max_tokens: int = DEFAULT_MAX_TOKENS,
                 max_retries: int = 2, timeout: float | None = None):
        self.model = model or DEFAULT_MODELS["anthropic"]
        self.max_tokens = max_tokens
        self.base_url = base_url
        key = api_key or os.environ.get(self.key_var)
        if not key:
            raise ProviderError(
                "anthropic: ANTHROPIC_API_KEY is not set: export ANTHROPIC_API_KEY=<your key>,"
                " or pick another provider with --provider offline|openai|ollama"
            )
        import anthropic  # imported here so the offline path never pays for it

        self._setup(anthropic, anthropic.Anthropic, key, base_url, timeout, max_retries)

    def request(self, messages: list[dict], system: str = "", tools=()) -> dict:
        """The keyword arguments for `client.messages.create`, in Anthropic's shapes."""
        params: dict = {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "messages": to_anthropic(messages),
            "stream": True,
            # automatic prompt caching: the API puts the cache mark on the last block and
            # moves it forward as the conversation grows, so each request can read the
            # one before it from the cache (only from a minimum length: 1,024 tokens or
            # more, depending on the model; below it nothing is cached, and no error)
            "cache_control": {"type": "ephemeral"},
        }
        if system:
            params["system"] = [{"type": "text", "text": system}]
        if tools:
            params["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.schema}
                for t in tools
            ]
        return params

    def with_options(self, params: dict, options: Options) -> dict:
        """`params` with this call's options in Anthropic's words."""
        params = dict(params)
        if options.max_tokens:
            params["max_tokens"] = options.max_tokens
        if options.tool_choice and params.get("tools"):
            params["tool_choice"] = anthropic_tool_choice(options.tool_choice)
        if options.stop:
            params["stop_sequences"] = list(options.stop)
        return params

    def wire_kind(self, data: dict) -> str:
        """Anthropic's events name themselves: message_start, content_block_delta, …."""
        return str(data.get("type", ""))

    def _open(self, params: dict):
        """Send the request; the SDK raises on an HTTP error status."""
        return self._client.messages.create(**params)

    def _assemble(self, events, shown: list) -> Iterator[str | Reply]:
        """Messages API events -> text deltas, then the Reply once `message_stop` arrives."""
        reply = Reply()
        blocks: dict[int, dict] = {}  # content block index -> tool_use being assembled
        try:
            yield from self._read(events, reply, blocks, shown)
        except (KeyError, TypeError, AttributeError) as exc:
            raise StreamBroke(f"the server sent an event of an unexpected shape "
                              f"({type(exc).__name__}: {exc})") from None
        reply.text, reply.reasoning = split_shown(shown)
        compat.input_sent_whole(blocks.values())  # no input streamed: the start block's
        reply.tool_calls = tool_calls_from(blocks.values())
        yield reply

    def _read(self, events, reply: Reply, blocks: dict, shown: list):
        """Walk the events into `reply`, `blocks` and `shown`, yielding the deltas."""
        for event in events:
            kind = event["type"]
            if kind == "content_block_delta":
                delta = event["delta"]
                if delta["type"] == "text_delta":
                    shown.append(delta["text"])
                    yield delta["text"]
                elif delta["type"] == "input_json_delta":
                    blocks[event["index"]]["json"] += delta["partial_json"]
                elif delta["type"] == "thinking_delta":
                    thought = Reasoning(delta["thinking"])
                    shown.append(thought)
                    yield thought
            elif kind == "content_block_start":
                block = event["content_block"]
                if block["type"] == "tool_use":
                    # the API streams the input; some compatible servers send it here whole
                    blocks[event["index"]] = {"id": as_text(block["id"]),
                                              "name": as_text(block["name"]), "json": "",
                                              "start": block.get("input")}
            elif kind == "message_start":
                read_start(event["message"], reply)  # input tokens, the prompt cache
            elif kind == "message_delta":
                read_delta(event, reply)  # the stop reason, output tokens
            elif kind == "message_stop":
                return  # the only sign that the reply is complete
            elif kind == "error":
                raise StreamBroke(f"the server reported an error in the stream: "
                                  f"{summarize(str(event['error'].get('message')))}", retry=True)
        raise StreamBroke("the stream broke off before the reply was complete", retry=True)

    def _has_model(self) -> bool:
        """Whether the API knows this model."""
        try:
            self._client.models.retrieve(self.model)
        except self._sdk.NotFoundError:
            return False
        return True


def to_anthropic(messages: list[dict]) -> list[dict]:
    """Internal messages -> Anthropic `messages`: tool calls become `tool_use` blocks,
    tool results become `tool_result` blocks inside the next user turn."""
    out: list[dict] = []
    for m in sendable(messages):  # whatever came back before, a request the API accepts
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
    """Whether a user turn already carries tool results (later results join it)."""
    content = message["content"]
    return isinstance(content, list) and any(b.get("type") == "tool_result" for b in content)


def anthropic_tool_choice(choice: str) -> dict:
    """tao's tool_choice ("auto", "none", "required", a tool's name) in Anthropic's shape."""
    if choice in ("auto", "none"):
        return {"type": choice}
    if choice == "required":
        return {"type": "any"}  # Anthropic's word for "some tool, the model picks which"
    return {"type": "tool", "name": choice}


def read_start(message: dict, reply: Reply) -> None:
    """What `message_start` tells of the reply: its input tokens, and what the prompt
    cache read or wrote (counts kept only as whole numbers: a server's odd usage costs
    no reply)."""
    usage = usage_counts(message.get("usage"))
    if "input_tokens" in usage:
        reply.usage["input_tokens"] = usage["input_tokens"]
    for key in CACHE_KEYS:  # only when the cache did something
        if usage.get(key):
            reply.usage[key] = usage[key]


def read_delta(event: dict, reply: Reply) -> None:
    """What `message_delta` tells of the reply: the stop reason (end_turn, tool_use,
    max_tokens...; the last one given wins) and the output tokens."""
    stop = event["delta"].get("stop_reason")
    reply.stop_reason = as_text(stop) if stop else reply.stop_reason
    usage = usage_counts(event.get("usage"))
    if "output_tokens" in usage:
        reply.usage["output_tokens"] = usage["output_tokens"]
