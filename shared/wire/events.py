"""What comes back on the wire: the streamed events, recorded or synthesized, folded.

A provider reports each event it reads through `on_wire_event(kind, data)`: Anthropic's
SSE event name and its data (`message_start`, `content_block_delta`, ...), or `"chunk"`
and one Chat Completions chunk for OpenAI (`"[DONE]"` for the end marker, if seen).
A provider that reports nothing (the offline model, the scripted double) gets the
sequence its `Reply` would have arrived as, built here in the API's documented shapes.
`WireLog` folds consecutive deltas of one kind into one line with a count.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..providers.openai_provider import STOP_REASONS
from ..providers.sanitize import usage_counts

FINISH_REASONS = {tao: wire for wire, tao in STOP_REASONS.items()}  # tao's name -> OpenAI's
_WORDS = re.compile(r"\s*\S+\s*|\s+")  # text streams in word-sized deltas
USAGE_ORDER = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens",
               "output_tokens", "prompt_tokens", "completion_tokens", "total_tokens")
JSON_PIECE = 12  # characters of tool-call JSON per synthesized delta
PREVIEW = 40  # characters of folded delta text shown on a log line


def text_pieces(reply, deltas=None) -> list[str]:
    """The text deltas the reply streamed in, if known, else word-sized pieces of it."""
    if deltas is not None and "".join(deltas) == reply.text:
        return [delta for delta in deltas if delta]
    return _WORDS.findall(reply.text)


def _json_pieces(call) -> list[str]:
    """A tool call's arguments as the JSON fragments a stream would carry them in."""
    if call.error:
        return []  # the broken text itself is gone: the call shows its error instead
    raw = json.dumps(call.args, ensure_ascii=False)
    return [raw[i:i + JSON_PIECE] for i in range(0, len(raw), JSON_PIECE)]


def synthesize_anthropic(reply, model: str, deltas=None) -> list[tuple[str, dict]]:
    """The Messages API events that would stream `reply`, in the documented order."""
    usage = reply.usage or {}
    events = [("message_start", {"type": "message_start", "message": {
        "id": "msg_synthesized", "type": "message", "role": "assistant", "model": model,
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1}}})]
    blocks = [("text", reply.text)] if reply.text else []
    blocks += [("tool_use", call) for call in reply.tool_calls]
    for index, (kind, block) in enumerate(blocks):
        start = ({"type": "text", "text": ""} if kind == "text" else
                 {"type": "tool_use", "id": block.id, "name": block.name, "input": {}})
        events.append(("content_block_start", {"type": "content_block_start",
                                               "index": index, "content_block": start}))
        if index == 0:
            events.append(("ping", {"type": "ping"}))  # where the documented examples put it
        pieces = ([{"type": "text_delta", "text": t} for t in text_pieces(reply, deltas)]
                  if kind == "text" else
                  [{"type": "input_json_delta", "partial_json": p}
                   for p in _json_pieces(block)])
        events += [("content_block_delta", {"type": "content_block_delta", "index": index,
                                            "delta": p}) for p in pieces]
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {
        "type": "message_delta", "delta": {"stop_reason": reply.stop_reason,
                                           "stop_sequence": None},
        "usage": {"output_tokens": usage.get("output_tokens", 0)}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def synthesize_openai(reply, model: str, deltas=None) -> list[tuple[str, dict]]:
    """The Chat Completions chunks that would stream `reply`, then [DONE]."""

    def chunk(delta: dict, finish: str | None = None) -> tuple[str, dict]:
        """One chunk carrying `delta` (and a finish_reason, on the last)."""
        return ("chunk", {"id": "chatcmpl-synthesized", "object": "chat.completion.chunk",
                          "created": 0, "model": model, "choices": [{
                              "index": 0, "delta": delta, "logprobs": None,
                              "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": ""})]
    events += [chunk({"content": piece}) for piece in text_pieces(reply, deltas)]
    for index, call in enumerate(reply.tool_calls):
        # the first fragment of a call carries its id and name; the rest only arguments
        # (arguments that arrived broken are not known any more: none are streamed)
        events.append(chunk({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                                             "function": {"name": call.name,
                                                          "arguments": ""}}]}))
        events += [chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                   for piece in _json_pieces(call)]
    events.append(chunk({}, FINISH_REASONS.get(reply.stop_reason, reply.stop_reason)))
    usage = usage_counts(reply.usage)  # whole numbers only: the sum below must work
    prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
    events.append(("chunk", {"id": "chatcmpl-synthesized", "object": "chat.completion.chunk",
                             "created": 0, "model": model, "choices": [],
                             "usage": {"prompt_tokens": prompt, "completion_tokens": completion,
                                       "total_tokens": prompt + completion}}))
    events.append(("[DONE]", {}))
    return events


def synthesize(flavour: str, reply, model: str, deltas=None) -> list[tuple[str, dict]]:
    """The events `flavour`'s API would stream for `reply` (its text in `deltas`, if given)."""
    build = synthesize_anthropic if flavour == "anthropic" else synthesize_openai
    return build(reply, model, deltas)


@dataclass
class Line:
    """One line of the response log: an event, or a run of like deltas folded together."""

    kind: str
    detail: str
    key: tuple
    pieces: list[str] = field(default_factory=list)  # the folded deltas' payloads
    count: int = 1
    payload: str = "text"  # "text" or "json": how the pieces read


class WireLog:
    """The events of one model call, in order; `lines()` folds consecutive deltas."""

    def __init__(self):
        self.events: list[tuple[str, dict]] = []

    def record(self, kind: str, data) -> None:
        """The `on_wire_event` hook: keep one event (a dict, or an SDK model object)."""
        self.events.append((kind, _as_dict(data)))

    def lines(self) -> list[Line]:
        """The events as lines; a run of events with the same key becomes one line."""
        lines: list[Line] = []
        for kind, data in self.events:
            line = describe(kind, data)
            if lines and lines[-1].key == line.key and line.pieces:
                lines[-1].count += 1
                lines[-1].pieces += line.pieces
            else:
                lines.append(line)
        return lines


def _as_dict(data) -> dict:
    """SDK event objects become plain dicts; dicts pass through."""
    for method in ("to_dict", "model_dump"):
        if hasattr(data, method):
            return getattr(data, method)()
    return data if isinstance(data, dict) else {"value": data}


def describe(kind: str, data: dict) -> Line:
    """One event as a log line: its kind, what it says, and its delta payload if any."""
    if kind == "chunk":
        return _describe_chunk(data)
    if kind == "prompt":  # a model in this process: its chat template's output, as fed
        from .render import elide

        return Line(kind, f"{data.get('tokens')} tokens "
                    + json.dumps(elide(str(data.get("text", ""))), ensure_ascii=False),
                    (kind,))
    if kind == "content_block_delta":
        delta = data.get("delta") or {}
        dtype = delta.get("type", "?")
        piece = next((str(delta[k]) for k in ("text", "partial_json", "thinking")
                      if k in delta), "")
        return Line(kind, dtype, (kind, data.get("index"), dtype), [piece],
                    payload="json" if dtype == "input_json_delta" else "text")
    return Line(kind, _event_detail(kind, data), (kind, data.get("index")))


def _event_detail(kind: str, data: dict) -> str:
    """What a non-delta Anthropic event says, in a few words."""
    if kind == "message_start":
        message = data.get("message") or {}
        return (f"id {message.get('id')} model {message.get('model')} "
                f"usage {usage_text(message.get('usage'))}").strip()
    if kind == "content_block_start":
        block = data.get("content_block") or {}
        if block.get("type") == "tool_use":
            return (f"index {data.get('index')} tool_use id {block.get('id')} "
                    f"name {block.get('name')}")
        return f"index {data.get('index')} {block.get('type')}"
    if kind == "content_block_stop":
        return f"index {data.get('index')}"
    if kind == "message_delta":
        stop = (data.get("delta") or {}).get("stop_reason")
        return f"stop_reason {stop} usage {usage_text(data.get('usage'))}"
    if kind == "error":
        error = data.get("error") or {}
        return f"{error.get('type', '')}: {error.get('message', '')}".strip(": ")
    if kind in ("ping", "message_stop", "[DONE]"):
        return ""
    return json.dumps(data, ensure_ascii=False, default=str)


def _describe_chunk(data: dict) -> Line:
    """One Chat Completions chunk as a log line, keyed by which fields it carries.

    A chunk with one text or argument fragment and nothing else can fold with its
    neighbours; a chunk that carries more (a local server often sends a whole tool
    call at once) shows everything it carries on its line."""
    if not data.get("choices"):
        return Line("chunk", f"choices [] usage {usage_text(data.get('usage'))}",
                    ("chunk", "usage"))
    choice = data["choices"][0]
    delta = choice.get("delta") or {}
    parts = [f"delta.role {delta['role']}"] if delta.get("role") else []
    content = delta.get("content")
    if content and not isinstance(content, str):  # typed parts, say: shown as their JSON
        content = json.dumps(content, ensure_ascii=False, default=str)
    fragments = [("delta.content", content, "text")] if content else []
    if "delta" not in choice and choice.get("text"):  # a text completion's chunk (llama.cpp)
        fragments = [("text", choice["text"], "text")]
    for call in delta.get("tool_calls") or ():
        where = f"delta.tool_calls[{call.get('index')}]"
        function = call.get("function") or {}
        arguments = function.get("arguments") or ""
        if call.get("id") or function.get("name"):
            parts.append(f"{where} id {call.get('id')} name {function.get('name')}"
                         + (f" arguments {preview(arguments, 'json')}" if arguments else ""))
        elif arguments:
            fragments.append((f"{where}.function.arguments", arguments, "json"))
    if choice.get("finish_reason"):
        parts.append(f"finish_reason {choice['finish_reason']}")
    if data.get("usage"):
        parts.append(f"usage {usage_text(data['usage'])}")
    if len(fragments) == 1 and not parts:
        label, text, payload = fragments[0]
        return Line("chunk", label, ("chunk", label), [text], payload=payload)
    parts += [f"{label} {preview(text, payload)}" for label, text, payload in fragments]
    detail = " ".join(parts) or "delta {}"
    return Line("chunk", detail, ("chunk", detail))


def preview(joined: str, payload: str = "text") -> str:
    """Deltas' text joined, quoted as it reads, cut after PREVIEW characters."""
    shown = joined if len(joined) <= PREVIEW else joined[:PREVIEW] + "…"
    quoted = f"'{shown}'" if payload == "json" else json.dumps(shown, ensure_ascii=False)
    return quoted if shown == joined else f"{quoted} ({len(joined):,} chars)"


def usage_text(usage) -> str:
    """Token counts as `key n` pairs, the counts the API left empty left out."""
    if not isinstance(usage, dict):
        return "none"
    order = {key: n for n, key in enumerate(USAGE_ORDER)}  # SDK objects reorder the keys
    keys = sorted(usage, key=lambda key: order.get(key, len(order)))
    pairs = [f"{key} {usage[key]}" for key in keys if isinstance(usage[key], int)]
    return " · ".join(pairs) or "none"
