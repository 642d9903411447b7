"""The documented request shapes of the Messages API and of Chat Completions, one small
named rule each: a rule returns what is wrong with a request, or None."""

from __future__ import annotations

import re

_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def first_problem(rules, body: dict, headers) -> str | None:
    """The first rule's complaint about this request, or None if every rule passes."""
    for rule in rules:
        problem = rule(body, headers)
        if problem:
            return problem
    return None


# ---- the Messages API's rules, one small function each


def anthropic_key(body, headers):
    """SDK 2.x sends the key as a Bearer token; older clients send x-api-key."""
    bearer = (headers.get("authorization") or "").startswith("Bearer ")
    if not headers.get("x-api-key") and not bearer:
        return "missing API key (x-api-key or Authorization: Bearer)"
    if not headers.get("anthropic-version"):
        return "missing anthropic-version header"


def anthropic_fields(body, headers):
    """Only known top-level fields; model, a positive max_tokens, stream: true; a
    top-level cache_control (automatic caching) is ephemeral, with an optional ttl."""
    allowed = {"model", "max_tokens", "messages", "system", "tools", "stream", "tool_choice",
               "metadata", "stop_sequences", "temperature", "top_p", "top_k", "thinking",
               "cache_control"}
    extra = [key for key in body if key not in allowed]
    if extra:
        return f"{extra[0]}: Extra inputs are not permitted"
    cache = body.get("cache_control", {"type": "ephemeral"})
    if (not isinstance(cache, dict) or cache.get("type") != "ephemeral"
            or set(cache) - {"type", "ttl"} or cache.get("ttl", "5m") not in ("5m", "1h")):
        return "cache_control: Input should be {'type': 'ephemeral'} (ttl '5m' or '1h')"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: Field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: Field required (a positive integer)"
    if body.get("stream") is not True:
        return "this fake serves streamed requests only (stream: true)"


def anthropic_system(body, headers):
    """`system` is a string or a list of non-empty text blocks (cache_control ephemeral)."""
    system = body.get("system")
    if system is None or isinstance(system, str):
        return None
    if not isinstance(system, list):
        return "system: must be a string or a list of text blocks"
    for block in system:
        if block.get("type") != "text" or not block.get("text"):
            return "system: text blocks must be non-empty text"
        if "cache_control" in block and block["cache_control"] != {"type": "ephemeral"}:
            return "system.cache_control: type must be ephemeral"


def anthropic_tools(body, headers):
    """Each tool: name, description, input_schema of type object; nothing else."""
    for tool in body.get("tools", []):
        extra = set(tool) - {"name", "description", "input_schema", "cache_control"}
        if extra:
            return f"tools: Extra inputs are not permitted: {sorted(extra)}"
        if not _TOOL_NAME.match(tool.get("name", "")):
            return "tools.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'"
        if (tool.get("input_schema") or {}).get("type") != "object":
            return "tools.input_schema.type: Input should be 'object'"


def anthropic_stop_sequences(body, headers):
    """stop_sequences: a list of non-empty strings."""
    stop = body.get("stop_sequences", [])
    if not isinstance(stop, list) or not all(isinstance(s, str) and s for s in stop):
        return "stop_sequences: Input should be a list of non-empty strings"


def anthropic_tool_choice(body, headers):
    """tool_choice: auto, any, tool (naming one of the tools) or none; only with tools."""
    choice = body.get("tool_choice")
    if choice is None:
        return None
    names = [t.get("name") for t in body.get("tools", [])]
    if choice.get("type") not in ("auto", "any", "tool", "none"):
        return "tool_choice.type: Input should be 'auto', 'any', 'tool' or 'none'"
    if choice["type"] == "tool" and choice.get("name") not in names:
        return f"tool_choice.name: {choice.get('name')!r} is not one of the tools"
    if choice["type"] != "none" and not names:
        return "tool_choice may only be specified while providing tools"


def anthropic_messages(body, headers):
    """A non-empty list starting with the user; each tool_use answered right after."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: the first message must use the user role"
    owed: list[str] = []  # tool_use ids the next user turn must answer
    used: set[str] = set()  # every tool_use id in the request: each may appear once
    for i, m in enumerate(messages):
        if set(m) != {"role", "content"}:
            return f"messages.{i}: Extra inputs are not permitted ({sorted(set(m))})"
        if m["role"] not in ("user", "assistant"):
            return f"messages.{i}.role: Input should be 'user' or 'assistant'"
        content = m["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if not isinstance(blocks, list) or not blocks:
            return f"messages.{i}: all messages must have non-empty content"
        problem = _anthropic_results(i, m["role"], blocks, owed) or next(
            filter(None, (_check_anthropic_block(i, m["role"], b) for b in blocks)), None)
        if problem:
            return problem
        owed = [b["id"] for b in blocks if b["type"] == "tool_use"]
        for j, block in enumerate(blocks):
            if block["type"] == "tool_use":
                if block["id"] in used:
                    return f"messages.{i}.content.{j}: `tool_use` ids must be unique"
                used.add(block["id"])
    if owed:
        return "messages: the last assistant turn's tool_use blocks have no tool_result"


def _anthropic_results(i: int, role: str, blocks: list, owed: list) -> str | None:
    """tool_result blocks answer exactly the previous turn's tool_use ids, first."""
    results = [b.get("tool_use_id") for b in blocks if b.get("type") == "tool_result"]
    if owed:
        if role != "user" or sorted(results) != sorted(owed):
            return (f"messages.{i}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {owed}")
        if [b.get("type") for b in blocks[: len(results)]] != ["tool_result"] * len(results):
            return f"messages.{i}: tool_result blocks must come first in the content"
    elif results:
        return (f"messages.{i}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{results}. Each `tool_result` block must have a corresponding `tool_use` "
                "block in the previous message.")
    return None


def _check_anthropic_block(i: int, role: str, block: dict) -> str | None:
    """One content block: text, tool_use (assistant only) or tool_result (user only)."""
    kind = block.get("type")
    if kind == "text":
        if set(block) - {"type", "text", "cache_control"}:
            return f"messages.{i}.content: text block has unexpected keys"
        if not isinstance(block.get("text"), str) or not block["text"]:
            return f"messages.{i}: text content blocks must be non-empty"
        if not block["text"].strip():
            return "messages: text content blocks must contain non-whitespace text"
    elif kind == "tool_use":
        if role != "assistant":
            return f"messages.{i}: tool_use blocks are only allowed in assistant messages"
        if set(block) != {"type", "id", "name", "input"} or not isinstance(block["input"], dict):
            return f"messages.{i}: tool_use needs id, name and an object input"
        if not re.match(r"^[a-zA-Z0-9_-]+$", block["id"]):
            return f"messages.{i}.content.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
        if not isinstance(block["name"], str) or not _TOOL_NAME.match(block["name"]):
            return (f"messages.{i}.content.tool_use.name: String should match pattern "
                    "'^[a-zA-Z0-9_-]{1,64}$'")
    elif kind == "tool_result":
        if role != "user":
            return f"messages.{i}: tool_result blocks are only allowed in user messages"
        if set(block) - {"type", "tool_use_id", "content", "is_error", "cache_control"}:
            return f"messages.{i}: tool_result block has unexpected keys"
        if not isinstance(block.get("content", ""), str | list):
            return f"messages.{i}: tool_result content must be a string or blocks"
    else:
        return f"messages.{i}.content: unknown block type {kind!r}"
    return None


ANTHROPIC_RULES = (anthropic_key, anthropic_fields, anthropic_system, anthropic_tools,
                   anthropic_tool_choice, anthropic_stop_sequences, anthropic_messages)


def check_anthropic(body: dict, headers) -> str | None:
    """What the Messages API would refuse in this request, or None."""
    return first_problem(ANTHROPIC_RULES, body, headers)


# ---- Chat Completions' rules, one small function each


def openai_key(body, headers):
    """The key travels as a Bearer token."""
    if not (headers.get("authorization") or "").startswith("Bearer "):
        return "You didn't provide an API key (Authorization: Bearer ...)"


def openai_fields(body, headers):
    """Known fields only; a model; max_completion_tokens for OpenAI's newer models."""
    allowed = {"model", "messages", "stream", "stream_options", "tools", "tool_choice",
               "max_tokens", "max_completion_tokens", "temperature", "parallel_tool_calls",
               "stop"}
    extra = [key for key in body if key not in allowed]
    if extra:
        return f"Unrecognized request argument supplied: {extra[0]}"
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "you must provide a model parameter"
    if "max_tokens" in body and re.match(r"^(gpt-5|o\d)", body["model"]):
        return ("Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.")
    if body.get("stream") is not True:
        return "this fake serves streamed requests only (stream: true)"
    stop = body.get("stop", [])
    if isinstance(stop, str):
        stop = [stop]
    if not isinstance(stop, list) or len(stop) > 4 or not all(
            isinstance(s, str) and s for s in stop):
        return "stop: up to 4 non-empty strings"
    if body.get("stream_options") not in (None, {"include_usage": True},
                                          {"include_usage": False}):
        return "stream_options: unknown shape"


def openai_tools(body, headers):
    """Each tool is {'type': 'function', 'function': {name, description, parameters}}."""
    for tool in body.get("tools", []):
        function = tool.get("function") or {}
        if tool.get("type") != "function" or set(tool) != {"type", "function"}:
            return "tools: each tool must be {'type': 'function', 'function': {...}}"
        if not _TOOL_NAME.match(function.get("name", "")):
            return "tools.function.name: must match '^[a-zA-Z0-9_-]{1,64}$'"
        if set(function) - {"name", "description", "parameters", "strict"}:
            return "tools.function: unexpected keys"


def openai_tool_choice(body, headers):
    """tool_choice: none, auto, required, or one named function among the tools."""
    choice = body.get("tool_choice")
    if choice is None:
        return None
    names = [t["function"]["name"] for t in body.get("tools", [])]
    named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    if not (choice in ("auto", "none", "required") or (
            isinstance(choice, dict) and choice.get("type") == "function" and named)):
        return ("Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or "
                "{'type': 'function', 'function': {'name': ...}}")
    if named is not None and named not in names:
        return f"tool_choice: function {named!r} is not among the tools"
    if choice != "none" and not names:
        return "'tool_choice' is only allowed when 'tools' are specified"


_OPENAI_KEYS = {"system": {"role", "content", "name"}, "user": {"role", "content", "name"},
                "assistant": {"role", "content", "tool_calls", "name", "refusal"},
                "tool": {"role", "content", "tool_call_id"}}


def openai_messages(body, headers):
    """Known roles and keys; every tool_calls id answered by tool messages right after."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: must be a non-empty array"
    owed: list[str] = []  # tool_call ids still owed a tool message
    seen: dict[tuple, int] = {}  # (where, id) -> the message it first appeared in
    for i, m in enumerate(messages):
        keys = _OPENAI_KEYS.get(m.get("role"))
        if keys is None:
            return f"messages[{i}].role: invalid value {m.get('role')!r}"
        if set(m) - keys:
            return f"messages[{i}]: Unrecognized keys {sorted(set(m) - keys)}"
        problem = _openai_message(i, m, owed) or _openai_duplicate(i, m, seen)
        if problem:
            return problem
    if owed:
        return f"messages: tool_calls without responses: {owed}"


def _openai_duplicate(i: int, m: dict, seen: dict) -> str | None:
    """Each call id appears once among the calls, and once among the tool messages."""
    ids = ([("tool_call_id", m.get("tool_call_id"))] if m["role"] == "tool" else
           [("tool_calls.id", c.get("id")) for c in m.get("tool_calls") or ()])
    for where, value in ids:
        if (where, value) in seen:
            return (f"Invalid parameter: Duplicate value for '{where}' of '{value}', in "
                    f"messages[{seen[where, value]}] and messages[{i}].")
        seen[where, value] = i
    return None


def _openai_message(i: int, m: dict, owed: list) -> str | None:
    """One message in order; `owed` tracks the tool_call ids not yet answered."""
    if m["role"] == "tool":
        if m.get("tool_call_id") not in owed:
            return (f"messages[{i}]: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.")
        owed.remove(m["tool_call_id"])
        return None if isinstance(m.get("content"), str) else (
            f"messages[{i}].content: must be a string")
    if owed:
        return (f"messages[{i}]: An assistant message with 'tool_calls' must be followed by "
                f"tool messages responding to each 'tool_call_id'. Missing: {owed}")
    if m["role"] != "assistant":
        return None if isinstance(m.get("content"), str) else (
            f"messages[{i}].content: must be a string")
    calls = m.get("tool_calls")
    if not calls and not (isinstance(m.get("content"), str) and m["content"]):
        return f"messages[{i}]: assistant content is required unless tool_calls is set"
    for call in calls or ():
        if call.get("type") != "function" or not isinstance(call.get("id"), str):
            return f"messages[{i}].tool_calls: each needs an id and type 'function'"
        if len(call["id"]) > 40:
            return (f"Invalid 'messages[{i}].tool_calls[0].id': string too long. "
                    "Expected a string with maximum length 40")
        if not isinstance((call.get("function") or {}).get("arguments"), str):
            return f"messages[{i}].tool_calls.function.arguments: must be a string"
        owed.append(call["id"])
    return None


OPENAI_RULES = (openai_key, openai_fields, openai_tools, openai_tool_choice, openai_messages)


def check_openai(body: dict, headers) -> str | None:
    """What Chat Completions would refuse in this request, or None."""
    return first_problem(OPENAI_RULES, body, headers)


# ---- server flavours: what a real compatible server refuses beyond the documented API


def llama_cpp_python_assistant(body, headers):
    """llama-cpp-python's request model types an assistant message's `content` as a
    string that may be left out, but not null (its llama_types.py); pydantic then lists
    one complaint per member of its message union, as this (abridged) copy does."""
    for i, m in enumerate(body.get("messages") or ()):
        if m.get("role") == "assistant" and "content" in m and m["content"] is None:
            where = f"'loc': ('body', 'messages', {i}, 'ChatCompletionRequest"
            return (f"2 validation errors:\n  {{'type': 'literal_error', {where}"
                    f"SystemMessage', 'role'), 'msg': \"Input should be 'system'\", "
                    f"'input': 'assistant'}}\n  {{'type': 'string_type', {where}"
                    f"AssistantMessage', 'content'), 'msg': 'Input should be a valid "
                    f"string', 'input': None}}")


# flavour -> (its rules, the status it refuses with: llama-cpp-python answers 500)
FLAVOURS = {"llama-cpp-python": ((llama_cpp_python_assistant,), 500)}
