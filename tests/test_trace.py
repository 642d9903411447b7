"""The trace renderer: plain and coloured, never fooled by markup in model or tool text.

What a learner sees of a streamed answer when a key is set (the trace's `secrets`), each
held by a test below:
- the key never shows, even split across deltas;
- text that could be the start of the key is held back only until the next delta says
  it is not; at the end of the answer, or when a note or an error breaks in, what was
  held back is shown: the answer is shown whole, not a letter short.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from shared import trace as trace_module
from shared.trace import (
    LEAVE_HINT,
    MAX_WIDTH,
    MIN_WIDTH,
    OBSERVE_CHARS,
    OBSERVE_LINES,
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


# ======================================================================================
# The trace at its edges: where a cut starts, whether its counts add up, what a value that
# JSON cannot write looks like, which width a COLUMNS setting gives, what a saved trace
# holds and what a failed save leaves behind, a reply's text before its calls.


def wide_trace(width=100):
    return Trace(make_console(file=io.StringIO(), width=width))


def cut_count(text):
    """The N of the `… (N more ...)` marker at the end of a cut text."""
    return int(re.search(r"… \((\d+) more \w+\)$", text).group(1))


# ---------------------------------------------------------------- cutting


def test_a_text_at_the_limits_is_whole_and_one_more_is_cut():
    assert cut("x" * OBSERVE_CHARS) == "x" * OBSERVE_CHARS
    assert cut("x" * (OBSERVE_CHARS + 1)).startswith("x" * OBSERVE_CHARS + "\n")
    at = "\n".join(["line"] * OBSERVE_LINES)
    assert cut(at) == at
    assert cut(at + "\nline") != at + "\nline"


def test_what_a_cut_keeps_and_what_it_says_it_took_add_up():
    text = "y" * (OBSERVE_CHARS * 3 + 7)
    shortened = cut(text)
    kept = shortened.split("\n… (")[0]
    assert kept == text[:len(kept)] and len(kept) + cut_count(shortened) == len(text)
    lines = [f"line {i}" for i in range(OBSERVE_LINES * 2 + 3)]
    shortened = cut("\n".join(lines))
    assert shortened.splitlines()[:OBSERVE_LINES] == lines[:OBSERVE_LINES]
    assert OBSERVE_LINES + cut_count(shortened) == len(lines)


def test_an_observation_cut_on_screen_says_how_much_it_shows_of_how_much():
    trace = wide_trace()
    trace.observe("dump", "z" * (OBSERVE_CHARS * 2))
    out = shown(trace)
    assert f"{OBSERVE_CHARS:,}" in out and f"{OBSERVE_CHARS * 2:,}" in out


def test_a_short_observation_has_no_cut_note():
    trace, whole = wide_trace(), "just twelve."
    trace.observe("now", whole)
    lines = shown(trace).splitlines()
    assert any(whole in line for line in lines)
    assert not [line for line in lines if re.search(r"\d+ of \d+", line)]


def test_a_long_observation_of_low_bytes_is_noted_too():
    # "\x00" sorts before the cut's own "\n": only a real comparison says they differ
    trace = wide_trace()
    trace.observe("dump", "\x00" * (OBSERVE_CHARS + 10))
    assert f"{OBSERVE_CHARS + 10:,}" in shown(trace)


# ---------------------------------------------------------------- values JSON cannot write


def circular():
    loop = []
    loop.append(loop)
    return loop


def deep():
    nested = []
    for _ in range(100_000):
        nested = [nested]
    return nested


# made in the test, not at collection: a 100,000-deep list alive for the whole run slows
# every garbage collection of the worker that collected it
@pytest.mark.parametrize("make", [object, circular, deep, lambda: {1j: "complex key"}],
                         ids=["object", "circular", "deep", "complex"])
def test_shown_never_raises_and_names_what_it_could_not_write(make):
    value = make()
    text = trace_module.shown(value)
    assert text.startswith("<") and type(value).__name__ in text


@pytest.mark.parametrize("make", [object, circular, deep], ids=["object", "circular", "deep"])
def test_a_tool_call_with_arguments_json_cannot_write_is_still_shown(make):
    args = make()
    trace = wide_trace()
    trace.act("now", args)
    assert f"<{type(args).__name__}>" in shown(trace)


def test_words_in_any_script_are_shown_as_they_are():
    assert "Zürich" in trace_module.shown({"city": "Zürich"})
    trace = wide_trace()
    trace.act("get_weather", {"city": "Zürich", "note": "東京"})
    assert "Zürich" in shown(trace) and "東京" in shown(trace)


# ---------------------------------------------------------------- ids in titles


def test_a_native_call_and_its_result_carry_the_same_id_in_their_titles():
    trace = wide_trace()
    trace.act("now", {}, "toolu_01")
    trace.observe("now", "noon", "toolu_01")
    titles = [line for line in shown(trace).splitlines() if line.startswith("╭─")]
    assert len(titles) == 2 and all("toolu_01" in title for title in titles)


def test_a_hostile_id_stays_on_its_title_line():
    trace = wide_trace()
    trace.act("now", {}, "id\n╰─ fake\x1b[2J")
    (title,) = [line for line in shown(trace).splitlines() if line.startswith("╭─")]
    assert "id\\n╰─ fake\\x1b[2J" in title


# ---------------------------------------------------------------- the console


@pytest.fixture
def terminal_of(monkeypatch):
    """The terminal, whenever asked, says it is 123 columns wide."""
    monkeypatch.setattr(shutil, "get_terminal_size", lambda *a: os.terminal_size((123, 40)))


@pytest.mark.parametrize(("columns", "width"), [
    ("0", 123), ("-5", 123), ("abc", 123), ("", 123),  # no sense: ask the terminal
    ("1", MIN_WIDTH), (str(MIN_WIDTH - 1), MIN_WIDTH), (str(MIN_WIDTH), MIN_WIDTH),
    (str(MIN_WIDTH + 1), MIN_WIDTH + 1), (str(MAX_WIDTH), MAX_WIDTH),
    (str(MAX_WIDTH + 1), MAX_WIDTH), ("90", 90)])
def test_columns_is_taken_clamped_or_replaced_by_the_terminals(monkeypatch, terminal_of,
                                                               columns, width):
    monkeypatch.setenv("COLUMNS", columns)
    assert make_console(file=io.StringIO()).width == width


def test_a_width_asked_for_beats_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    assert make_console(file=io.StringIO(), width=77).width == 77


def test_the_console_never_colours_model_text_on_its_own():
    console = make_console(file=io.StringIO(), width=80)
    assert console.render_str("call 42 with 'x' at http://example.org").spans == []


def test_only_a_trace_that_will_be_saved_keeps_a_copy_of_the_screen(tmp_path):
    assert not Trace(make_console(file=io.StringIO())).console.record
    assert Trace(save=str(tmp_path / "t.svg")).console.record


# ---------------------------------------------------------------- saving


@pytest.mark.parametrize("suffix", [".html", ".HTM", ".svg"])
def test_a_saved_trace_is_the_kind_its_name_says(tmp_path, suffix, capsys):
    path = tmp_path / f"trace{suffix}"
    trace = Trace(make_console(file=io.StringIO(), record=True), save=str(path))
    trace.answer("saved words")
    trace.finish()
    text = path.read_text(encoding="utf-8")
    assert ("<svg" in text) == (suffix == ".svg") and ("<html" in text) == (suffix != ".svg")
    assert "saved" in text


def test_a_save_that_fails_leaves_nothing_half_written_and_says_why(tmp_path, capsys,
                                                                   rescue_folder):
    folder = tmp_path / "not_a_folder"
    folder.write_text("a file where the folder should be")
    trace = Trace(make_console(file=io.StringIO(), record=True), save=str(folder / "t.svg"))
    trace.answer("words")
    trace.finish()
    said = capsys.readouterr().err
    assert "could not save" in said and "None" not in said
    assert sorted(tmp_path.iterdir()) == [folder, rescue_folder]


@pytest.fixture
def rescue_folder(tmp_path, monkeypatch):
    """Where a trace that could not be saved is rescued to, instead of the real temp folder."""
    folder = tmp_path / "rescued"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def saved_with(tmp_path, capsys):
    """Save a trace to tmp_path/out/t.svg; (what stderr said, the files left in out/)."""
    target = tmp_path / "out"
    target.mkdir()
    trace = Trace(make_console(file=io.StringIO(), record=True), save=str(target / "t.svg"))
    trace.answer("words")
    trace.finish()
    return capsys.readouterr().err, sorted(p.name for p in target.iterdir())


def test_a_trace_that_cannot_be_put_in_place_leaves_no_part_file(tmp_path, monkeypatch,
                                                                 capsys, rescue_folder):
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(
        OSError(28, "No space left on device")))
    said, left = saved_with(tmp_path, capsys)
    assert left == [], "the part file written beside it is removed"
    assert "No space left on device" in said and len(list(rescue_folder.iterdir())) == 1


def test_a_save_error_without_an_os_message_is_still_named(tmp_path, monkeypatch, capsys,
                                                           rescue_folder):
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(
        OSError("the disk went away")))
    said, _ = saved_with(tmp_path, capsys)
    assert "the disk went away" in said and "None" not in said


def test_a_failed_write_reports_its_own_error_not_the_clean_up(tmp_path, monkeypatch, capsys,
                                                               rescue_folder):
    def full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(type(tmp_path), "write_bytes", full)
    said, left = saved_with(tmp_path, capsys)
    assert "No space left on device" in said and left == []


# ---------------------------------------------------------------- a reply before its calls


def reply_with_a_call(text, reasoning=""):
    from shared.providers import Reply, ToolCall

    return Reply(text, [ToolCall("c1", "now", {})], "tool_use", reasoning=reasoning)


@pytest.mark.parametrize(("streamed", "text"), [("Hel", "Hello"), ("Hello!", "Hello")],
                         ids=["less", "more"])
def test_text_that_streamed_otherwise_than_the_reply_is_shown_again_whole(streamed, text):
    trace = wide_trace()
    trace.stream_delta(streamed)
    trace.model_reply(reply_with_a_call(text))
    trace.act("now", {}, "c1")
    assert [line for line in shown(trace).splitlines()[1:] if text in line], shown(trace)


def test_a_reply_with_only_calls_is_not_labelled_as_thinking():
    trace = wide_trace()
    trace.model_reply(reply_with_a_call(""))
    trace.act("now", {}, "c1")
    before_the_call = shown(trace).split("╭─ act")[0]
    assert before_the_call.strip() and "think" not in before_the_call


def test_reasoning_that_came_apart_from_the_text_is_shown():
    trace = wide_trace()
    trace.model_reply(reply_with_a_call("", reasoning="the user wants the time"))
    trace.act("now", {}, "c1")
    assert "the user wants the time" in shown(trace)


def test_blank_text_streamed_before_the_calls_is_not_called_thinking():
    trace = wide_trace()
    trace.stream_delta("\n")
    trace.model_reply(reply_with_a_call("\n"))
    trace.act("now", {}, "c1")
    before_the_call = shown(trace).split("╭─ act")[0]
    assert "think" not in before_the_call


KEY = "sk-held-back-0123456789"


@pytest.mark.parametrize("ending", ["sk", "s", "sk-held"])  # the first letters of the key
def test_text_held_back_at_the_end_of_an_answer_is_shown(ending):
    trace = plain_trace()
    trace.secrets = (KEY,)
    answer = trace.stream_answer(["The key starts with ", ending])
    assert answer == f"The key starts with {ending}"
    assert f"tao  The key starts with {ending}\n" in shown(trace)


def test_text_held_back_when_a_note_breaks_in_is_shown_and_the_key_never_is():
    trace = plain_trace()
    trace.secrets = (KEY,)
    trace.stream_delta("Your key is ")
    trace.stream_delta(KEY[:6])
    trace.stream_delta(KEY[6:])  # the whole key, over two deltas
    trace.stream_delta(" and then sk")
    trace.note("reply cancelled")
    out = shown(trace)
    assert KEY not in out and "and then sk" in out and "Your key is " in out
