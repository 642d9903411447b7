"""A test double: canned replies in order, and a record of every call it received."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path

from .base import NO_OPTIONS, Options, Provider, ProviderError, Reply, Tool, ToolCall
from .sanitize import usage_counts

SCRIPT_SHAPE = ('a JSON list; each entry a string, {"text", "tool_calls": [{"id", "name", '
                '"args"}], "stop_reason", "usage"}, or a fault {"error", "partial"}')


class ScriptedProvider(Provider):
    """Replays `replies` (a str, a Reply, or an exception to raise) one per turn.

    Each call is recorded in `self.calls` as {"messages", "system", "tools", "options"},
    copied at the moment of the call, so a test can check exactly what the model was
    shown. An
    exception with a `partial` attribute streams that text first, then is raised: a
    stream that broke off mid-reply.
    """

    name = "scripted"

    def __init__(self, replies, model: str = "scripted"):
        self.replies = list(replies)
        self.model = model
        self.calls: list[dict] = []

    @classmethod
    def from_file(cls, path: str, what: str = "") -> ScriptedProvider:
        """Replies from the JSON file `path` (TAO_SCRIPT, or a recording: each entry may
        also hold the "request" that got it); any mistake is one clear line."""
        where = what or f"scripted: TAO_SCRIPT={path!r}"
        if not path:
            raise ProviderError(f"scripted: set TAO_SCRIPT to a file holding {SCRIPT_SHAPE}")
        try:
            items = json.loads(Path(path).read_text(encoding="utf-8"))
        except IsADirectoryError:
            raise ProviderError(f"{where} is a folder: name a JSON file") from None
        except FileNotFoundError:
            raise ProviderError(f"{where}: no such file") from None
        except OSError as exc:
            raise ProviderError(f"{where}: cannot read it ({exc.strerror})") from None
        except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
            raise ProviderError(f"{where} is not valid JSON ({exc})") from None
        if not isinstance(items, list):
            raise ProviderError(f"{where} must hold {SCRIPT_SHAPE}")
        return cls([script_entry(item, number, where) for number, item in enumerate(items, 1)])

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Record the call, then stream the next canned reply (or break off, or raise)."""
        self.calls.append({"messages": copy.deepcopy(messages), "system": system,
                           "tools": list(tools), "options": options})
        turn = len(self.calls)
        if turn > len(self.replies):
            raise ProviderError(f"scripted model ran out of replies after turn {turn - 1}")
        reply = self.replies[turn - 1]
        if isinstance(reply, BaseException):
            yield from _deltas(getattr(reply, "partial", "") or "")
            raise reply
        if isinstance(reply, str):
            reply = Reply(reply)
        yield from _deltas(reply.text)
        yield copy.deepcopy(reply)


def _deltas(text: str) -> list[str]:
    """`text` cut into word-sized deltas, as a model streams it."""
    return re.findall(r"\s*\S+\s*|\s+", text)


def script_entry(item, number: int, where: str) -> str | Reply | ProviderError:
    """One script entry as a reply (or a fault); a wrong shape is a ProviderError."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and "request" in item:  # a recording's entry: the reply is the rest
        item = {key: value for key, value in item.items() if key != "request"}
    if isinstance(item, dict) and "error" in item and _fits(item, error=str, partial=str):
        fault = ProviderError(item["error"])
        fault.partial = item.get("partial", "")  # the text streamed before the failure
        return fault
    if _fits(item, text=str, tool_calls=list, stop_reason=str, usage=dict) and all(
            isinstance(call, dict) for call in item.get("tool_calls", [])):
        # names and args are kept as given, any JSON value: tests send hostile calls
        calls = [ToolCall(str(call.get("id", f"call_{number}_{i}")), call.get("name", ""),
                          call.get("args", {}), str(call.get("error", "")))
                 for i, call in enumerate(item.get("tool_calls", []), 1)]
        stop = item.get("stop_reason", "tool_use" if calls else "end_turn")
        # counts as whole numbers, as the SDK providers give them: a stage adds them up
        return Reply(item.get("text", ""), calls, stop, usage_counts(item.get("usage", {})))
    raise ProviderError(f"{where}: entry {number} ({json.dumps(item)[:60]}) is not a reply; "
                        f"expected {SCRIPT_SHAPE}")


def _fits(item, **types) -> bool:
    """True if `item` is a dict whose keys are all among `types`, each of its type."""
    return isinstance(item, dict) and all(
        key in types and isinstance(value, types[key]) for key, value in item.items())
