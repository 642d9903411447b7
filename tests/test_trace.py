"""The trace renderer: plain and coloured, never fooled by markup in model or tool text."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from shared.trace import (
    LEAVE_HINT,
    MAX_WIDTH,
    MIN_WIDTH,
    Trace,
    cut,
    make_console,
    visible,
)


def plain_trace():
    return Trace(make_console(file=io.StringIO(), width=80))


def shown(trace):
    return trace.console.file.getvalue()


def test_plain_output_has_no_escape_codes_and_every_part():
    trace = plain_trace()
    trace.request("what time is it?")
    trace.iteration(1)
    trace.think('{"tool": "now", "args": {}}', usage={"input_tokens": 12, "output_tokens": 7})
    trace.act("now", {"zone": "UTC"})
    trace.observe("now", "2026-05-01T09:30:00+00:00")
    trace.answer("It is half past nine.", usage={"input_tokens": 30, "output_tokens": 9})
    out = shown(trace)
    assert "\x1b[" not in out
    for part in ("you> what time is it?", "iteration 1", "think", '{"tool": "now"',
                 "act · now", '"zone": "UTC"', "observe · now", "2026-05-01T09:30:00+00:00",
                 "tao  It is half past nine.", "12 in / 7 out", "30 in / 9 out"):
        assert part in out, part


def test_coloured_output_on_a_terminal():
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="standard")
    trace = Trace(console)
    trace.act("now", {})
    assert "\x1b[" in console.file.getvalue()


def test_no_color_is_honoured(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    console = Console(file=io.StringIO(), width=80, force_terminal=True)
    Trace(console).observe("now", "result")
    assert "\x1b[3" not in console.file.getvalue()  # no foreground colours


def test_markup_in_model_and_tool_text_is_shown_literally():
    trace = plain_trace()
    nasty = "[/bold] [red]red?[/red] [link=http://x]x[/link] [/]"
    trace.think(nasty)
    trace.act("[bold]tool[/bold]", {"arg": "[/i]"})
    trace.observe("[red]now", nasty)
    trace.answer(nasty)
    trace.stream_answer(iter(["[/bold]", " [red]"]))
    out = shown(trace)
    assert out.count("[/bold] [red]red?[/red]") == 3
    assert "[bold]tool[/bold]" in out and "[red]now" in out and "[/bold] [red]" in out


def test_long_observations_are_cut_with_a_visible_marker():
    trace = plain_trace()
    trace.observe("dump", "x" * 100_000)
    out = shown(trace)
    assert "more characters)" in out and out.count("x") < 3000
    assert cut("\n".join(map(str, range(100)))).endswith("… (80 more lines)")
    assert cut("short") == "short"


def test_blank_think_shows_what_was_there():
    trace = plain_trace()
    trace.think("\n\n")
    assert "'\\n\\n'" in shown(trace)


def test_stream_answer_prints_as_it_goes_and_returns_the_text():
    trace = plain_trace()
    seen_before_end = []

    def deltas():
        yield "Hello "
        yield "wor"  # a word shows once it is whole: it may have to start the next line
        seen_before_end.append(shown(trace))
        yield "ld"

    assert trace.stream_answer(deltas()) == "Hello world"
    assert "Hello" in seen_before_end[0] and "wor" not in seen_before_end[0]
    assert "Hello world" in shown(trace)


def test_save_trace_writes_svg_and_html(tmp_path):
    for name in ("t.svg", "t.html"):
        path = tmp_path / name
        trace = Trace(make_console(file=io.StringIO(), width=80, record=True), save=str(path))
        trace.answer("saved <answer> & more")
        trace.finish()
        text = path.read_text(encoding="utf-8")
        assert text.lstrip().startswith("<") and "saved" in text


def test_anything_shown_after_streamed_text_starts_on_a_new_line():
    trace = plain_trace()
    trace.stream_delta("I'll use now")
    trace.act("now", {})
    trace.stream_delta("It is")
    trace.note("reply cancelled")
    trace.stream_delta("Done.")
    trace.answer("Done.")
    lines = shown(trace).splitlines()
    assert lines[0] == "tao  I'll use now" and "act · now" in lines[1]
    # a note or an error after streamed text means the reply stopped short: say so
    assert "tao  It is [cut off]" in lines and "reply cancelled" in lines
    assert "tao  Done." in lines and shown(trace).count("Done.") == 1


def test_stream_answer_and_stream_delta_are_one_path():
    by_answer, by_delta = plain_trace(), plain_trace()
    assert by_answer.stream_answer(iter(["Hel", "lo"])) == "Hello"
    by_delta.stream_delta("Hel")
    by_delta.stream_delta("lo")
    by_delta.answer("Hello")
    strip_time = re.compile(r"\d+\.\d\d s")
    assert strip_time.sub("", shown(by_answer)) == strip_time.sub("", shown(by_delta))


def test_an_error_mid_stream_keeps_the_text_and_marks_it_cut_off():
    trace = plain_trace()
    trace.stream_delta("Hel")
    trace.error("openai: the stream broke off")
    assert shown(trace).splitlines() == ["tao  Hel [cut off]",
                                         "error  openai: the stream broke off"]


HOSTILE = "\x1b]2;TITLE\x07\x1b[2J\x9b31m\r\x08\u202e\udcff ok"


def test_control_characters_are_shown_never_sent_to_the_terminal():
    console = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="standard")
    trace = Trace(console)
    trace.request(HOSTILE)
    trace.think(HOSTILE)
    trace.act(HOSTILE, {"arg": HOSTILE})
    trace.observe(HOSTILE, HOSTILE)
    trace.stream_delta(HOSTILE)
    trace.answer(HOSTILE + "!")
    trace.error(HOSTILE)
    trace.note(HOSTILE)
    out = console.file.getvalue()
    # the kit's own colours are escape sequences too: take them out, then nothing may be left
    own_styling = re.compile(r"\x1b\[[0-9;]*m")
    rest = own_styling.sub("", out)
    for byte in ("\x1b", "\x07", "\x9b", "\r", "\x08", "\u202e", "\udcff"):
        assert byte not in rest, f"{byte!r} reached the terminal"
    assert "\\x1b]2;TITLE\\x07\\x1b[2J" in rest and "\\u202e" in rest  # shown, visibly
    assert own_styling.search(out), "the kit's own styling went missing"


def test_a_tool_name_stays_on_its_title_line_whatever_it_holds():
    trace = plain_trace()
    trace.act("now\n╰─ fake border\x1b[2J", {})
    trace.act(["not", {"a": "name"}], {})
    titles = [line for line in shown(trace).splitlines() if line.startswith("╭─ act")]
    assert titles[0].startswith("╭─ act · now\\n╰─ fake border\\x1b[2J ─")
    assert titles[1].startswith('╭─ act · ["not", {"a": "name"}] ─')


def test_newlines_and_tabs_stay_as_they_are():
    assert visible("a\tb\nc\r\nd") == "a\tb\nc\nd"
    assert visible("\x00\x1b\x7f") == "\\x00\\x1b\\x7f"


@pytest.mark.parametrize("columns", ["0", "-5", "abc", "", "1"])
def test_any_columns_setting_gives_a_usable_width(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    trace = Trace(make_console(file=io.StringIO()))
    assert MIN_WIDTH <= trace.console.width <= MAX_WIDTH
    trace.answer("still shown")
    assert "still shown" in shown(trace)


def test_a_narrow_terminal_wraps_panels_instead_of_cropping_them():
    trace = Trace(make_console(file=io.StringIO(), width=20))
    expression = "12 * (3 + 4) - 5 / 6 + 7 ** 2"
    trace.act("calculator", {"expression": expression})
    trace.observe("calculator", "the result is 12345678901234567890")
    inside = "".join(line.strip("│ ").rstrip() for line in shown(trace).splitlines())
    assert expression.replace(" ", "") in inside.replace(" ", "")
    assert "12345678901234567890" in inside


def test_ctrl_c_at_the_prompt_says_how_to_leave_and_twice_leaves(monkeypatch):
    presses = iter([KeyboardInterrupt, "hello", KeyboardInterrupt, KeyboardInterrupt])

    def keyboard(prompt=""):
        key = next(presses)
        if key is KeyboardInterrupt:
            raise KeyboardInterrupt
        return key

    monkeypatch.setattr("builtins.input", keyboard)
    trace = plain_trace()
    assert trace.prompt() == "hello"  # one Ctrl-C only explains; the session goes on
    with pytest.raises(EOFError):  # the stages leave on EOFError, as on Ctrl-D
        trace.prompt()
    trace.finish()
    out = shown(trace)
    assert out.count(LEAVE_HINT) == 2 and out.rstrip().endswith("bye (Ctrl-C)")


def test_every_way_out_of_the_prompt_says_so(monkeypatch):
    for typed, reason in (("", "an empty line"), (EOFError, "end of input")):
        def keyboard(prompt="", typed=typed):
            if typed is EOFError:
                raise EOFError
            return typed

        monkeypatch.setattr("builtins.input", keyboard)
        trace = plain_trace()
        try:
            trace.prompt()
        except EOFError:
            pass
        trace.finish()
        assert shown(trace).rstrip().endswith(f"bye ({reason})"), shown(trace)


def test_a_session_saves_its_trace_once_with_the_error_that_ended_it(tmp_path, capsys):
    from shared.providers import ProviderError, ScriptedProvider
    from shared.stage_main import Session

    path = tmp_path / "t.html"
    trace = Trace(make_console(file=io.StringIO(), width=80, record=True), save=str(path))
    with pytest.raises(ProviderError), Session(ScriptedProvider([]), trace) as (_, shown_to):
        shown_to.answer("kept")
        raise ProviderError("the server went away")
    trace.finish()  # a second finish saves nothing more
    saved = path.read_text(encoding="utf-8")
    assert "kept" in saved and "error: the server went away" in saved
    assert "the server went away" not in shown(trace), "stderr says it; the screen does not"
    assert capsys.readouterr().err.count("trace saved to") == 1


def test_a_trace_that_cannot_be_written_is_saved_elsewhere_not_lost(tmp_path, capsys):
    path = tmp_path / "gone" / "t.svg"  # the folder disappeared during the session
    trace = Trace(make_console(file=io.StringIO(), width=80, record=True), save=str(path))
    trace.answer("precious")
    trace.finish()
    err = capsys.readouterr().err
    assert f"could not save the trace to {path}" in err
    rescue = Path(err.rsplit("saved it to ", 1)[1].split(" instead")[0])
    try:
        assert "precious" in rescue.read_text(encoding="utf-8")
    finally:
        rescue.unlink()


def test_the_silent_trace_takes_every_trace_method_and_refuses_a_misspelt_one():
    from shared.trace import SILENT

    for name in ("iteration", "think", "act", "observe", "note", "answer", "error"):
        assert getattr(SILENT, name)(1, 2) is None
    with pytest.raises(AttributeError, match="itteration"):
        SILENT.itteration(1)
    with pytest.raises(AttributeError):
        SILENT._print("x")  # its private plumbing is not part of what a loop may call


SAVER = """
import signal, sys
from shared.trace import Trace, make_console
trace = Trace(make_console(record=True), save=sys.argv[1])
trace.answer("precious " + "x" * 5000 + " \\ud800 a lone surrogate")
if len(sys.argv) > 2:  # Ctrl-C arrives while the trace is being exported
    import rich.console
    export = rich.console.Console.export_svg
    def slow_export(*args, **kwargs):
        signal.raise_signal(signal.SIGINT)
        return export(*args, **kwargs)
    rich.console.Console.export_svg = slow_export
trace.finish()
"""


def run_saver(tmp_path, *extra, file_limit=None):
    """A process that saves a trace to tmp_path/t.svg; with `file_limit`, the disk is full
    past that many bytes (RLIMIT_FSIZE: writes fail with EFBIG, as on a full disk)."""
    import resource
    import signal as signals
    import subprocess
    import sys as system

    from helpers import ROOT, clean_env

    def full_disk():
        signals.signal(signals.SIGXFSZ, signals.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    env = clean_env() | {"TMPDIR": str(tmp_path)}
    return subprocess.run([system.executable, "-c", SAVER, str(tmp_path / "t.svg"), *extra],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=30,
                          preexec_fn=full_disk if file_limit else None)


def test_a_full_disk_leaves_no_half_file_and_says_so_in_one_line(tmp_path):
    done = run_saver(tmp_path, file_limit=2000)
    assert "Traceback" not in done.stderr, done.stderr
    assert "could not save the trace to" in done.stderr and "nothing was saved" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == [], "no truncated or partial file"


def test_ctrl_c_while_saving_still_saves_the_whole_trace(tmp_path):
    done = run_saver(tmp_path, "interrupt")
    saved = (tmp_path / "t.svg").read_text(encoding="utf-8")
    assert "trace saved to" in done.stderr and "precious" in saved
    assert saved.rstrip().endswith("</svg>"), "the file is whole"


REPLY = ("I'm tao's offline model: rules, not a language model. You said \"hello there\". "
         "No tools here yet, so all I can do is talk back. Supercalifragilisticexpialidocious "
         "words and\nline breaks too.")


def lines_of(answer_with) -> list[str]:
    """The screen's lines at 40 columns after `answer_with(trace)`, right spaces dropped."""
    screen = io.StringIO()
    trace = Trace(make_console(file=screen, width=40))
    answer_with(trace)
    return [line.rstrip() for line in screen.getvalue().splitlines()][:-1]  # not the footer


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
def test_streamed_text_wraps_at_word_boundaries_as_a_whole_answer_does(size):
    # "all I can d / o is": the terminal cut streamed words in two at its edge
    pieces = [REPLY[i:i + size] for i in range(0, len(REPLY), size)]
    streamed = lines_of(lambda trace: trace.stream_answer(iter(pieces)))
    whole = lines_of(lambda trace: trace.answer(REPLY))
    assert streamed == whole, "\n".join(streamed)
    assert all(len(line) <= 40 for line in streamed), streamed
    words = set(re.findall(r"\S+", REPLY))
    assert all(word in words for line in streamed for word in line.split()[1 if line.startswith(
        "tao") else 0:]), "a word was cut in two"
