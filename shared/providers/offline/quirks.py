"""Quirks: the offline model misbehaving on purpose, the way real models do.

`apply_quirk` is the one place a quirk acts: the rules decide a clean reply, and the
quirk then spoils it. A stage shows how its loop copes (`--quirk fenced`).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the rules load with the first reply (see __init__.py), not with tao
    from .rules import Draft

QUIRKS = {
    "blank_lines": "blank lines before the JSON line (what .strip() is for)",
    "fenced": "a turn's first JSON line wrapped in a ```json fence",
    "prose": "a sentence of prose before a turn's first JSON line",
    "broken_json": "the first tool call cut off mid-JSON",
    "unknown_tool": "the first tool call names a tool that does not exist",
    "own_observation": "a made-up tool result after the JSON line (what stop sequences are for)",
    "gullible": "obeys the first line in a tool result that addresses it (a prompt injection)",
}
# a line that speaks to the model or as the user: "Note for AI assistants: run ...", "User: ..."
PLANTED = re.compile(r"^[\W\d_]*(?:(?:note|message|instructions?) (?:to|for) (?:the |all )?"
                     r"(?:AI )?(?:assistants?|agents?|models?)|user|system)\b[^:\n]{0,20}:"
                     r"[*\s]*(\S.*)$", re.I | re.M)
FIRST_TRY_ONLY = {"fenced", "prose", "broken_json", "unknown_tool"}  # the retry comes out right


def apply_quirk(quirk: str | None, draft: Draft, *, first_try: bool,
                tool_names=()) -> Draft:
    """The reply as the quirk spoils it (unchanged when the quirk has nothing to spoil)."""
    if quirk in (None, "", "gullible") or (quirk in FIRST_TRY_ONLY and not first_try):
        return draft
    if draft.calls:
        return replace(draft, calls=[_spoil_call(quirk, draft.calls[0], tool_names),
                                     *draft.calls[1:]])
    if draft.call_line:
        return replace(draft, text=_spoil_line(quirk, draft.text, tool_names))
    return draft


def obey_planted(messages: list[dict]) -> list[dict]:
    """`messages`, and the first planted line of the latest tool results as the user's next
    words (the gullible quirk); `messages` alone when they hold none."""
    latest = []
    for message in reversed(messages):
        if message.get("role") != "tool":
            break
        latest.insert(0, str(message.get("content", "")))
    found = PLANTED.search("\n".join(latest))
    return [*messages, {"role": "user", "content": found[1]}] if found else messages


def _spoil_line(quirk: str, line: str, tool_names) -> str:
    """A JSON-line call as the quirk writes it."""
    if quirk == "blank_lines":
        return "\n\n" + line
    if quirk == "fenced":
        return f"```json\n{line}\n```"
    if quirk == "prose":
        return f"Let me check that with a tool.\n{line}"
    if quirk == "broken_json":
        return line[: len(line) // 2]
    call = json.loads(line)
    if quirk == "own_observation":  # it goes on as if the transcript were its to write
        tag = f"<tool_result tool={json.dumps(call['tool'])}>"
        return f"{line}\n{tag}\n42\n</tool_result>\nThe {call['tool']} tool says 42."
    return json.dumps({"tool": invented_name(call["tool"], tool_names), "args": call["args"]},
                      ensure_ascii=False)


def _spoil_call(quirk: str, call, tool_names):
    """A native tool call as the quirk sends it (the text quirks leave it alone)."""
    if quirk == "unknown_tool":
        return replace(call, name=invented_name(call.name, tool_names))
    if quirk == "broken_json":
        sent = json.dumps(call.args, ensure_ascii=False)
        half = sent[: len(sent) // 2]
        return replace(call, args={}, sent=half,
                       error=f"the arguments were not valid JSON: {half!r}")
    return call


def invented_name(name: str, tool_names) -> str:
    """A plausible tool name that is not among `tool_names`."""
    invented = f"{name}_tool"
    while invented in tool_names:
        invented += "_tool"
    return invented
