"""Reading the learner's lines (shared/terminal.py) in process, with a stand-in keyboard:
the questions the surviving mutants of benchmarks/mutation.py asked. Does one Ctrl-C on
an empty line leave, or only a second one in a row? Does a line typed in between start
the count again? How did the learner leave, by Ctrl-D or at the end of a pipe? Are the
prompt's colours fenced off only for readline? (tests/test_terminal.py drives a real
terminal; these run in a millisecond each.)"""

from __future__ import annotations

import io
import signal
import sys
from types import SimpleNamespace

import pytest
from rich.console import Console
from rich.text import Text

from shared import terminal


class Screen(io.StringIO):
    """A stdout that says whether it is a terminal."""

    def __init__(self, tty):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


class Keys:
    """What `input()` returns in turn: a line, or an exception to raise."""

    def __init__(self, *keys):
        self.keys, self.prompts = list(keys), []

    def __call__(self, prompt=""):
        self.prompts.append(prompt)
        key = self.keys.pop(0)
        if isinstance(key, type) and issubclass(key, BaseException):
            raise key
        return key


class Readline:
    """A readline module with `typed` on its line when Ctrl-C comes."""

    def __init__(self, typed=""):
        self.typed, self.history = typed, []

    def get_line_buffer(self):
        return self.typed

    def add_history(self, line):
        self.history.append(line)


@pytest.fixture
def keyboard(monkeypatch):
    """(make(*keys, tty=False, readline=None) -> the Keyboard, what it did)."""
    def make(*keys, tty=False, readline=None):
        screen = Screen(tty)
        monkeypatch.setattr(sys, "stdout", screen)
        monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: tty))
        monkeypatch.setattr("builtins.input", Keys(*keys))
        if readline is None:
            monkeypatch.delitem(sys.modules, "readline", raising=False)
        else:
            monkeypatch.setitem(sys.modules, "readline", readline)
        console = Console(file=screen, force_terminal=tty, color_system="standard" if tty
                          else None, width=80)
        did = SimpleNamespace(shown=[], notes=[], recorded=[], screen=screen)
        board = terminal.Keyboard(
            console, show=lambda r, end="\n": did.shown.append((str(r), end)),
            note=did.notes.append, record=lambda r: did.recorded.append(str(r)))
        return board, did
    return make


PROMPT = Text("you> ", style="bold green")


def test_a_piped_line_is_prompted_for_and_echoed(keyboard):
    board, did = keyboard("2+2")
    assert board.read(PROMPT) == "2+2"
    assert did.shown == [("you> ", "")] and "2+2" in did.screen.getvalue()
    assert did.recorded == []


def test_a_typed_line_is_recorded_because_the_terminal_echoed_it(keyboard):
    board, did = keyboard("2+2", tty=True)
    assert board.read(PROMPT) == "2+2"
    assert did.shown == [] and did.recorded == ["you> 2+2"]


def test_the_end_of_a_pipe_and_ctrl_d_are_told_apart(keyboard):
    board, _ = keyboard(EOFError)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert board.ended_by == "end of input"
    board, _ = keyboard(EOFError, tty=True)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert board.ended_by == "Ctrl-D"


def test_one_ctrl_c_on_an_empty_line_gives_the_hint_and_a_second_leaves(keyboard):
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt, "never read")
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert board.ended_by == "Ctrl-C" and did.notes == [terminal.LEAVE_HINT]


def test_one_ctrl_c_then_a_line_is_that_line(keyboard):
    board, did = keyboard(KeyboardInterrupt, "hello")
    assert board.read(PROMPT) == "hello" and board.ended_by == ""
    assert len(did.notes) == 1


def test_a_line_between_two_ctrl_c_starts_the_count_again(keyboard):
    board, did = keyboard(KeyboardInterrupt, "hello", KeyboardInterrupt, "again")
    assert board.read(PROMPT) == "hello"
    assert board.read(PROMPT) == "again"
    assert board.ended_by == "" and len(did.notes) == 2


def test_ctrl_c_on_a_typed_line_clears_it_into_the_history_and_does_not_count(keyboard):
    readline = Readline(typed="half a question")
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt, "next", tty=True,
                          readline=readline)
    assert board.read(PROMPT) == "next"
    assert readline.history == ["half a question"] * 2 and did.notes == []


def test_a_cleared_line_then_two_ctrl_c_on_nothing_leaves(keyboard):
    readline = Readline(typed="draft")
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt, KeyboardInterrupt, "x",
                          tty=True, readline=readline)
    original = board._interrupted

    def then_empty():
        left = original()
        readline.typed = ""  # the line is clear after the first Ctrl-C
        return left
    board._interrupted = then_empty
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert readline.history == ["draft"] and did.notes == [terminal.LEAVE_HINT]


def test_without_readline_nothing_is_remembered_or_read_back():
    saved = sys.modules.pop("readline", None)
    try:
        assert terminal._line_buffer() == ""
        terminal._remember("lost")  # no error, nowhere to keep it
    finally:
        if saved is not None:
            sys.modules["readline"] = saved


def test_only_readline_gets_its_colours_fenced_off(keyboard):
    board, _ = keyboard(tty=True, readline=Readline())
    fenced = terminal._readline_prompt(board.console, PROMPT)
    assert "\x01\x1b[" in fenced and "m\x02" in fenced and fenced.count("\x01") == fenced.count(
        "\x1b[")
    board, _ = keyboard(tty=True)
    plain = terminal._readline_prompt(board.console, PROMPT)
    assert "\x1b[" in plain and "\x01" not in plain and "\x02" not in plain


@pytest.mark.parametrize(("stdin_tty", "stdout_tty", "same_file", "expected"), [
    (True, True, True, True), (False, True, True, False), (True, False, True, False),
    (True, True, False, False)])
def test_interactive_needs_both_ends_at_a_terminal_and_the_console_on_stdout(
        monkeypatch, stdin_tty, stdout_tty, same_file, expected):
    screen = Screen(stdout_tty)
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: stdin_tty))
    console = Console(file=screen if same_file else Screen(True))
    assert terminal.interactive(console) is expected


def test_no_stdin_at_all_is_not_interactive(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    assert terminal.interactive(Console(file=sys.stdout)) is False


def test_a_stop_from_outside_exits_with_128_plus_the_signal():
    with pytest.raises(SystemExit) as ended:
        terminal._leave(signal.SIGTERM, None)
    assert ended.value.code == 128 + signal.SIGTERM


class Stream(io.StringIO):
    def __init__(self):
        super().__init__()
        self.asked = []

    def reconfigure(self, **kwargs):
        self.asked.append(kwargs)

    def isatty(self):
        return False


def test_prepare_terminal_replaces_bad_bytes_on_every_stream_and_hears_kill(monkeypatch):
    streams = [Stream(), Stream(), Stream()]
    for name, stream in zip(("stdin", "stdout", "stderr"), streams, strict=True):
        monkeypatch.setattr(sys, name, stream)
    handlers = {}
    monkeypatch.setattr(terminal.signal, "signal",
                        lambda number, handler: handlers.__setitem__(number, handler))
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    terminal.prepare_terminal()
    assert [s.asked for s in streams] == [[{"errors": "replace"}]] * 3
    assert handlers[signal.SIGTERM] is terminal._leave
    if hasattr(signal, "SIGHUP"):
        assert handlers[signal.SIGHUP] is terminal._leave
    assert "readline" not in sys.modules  # a pipe gets no line editing


def test_prepare_terminal_turns_line_editing_on_at_a_terminal(monkeypatch):
    pytest.importorskip("readline")
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: True))
    monkeypatch.setattr(terminal.signal, "signal", lambda number, handler: None)
    had = sys.modules.pop("readline", None)
    try:
        terminal.prepare_terminal()
        assert "readline" in sys.modules
    finally:  # as it was: the other tests of this process see the readline they saw
        sys.modules.pop("readline", None)
        if had is not None:
            sys.modules["readline"] = had


def test_leaving_ends_the_prompt_s_line_first(keyboard):
    board, did = keyboard(EOFError)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert did.screen.getvalue() == "\n"
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert did.screen.getvalue() == "\n\n"  # each Ctrl-C leaves the line it was pressed on


def test_a_piped_line_is_echoed_with_its_control_characters_visible(keyboard):
    board, did = keyboard("red \x1b[31mtext")
    assert board.read(PROMPT) == "red \x1b[31mtext"  # the line itself is kept as it came
    assert "\x1b" not in did.screen.getvalue() and "text" in did.screen.getvalue()


def test_a_closed_stdin_is_not_interactive(monkeypatch):
    closed = io.StringIO()
    closed.close()
    monkeypatch.setattr(sys, "stdin", closed)
    assert terminal.interactive(Console(file=sys.stdout)) is False


def test_prepare_terminal_copes_with_no_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    monkeypatch.setattr(terminal.signal, "signal", lambda number, handler: None)
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    terminal.prepare_terminal()
    assert "readline" not in sys.modules


def test_without_readline_a_terminal_still_gets_plain_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: True))
    monkeypatch.setattr(terminal.signal, "signal", lambda number, handler: None)
    monkeypatch.setitem(sys.modules, "readline", None)  # `import readline` fails, as on Windows
    terminal.prepare_terminal()  # no error: input() without line editing
    assert sys.modules["readline"] is None
