"""Rendering what the model and the loop do: think, act, observe, answer.

One renderer for every stage. Model and tool text always goes in through `visible()`
and as `Text`, never as markup: a reply containing `[/bold]` shows literally, and one
containing an escape sequence (`\\x1b[2J` clears a screen) shows as those characters
instead of reaching the terminal. Colour only on a terminal; `NO_COLOR` is honoured
(rich does both).

Text streams through one path: `stream_delta` opens the answer line and extends it,
`answer` completes it, and anything else printed first closes it (`_print`).

A trace hears of each model call through `model_reply(reply)`, which a stage's
`open_session` (shared/stage_main.py) makes the provider's `on_reply` hook; nothing here
registers itself anywhere. Reading the keyboard is `shared/terminal.py`'s job.
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import time
from collections.abc import Iterable
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console, Group
from rich.highlighter import JSONHighlighter
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from .language import say
from .printable import visible
from .providers.base import redact
from .terminal import LEAVE_HINT, Keyboard

__all__ = ["LEAVE_HINT", "SILENT", "Trace", "TurnStats", "cut", "make_console", "shown",
           "tokens_text", "visible"]

STYLES = {"you": "bold cyan", "think": "magenta", "act": "yellow", "observe": "green",
          "answer": "bold", "error": "bold red", "meta": "dim", "yours": "bold blue"}
OBSERVE_CHARS = 1500  # an observation longer than this is cut, visibly
OBSERVE_LINES = 20
MIN_WIDTH, MAX_WIDTH = 20, 1000  # a COLUMNS outside this range is clamped into it
FLOW_PIECES = re.compile(r"\n|[^\S\n]+|\S+")  # a line break, a run of spaces, a word
def make_console(file=None, width: int | None = None, record: bool = False) -> Console:
    """A console that never auto-highlights model text, at a sane width whatever COLUMNS says."""
    if width is None and "COLUMNS" in os.environ:
        width = _columns(os.environ["COLUMNS"])
    return Console(file=file, width=width, record=record, highlight=False)


def _columns(setting: str) -> int:
    """The width a COLUMNS setting asks for; the terminal's (or 80) if it makes no sense."""
    try:
        width = int(setting)
    except ValueError:
        width = 0
    if width <= 0:  # zero, negative or not a number: ask the terminal (else 80)
        width = shutil.get_terminal_size().columns
    return min(max(width, MIN_WIDTH), MAX_WIDTH)


def cut(text: str, chars: int = OBSERVE_CHARS, lines: int = OBSERVE_LINES) -> str:
    """`text` shortened to a readable size, with a visible marker saying what was cut."""
    kept = text.splitlines()
    if len(kept) > lines:
        text = "\n".join(kept[:lines]) + "\n" + say("… ({n} more lines)", n=len(kept) - lines)
    if len(text) > chars:
        text = text[:chars] + "\n" + say("… ({n} more characters)", n=len(text) - chars)
    return text


def shown(value) -> str:
    """Any value (a tool name, arguments) as short, terminal-safe text; never raises."""
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            value = f"<{type(value).__name__}>"
    return visible(cut(value.replace("\n", "\\n"), 200))  # one line: a title, say


class Trace:
    """Prints the events of a run; optionally saves them (`.svg` or `.html`) at the end."""

    def __init__(self, console: Console | None = None, save: str | None = None):
        self.console = console or make_console(record=bool(save))
        self.save_path = save
        self._mark = self._turn_mark = time.perf_counter()
        self._streamed: list[str] | None = None  # deltas of the reply now streaming, if any
        self._flow = Flow(self.console)  # lays the streamed words out on the screen's lines
        self._ended_by = ""  # how the learner left, once they have
        self._turn = TurnStats()  # what this turn's model calls cost, for its summary
        self._reply = None  # the latest model reply not yet shown with its numbers
        self._broken: dict = {}  # the latest reply's calls whose arguments arrived broken
        self._finished = False
        # strings never to show (the provider's key, a password in its URL): `connect`
        # sets them; `_held` is streamed text that may be the start of one, not shown yet
        self.secrets: tuple[str, ...] = ()
        self._held = ""
        self._keyboard = Keyboard(self.console, show=self._print, note=self.note,
                                  record=self._record)

    # what the learner typed, and the start of each loop iteration

    def request(self, text: str) -> None:
        """Show a request that did not come from the keyboard (a command-line argument)."""
        self._start_turn()
        self._print(Text(say("you> "), STYLES["you"]) + Text(visible(text)))

    def prompt(self) -> str:
        """Read one line; EOFError when the learner leaves (Ctrl-D, or Ctrl-C twice)."""
        try:
            line = self._keyboard.read(Text(say("you> "), STYLES["you"]))
        except EOFError:
            self._ended_by = self._keyboard.ended_by
            raise
        self._ended_by = "" if line.strip() else "an empty line"
        self._start_turn()
        return line

    def iteration(self, number: int) -> None:
        """A rule that starts iteration `number` of the loop, and restarts its clock."""
        self._print(Rule(Text(say("iteration {n}", n=number), STYLES["meta"]),
                         style=STYLES["meta"]))
        self._mark = time.perf_counter()
        self._turn.iterations = number

    # the three moments of an iteration

    def think(self, text: str, usage: dict | None = None) -> None:
        """The model's raw reply, exactly as it came (blank lines and all), with its
        tokens and stop reason when the provider reported them."""
        reply, self._reply = self._reply, None
        body = Text(self._safe(text)) if text.strip() else Text(repr(text), STYLES["meta"])
        self._panel(body, say("think"), STYLES["think"], usage or _usage_of(reply),
                    _stop_of(reply))

    def act(self, name, args, call_id: str = "") -> None:
        """A tool call: the tool's name (and its id) and its arguments as highlighted JSON;
        arguments that arrived broken, as the model sent them (the reply said which)."""
        self._show_pending_reply()
        broken = self._broken.get(call_id) if call_id else None
        if broken is not None:
            self._panel(Text(self._safe(cut(broken.sent or broken.error))),
                        _titled("act", name, call_id), STYLES["act"],
                        note=say("the arguments as sent: not readable"))
            return
        try:
            text = json.dumps(args, indent=2, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = shown(args)
        body = JSONHighlighter()(Text(self._safe(cut(text))))
        self._panel(body, _titled("act", name, call_id), STYLES["act"])

    def observe(self, name, result: str, call_id: str = "") -> None:
        """A tool's result, cut to a readable length on screen, saying so. (What the model
        is sent is the loop's business: stage 08 on caps it, and its context line says so.)"""
        result = str(result)
        shown_text = cut(result)
        note = ""
        if shown_text != result:
            kept = len(shown_text.split("\n… (")[0])
            note = say("showing {kept} of {total} characters here", kept=f"{kept:,}",
                       total=f"{len(result):,}")
        self._panel(Text(self._safe(shown_text)), _titled("observe", name, call_id),
                    STYLES["observe"], note=note)

    # the answer: streamed delta by delta, or whole

    def stream_delta(self, delta: str) -> None:
        """One text delta, printed as it arrives; the first one opens the answer line."""
        if self._streamed is None:
            self._print(Text("tao  ", STYLES["answer"]), end="")
            self._streamed, self._flow = [], Flow(self.console, column=5)
        self._streamed.append(delta)
        ready, self._held = _releasable(self._held + delta, self.secrets)
        self._flow.write(self._safe(ready))
        self.console.file.flush()

    def stream_answer(self, deltas: Iterable[str]) -> str:
        """Print each delta as it arrives, then close the answer; return the whole text."""
        for delta in deltas:
            self.stream_delta(delta)
        text = "".join(self._streamed or ())
        self.answer(text)
        return text

    def answer(self, text: str, usage: dict | None = None) -> None:
        """The final answer; if it was streamed already, only what is still missing."""
        streamed = "".join(self._streamed) if self._streamed is not None else None
        if streamed is not None and text.startswith(streamed):
            self._streamed, held, self._held = None, self._held, ""
            self._flow.write(self._safe(held + text[len(streamed):]))
            self._flow.flush()
            self.console.print()
        else:
            self._print(Text("tao  ", STYLES["answer"]) + Text(self._safe(text)))
        self._show_reasoning(self._reply)
        self._reply = None
        if usage is None and self._turn.calls:
            self._print(Text(self._turn.summary(time.perf_counter() - self._turn_mark),
                             STYLES["meta"]))
        else:
            self._print(self._footer_text(usage))

    def error(self, message) -> None:
        """A failure (a message or the exception itself); a reply it broke is marked cut off."""
        self._print(Text(say("error  "), STYLES["error"]) + Text(self._safe(str(message))),
                    cut_off=True)

    def yours(self, title: str, body: str = "") -> None:
        """A change the learner made by hand (`tao debug`): never shown as a model's or tool's."""
        self._panel(Text(self._safe(cut(body))), title, STYLES["yours"])

    def ask(self, prompt: str) -> str:
        """One line typed after `prompt` (a debugger's); Ctrl-C and Ctrl-D are raised."""
        return self._keyboard.line(Text(prompt, STYLES["yours"]))

    def note(self, message: str) -> None:
        """A dim line about the session (a cancelled reply, a retry)."""
        self._print(Text(self._safe(message), STYLES["meta"]), cut_off=True)

    def finish(self, last_words: str = "") -> None:
        """Say how the learner left, and save what was shown if asked to (once).

        `last_words` (the error that ended the process, already on stderr) is added to
        what is saved, without printing it again."""
        if self._finished:
            return
        if last_words:
            self._record(Text(self._safe(last_words), STYLES["error"]))
        if self._ended_by:  # (if the screen is gone, this raises; a second finish saves)
            self._print(Text(say("bye ({why})", why=say(self._ended_by)), STYLES["meta"]))
        self._finished = True
        if self.save_path:
            self._save(Path(self.save_path))

    # the plumbing: one way onto the screen, the prompt, saving

    def _print(self, renderable, *, end: str = "\n", cut_off: bool = False) -> None:
        """Print below an open streamed line, closing it first (marked if it was cut off)."""
        if self._streamed is not None:
            self._streamed, held, self._held = None, self._held, ""
            self._flow.write(self._safe(held))
            self._flow.flush()
            self.console.print(Text(say(" [cut off]"), STYLES["error"]) if cut_off else "")
        self._ended_by = ""
        self.console.print(renderable, end=end)

    def _safe(self, text: str) -> str:
        """Model, tool or server text as it may be shown: escapes visible, secrets hidden."""
        return redact(visible(text), self.secrets)

    def _panel(self, body, title: str, style: str, usage: dict | None = None,
               stop: str = "", note: str = "") -> None:
        """A titled box around `body`, with the time (tokens, stop reason, a note) below."""
        footer = self._footer_text(usage, stop)
        if note:
            footer = Text(note + " · ", STYLES["meta"]) + footer
        self._print(Panel(Group(body), title=Text(title, style), title_align="left",
                          border_style=style, subtitle=footer, subtitle_align="right"))

    def _footer_text(self, usage: dict | None, stop: str = "") -> Text:
        """Seconds since the request (or iteration) began, and tokens if the model said."""
        seconds = time.perf_counter() - self._mark
        line = f"{seconds:.2f} s"
        if usage and (usage.get("input_tokens") is not None or usage.get("not_reported")):
            line += " · " + tokens_text(usage)
        if stop:
            line += " · " + say("stop {reason}", reason=stop)
        return Text(line, STYLES["meta"])

    # what the provider reported about each model call

    def _start_turn(self) -> None:
        """A new request: its clock and its model-call counts start from zero."""
        self._mark = self._turn_mark = time.perf_counter()
        self._turn, self._reply = TurnStats(), None

    def model_reply(self, reply) -> None:
        """A model call finished: keep it for the next panel and the turn's summary (the
        provider's `on_reply` hook)."""
        self._turn.add(reply)
        self._reply = reply
        self._broken = {c.id: c for c in getattr(reply, "tool_calls", ()) if c.error}

    def _show_pending_reply(self) -> None:
        """Before the first tool call of a reply: what the model said and what it cost."""
        reply, self._reply = self._reply, None
        if reply is None:
            return
        self._show_reasoning(reply)
        # text streamed live is on screen already: say what it was, and show it once
        streamed = self._streamed is not None and "".join(self._streamed) == reply.text
        if reply.text.strip() and not streamed:  # text before the calls: thinking aloud
            self._panel(Text(self._safe(reply.text)), say("think · before its tool calls"),
                        STYLES["think"], _usage_of(reply), _stop_of(reply))
            return
        label = say("think · the text above came before its tool calls · " if streamed
                    and reply.text.strip() else "model replied with tool calls · ")
        numbers = self._footer_text(_usage_of(reply), _stop_of(reply))
        self._print(Text(label, STYLES["meta"]) + numbers)

    def _show_reasoning(self, reply) -> None:
        """Reasoning a model streamed apart from its text (some local servers do)."""
        if reply is not None and getattr(reply, "reasoning", ""):
            self._panel(Text(self._safe(cut(reply.reasoning))), say("think · reasoning"),
                        STYLES["think"])

    def _record(self, renderable) -> None:
        """Add `renderable` to a saved trace without printing it."""
        if self.console.record:
            screen, self.console.file = self.console.file, io.StringIO()
            try:
                self.console.print(renderable)
            finally:
                self.console.file = screen

    def _save(self, path: Path) -> None:
        """Write what was shown to `path`, as SVG or HTML, whole (shared/files.py)."""
        from .files import save_console  # only a save pays for it

        save_console(self.console, path)


class Flow:
    """Streamed text laid out word by word: a word that would cross the screen's edge
    starts the next line, as rich wraps a reply printed whole, instead of being cut in
    two by the terminal. A word is written once it is known to be whole (a space, a line
    break or the end of the reply follows it)."""

    def __init__(self, console: Console, column: int = 0):
        self.console, self.column = console, column
        self.space = self.word = ""  # the space before the waiting word, and the word

    def write(self, text: str) -> None:
        """Lay `text` out after what came before."""
        for piece in FLOW_PIECES.findall(text):
            if piece == "\n":
                self.flush()
                self._out("\n")
                self.column, self.space = 0, ""
            elif piece.isspace():
                self.flush()
                self.space += piece
            else:
                self.word += piece

    def flush(self) -> None:
        """Write the waiting word: on this line if it fits, else at the start of the next."""
        if not self.word:
            return
        width, wide = self.console.width, cell_len(self.space) + cell_len(self.word)
        if self.column and self.column + wide > width:
            self._out("\n" + self.word)
            self.column = cell_len(self.word) % width
        else:
            self._out(self.space + self.word)
            self.column += wide
        self.space = self.word = ""

    def _out(self, text: str) -> None:
        self.console.print(Text(text), end="", soft_wrap=True)


class TurnStats:
    """What one request cost: model calls, iterations, tokens, and how the last call ended."""

    def __init__(self):
        self.calls = self.iterations = 0
        self.usage: dict = {}
        self.stop = ""

    def add(self, reply) -> None:
        """Count one model call and add its tokens."""
        self.calls += 1
        self.stop = getattr(reply, "stop_reason", "") or ""
        for key, value in (getattr(reply, "usage", None) or {}).items():
            if isinstance(value, bool):
                self.usage[key] = self.usage.get(key, False) or value
            elif isinstance(value, int):
                self.usage[key] = self.usage.get(key, 0) + value

    def summary(self, seconds: float) -> str:
        """One dim line for the end of a turn."""
        parts = [say("{n} model call" if self.calls == 1 else "{n} model calls", n=self.calls)]
        if self.iterations:
            parts.append(say("{n} iteration" if self.iterations == 1 else "{n} iterations",
                             n=self.iterations))
        if self.usage.get("input_tokens") is not None or self.usage.get("not_reported"):
            parts.append(tokens_text(self.usage))
        if self.stop:
            parts.append(say("stop {reason}", reason=self.stop))
        return say("turn: ") + " · ".join(parts) + f" · {seconds:.2f} s"


def tokens_text(usage: dict) -> str:
    """`312 in / 45 out tokens`, `(estimated)` where no API counted them (the offline
    model), the cache counts where the API gave them, and `tokens not reported by the
    server` where a server sent none (`not_reported`), rather than no word at all."""
    if usage.get("input_tokens") is None and usage.get("not_reported"):
        return say("tokens not reported by the server")
    text = say("{sent} in / {written} out tokens", sent=usage.get("input_tokens", 0),
               written=usage.get("output_tokens", 0))
    if usage.get("estimated"):
        text += say(" (estimated)")
    if usage.get("not_reported"):  # a turn of several calls, some of them not counted
        text += say(" (not all reported by the server)")
    for key, label in (("cache_read_input_tokens", "cache read"),
                       ("cache_creation_input_tokens", "cache write")):
        if usage.get(key):
            text += f" · {say(label)} {usage[key]}"
    return text


def _releasable(text: str, secrets: tuple[str, ...]) -> tuple[str, str]:
    """(what may be printed now, what waits): streamed text ending in what could be the
    start of a secret holds that end back until the next delta says which it is."""
    hold = 0
    for secret in secrets:
        for n in range(min(len(secret) - 1, len(text)), hold, -1):
            if text.endswith(secret[:n]):
                hold = n
                break
    return text[:len(text) - hold], text[len(text) - hold:]


def _usage_of(reply) -> dict | None:
    return getattr(reply, "usage", None) or None


def _stop_of(reply) -> str:
    return getattr(reply, "stop_reason", "") or "" if reply is not None else ""


def _titled(kind: str, name, call_id) -> str:
    """`act · now` or, with native tool calls, `act · now · toolu_01…` (the id pairs them)."""
    title = f"{say(kind)} · {shown(name)}"
    return title + f" · {shown(call_id)}" if call_id else title


class Silent:
    """A trace that shows nothing: the default when a loop runs without a screen. It
    answers to Trace's own methods only, so a misspelt trace call fails here too."""

    def __getattr__(self, name):
        if name.startswith("_") or not callable(getattr(Trace, name, None)):
            raise AttributeError(f"a trace has no method {name!r}")
        return _nothing


def _nothing(*args, **kwargs) -> None:
    """What every method of the silent trace does."""


SILENT = Silent()
