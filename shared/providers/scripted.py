"""A test double: canned replies in order, and a record of every call it received."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path

from .base import Provider, ProviderError, Reply, Tool, ToolCall


class ScriptedProvider(Provider):
    """Replays `replies` (a str, a Reply, or an exception to raise) one per turn.

    Each call is recorded in `self.calls` as {"messages", "system", "tools"}, copied at
    the moment of the call, so a test can check exactly what the model was shown.
    """

    name = "scripted"

    def __init__(self, replies, model: str = "scripted"):
        self.replies = list(replies)
        self.model = model
        self.calls: list[dict] = []

    @classmethod
    def from_file(cls, path: str) -> ScriptedProvider:
        """Replies from a JSON list: strings, or {"text", "tool_calls": [{id, name, args}]}."""
        try:
            items = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ProviderError(f"scripted: cannot read TAO_SCRIPT={path!r}: {exc}") from None
        replies = [item if isinstance(item, str) else Reply(
            item.get("text", ""), [ToolCall(**c) for c in item.get("tool_calls", [])],
            item.get("stop_reason", "tool_use" if item.get("tool_calls") else "end_turn"))
            for item in items]
        return cls(replies)

    def turn(self, messages, system, tools: tuple[Tool, ...]) -> Iterator[str | Reply]:
        self.calls.append({"messages": copy.deepcopy(messages), "system": system,
                           "tools": list(tools)})
        turn = len(self.calls)
        if turn > len(self.replies):
            raise ProviderError(f"scripted model ran out of replies after turn {turn - 1}")
        reply = self.replies[turn - 1]
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(reply, str):
            reply = Reply(reply)
        yield from re.findall(r"\s*\S+\s*|\s+", reply.text)
        yield copy.deepcopy(reply)
