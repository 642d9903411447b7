"""OpenAI Chat Completions, streamed; with `base_url`, any compatible server (Ollama...)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator

from .base import Options, ProviderError, Reasoning, Reply, ToolCall, tool_calls_from
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

    def with_options(self, params: dict, options: Options) -> dict:
        """`params` with this call's options in OpenAI's words."""
        params = dict(params)
        if options.max_tokens:
            limit = "max_completion_tokens" if "max_completion_tokens" in params else "max_tokens"
            params[limit] = options.max_tokens
        if options.tool_choice and params.get("tools"):
            params["tool_choice"] = openai_tool_choice(options.tool_choice)
        if options.stop and self.takes_stop:
            params["stop"] = list(options.stop)
        return params

    def _open(self, params: dict):
        """Send the request; if the server refuses `stream_options` or `stop`, once more
        without it (remembered: later turns leave it out from the start)."""
        try:
            return self._client.chat.completions.create(**params)
        except self._sdk.APIStatusError as exc:
            said = server_message(exc)
            if exc.status_code in (400, 422) and "stop" in params and "'stop'" in said:
                self.takes_stop = False
                self.notice(f"{self.model} refuses stop sequences: sent without them")
                return self._open({k: v for k, v in params.items() if k != "stop"})
            if "stream_options" not in params or exc.status_code not in (400, 422) or not (
                    "stream_options" in said or "include_usage" in said):
                raise
        self.include_usage = False
        del params["stream_options"]
        return self._client.chat.completions.create(**params)

    def _assemble(self, chunks, shown: list) -> Iterator[str | Reply]:
        """Chat Completions chunks -> text deltas, then the Reply; complete only once a
        choice has carried a finish_reason."""
        reply, calls, finish, refused = Reply(), ToolCallAssembler(), None, False
        try:
            for chunk in chunks:
                if chunk.get("error"):  # a server-side error can end the body early
                    raise StreamBroke(f"the server reported an error in the stream: "
                                      f"{summarize(str(error_text(chunk['error'])))}", retry=True)
                if chunk.get("usage"):  # on its own chunk, or (some servers) the last one
                    reply.usage = usage_from(chunk["usage"])
                for choice in (chunk.get("choices") or ())[:1]:
                    delta = choice.get("delta") or {}
                    thought = delta.get("reasoning_content") or delta.get("reasoning")
                    content = delta.get("content")
                    if isinstance(content, list):  # typed parts: text, and thinking
                        content, thought = parts_text(content), parts_text(content, "thinking")
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
        except (KeyError, TypeError, AttributeError) as exc:
            raise StreamBroke(f"the server sent a chunk of an unexpected shape "
                              f"({type(exc).__name__}: {exc})") from None
        if finish is None:
            raise StreamBroke("the stream broke off before the reply was complete",
                              retry=True)
        reply.text, reply.reasoning = split_shown(shown)
        reply.usage = reported(reply.usage)
        reply.tool_calls = calls.calls()
        reply.stop_reason = "refusal" if refused else STOP_REASONS.get(finish, finish)
        if reply.tool_calls and reply.stop_reason == "end_turn":
            reply.stop_reason = "tool_use"  # some servers say "stop" after tool calls
        yield reply

    def _status_failure(self, exc) -> Failure:
        """As for any server, plus llama.cpp's old refusal of tools with streaming."""
        said = server_message(exc)
        if exc.status_code in (400, 422, 500, 501) and re.search(
                r"tools?\b.*\bstream", said, re.IGNORECASE):
            return Failure(f"this server cannot stream tool calls (it said: {summarize(said)})",
                           "update the server (llama.cpp's llama-server streams tool calls "
                           "from mid-2025 on, started with --jinja), or use a stage before 07,"
                           " which sends no tools")
        return super()._status_failure(exc)

    def _has_model(self) -> bool:
        """Whether the server lists this model."""
        ids = {m.id for m in self._client.models.list()}
        return self.model in ids or f"{self.model}:latest" in ids  # Ollama adds :latest


class ToolCallAssembler:
    """Streamed tool-call fragments -> whole calls, under every shape servers send.

    OpenAI keys fragments by `index`, with the id and name in the first. Compatible
    servers differ: Ollama sends each call whole at index 0; vLLM reuses index 0 for
    the next call with a new id; SGLang repeats the id on every fragment; old
    llama.cpp puts the id inside `function`; others send no index or an empty id, or one
    id for two different calls."""

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
        """The assembled calls, in order; an empty or repeated id is made up, unique in
        this reply, so no result can be taken for another call's."""
        used: set[str] = set()
        n = 0
        for slot in self.slots:
            base = slot["id"] or "call_tao"
            while not slot["id"] or slot["id"] in used or (
                    slot["id"] != base and slot["id"] in self.by_id):
                n += 1
                slot["id"] = f"{base[:34]}_{n}"
            used.add(slot["id"])
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


def parts_text(parts: list, kind: str = "text") -> str:
    """The text of the `kind` parts in a content list (Mistral's reasoning models send
    [{"type": "thinking", "thinking": [{"type": "text", ...}]}, {"type": "text", ...}])."""
    found = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == kind:
            inner = part.get(kind)
            found.append(parts_text(inner) if isinstance(inner, list) else str(inner or ""))
    return "".join(found)


def error_text(error) -> str:
    """The message inside a mid-stream `error` payload, whatever its shape."""
    return error.get("message", error) if isinstance(error, dict) else error


def openai_tool_choice(choice: str) -> str | dict:
    """tao's tool_choice ("auto", "none", "required", a tool's name) in OpenAI's shape."""
    if choice in ("auto", "none", "required"):
        return choice
    return {"type": "function", "function": {"name": choice}}


def ollama(model: str | None = None, **kwargs) -> OpenAIProvider:
    """The `ollama` preset: OpenAIProvider pointed at a local Ollama server."""
    kwargs.setdefault("base_url", os.environ.get("OLLAMA_BASE_URL", OLLAMA_BASE_URL))
    return OpenAIProvider(model, name="ollama", **kwargs)


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


def reported(usage: dict) -> dict:
    """The counts the server sent, or `{"not_reported": True}` when it sent none (some
    compatible servers send no usage while streaming): never a silent nothing."""
    counted = {key: value for key, value in usage.items() if value is not None}
    if counted.get("input_tokens") is None and counted.get("output_tokens") is None:
        return {"not_reported": True}
    return counted


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
