"""Record a session's model calls, and replay them offline, checking nothing has changed.

    uv run stages/07_native_tools/main.py --provider openai --record run.json
    uv run stages/07_native_tools/main.py --provider replay:run.json

A recording is a TAO_SCRIPT (see scripted.py) whose entries also hold the request that
got that reply: {"request": {"messages", "system", "tools", "options"}, "text", ...}.
A stage's recording says more, so `tao replay FILE` can run the whole session again with
no typing: the first request holds "session": {"stage": "07", "argv": [...]} (the
stage, and its own options: --budget, a question on the command line), and each request
holds the lines the learner "typed" since the one before. None of it is compared.
A session keeps only the options named in KEPT (an allowlist: never which model answers,
nor a file to write), and `replayable`, the same filter, refuses a recording holding any
other before `tao replay` passes its options again (`--provider replay:FILE` passes none,
so it reads a recording made before the allowlist as well).

`Recorder` wraps any provider and adds each call to the file as it ends: the file is
written whole at the start ("[]"), then each call is appended in front of its closing
bracket, so it is valid JSON after every call and the work grows with the session, not
with its square. A write that fails ends the session (`RecordError`) with the file as it
was; a kill in the middle of one leaves a torn last call, which `read_recording` drops,
saying so. Keys never reach it: only the request and the reply are written (no headers,
no client), and every string in them passes through `redact` with every key the kit
knows of (the provider's, and ANTHROPIC_API_KEY's and OPENAI_API_KEY's values).

`read_recording` is the one reader of recordings, for `--provider replay:FILE` and `tao
replay` alike: anything wrong with a file is one `BadRecording` line.

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
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..files import uninterrupted, write_whole
from .base import (
    NO_OPTIONS,
    Divergence,
    Options,
    Provider,
    ProviderError,
    RecordError,
    Reply,
    Tool,
    Wrapper,
    redact,
)
from .defaults import KEY_VARS
from .scripted import ScriptedProvider, script_entry

SHOWN = 160  # characters of a differing value quoted in a divergence report
MAX_DEPTH = 100  # a recording nested deeper than this is no recording (and would crash)
# The options a recording keeps, by name, per kind of session: what makes the same session
# again. Written as --name=value; a stage's own words (stage 01's question) go after `--`.
# Never one that picks the model, a file or folder to write (--record, --workspace), or
# takes a wall down (--unconfined): a replay runs the recorded tool calls for real.
KEPT = {"stage": ("--budget", "--max-iterations", "--show-wire", "--sandbox", "--examples"),
        "compare": ("--protocols", "--runs", "--tasks")}
FLAGS = ("--examples",)  # kept options that take no value: written bare
WORDS = "question"  # the stage argument that holds its words (stage 01: what to ask)
SHAPE = 'a JSON list of {"request": ..., "text": ...} entries'
# what can be wrong with a file given as a recording, in English (tao says it in French too)
PROBLEMS = {"no_file": "name a recording: --provider replay:FILE",
            "missing": "{path}: no such file",
            "folder": "{path} is a folder: name a recording (a --record FILE)",
            "unreadable": "{path}: cannot read it ({why})",
            "not_json": "{path} is not valid JSON ({why})",
            "not_recording": "{path} is not a recording: --record writes {shape}",
            "too_deep": f"{{path}} is nested more than {MAX_DEPTH} levels deep: not a recording",
            "empty": "{path} holds no model call: nothing to replay",
            "entry": "{path}: {why}",
            "session": "{path}: its session {why}",
            "option": "{path} holds the option {why}, which a replay never passes again"}
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


class BadRecording(ProviderError):
    """A file no replay can read: `problem` (a key of PROBLEMS) and `parts` say what is
    wrong with it; str() is the English line."""

    def __init__(self, problem: str, path: str, why: str = ""):
        self.problem, self.parts = problem, {"path": repr(path), "why": why}
        super().__init__("replay: " + PROBLEMS[problem].format(**self.parts, shape=SHAPE))


@dataclass
class Recording:
    """A recording, read and checked: its calls, their replies, the session (which stage
    or verb, its kept options) and every line typed; `cut_short` if a kill tore its end."""

    entries: list[dict]
    replies: list
    session: dict = field(default_factory=dict)
    typed: list[str] = field(default_factory=list)
    cut_short: bool = False


def read_recording(path: str) -> Recording:
    """The recording at `path`; anything wrong with it is one BadRecording."""
    if not path:
        raise BadRecording("no_file", path)
    entries, cut_short = _entries(path)
    if not entries:
        raise BadRecording("empty", path)
    replies = []
    for number, entry in enumerate(entries, 1):
        try:
            replies.append(script_entry(entry, number, "replay"))
        except ProviderError as exc:
            raise BadRecording("entry", path, str(exc).removeprefix("replay: ")) from None
    session, typed = _session(entries, path)
    return Recording(entries, replies, session, typed, cut_short)


def _entries(path: str) -> tuple[list[dict], bool]:
    """The entries of the file at `path`, and whether its torn last call was dropped."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except IsADirectoryError:
        raise BadRecording("folder", path) from None
    except FileNotFoundError:
        raise BadRecording("missing", path) from None
    except OSError as exc:
        raise BadRecording("unreadable", path, exc.strerror or str(exc)) from None
    except ValueError as exc:  # not UTF-8
        raise BadRecording("not_json", path, str(exc)) from None
    entries, cut_short = _parsed(text, path)
    if _depth(entries) > MAX_DEPTH:
        raise BadRecording("too_deep", path)
    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and isinstance(e.get("request"), dict) for e in entries):
        raise BadRecording("not_recording", path)
    return entries, cut_short


def _parsed(text: str, path: str):
    """`text` as JSON; a recording whose last call a kill tore (the Recorder ends each
    call with a `}` alone on its line) as its whole calls, and True."""
    try:
        return json.loads(text), False
    except (ValueError, RecursionError) as exc:
        end = text.rfind("\n}")
        if text.startswith("[\n{") and end > 0:
            try:
                return json.loads(text[:end + 2] + "\n]"), True
            except (ValueError, RecursionError):
                pass
        raise BadRecording("not_json", path, str(exc)) from None


def _depth(value) -> int:
    """How deeply lists and dicts nest in `value` (walked without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            todo += [(child, depth + 1) for child in
                     (item.values() if isinstance(item, dict) else item)]
    return deepest


def _session(entries: list[dict], path: str) -> tuple[dict, list[str]]:
    """A recording's session ({"stage", "argv"} or {"verb", "argv"}; {} for one made
    before sessions were kept) and every line typed, each checked."""
    requests = [e["request"] for e in entries]
    session = next((r["session"] for r in requests if "session" in r), {})
    if not isinstance(session, dict):
        raise BadRecording("session", path, "is not a JSON object")
    stage, verb, argv = session.get("stage"), session.get("verb"), session.get("argv", [])
    if stage is not None and not (isinstance(stage, str) and stage.isascii()
                                  and stage.isdigit() and len(stage) <= 3):
        raise BadRecording("session", path, f"names no stage: {_short(stage)}")
    if verb not in (None, "compare"):
        raise BadRecording("session", path, f"names no verb tao replays: {_short(verb)}")
    if not isinstance(argv, list) or not all(isinstance(arg, str) for arg in argv):
        raise BadRecording("session", path, "holds options that are not a list of strings")
    typed = []
    for request in requests:
        lines = request.get("typed", [])
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            raise BadRecording("session", path, "holds typed lines that are not strings")
        typed += lines
    return session, typed


def replayable(kind: str, argv: list[str], path: str = "") -> list[str]:
    """`argv` if a replay may pass it again: only KEPT[kind]'s options (--name=value,
    --name and a value that is no option, or a bare FLAGS name), and a stage's own words;
    else BadRecording naming the first option that is not. The one filter, on the way out
    and the way in."""
    rest = iter(argv)
    for arg in rest:
        if arg == "--" and kind == "stage":
            break  # what follows is the stage's words, never an option
        if not arg.startswith("-") and kind == "stage":
            continue
        name = arg.split("=", 1)[0]
        if name not in KEPT[kind] or (name in FLAGS and arg != name):
            raise BadRecording("option", path, repr(arg))
        if name in FLAGS:
            continue
        value = "=" in arg or next(rest, "-")
        if value is not True and value.startswith("-"):
            raise BadRecording("option", path, f"{arg} (with no value)")
    return list(argv)


def kept_options(kind: str, given: dict) -> list[str]:
    """The options a `kind` session's recording keeps, from `given` (argparse's names and
    values, those set on the command line): KEPT's, and a stage's words after `--`."""
    argv = [name if name in FLAGS else f"{name}={value}" for name in KEPT[kind]
            if (value := given.get(name[2:].replace("-", "_"))) is not None
            and value is not False]  # a flag left off (`is`: a count of 0 is no flag)
    words = [str(word) for word in given.get(WORDS) or ()] if kind == "stage" else []
    return replayable(kind, argv + (["--", *words] if words else []))


def is_recording(path: str | Path) -> bool:
    """True if the file at `path` is a recording (or an empty one): --record may write
    over it, and over nothing else."""
    try:
        read_recording(str(path))
    except BadRecording as exc:
        return exc.problem == "empty"
    return True


def same_file(a: str | Path, b: str | Path) -> bool:
    """True if `a` and `b` name one file (however each is spelt)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return Path(a).resolve() == Path(b).resolve()


class Recorder(Wrapper):
    """A provider that writes every request and reply of the one it wraps to `path`;
    `session` ({"stage", "argv"}) goes into the first request, and each line passed to
    `typed` into the next one."""

    def __init__(self, provider: Provider, path: str | Path, session: dict | None = None):
        super().__init__(provider)
        replayed = getattr(provider, "source", "")
        if replayed and same_file(path, replayed):
            raise ProviderError(f"--record {str(path)!r} is the recording being replayed: "
                                "name another file")
        self.path = Path(path)
        self.session = session
        self.lines: list[str] = []  # typed since the last call
        self.count, self.end = 0, 1  # calls written; where the closing bracket goes
        # every key the kit knows of, whichever provider answers
        self.hidden = (*getattr(provider, "secrets", ()),
                       *(os.environ.get(name) for name in KEY_VARS.values()))
        try:  # an empty recording at once: a bad path fails before the session
            write_whole(self.path, b"[\n]\n")
        except OSError as exc:
            raise ProviderError(self._failed(exc)) from None

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
        """The wrapped turn, unchanged; its request and reply (or fault) are written as
        the reply (or the fault) comes, before the stage sees it."""
        entry = {"request": request_record(messages, system, tools, options)}
        entry["request"]["model"] = self.provider.describe()  # who answered: not compared
        if self.session and not self.count:
            entry["request"]["session"] = self.session
        if self.lines:
            entry["request"]["typed"], self.lines = self.lines, []
        shown: list[str] = []
        try:
            for item in self.provider.turn(messages, system, tools, options):
                if isinstance(item, Reply):
                    self._add({**entry, **reply_record(item)})
                elif isinstance(item, str):
                    shown.append(item)
                yield item
        except ProviderError as exc:  # replayed as the same fault, at the same point
            self._add({**entry, "error": str(exc), "partial": exc.partial or "".join(shown)})
            raise

    def _add(self, entry: dict) -> None:
        """Append one call, secrets hidden, in front of the closing bracket; if that
        fails, put the bracket back and end the session (RecordError)."""
        text = json.dumps(_hidden(entry, self.hidden), indent=1, ensure_ascii=False)
        # a lone surrogate (a character a server split) is kept as its JSON escape
        data = (b",\n" if self.count else b"\n") + text.encode("utf-8", "backslashreplace")
        with uninterrupted():  # a Ctrl-C waits for the call to be written whole
            try:
                self._write_at(self.end, data + b"\n]\n")
            except OSError as exc:
                try:
                    self._write_at(self.end, b"\n]\n", truncate=True)
                except OSError:
                    pass  # the file ends in a torn call: read_recording drops it
                raise RecordError(self._failed(exc)) from None
        self.count, self.end = self.count + 1, self.end + len(data)

    def _write_at(self, offset: int, data: bytes, truncate: bool = False) -> None:
        """Write `data` at `offset` in the recording (cutting it there first if asked)."""
        with open(self.path, "r+b") as file:
            if truncate:
                file.truncate(offset)
            file.seek(offset)
            file.write(data)

    def _failed(self, exc: OSError) -> str:
        """The line that says the recording cannot be written, and why."""
        return f"--record {str(self.path)!r}: cannot write it ({exc.strerror or exc})"


class ReplayProvider(ScriptedProvider):
    """Answers from a recording, and stops at the first request that differs from it."""

    name = "replay"

    def __init__(self, entries: list[dict], replies, source: str = "replay",
                 cut_short: bool = False):
        super().__init__(replies, model=Path(source).name)
        self.source, self.cut_short = source, cut_short  # the file, and whether it was torn
        self.requests = [entry.get("request") for entry in entries]
        self.recorded_from = next((str(r["model"]) for r in self.requests
                                   if isinstance(r, dict) and r.get("model")), "")

    @classmethod
    def from_recording(cls, path: str) -> ReplayProvider:
        """The recording at `path`; any mistake in it is one clear line."""
        recording = read_recording(path)
        return cls(recording.entries, recording.replies, path, recording.cut_short)

    def describe(self) -> str:
        """Which recording answers, and which model it was recorded from."""
        source = f", recorded from {self.recorded_from}" if self.recorded_from else ""
        torn = (f" (cut short: its last call was never written whole, {len(self.replies)} "
                "are replayed)") if self.cut_short else ""
        return f"replay of {self.model}{source}{torn}; nothing is sent"

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
