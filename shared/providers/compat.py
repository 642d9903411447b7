"""What servers do that the APIs' documentation does not say, and how tao copes.

The provider files read like the documentation: the request, the stream, the reply.
Everything here exists because a server that speaks the same API (Ollama, vLLM, SGLang,
llama.cpp, LM Studio, Mistral's API, a proxy), or a model behind the real one, does
something else. Each workaround names whom it is for and, where one is public, the issue
that shows it. `tests/test_compat_servers.py` replays each shape through the real SDK.
"""

from __future__ import annotations

import json
import re

from .base import Reply, ToolCall, tool_calls_from
from .sanitize import as_text, unique_id
from .sdk_base import Failure, summarize

# ---------------------------------------------------------------- the request


def token_limit_field(model: str) -> str:
    """The field that caps a reply's length: OpenAI's own models want
    `max_completion_tokens` (its reasoning models refuse `max_tokens`); compatible
    servers running other models know `max_tokens`."""
    return "max_completion_tokens" if re.match(r"(gpt-|o\d|chatgpt)", model) else "max_tokens"


def refused_field(status: int, said: str, params: dict) -> str | None:
    """The optional field a server refused this request for, if that is what it said:
    `stop` (OpenAI's GPT-5-family models: smolagents#1671, litellm#15244), or
    `stream_options` (Mistral, with a 422: openai/openai-agents-python#442; Databricks,
    with a 400: anomalyco/opencode#4698). The request can go again without it."""
    if status not in (400, 422):
        return None
    if "stop" in params and "'stop'" in said:
        return "stop"
    if "stream_options" in params and ("stream_options" in said or "include_usage" in said):
        return "stream_options"
    return None


def cannot_stream_tools(status: int, said: str) -> Failure | None:
    """llama.cpp's llama-server, in builds before mid-2025, refuses tools with streaming
    ("Cannot use tools with stream", 500): a failure of its own, never retried."""
    if status in (400, 422, 500, 501) and re.search(r"tools?\b.*\bstream", said, re.IGNORECASE):
        return Failure(f"this server cannot stream tool calls (it said: {summarize(said)})",
                       "update the server (llama.cpp's llama-server streams tool calls "
                       "from mid-2025 on, started with --jinja), or use a stage before 07,"
                       " which sends no tools")
    return None


def lists_model(ids: set[str], model: str) -> bool:
    """Whether a server's model list holds `model`: Ollama lists `llama3.2` as
    `llama3.2:latest`."""
    return model in ids or f"{model}:latest" in ids


# ---------------------------------------------------------------- the stream


def text_and_thought(delta: dict) -> tuple:
    """(text, thinking) of one Chat Completions delta. Reasoning models think aloud in a
    field of their own: `reasoning_content` (vLLM) or `reasoning` (Ollama). Mistral's
    reasoning models send `content` as typed parts, `thinking` then `text`
    (openclaw/openclaw#68418, comet-ml/opik#8376); some relays send text parts alone
    (NousResearch/hermes-agent#64047)."""
    thought = delta.get("reasoning_content") or delta.get("reasoning")
    content = delta.get("content")
    if isinstance(content, list):  # typed parts: text, and thinking
        content, thought = parts_text(content), parts_text(content, "thinking")
    return content, thought


def parts_text(parts: list, kind: str = "text") -> str:
    """The text of the `kind` parts in a content list (Mistral's reasoning models send
    [{"type": "thinking", "thinking": [{"type": "text", ...}]}, {"type": "text", ...}])."""
    found = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == kind:
            inner = part.get(kind)
            found.append(parts_text(inner) if isinstance(inner, list) else str(inner or ""))
    return "".join(found)


class ToolCallAssembler:
    """Streamed tool-call fragments -> whole calls, under every shape servers send.

    OpenAI keys fragments by `index`, with the id and name in the first. Compatible
    servers differ:
    - Ollama sends each call whole, every call at index 0 (ollama/ollama#15457);
    - vLLM reuses index 0 for the next call with a new id, and SGLang repeats the id on
      every fragment (both compared in InternLM/lmdeploy#3412);
    - llama.cpp's llama-server before ggml-org/llama.cpp#13800 puts the id inside
      `function` and repeats the name on every fragment;
    - LM Studio sends empty ids (lmstudio-ai/lmstudio-bug-tracker#830), Gemini's
      compatible endpoint and some proxies no index at all (openai/openai-python#3246);
    - models behind some proxies give two calls one id (can1357/oh-my-pi#2055);
    - vLLM's end-of-stream flush sends a call's id and name again
      (vllm-project/vllm#44098), or its whole arguments (vllm-project/vllm#51697)."""

    def __init__(self):
        self.slots: list[dict] = []
        self.by_id: dict[str, dict] = {}
        self.by_index: dict[int, dict] = {}

    def add(self, fragment: dict) -> None:
        """Fold one fragment into the call it belongs to."""
        function = fragment.get("function") or {}
        call_id = fragment.get("id") or function.get("id") or ""
        name = as_text(function.get("name") or "")  # a name that is not a string: its JSON
        arguments = function.get("arguments")
        slot = self._slot_for(str(call_id), name, fragment.get("index"), arguments)
        if _repeats(slot, str(call_id), name, arguments):
            return  # a whole call sent again (vLLM's end-of-stream flush): not a second one
        if name:
            slot["name"] = name  # a repeated name is the same name, not more of it
        if isinstance(arguments, str):
            slot["json"] += arguments
        elif arguments is not None:  # some servers send the arguments as an object
            slot["json"] += json.dumps(arguments)

    def _slot_for(self, call_id: str, name: str, index, arguments) -> dict:
        """A new id starts a call, a known id continues it (at its own index: a server
        may give two calls one id); else the index decides, else the call in progress.
        A fragment that names another tool, or starts arguments for a call whose
        arguments are whole, is the next call."""
        if call_id:
            slot = self.by_id.get(call_id)
            if index is not None and self.by_index.get(index, {}).get("id") == call_id:
                slot = self.by_index[index]
            elif slot is not None and index is not None and slot["index"] not in (None, index):
                slot = None  # the same id at another index: another call
        elif index is not None:
            slot = self.by_index.get(index)
        else:
            slot = self.slots[-1] if self.slots else None
        if slot is None or (_starts_another(slot, name, arguments)
                            and not _repeats(slot, call_id, name, arguments)):
            slot = self._new(call_id, index)
        return slot

    def _new(self, call_id: str, index) -> dict:
        """Open a slot for a new call."""
        slot = {"id": call_id, "name": "", "json": "", "index": index}
        self.slots.append(slot)
        if call_id:
            self.by_id[call_id] = slot
        if index is not None:
            self.by_index[index] = slot
        return slot

    def calls(self) -> list[ToolCall]:
        """The assembled calls, in order, each id unique in this reply (an empty or
        repeated one is made up, never one a server gave another call), so no result
        can be taken for another call's."""
        taken: set[str] = set()
        for slot in self.slots:
            slot["id"] = unique_id(slot["id"], taken, avoid=self.by_id)
        return tool_calls_from(self.slots)


def _starts_another(slot: dict, name: str, arguments) -> bool:
    """Whether a fragment for `slot` is really the next call: it names another tool, or
    it brings a name and arguments while the slot's arguments are already whole."""
    if not name or not slot["name"]:
        return False
    if name != slot["name"]:
        return True
    return bool(arguments) and slot["json"].rstrip().endswith("}") and _whole(slot["json"])


def _repeats(slot: dict, call_id: str, name: str, arguments) -> bool:
    """Whether a fragment is `slot`'s whole arguments sent again, under its id or with no
    name (joined on, they could only make broken JSON): not more of the call."""
    if arguments != slot["json"] or not _whole(slot["json"]):
        return False
    return not name or (bool(call_id) and call_id == slot["id"])


def _whole(raw: str) -> bool:
    """Whether `raw` is a complete JSON object."""
    try:
        return isinstance(json.loads(raw), dict)
    except (ValueError, RecursionError):
        return False


def input_sent_whole(blocks) -> None:
    """Some Anthropic-compatible servers (the code this came from names none, nor an
    issue) send a tool's input whole in its `content_block_start` and stream no
    `input_json_delta`: that input is the call's arguments. (The API streams the input;
    its start block holds an empty one.)"""
    for block in blocks:
        if not block["json"].strip() and block["start"]:
            block["json"] = json.dumps(block["start"])


# ---------------------------------------------------------------- the reply


def reported(usage: dict) -> dict:
    """The counts the server sent, or `{"not_reported": True}` when it sent none
    (llama-cpp-python's server streams no usage at all): never a silent nothing."""
    counted = {key: value for key, value in usage.items() if value is not None}
    if counted.get("input_tokens") is None and counted.get("output_tokens") is None:
        return {"not_reported": True}
    return counted


def tool_use_after_stop(reply: Reply) -> None:
    """Ollama ends a reply that holds calls with "stop" (ollama/ollama#7963): the turn
    is a tool_use one. A token limit, a content filter or a refusal stays what it is:
    those calls must not run."""
    if reply.tool_calls and reply.stop_reason == "end_turn":
        reply.stop_reason = "tool_use"  # some servers say "stop" after tool calls
