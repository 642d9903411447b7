"""What `tao port-test` finds wrong with one run: the first difference, said plainly.

A request's body is read back into tao's own message shape (`neutral`: the Messages API's
content blocks and Chat Completions' messages both become the flat messages of
shared/providers/base.py), then held to the contract request by request: the history
first (every message, and each tool result with its call's id), then the tools and their
schemas, the system prompt, the stop sequences, the model, and what the API itself would
refuse. Then the output, the exit code, and the files.
"""

from __future__ import annotations

import json
from pathlib import Path

from .i18n import text
from .port_contract import Contract, Pattern

SHORT = 120  # characters of a value quoted in a difference


def short(value) -> str:
    """`value` as compact JSON, cut to SHORT characters."""
    said = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    said = json.dumps(said, ensure_ascii=False) if isinstance(value, str) else said
    return said if len(said) <= SHORT else said[:SHORT] + "…"


def neutral(body: dict, kind: str) -> tuple[str, list[dict], list[dict]]:
    """(system prompt, messages, tools) of a request body, in tao's message shape."""
    if kind == "anthropic":
        system = body.get("system") or ""
        if isinstance(system, list):
            system = "\n".join(block.get("text", "") for block in system)
        messages = [m for message in body["messages"] for m in _from_anthropic(message)]
        tools = [{"name": t.get("name"), "description": t.get("description"),
                  "schema": t.get("input_schema")} for t in body.get("tools", [])]
        return system, messages, tools
    system = next((_text(m.get("content")) for m in body["messages"]
                   if m.get("role") == "system"), "")
    messages = [_from_openai(m) for m in body["messages"] if m.get("role") != "system"]
    tools = [{"name": t["function"].get("name"), "description": t["function"].get(
        "description"), "schema": t["function"].get("parameters")} for t in body.get("tools", [])]
    return system, messages, tools


def _text(content) -> str:
    """The text of a content field: a string, or the text of its blocks."""
    if isinstance(content, list):
        return "".join(block.get("text", "") for block in content if isinstance(block, dict))
    return content or ""


def _from_anthropic(message: dict) -> list[dict]:
    """One Messages API message as tao messages (a user turn may hold several results)."""
    content = message["content"]
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    if message["role"] == "assistant":
        calls = [(b.get("id"), b.get("name"), b.get("input")) for b in blocks
                 if b.get("type") == "tool_use"]
        return [{"role": "assistant", "content": texts, "tool_calls": calls}]
    results = [{"role": "tool", "tool_call_id": b.get("tool_use_id"),
                "content": _text(b.get("content"))} for b in blocks
               if b.get("type") == "tool_result"]
    return results + ([{"role": "user", "content": texts}] if texts or not results else [])


def _from_openai(message: dict) -> dict:
    """One Chat Completions message as a tao message."""
    if message.get("role") == "tool":
        return {"role": "tool", "tool_call_id": message.get("tool_call_id"),
                "content": _text(message.get("content"))}
    calls = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        try:
            args = json.loads(function.get("arguments") or "{}")
        except ValueError:
            args = function.get("arguments")
        calls.append((call.get("id"), function.get("name"), args))
    if message.get("role") != "assistant":
        return {"role": message.get("role"), "content": _text(message.get("content"))}
    return {"role": "assistant", "content": _text(message.get("content")), "tool_calls": calls}


# ---------------------------------------------------------------- the history


def history_difference(expected: list[dict], actual: list[dict], window) -> str | None:
    """Where the messages first differ from what the contract prescribes, or None."""
    for i, want in enumerate(expected, 1):
        if i > len(actual):
            return text("port.missing", n=i, want=wanted(want), last=len(actual))
        problem = message_difference(want, actual[i - 1], window)
        if problem:
            return text("port.at_message", n=i, problem=problem)
    if len(actual) > len(expected):
        return text("port.extra_message", n=len(expected) + 1, got=got(actual[len(expected)]))
    return None


def wanted(message: dict) -> str:
    """What an expected message is, in words."""
    if message["role"] == "tool":
        return text("port.want_result", name=message["name"], id=message["tool_call_id"],
                    content=short(str(message["content"])))
    if message.get("result_of"):
        return text("port.want_fed", name=message["result_of"],
                    content=short(str(message["content"])))
    calls = [f"{name}{short(args)} id {call_id!r}"
             for call_id, name, args in message.get("tool_calls") or ()]
    return (f"{message['role']} {short(str(message['content']))}"
            + (f" + calls {calls}" if calls else ""))


def got(message: dict) -> str:
    """What an actual message is, in words."""
    where = f" (id {message.get('tool_call_id')!r})" if message.get("role") == "tool" else ""
    calls = [f"{name}{short(args)} id {call_id!r}"
             for call_id, name, args in message.get("tool_calls") or ()]
    said = short(str(message.get("content") or "")) + (f" + calls {calls}" if calls else "")
    return f"{message.get('role')}{where} {said}"


def message_difference(want: dict, have: dict, window) -> str | None:
    """How one message differs from the one expected, or None."""
    if want["role"] != have.get("role"):
        return text("port.wrong_message", want=wanted(want), got=got(have))
    if want["role"] == "tool" and have.get("tool_call_id") != want["tool_call_id"]:
        return text("port.unpaired", got=have.get("tool_call_id"), want=want["tool_call_id"],
                    name=want["name"])
    if not want["content"].matches(have.get("content") or "", window):
        return text("port.wrong_message", want=wanted(want), got=got(have))
    calls = [(i, n, a) for i, n, a in have.get("tool_calls") or ()]
    if calls != list(want.get("tool_calls") or ()):
        return text("port.wrong_calls", want=[f"{n}{short(a)} id {i!r}" for i, n, a in
                                              want.get("tool_calls") or ()], got=got(have))
    return None


# ---------------------------------------------------------------- the rest of a request


def request_difference(contract: Contract, body: dict, tools: list[dict], system: str,
                       first_system: str) -> str | None:
    """What, besides the history, a request does against the contract, or None."""
    names = [t["name"] for t in tools]
    missing = [name for name in contract.tools if name not in names]
    if missing:
        return text("port.tool_missing", name=missing[0], names=", ".join(names) or "none")
    if tools and not contract.tools:
        return text("port.tools_not_native", names=", ".join(map(str, names)))
    problem = next(filter(None, map(schema_problem, tools)), None)
    if problem:
        return problem
    if contract.system == "none" and system:
        return text("port.system_sent", chars=len(system))
    if contract.system == "same" and (not system or system != first_system):
        return text("port.system_missing" if not system else "port.system_changed")
    absent = [words for words in contract.system_has if words not in system]
    if absent:
        return text("port.system_lacks", words=absent[0])
    stops = body.get("stop_sequences", body.get("stop")) or []
    stops = [stops] if isinstance(stops, str) else stops
    if any(stop not in stops for stop in contract.stop):
        return text("port.stop", want=contract.stop, got=stops)
    return None


def schema_problem(tool: dict) -> str | None:
    """What is wrong with an advertised tool's description or JSON Schema, or None."""
    name, schema = tool.get("name"), tool.get("schema")
    if not isinstance(tool.get("description"), str) or not tool["description"].strip():
        return text("port.schema", name=name, why=text("port.no_description"))
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return text("port.schema", name=name, why='its schema is not {"type": "object"}')
    properties = schema.get("properties", {})
    if not isinstance(properties, dict) or not all(
            isinstance(p, dict) and ({"type", "anyOf", "oneOf", "enum", "$ref"} & set(p))
            for p in properties.values()):
        return text("port.schema", name=name, why="each property needs a type")
    required = schema.get("required", [])
    if not isinstance(required, list) or any(key not in properties for key in required):
        return text("port.schema", name=name, why=f"required {required!r} names a property "
                                                  "it does not define")
    return None


def files_difference(case: dict, workspace: Path, values: dict, window, fill) -> str | None:
    """Whether the workspace holds the files the case says (11 on), or None."""
    for name, content in fill(case.get("files", {}), values).items():
        path = workspace / name
        if not path.is_file():
            return text("port.file_missing", path=name)
        have = path.read_text(encoding="utf-8", errors="replace")
        if not Pattern(content).matches(have, window):
            return text("port.file_differs", path=name, want=short(content), got=short(have))
    for name in fill(case.get("absent", []), values):
        if (workspace / name).exists():
            return text("port.file_there", path=name)
    return None
