"""Rendering what the model and the loop do: think, act, observe, answer.

One renderer for every stage. Model and tool text always goes in through `visible()`
and as `Text`, never as markup: a reply containing `[/bold]` shows literally, and one
containing an escape sequence (`\\x1b[2J` clears a screen) shows as those characters
instead of reaching the terminal. Colour only on a terminal; `NO_COLOR` is honoured
(rich does both).

Text streams through one path: `stream_delta` opens the answer line and extends it,
`answer` completes it, and anything else printed first closes it (`_print`).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import tempfile
import time
import weakref
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console, Group
from rich.highlighter import JSONHighlighter
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

from .providers.base import listen

STYLES = {"you": "bold cyan", "think": "magenta", "act": "yellow", "observe": "green",
          "answer": "bold", "error": "bold red", "meta": "dim"}
OBSERVE_CHARS = 1500  # an observation longer than this is cut, visibly
OBSERVE_LINES = 20
MIN_WIDTH, MAX_WIDTH = 20, 1000  # a COLUMNS outside this range is clamped into it
LEAVE_HINT = "to leave: an empty line, Ctrl-D, or Ctrl-C again"

# C0 and C1 control characters (all but newline and tab), bidi overrides and lone
# surrogates, each mapped to the escape that names it: shown, never executed.
_HIDDEN = [*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F),
           *range(0x2066, 0x206A), *range(0xD800, 0xE000)]
_VISIBLE = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in _HIDDEN
            if chr(c) not in "\n\t"}


def visible(text: str) -> str:
    """`text` safe for a terminal: control characters shown as escapes like `\\x1b`."""
    return text.replace("\r\n", "\n").translate(_VISIBLE)


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
        text = "\n".join(kept[:lines]) + f"\n… ({len(kept) - lines} more lines)"
    if len(text) > chars:
        text = text[:chars] + f"\n… ({len(text) - chars} more characters)"
    return text


def shown(value) -> str:
    """Any value (a tool name, arguments) as short, terminal-safe text; never raises."""
    if not isinstance(value, str):
        try:
            value = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            value = f"<{type(value).__name__}>"
    return visible(cut(value.replace("\n", "\\n"), 200))  # one line: a title, say


_OPEN: weakref.WeakSet[Trace] = weakref.WeakSet()  # traces not finished yet


def current_console() -> Console:
    """The console of the trace on screen (a stage has one), else a new plain one."""
    for trace in list(_OPEN):
        return trace.console
    return make_console()


def finish_open_traces(last_words: str = "") -> None:
    """Finish every trace not finished yet: any way out of a stage's process calls this.

    `last_words` (the error that ended the process, already on stderr) is added to what
    is saved, without printing it again.
    """
    for trace in list(_OPEN):
        if last_words:
            trace._record(Text(visible(last_words), STYLES["error"]))
        trace.finish()


class Trace:
    """Prints the events of a run; optionally saves them (`.svg` or `.html`) at the end."""

    def __init__(self, console: Console | None = None, save: str | None = None):
        self.console = console or make_console(record=bool(save))
        self.save_path = save
        self._mark = time.perf_counter()
        self._streamed: list[str] | None = None  # deltas of the reply now streaming, if any
        self._ended_by = ""  # how the learner left, once they have
        self._interrupts = 0  # Ctrl-C presses in a row at an empty prompt
        self._turn = TurnStats()  # what this turn's model calls cost, for its summary
        self._reply = None  # the latest model reply not yet shown with its numbers
        _OPEN.add(self)

    # what the learner typed, and the start of each loop iteration

    def request(self, text: str) -> None:
        """Show a request that did not come from the keyboard (a command-line argument)."""
        self._start_turn()
        self._print(Text("you> ", STYLES["you"]) + Text(visible(text)))

    def prompt(self) -> str:
        """Read one line; EOFError when the learner leaves (Ctrl-D, or Ctrl-C twice)."""
        while True:
            try:
                line = self._read_line()
                break
            except KeyboardInterrupt:
                if self._interrupted():
                    self._ended_by = "Ctrl-C"
                    raise EOFError from None
            except EOFError:
                self.console.print()  # end the prompt's line before the session ends
                self._ended_by = "Ctrl-D" if _interactive(self.console) else "end of input"
                raise
        self._interrupts = 0
        self._ended_by = "" if line.strip() else "an empty line"
        self._start_turn()
        return line

    def iteration(self, number: int) -> None:
        """A rule that starts iteration `number` of the loop, and restarts its clock."""
        self._print(Rule(Text(f"iteration {number}", STYLES["meta"]), style=STYLES["meta"]))
        self._mark = time.perf_counter()
        self._turn.iterations = number

    # the three moments of an iteration

    def think(self, text: str, usage: dict | None = None) -> None:
        """The model's raw reply, exactly as it came (blank lines and all), with its
        tokens and stop reason when the provider reported them."""
        reply, self._reply = self._reply, None
        body = Text(visible(text)) if text.strip() else Text(repr(text), STYLES["meta"])
        self._panel(body, "think", STYLES["think"], usage or _usage_of(reply),
                    _stop_of(reply))

    def act(self, name, args, call_id: str = "") -> None:
        """A tool call: the tool's name (and its id) and its arguments as highlighted JSON."""
        self._show_pending_reply()
        try:
            text = json.dumps(args, indent=2, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = shown(args)
        body = JSONHighlighter()(Text(visible(cut(text))))
        self._panel(body, _titled("act", name, call_id), STYLES["act"])

    def observe(self, name, result: str, call_id: str = "") -> None:
        """A tool's result (what the model reads), cut to a readable length, saying so."""
        result = str(result)
        shown_text = cut(result)
        note = ""
        if shown_text != result:
            kept = len(shown_text.split("\n… (")[0])
            note = (f"showing {kept:,} of {len(result):,} characters; "
                    f"the model read all {len(result):,}")
        self._panel(Text(visible(shown_text)), _titled("observe", name, call_id),
                    STYLES["observe"], note=note)

    # the answer: streamed delta by delta, or whole

    def stream_delta(self, delta: str) -> None:
        """One text delta, printed as it arrives; the first one opens the answer line."""
        if self._streamed is None:
            self._print(Text("tao  ", STYLES["answer"]), end="")
            self._streamed = []
        self._streamed.append(delta)
        self.console.print(Text(visible(delta)), end="")
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
            self._streamed = None
            self.console.print(Text(visible(text[len(streamed):])))
        else:
            self._print(Text("tao  ", STYLES["answer"]) + Text(visible(text)))
        self._show_reasoning(self._reply)
        self._reply = None
        if usage is None and self._turn.calls:
            self._print(Text(self._turn.summary(time.perf_counter() - self._turn_mark),
                             STYLES["meta"]))
        else:
            self._print(self._footer_text(usage))

    def error(self, message) -> None:
        """A failure (a message or the exception itself); a reply it broke is marked cut off."""
        self._print(Text("error  ", STYLES["error"]) + Text(visible(str(message))),
                    cut_off=True)

    def note(self, message: str) -> None:
        """A dim line about the session (a cancelled reply, a retry)."""
        self._print(Text(visible(message), STYLES["meta"]), cut_off=True)

    def finish(self) -> None:
        """Say how the learner left, and save what was shown if asked to (once)."""
        if self not in _OPEN:
            return
        if self._ended_by:  # (if the screen is gone, this raises; a second finish saves)
            self._print(Text(f"bye ({self._ended_by})", STYLES["meta"]))
        _OPEN.discard(self)
        if self.save_path:
            self._save(Path(self.save_path))

    # the plumbing: one way onto the screen, the prompt, saving

    def _print(self, renderable, *, end: str = "\n", cut_off: bool = False) -> None:
        """Print below an open streamed line, closing it first (marked if it was cut off)."""
        if self._streamed is not None:
            self._streamed = None
            self.console.print(Text(" [cut off]", STYLES["error"]) if cut_off else "")
        self._ended_by = ""
        self.console.print(renderable, end=end)

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
            line += f" · stop {stop}"
        return Text(line, STYLES["meta"])

    # what the provider reported about each model call

    def _start_turn(self) -> None:
        """A new request: its clock and its model-call counts start from zero."""
        self._mark = self._turn_mark = time.perf_counter()
        self._turn, self._reply = TurnStats(), None

    def _on_reply(self, reply) -> None:
        """A model call finished (any provider): keep it for the next panel and the summary."""
        self._turn.add(reply)
        self._reply = reply

    def _show_pending_reply(self) -> None:
        """Before the first tool call of a reply: what the model said and what it cost."""
        reply, self._reply = self._reply, None
        if reply is None:
            return
        self._show_reasoning(reply)
        if reply.text.strip():  # text before the calls: the model thinking aloud
            self._panel(Text(visible(reply.text)), "think · before its tool calls",
                        STYLES["think"], _usage_of(reply), _stop_of(reply))
        else:
            numbers = self._footer_text(_usage_of(reply), _stop_of(reply))
            self._print(Text("model replied with tool calls · ", STYLES["meta"]) + numbers)

    def _show_reasoning(self, reply) -> None:
        """Reasoning a model streamed apart from its text (some local servers do)."""
        if reply is not None and getattr(reply, "reasoning", ""):
            self._panel(Text(visible(cut(reply.reasoning))), "think · reasoning",
                        STYLES["think"])

    def _read_line(self) -> str:
        """One line from the keyboard (through readline when loaded) or from a pipe."""
        prompt = Text("you> ", STYLES["you"])
        if _interactive(self.console):
            line = input(_readline_prompt(self.console, prompt))
            self._record(prompt + Text(visible(line)))  # the terminal echoed it, unrecorded
            return line
        self._print(prompt, end="")
        self.console.file.flush()
        line = input()
        self.console.print(Text(visible(line)))  # piped input is not echoed: show it
        return line

    def _interrupted(self) -> bool:
        """Ctrl-C at the prompt: clear the line (↑ brings it back); twice on nothing leaves."""
        self.console.print()
        typed = _line_buffer()
        if typed:
            _remember(typed)
            self._interrupts = 0
            return False
        self._interrupts += 1
        if self._interrupts == 1:
            self.note(LEAVE_HINT)
        return self._interrupts > 1

    def _record(self, renderable) -> None:
        """Add `renderable` to a saved trace without printing it."""
        if self.console.record:
            screen, self.console.file = self.console.file, io.StringIO()
            try:
                self.console.print(renderable)
            finally:
                self.console.file = screen

    def _save(self, path: Path) -> None:
        """Write the recording to `path`; if that fails, to a temporary file, and say where."""
        html = path.suffix.lower() in (".html", ".htm")
        text = (self.console.export_html(clear=False) if html
                else self.console.export_svg(title="tao trace", clear=False))
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            handle, rescue = tempfile.mkstemp(prefix="tao-trace-", suffix=path.suffix)
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            print(f"could not save the trace to {path} ({exc.strerror or exc}): "
                  f"saved it to {rescue} instead", file=sys.stderr)
            return
        print(f"trace saved to {path}", file=sys.stderr)


def _interactive(console: Console) -> bool:
    """True when a person types at a terminal and this console prints to that terminal."""
    try:
        return (sys.stdin.isatty() and console.file is sys.stdout
                and sys.stdout.isatty())
    except (AttributeError, ValueError):  # no stdin at all, or a closed one
        return False


_ANSI = re.compile(r"(\x1b\[[0-9;]*m)")


def _readline_prompt(console: Console, prompt: Text) -> str:
    """The prompt as the terminal text `input()` prints, colours fenced off for readline."""
    with console.capture() as capture:
        console.print(prompt, end="")
    text = capture.get()
    # readline counts the prompt's width to place the cursor: \x01..\x02 hide the colours
    return _ANSI.sub("\x01\\1\x02", text) if "readline" in sys.modules else text


def _line_buffer() -> str:
    """What was typed on the prompt's line when Ctrl-C came (readline only; else "")."""
    readline = sys.modules.get("readline")
    return readline.get_line_buffer() if readline else ""


def _remember(line: str) -> None:
    """Keep a cleared line in the history, so ↑ brings it back."""
    readline = sys.modules.get("readline")
    if readline:
        readline.add_history(line)


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
        parts = [f"{self.calls} model call{'s' if self.calls != 1 else ''}"]
        if self.iterations:
            parts.append(f"{self.iterations} iteration{'s' if self.iterations != 1 else ''}")
        if self.usage.get("input_tokens") is not None or self.usage.get("not_reported"):
            parts.append(tokens_text(self.usage))
        if self.stop:
            parts.append(f"stop {self.stop}")
        return "turn: " + " · ".join(parts) + f" · {seconds:.2f} s"


def tokens_text(usage: dict) -> str:
    """`312 in / 45 out tokens`, `(estimated)` where no API counted them (the offline
    model), the cache counts where the API gave them, and `tokens not reported by the
    server` where a server sent none (`not_reported`), rather than no word at all."""
    if usage.get("input_tokens") is None and usage.get("not_reported"):
        return "tokens not reported by the server"
    text = f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out tokens"
    if usage.get("estimated"):
        text += " (estimated)"
    if usage.get("not_reported"):  # a turn of several calls, some of them not counted
        text += " (not all reported by the server)"
    for key, label in (("cache_read_input_tokens", "cache read"),
                       ("cache_creation_input_tokens", "cache write")):
        if usage.get(key):
            text += f" · {label} {usage[key]}"
    return text


def _usage_of(reply) -> dict | None:
    return getattr(reply, "usage", None) or None


def _stop_of(reply) -> str:
    return getattr(reply, "stop_reason", "") or "" if reply is not None else ""


def _titled(kind: str, name, call_id) -> str:
    """`act · now` or, with native tool calls, `act · now · toolu_01…` (the id pairs them)."""
    title = f"{kind} · {shown(name)}"
    return title + f" · {shown(call_id)}" if call_id else title


def _tell_open_traces(event: str, provider, payload) -> bool:
    """Every open trace hears of each finished reply and each note from any provider."""
    traces = list(_OPEN)
    for trace in traces:
        if event == "reply":
            trace._on_reply(payload)
        else:
            trace.note(payload)
    return bool(traces)


listen(_tell_open_traces)


class Silent:
    """A trace that shows nothing: the default when a loop runs without a screen."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


SILENT = Silent()
