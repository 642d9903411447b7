"""Rendering what the model and the loop do: think, act, observe, answer.

One renderer for every stage. Model and tool text always goes in as `Text`, never as
markup, so a tool output containing `[/bold]` shows literally and cannot restyle or crash
the trace. Colour only on a terminal; `NO_COLOR` is honoured (rich does both).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from pathlib import Path

from rich.console import Console, Group
from rich.json import JSON
from rich.panel import Panel
from rich.text import Text

STYLES = {"you": "bold cyan", "think": "magenta", "act": "yellow", "observe": "green",
          "answer": "bold", "error": "bold red", "meta": "dim"}
OBSERVE_CHARS = 1500  # an observation longer than this is cut, visibly
OBSERVE_LINES = 20


def make_console(file=None, width: int | None = None, record: bool = False) -> Console:
    """A console that never auto-highlights model text (numbers, URLs stay plain)."""
    return Console(file=file, width=width, record=record, highlight=False)


def cut(text: str, chars: int = OBSERVE_CHARS, lines: int = OBSERVE_LINES) -> str:
    """`text` shortened to a readable size, with a visible marker saying what was cut."""
    kept = text.splitlines()
    if len(kept) > lines:
        text = "\n".join(kept[:lines]) + f"\n… ({len(kept) - lines} more lines)"
    if len(text) > chars:
        text = text[:chars] + f"\n… ({len(text) - chars} more characters)"
    return text


class Trace:
    """Prints the events of a run; optionally saves them (`.svg` or `.html`) at the end."""

    def __init__(self, console: Console | None = None, save: str | None = None):
        self.console = console or make_console(record=bool(save))
        self.save_path = save
        self._mark = time.perf_counter()
        self._streamed: str | None = None  # text of the reply now streaming, if any

    # what the learner typed, and the start of each loop iteration

    def request(self, text: str) -> None:
        """Show a request that did not come from the keyboard (a command-line argument)."""
        self._mark = time.perf_counter()
        self.console.print(Text("you> ", STYLES["you"]) + Text(text))

    def prompt(self) -> str:
        """Read one line from the learner (EOFError on Ctrl-D, as `input()`)."""
        try:
            line = self.console.input(Text("you> ", STYLES["you"]))
        except EOFError:
            self.console.print()  # end the prompt's line before the session ends
            raise
        if not sys.stdin.isatty():  # piped input is not echoed: show it, so output reads
            self.console.print(Text(line))
        self._mark = time.perf_counter()
        return line

    def iteration(self, number: int) -> None:
        self._end_stream()
        self._mark = time.perf_counter()
        self.console.rule(Text(f"iteration {number}", STYLES["meta"]), style=STYLES["meta"])

    # the three moments of an iteration

    def think(self, text: str, usage: dict | None = None) -> None:
        """The model's raw reply, exactly as it came (blank lines and all)."""
        self._end_stream()
        body = Text(text) if text.strip() else Text(repr(text), STYLES["meta"])
        self._panel(body, "think", STYLES["think"], usage)

    def act(self, name: str, args) -> None:
        """A tool call: the tool's name and its arguments as highlighted JSON."""
        self._end_stream()
        try:
            body = JSON.from_data(args, ensure_ascii=False)
        except (TypeError, ValueError):
            body = Text(repr(args))
        self._panel(body, f"act · {name}", STYLES["act"])

    def observe(self, name: str, result: str) -> None:
        """A tool's result, cut to a readable length."""
        self._end_stream()
        self._panel(Text(cut(str(result))), f"observe · {name}", STYLES["observe"])

    # the answer, whole or streamed

    def answer(self, text: str, usage: dict | None = None) -> None:
        """The final answer; if it was streamed already, only what is still missing."""
        streamed, self._streamed = self._streamed, None
        if streamed is not None and text.startswith(streamed):
            self.console.print(Text(text[len(streamed):]))
        else:
            if streamed is not None:
                self.console.print()
            self.console.print(Text("tao  ", STYLES["answer"]) + Text(text))
        self._footer(usage)

    def stream_answer(self, deltas: Iterable[str]) -> str:
        """Print each delta as it arrives; return the whole text."""
        self.console.print(Text("tao  ", STYLES["answer"]), end="")
        parts = []
        try:
            for delta in deltas:
                parts.append(delta)
                self.console.print(Text(delta), end="")
                self.console.file.flush()
        finally:
            self.console.print()
        self._footer(None)
        return "".join(parts)

    def stream_delta(self, delta: str) -> None:
        """One text delta, printed as it arrives (for `on_text_delta=` callbacks)."""
        if self._streamed is None:
            self._streamed = ""
            self.console.print(Text("tao  ", STYLES["answer"]), end="")
        self._streamed += delta
        self.console.print(Text(delta), end="")
        self.console.file.flush()

    def _end_stream(self) -> None:
        """Close a streamed line before anything else is shown."""
        if self._streamed is not None:
            self._streamed = None
            self.console.print()

    def error(self, message: str) -> None:
        self._end_stream()
        self.console.print(Text("error  ", STYLES["error"]) + Text(message))

    def note(self, message: str) -> None:
        self._end_stream()
        self.console.print(Text(message, STYLES["meta"]))

    def finish(self) -> None:
        """Save what was shown, if asked to."""
        if not self.save_path:
            return
        path = Path(self.save_path)
        if path.suffix.lower() == ".html":
            self.console.save_html(str(path))
        else:
            self.console.save_svg(str(path), title="tao trace")
        print(f"trace saved to {path}", file=sys.stderr)

    def _panel(self, body, title: str, style: str, usage: dict | None = None) -> None:
        footer = self._footer_text(usage)
        self.console.print(Panel(Group(body), title=Text(title, style), title_align="left",
                                 border_style=style, subtitle=footer, subtitle_align="right"))

    def _footer(self, usage: dict | None) -> None:
        self.console.print(self._footer_text(usage))

    def _footer_text(self, usage: dict | None) -> Text:
        seconds = time.perf_counter() - self._mark
        line = f"{seconds:.2f} s"
        if usage and usage.get("input_tokens") is not None:
            line += f" · {usage['input_tokens']} in / {usage.get('output_tokens', 0)} out"
        return Text(line, STYLES["meta"])


class Silent:
    """A trace that shows nothing: the default when a loop runs without a screen."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


SILENT = Silent()
