"""Record a session's model calls, and replay them offline, checking nothing has changed.

    uv run stages/07_native_tools/main.py --provider openai --record run.json
    uv run stages/07_native_tools/main.py --provider replay:run.json

A recording is a TAO_SCRIPT (see scripted.py) whose entries also hold the request that
got that reply: {"request": {"messages", "system", "tools", "options"}, "text", ...}.
A stage's recording says more, so `tao replay FILE` can run the whole session again with
no typing: the first request holds "session": {"stage": "07", "argv": [...]} (the
stage, and its own options: --budget, a question on the command line), and each request
holds the lines the learner "typed" since the one before. None of it is compared.
`Recorder` wraps any provider and rewrites the file after every call, so a session that
breaks off still leaves what it did. Keys never reach it: only the request and the reply
are written (no headers, no client), and every string in them passes through `redact`
with the provider's secrets first.

`ReplayProvider` answers from a recording, offline. Before each reply it compares what
the stage sends now with what was recorded, and at the first difference it raises
`Divergence`, which says where ("request 3 differs at message 5: ...") and ends the
session: it is not a ProviderError, so no stage loop takes it for a failed call and goes
on. A learner who changed the loop sees exactly what changed on the wire. A clock reading
is not a change in the loop: ISO UTC timestamps (what a `now` tool returns) are compared
as "a time", not as that time.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator
from pathlib import Path

from .base import (
    NO_OPTIONS,
    Divergence,
    Options,
    Provider,
    ProviderError,
    Reply,
    Tool,
    Wrapper,
    redact,
)
from .scripted import ScriptedProvider

SHOWN = 160  # characters of a differing value quoted in a divergence report
TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)")


def request_record(messages, system: str, tools, options: Options) -> dict:
    """One call's request as plain JSON data: what a replay compares."""
    record = {"messages": copy.deepcopy(messages), "system": system,
              "tools": [{"name": t.name, "description": t.description, "schema": t.schema}
                        for t in tools]}
    wanted = {"max_tokens": options.max_tokens, "tool_choice": options.tool_choice,
              "stop": list(options.stop)}
    record["options"] = {key: value for key, value in wanted.items() if value}
    return _plain(record)


def reply_record(reply: Reply) -> dict:
    """A Reply as a script entry (the shape ScriptedProvider reads back)."""
    entry: dict = {"text": reply.text, "stop_reason": reply.stop_reason,
                   "usage": dict(reply.usage)}
    if reply.tool_calls:
        entry["tool_calls"] = [{"id": c.id, "name": c.name, "args": c.args,
                                **({"error": c.error} if c.error else {})}
                               for c in reply.tool_calls]
    return entry


class Recorder(Wrapper):
    """A provider that writes every request and reply of the one it wraps to `path`;
    `session` ({"stage", "argv"}) goes into the first request, and each line passed to
    `typed` into the next one."""

    def __init__(self, provider: Provider, path: str | Path, session: dict | None = None):
        super().__init__(provider)
        self.path = Path(path)
        self.session = session
        self.lines: list[str] = []  # typed since the last call
        self.entries: list[str] = []  # each call, as JSON text
        self._write()  # an empty recording at once: a bad path fails before the session

    def typed(self, line: str) -> None:
        """Keep a line the learner typed: it goes with the next request."""
        self.lines.append(line)

    def reading(self, prompt):
        """`prompt` (a trace's line reader), with each line it returns kept (`typed`)."""
        def read() -> str:
            line = prompt()
            self.typed(line)
            return line
        return read

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """The wrapped turn, unchanged; its request and reply (or fault) are written."""
        entry = {"request": request_record(messages, system, tools, options)}
        entry["request"]["model"] = self.provider.describe()  # who answered: not compared
        if self.session and not self.entries:
            entry["request"]["session"] = self.session
        if self.lines:
            entry["request"]["typed"], self.lines = self.lines, []
        shown: list[str] = []
        try:
            for item in self.provider.turn(messages, system, tools, options):
                if isinstance(item, Reply):
                    entry.update(reply_record(item))
                elif isinstance(item, str):
                    shown.append(item)
                yield item
        except ProviderError as exc:  # replayed as the same fault, at the same point
            entry.update(error=str(exc), partial=exc.partial or "".join(shown))
            raise
        finally:
            if len(entry) > 1:  # a reply or a fault came: keep it
                self._add(entry)

    def _add(self, entry: dict) -> None:
        """Keep one call, secrets hidden, and rewrite the file."""
        entry = _hidden(entry, tuple(getattr(self.provider, "secrets", ())))
        self.entries.append(json.dumps(entry, indent=1, ensure_ascii=False))
        self._write()

    def _write(self) -> None:
        """The whole recording, as indented JSON (readable, and diffable in a review);
        each entry is turned into text once, when it comes."""
        text = "[\n" + ",\n".join(self.entries) + "\n]\n" if self.entries else "[]\n"
        try:
            self.path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ProviderError(f"--record {str(self.path)!r}: cannot write it "
                                f"({exc.strerror})") from None


class ReplayProvider(ScriptedProvider):
    """Answers from a recording, and stops at the first request that differs from it."""

    name = "replay"

    def __init__(self, entries: list[dict], replies, source: str = "replay"):
        super().__init__(replies, model=source)
        self.requests = [entry.get("request") for entry in entries]
        self.recorded_from = next((r["model"] for r in self.requests
                                   if isinstance(r, dict) and r.get("model")), "")

    @classmethod
    def from_recording(cls, path: str) -> ReplayProvider:
        """The recording at `path`; any mistake in it is one clear line."""
        script = ScriptedProvider.from_file(path, what=f"replay: {path!r}")
        entries = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(entries, script.replies, Path(path).name)

    def describe(self) -> str:
        """Which recording answers, and which model it was recorded from."""
        source = f", recorded from {self.recorded_from}" if self.recorded_from else ""
        return f"replay of {self.model}{source}; nothing is sent"

    def turn(self, messages, system, tools: tuple[Tool, ...],
             options: Options = NO_OPTIONS) -> Iterator[str | Reply]:
        """Check this request against the recorded one, then replay the recorded reply."""
        number = len(self.calls) + 1
        if number <= len(self.requests) and self.requests[number - 1] is not None:
            now = _hidden(request_record(messages, system, tools, options), ())
            difference = divergence(self.requests[number - 1], now)
            if difference:
                raise Divergence(f"replay: request {number} differs {difference}")
        elif number > len(self.replies):
            raise Divergence(f"replay: the recording ends after request {number - 1}, "
                             f"and the stage sent request {number}")
        yield from super().turn(messages, system, tools, options)


def session_of(entries: list) -> tuple[dict, list[str]]:
    """A recording's session ({"stage", "argv"}, or {} if it was made before sessions were
    kept, or by `tao compare`) and every line the learner typed, in order."""
    requests = [e["request"] for e in entries
                if isinstance(e, dict) and isinstance(e.get("request"), dict)]
    session = next((r["session"] for r in requests if isinstance(r.get("session"), dict)), {})
    typed = []
    for request in requests:
        lines = request.get("typed", [])
        typed += [str(line) for line in lines] if isinstance(lines, list) else []
    return session, typed


def divergence(recorded: dict, now: dict) -> str:
    """Where `now` first differs from `recorded` ("at message 5: ..."), or ""."""
    old, new = recorded.get("messages", []), now.get("messages", [])
    for index, (was, is_) in enumerate(zip(old, new, strict=False), 1):
        if _timeless(was) != _timeless(is_):
            return f"at message {index}: recorded {_short(was)}, now {_short(is_)}"
    if len(old) != len(new):
        index = min(len(old), len(new)) + 1
        extra = f"now {_short(new[index - 1])}" if len(new) > len(old) else "now nothing"
        return (f"at message {index}: recorded "
                f"{_short(old[index - 1]) if len(old) > len(new) else 'nothing'}, {extra}")
    for part in ("system", "tools", "options"):
        if recorded.get(part) != now.get(part):
            return (f"in its {part}: recorded {_short(recorded.get(part))}, "
                    f"now {_short(now.get(part))}")
    return ""


def _timeless(value):
    """`value` with every ISO UTC timestamp in its strings made the same."""
    if isinstance(value, str):
        return TIMESTAMP.sub("<time>", value)
    if isinstance(value, list):
        return [_timeless(item) for item in value]
    if isinstance(value, dict):
        return {key: _timeless(item) for key, item in value.items()}
    return value


def _short(value) -> str:
    """`value` as compact JSON, cut to SHOWN characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def _plain(value):
    """`value` as JSON would give it back (tuples as lists, keys as strings)."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=str))


def _hidden(value, secrets: tuple):
    """`value` with every string redacted: the given secrets, and anything key-shaped."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, list):
        return [_hidden(item, secrets) for item in value]
    if isinstance(value, dict):
        return {_hidden(key, secrets): _hidden(item, secrets) for key, item in value.items()}
    return value
