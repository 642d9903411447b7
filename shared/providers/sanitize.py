"""What came back from a model, made safe to keep and to send again.

A reply is kept in the history and sent back on every later request, so one odd reply
(a lone surrogate, whitespace before a tool call, an id a server reused) would make
every later request one the API refuses: the session could never recover. Both request
translations (`to_anthropic`, `to_openai`) pass the history through `sendable()`
first, so the next request is one the API accepts whatever came back before. The
history itself is never changed: a cleaned copy is sent.

`usage_counts()` does the same for token counts, where each provider reads them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict, deque

_SURROGATE = re.compile(r"[\ud800-\udfff]")
_CALL_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")  # Anthropic's pattern, OpenAI's 40-char limit
_NAME_LETTER = re.compile(r"[^A-Za-z0-9_-]")  # both APIs' tool-name pattern, 1-64 of these
NO_ID = "call_tao"  # the stem of the ids made up for calls that came without one


def encodable(text) -> str:
    """`text` as a string UTF-8 can carry: a lone surrogate (from a `\\ud800` escape in
    the server's JSON) becomes U+FFFD, which the SDKs can send."""
    if not isinstance(text, str):
        try:
            text = str(text)
        except Exception:  # a value whose str() raises still leaves a request to send
            text = f"<{type(text).__name__}>"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def as_text(value) -> str:
    """A field that should have been a string (a tool name, a stop reason), as one: a
    string as it is, anything else as its JSON text."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return f"<{type(value).__name__}>"


def sendable_args(args) -> dict:
    """Tool arguments as a JSON object both APIs accept; {} when they cannot be sent
    (not an object, not JSON, nested past what a JSON encoder can write)."""
    if not isinstance(args, dict):
        return {}
    try:  # one pass of the C encoder checks the whole value, at any depth, no recursion here
        raw = json.dumps(args, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return {}
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        return json.loads(_SURROGATE.sub("\ufffd", raw))
    return args


def tool_name(name) -> str:
    """A tool name the APIs accept in a history: letters, digits, _ and -, 1 to 64."""
    cleaned = _NAME_LETTER.sub("_", encodable(name))[:64]
    return cleaned or "unnamed_tool"


def call_id(raw, taken: set) -> str:
    """`raw` if it is a usable id not yet taken, else a stable made-up one that is not
    (an id the APIs would refuse is replaced by its hash)."""
    raw = encodable(raw)
    base = raw if _CALL_ID.match(raw) else "call_" + hashlib.sha1(raw.encode()).hexdigest()[:16]
    return unique_id(base, taken)


def unique_id(wanted: str, taken: set, avoid=()) -> str:
    """`wanted` if no call in `taken` has it yet; else a made-up id that no call in
    `taken` or `avoid` has: `wanted` cut to leave room for `_2`, `_3`... (under OpenAI's
    40 characters), or for a call with no id, `call_tao_1`, `call_tao_2`... The id
    returned joins `taken`. The one place tao makes up a call id (a server that repeats
    one, or sends none: the later call gets its own, so no result answers two calls)."""
    new, n = wanted, 1 if wanted else 0  # a call that kept the id counts as the first
    while not new or new in taken or (new != wanted and new in avoid):
        n += 1
        new = f"{(wanted or NO_ID)[:34]}_{n}"
    taken.add(new)
    return new


def sendable(messages: list[dict]) -> list[dict]:
    """A copy of the history that both APIs accept, whatever the replies in it held:
    strings UTF-8 can carry; no whitespace-only assistant text; tool names in the APIs'
    pattern; call ids that are valid and unique in the whole request, each tool result
    following its call's new id (the k-th result naming an id answers the k-th call)."""
    out: list[dict] = []
    taken: set[str] = set()
    renamed: dict[str, deque] = {}  # the last round's ids -> what they were sent as
    for m in messages:
        m = dict(m)
        if m.get("role") == "assistant":
            text = encodable(m.get("content") or "")
            m["content"] = text if text.strip() else ""  # Anthropic refuses blank text
            if m.get("tool_calls"):
                renamed = defaultdict(deque)
                calls = []
                for call in m["tool_calls"]:
                    new = call_id(call.get("id") or "", taken)
                    renamed[encodable(call.get("id") or "")].append(new)
                    calls.append({**call, "id": new, "name": tool_name(call.get("name")),
                                  "args": sendable_args(call.get("args"))})
                m["tool_calls"] = calls
        elif m.get("role") == "tool":
            old = encodable(m.get("tool_call_id") or "")
            queue = renamed.get(old)
            m["tool_call_id"] = queue.popleft() if queue else old
            m["content"] = encodable(m.get("content", ""))
        elif isinstance(m.get("content"), str):
            m["content"] = encodable(m["content"])
        out.append(m)
    return out


def usage_count(value) -> int | None:
    """A token count as a whole number of tokens, or None when it is not one."""
    if isinstance(value, bool):
        return None  # True is an int to Python, not a count
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float) and value.is_integer() and value >= 0:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit() and len(value) < 20:
        return int(value)
    return None


def usage_counts(usage) -> dict:
    """A usage record whose counts are all whole numbers (what is not one is left out);
    the `estimated` and `not_reported` flags, if set, are kept as bools (a replayed reply
    says what the recorded one said about its counts)."""
    if not isinstance(usage, dict):
        return {}
    counts: dict = {}
    for key, value in usage.items():
        if key in ("estimated", "not_reported"):
            counts[key] = bool(value)
        elif (n := usage_count(value)) is not None:
            counts[str(key)] = n
    return counts
