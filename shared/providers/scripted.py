"""A test double: canned replies in order, and a record of every call it received."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator

from .base import Provider, ProviderError, Reply, Tool


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
