"""The chat on a real terminal: line editing, any bytes in, safe output, nothing lost.

Some tests drive a pseudo-terminal (`pty`), because a pipe hides exactly what they are
about: the terminal's line limit, readline, and Ctrl-C as a keystroke.
"""

from __future__ import annotations

import io
import json
import os
import select
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from helpers import ROOT, clean_env, run_stage, stage_dir
from rich.console import Console
from rich.text import Text

from shared import terminal as shared_terminal

pty = pytest.importorskip("pty")

# What every stage's prompt does: stage_main.run() readies the terminal, Trace.prompt()
# reads. The harness prints what arrived, as lengths and text, so the test can check it.
HARNESS = """
from shared.stage_main import prepare_terminal
from shared.trace import Trace
prepare_terminal()
trace = Trace()
while True:
    try:
        line = trace.prompt()
    except EOFError:
        break
    print(f"GOT {len(line)} {line[:20]!r}", flush=True)
trace.finish()
"""
PLAIN_INPUT = "print(f'GOT {len(input())}', flush=True)"  # no readline: canonical mode


def interruptible() -> None:
    """In a child about to exec: Ctrl-C interrupts, as in a shell's foreground. A suite
    started in the background (`cmd &` from a script) inherits SIGINT ignored, and an
    ignored signal stays ignored across exec, so Ctrl-C would reach nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A process on a pseudo-terminal: type into it, read what it shows."""

    def __init__(self, code: str):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            interruptible()
            env = clean_env(TERM="xterm", COLUMNS="80")
            os.execve(sys.executable, [sys.executable, "-c", code], env)
        self.shown = b""

    def type(self, text: str, chunk: int = 512) -> None:
        """Send keystrokes, reading the echo meanwhile so neither side blocks."""
        data = text.encode()
        while data:
            _, ready, _ = select.select([self.fd], [self.fd], [], 5)
            if self.fd in ready:
                written = os.write(self.fd, data[:chunk])
                data = data[written:]
            self.read(0)

    def read(self, wait: float) -> bytes:
        """What the program showed within `wait` seconds (all of it, gathered)."""
        deadline = time.monotonic() + wait
        while True:
            ready, _, _ = select.select([self.fd], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                return self.shown
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the program ended
                return self.shown
            if not data:
                return self.shown
            self.shown += data

    def wait_for(self, text: bytes, timeout: float = 20, after: int = 0) -> bytes:
        """Read until `text` appears (past byte `after` of the screen); fail with what was
        shown if it does not."""
        deadline = time.monotonic() + timeout
        while text not in self.shown[after:] and time.monotonic() < deadline:
            self.read(0.1)
        assert text in self.shown[after:], (
            f"never showed {text!r}; showed:\n{self.shown[-2000:]!r}")
        return self.shown

    def close(self) -> None:
        """Stop the program (it is ours) and reap it."""
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


@pytest.fixture
def terminal():
    """Open programs on pseudo-terminals; every one is stopped when the test ends."""
    opened = []

    def open_terminal(code: str) -> Terminal:
        """Start `code` on a new pseudo-terminal."""
        opened.append(Terminal(code))
        return opened[-1]

    yield open_terminal
    for term in opened:
        term.close()


def test_a_20000_character_paste_arrives_whole(terminal):
    term = terminal(HARNESS)
    term.wait_for(b"you> ")
    term.type("x" * 20_000 + "\r")
    term.wait_for(b"GOT ", timeout=60)
    term.wait_for(b"\n", timeout=5)
    assert b"GOT 20000 " in term.shown, term.shown[-300:]


def test_without_readline_the_terminal_cuts_the_paste(terminal):
    # the control: the same paste into plain input() is cut at the terminal's line limit,
    # which is what the test above proves readline avoids
    term = terminal(PLAIN_INPUT)
    term.type("x" * 20_000 + "\r")
    shown = term.wait_for(b"GOT ", timeout=60)
    shown = term.wait_for(b"\n", after=shown.index(b"GOT "))  # the whole count is in
    count = int(shown.split(b"GOT ")[1].split()[0])
    if count == 20_000:
        pytest.skip("this platform's terminal has no line limit: nothing to compare with")
    assert count < 20_000


def test_arrows_edit_the_line_and_recall_history(terminal):
    term = terminal(HARNESS)
    term.wait_for(b"you> ")
    term.type("helo\x1b[Dl\r")  # left arrow, then insert the missing "l"
    term.wait_for(b"GOT 5 'hello'")
    term.type("\x1b[A!\r")  # up arrow brings "hello" back
    term.wait_for(b"GOT 6 'hello!'")


def test_ctrl_c_clears_a_typed_line_says_how_to_leave_and_twice_leaves(terminal):
    term = terminal(HARNESS)
    term.wait_for(b"you> ")
    term.type("draft text")
    term.wait_for(b"draft text")  # echoed: the line editor holds it (no fixed sleeps)
    typed = len(term.shown)
    term.type("\x03")  # Ctrl-C while typing: the line is cleared, not sent
    term.wait_for(b"you> ", after=typed)  # a fresh prompt
    term.type("\x1b[A\r")  # ...and it is not lost: up brings it back
    got = term.wait_for(b"GOT 10 'draft text'").index(b"GOT 10")
    term.wait_for(b"you> ", after=got)  # the next prompt is up: Ctrl-C now meets it
    term.type("\x03")  # Ctrl-C at an empty prompt: how to leave
    hint = term.wait_for(b"to leave: an empty line, Ctrl-D, or Ctrl-C again").index(b"to leave")
    term.wait_for(b"you> ", after=hint)
    term.type("\x03")
    term.wait_for(b"bye (Ctrl-C)")
    assert b"Traceback" not in term.shown


def test_ctrl_d_at_the_prompt_says_so(terminal):
    term = terminal(HARNESS)
    term.wait_for(b"you> ")
    term.type("\x04")
    term.wait_for(b"bye (Ctrl-D)")


# ---------------------------------------------------------------- any bytes in


@pytest.mark.parametrize("locale", [
    {"LC_ALL": "C.UTF-8", "PYTHONIOENCODING": "utf-8"},  # strict UTF-8
    {"LC_ALL": "C", "PYTHONIOENCODING": ""},             # the C locale (surrogateescape)
])
def test_invalid_utf8_on_stdin_is_replaced_and_the_session_goes_on(locale):
    done = subprocess.run([sys.executable, str(stage_dir("02") / "main.py")],
                          input=b"caf\xe9 \xff\xfe\nstill here\n", capture_output=True,
                          env=clean_env(**locale), cwd=ROOT, timeout=60)
    out = done.stdout.decode("utf-8")  # the output itself must be valid UTF-8
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr
    assert 'You said "caf\ufffd \ufffd\ufffd"' in out and "still here" in out


def test_undecodable_command_line_bytes_are_replaced(tmp_path):
    script = tmp_path / "script.json"
    script.write_text('["ok"]', encoding="utf-8")
    done = subprocess.run([sys.executable, str(stage_dir("01") / "main.py"), b"caf\xe9"],
                          capture_output=True, cwd=ROOT, timeout=60,
                          env=clean_env(TAO_PROVIDER="scripted", TAO_SCRIPT=str(script)))
    assert done.returncode == 0, done.stderr
    assert "you> caf\ufffd" in done.stdout.decode("utf-8")


# ---------------------------------------------------------------- safe output

HOSTILE = "\x1b]2;TITLE\x07\x1b[2J\x9b31mpwned\r\x08"


def hostile_script(number: str) -> list:
    """A script whose replies, tool names, arguments and results all carry escapes."""
    if number == "02":
        return [HOSTILE, {"error": "bad " + HOSTILE, "partial": HOSTILE}]
    if number == "05":
        return [json.dumps({"tool": HOSTILE, "args": {"x": HOSTILE}}),
                json.dumps({"tool": "now", "args": {"x": HOSTILE}}), HOSTILE]
    return [{"text": HOSTILE, "tool_calls": [
        {"id": "c1", "name": HOSTILE, "args": {"x": HOSTILE}},
        {"id": "c2", "name": "wordcount", "args": {"text": HOSTILE}}]}, HOSTILE]


@pytest.mark.parametrize("number", ["02", "05", "07"])
def test_a_hostile_reply_reaches_the_terminal_as_visible_text(number, tmp_path):
    done = run_stage(number, stdin=f"hi {HOSTILE}\nagain\n", script=hostile_script(number),
                     tmp_path=tmp_path)
    everything = done.stdout + done.stderr
    assert "Traceback" not in everything, done.stderr
    assert "\x1b" not in everything and "\x07" not in everything, "an escape got through"
    assert "\x9b" not in everything
    # a carriage return would send the cursor back over the line: it is shown, not done
    # (the text pipe would turn a raw one into a newline, so look for what replaced it)
    assert "pwned\\x0d\\x08" in done.stdout, "the CR and backspace were not shown as text"
    assert "\\x1b]2;TITLE\\x07\\x1b[2J" in done.stdout  # shown, as characters


@pytest.mark.parametrize("columns", ["0", "-3", "abc", "20"])
def test_any_columns_setting_shows_the_whole_call(columns):
    done = run_stage("06", stdin="What is 12 * (3 + 4)?\n", COLUMNS=columns)
    assert done.returncode == 0, done.stderr
    assert "84" in done.stdout
    if columns == "20":  # narrow: the arguments wrap inside the panel, never cut off
        inside = "".join(line.strip("│ ").replace(" ", "") for line in done.stdout.splitlines())
        assert "12*(3+4)" in inside, done.stdout


# ---------------------------------------------------------------- leaving, and --save-trace


def saved(path) -> str:
    """The saved trace's text; a clear failure if none was written."""
    assert path.is_file(), "no trace file was written"
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("way", "stdin", "script", "said"), [
    ("empty line", "first question\n\nnever read\n", ["answer one"], "bye (an empty line)"),
    ("end of input", "first question\n", ["answer one"], "bye (end of input)"),
    ("provider error", "first question\n",
     [{"error": "the stream broke off", "partial": "answer one"}], "error"),
])
def test_save_trace_is_written_on_every_way_out(tmp_path, way, stdin, script, said):
    path = tmp_path / "session.html"
    number = "01" if way == "provider error" else "02"
    done = run_stage(number, "--save-trace", str(path), stdin=stdin, script=script,
                     tmp_path=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert said in done.stdout + done.stderr
    expected = "the stream broke off" if way == "provider error" else "answer one"
    assert "first question" in saved(path) and expected in saved(path)
    assert f"trace saved to {path}" in done.stderr


def test_save_trace_is_written_when_the_learner_leaves_with_ctrl_c(tmp_path):
    path = tmp_path / "session.html"
    script = tmp_path / "script.json"
    script.write_text('["answer one"]', encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(stage_dir("02") / "main.py"), "--save-trace", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env=clean_env(TAO_PROVIDER="scripted", TAO_SCRIPT=str(script)),
        preexec_fn=interruptible)
    try:
        process.stdin.write(b"first question\n")
        process.stdin.flush()
        shown = b""
        for wanted in (b"answer one", b"Ctrl-C again"):  # each time, back at the prompt
            while wanted not in shown or not shown.endswith(b"you> "):
                byte = process.stdout.read(1)
                assert byte, f"the stage ended early: {shown!r}"
                shown += byte
            process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert b"bye (Ctrl-C)" in shown + out and b"Traceback" not in err, err
    assert "answer one" in saved(path)


def test_save_trace_is_written_when_the_process_is_told_to_stop(tmp_path):
    path = tmp_path / "session.html"
    script = tmp_path / "script.json"
    script.write_text('["answer one"]', encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(stage_dir("02") / "main.py"), "--save-trace", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env=clean_env(TAO_PROVIDER="scripted", TAO_SCRIPT=str(script)))
    try:
        process.stdin.write(b"first question\n")
        process.stdin.flush()
        shown = b""
        while b"answer one" not in shown or not shown.endswith(b"you> "):
            byte = process.stdout.read(1)
            assert byte, f"the stage ended early: {shown!r}"
            shown += byte
        process.terminate()  # SIGTERM: what `kill` and many a closed window send
        _, err = process.communicate(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert b"Traceback" not in err, err
    assert "answer one" in saved(path)


def test_output_cut_short_by_its_reader_is_no_traceback(tmp_path):
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["x" * 200_000] * 3), encoding="utf-8")
    process = subprocess.Popen(  # as `main.py | head -c 10` does: read a little, then leave
        [sys.executable, str(stage_dir("02") / "main.py")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT,
        env=clean_env(TAO_PROVIDER="scripted", TAO_SCRIPT=str(script)))
    try:
        process.stdin.write(b"one\ntwo\nthree\n")
        process.stdin.close()
        process.stdout.read(10)
        process.stdout.close()
        err = process.stderr.read()
        process.wait(timeout=30)
    finally:
        process.kill()
        process.wait()
    assert b"Traceback" not in err and b"Exception ignored" not in err, err


# ======================================================================================
# In process, with a stand-in keyboard (what `input()` returns, or raises) and, where it
# matters, a stand-in readline: how `shared.terminal.Keyboard` reads the learner's lines. Does
# one Ctrl-C on an empty line leave, or only a second one in a row? Does a line typed in
# between start the count again? How did the learner leave, by Ctrl-D or at the end of a
# pipe? Are the prompt's colours fenced off only for readline? A millisecond each.


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
    """A readline module with `typed` on its line when Ctrl-C comes (a list: what is on
    the line at each Ctrl-C in turn, then nothing)."""

    def __init__(self, typed=""):
        self.typed, self.history = typed, []

    def get_line_buffer(self):
        if isinstance(self.typed, list):
            return self.typed.pop(0) if self.typed else ""
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
        typed = Keys(*keys)
        monkeypatch.setattr("builtins.input", typed)
        if readline is None:
            monkeypatch.delitem(sys.modules, "readline", raising=False)
        else:
            monkeypatch.setitem(sys.modules, "readline", readline)
        console = Console(file=screen, force_terminal=tty, color_system="standard" if tty
                          else None, width=80)
        did = SimpleNamespace(shown=[], notes=[], recorded=[], screen=screen,
                              prompts=typed.prompts)
        board = shared_terminal.Keyboard(
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
    assert board.ended_by == "Ctrl-C" and did.notes == [shared_terminal.LEAVE_HINT]


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
    readline = Readline(typed=["draft"])  # the line is clear after the first Ctrl-C
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt, KeyboardInterrupt, "x",
                          tty=True, readline=readline)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert readline.history == ["draft"] and did.notes == [shared_terminal.LEAVE_HINT]


def test_without_readline_a_ctrl_c_at_a_terminal_counts_towards_leaving(keyboard):
    board, did = keyboard(KeyboardInterrupt, "hello", tty=True)  # no line to read back
    assert board.read(PROMPT) == "hello" and did.notes == [shared_terminal.LEAVE_HINT]
    board, did = keyboard(KeyboardInterrupt, KeyboardInterrupt, "never read", tty=True)
    with pytest.raises(EOFError):
        board.read(PROMPT)
    assert board.ended_by == "Ctrl-C"


def test_only_readline_gets_its_colours_fenced_off(keyboard):
    board, did = keyboard("hi", tty=True, readline=Readline())
    board.read(PROMPT)
    (fenced,) = did.prompts  # what input() was given to print
    assert "\x01\x1b[" in fenced and "m\x02" in fenced and fenced.count("\x01") == fenced.count(
        "\x1b[")
    board, did = keyboard("hi", tty=True)
    board.read(PROMPT)
    (plain,) = did.prompts
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
    assert shared_terminal.interactive(console) is expected


def test_no_stdin_at_all_is_not_interactive(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    assert shared_terminal.interactive(Console(file=sys.stdout)) is False


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
    monkeypatch.setattr(shared_terminal.signal, "signal",
                        lambda number, handler: handlers.__setitem__(number, handler))
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    shared_terminal.prepare_terminal()
    assert [s.asked for s in streams] == [[{"errors": "replace"}]] * 3
    for stop in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):  # `kill`, a closed window
        if stop is not None:  # a stop from outside exits with 128 plus the signal
            with pytest.raises(SystemExit) as ended:
                handlers[stop](stop, None)
            assert ended.value.code == 128 + stop
    assert "readline" not in sys.modules  # a pipe gets no line editing


def test_prepare_terminal_turns_line_editing_on_at_a_terminal(monkeypatch):
    pytest.importorskip("readline")
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: True))
    monkeypatch.setattr(shared_terminal.signal, "signal", lambda number, handler: None)
    had = sys.modules.pop("readline", None)
    try:
        shared_terminal.prepare_terminal()
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
    assert shared_terminal.interactive(Console(file=sys.stdout)) is False


def test_prepare_terminal_copes_with_no_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", None)
    monkeypatch.setattr(shared_terminal.signal, "signal", lambda number, handler: None)
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    shared_terminal.prepare_terminal()
    assert "readline" not in sys.modules


def test_without_readline_a_terminal_still_gets_plain_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", SimpleNamespace(isatty=lambda: True))
    monkeypatch.setattr(shared_terminal.signal, "signal", lambda number, handler: None)
    monkeypatch.setitem(sys.modules, "readline", None)  # `import readline` fails, as on Windows
    shared_terminal.prepare_terminal()  # no error: input() without line editing
    assert sys.modules["readline"] is None
