"""The trace (shared/trace.py) at the edges the surviving mutants of benchmarks/mutation.py
found: where a cut starts, whether its counts add up, what a value that JSON cannot
write looks like, which width a COLUMNS setting gives, what a saved trace holds. The
per-turn footer and tokens_text are left to the change that is reworking them."""

from __future__ import annotations

import io
import os
import re
import shutil

import pytest

from shared import trace as trace_module
from shared.trace import (
    MAX_WIDTH,
    MIN_WIDTH,
    OBSERVE_CHARS,
    OBSERVE_LINES,
    Trace,
    cut,
    make_console,
    shown,
)


def plain_trace(width=100):
    return Trace(make_console(file=io.StringIO(), width=width))


def screen(trace):
    return trace.console.file.getvalue()


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
    trace = plain_trace()
    trace.observe("dump", "z" * (OBSERVE_CHARS * 2))
    out = screen(trace)
    assert f"{OBSERVE_CHARS:,}" in out and f"{OBSERVE_CHARS * 2:,}" in out


def test_a_short_observation_has_no_cut_note():
    trace, whole = plain_trace(), "just twelve."
    trace.observe("now", whole)
    lines = screen(trace).splitlines()
    assert any(whole in line for line in lines)
    assert not [line for line in lines if re.search(r"\d+ of \d+", line)]


def test_a_long_observation_of_low_bytes_is_noted_too():
    # "\x00" sorts before the cut's own "\n": only a real comparison says they differ
    trace = plain_trace()
    trace.observe("dump", "\x00" * (OBSERVE_CHARS + 10))
    assert f"{OBSERVE_CHARS + 10:,}" in screen(trace)


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
    text = shown(value)
    assert text.startswith("<") and type(value).__name__ in text


@pytest.mark.parametrize("make", [object, circular, deep], ids=["object", "circular", "deep"])
def test_a_tool_call_with_arguments_json_cannot_write_is_still_shown(make):
    args = make()
    trace = plain_trace()
    trace.act("now", args)
    assert f"<{type(args).__name__}>" in screen(trace)


def test_words_in_any_script_are_shown_as_they_are():
    assert "Zürich" in shown({"city": "Zürich"})
    trace = plain_trace()
    trace.act("get_weather", {"city": "Zürich", "note": "東京"})
    assert "Zürich" in screen(trace) and "東京" in screen(trace)


# ---------------------------------------------------------------- ids in titles


def test_a_native_call_and_its_result_carry_the_same_id_in_their_titles():
    trace = plain_trace()
    trace.act("now", {}, "toolu_01")
    trace.observe("now", "noon", "toolu_01")
    titles = [line for line in screen(trace).splitlines() if line.startswith("╭─")]
    assert len(titles) == 2 and all("toolu_01" in title for title in titles)


def test_a_hostile_id_stays_on_its_title_line():
    trace = plain_trace()
    trace.act("now", {}, "id\n╰─ fake\x1b[2J")
    (title,) = [line for line in screen(trace).splitlines() if line.startswith("╭─")]
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


def test_a_save_that_fails_leaves_nothing_half_written_and_says_why(tmp_path, capsys):
    folder = tmp_path / "not_a_folder"
    folder.write_text("a file where the folder should be")
    trace = Trace(make_console(file=io.StringIO(), record=True), save=str(folder / "t.svg"))
    trace.answer("words")
    trace.finish()
    said = capsys.readouterr().err
    assert "could not save" in said and "None" not in said
    assert list(tmp_path.iterdir()) == [folder]


def test_the_only_part_file_is_removed_and_nothing_else(tmp_path, monkeypatch):
    target = tmp_path / "t.svg"
    monkeypatch.setattr(trace_module.os, "replace", lambda *a: (_ for _ in ()).throw(
        OSError(28, "No space left on device")))
    with pytest.raises(OSError):
        trace_module._write_whole(target, b"data")
    assert list(tmp_path.iterdir()) == []


def test_a_save_error_without_an_os_message_is_still_named(tmp_path, monkeypatch, capsys):
    def fails(path, data):
        raise OSError("the disk went away")

    monkeypatch.setattr(trace_module, "_write_whole", fails)
    trace = Trace(make_console(file=io.StringIO(), record=True), save=str(tmp_path / "t.svg"))
    trace.finish()
    assert "the disk went away" in capsys.readouterr().err


# ---------------------------------------------------------------- a reply before its calls


def reply_with_a_call(text, reasoning=""):
    from shared.providers import Reply, ToolCall

    return Reply(text, [ToolCall("c1", "now", {})], "tool_use", reasoning=reasoning)


@pytest.mark.parametrize(("streamed", "text"), [("Hel", "Hello"), ("Hello!", "Hello")],
                         ids=["less", "more"])
def test_text_that_streamed_otherwise_than_the_reply_is_shown_again_whole(streamed, text):
    trace = plain_trace()
    trace.stream_delta(streamed)
    trace.model_reply(reply_with_a_call(text))
    trace.act("now", {}, "c1")
    assert [line for line in screen(trace).splitlines()[1:] if text in line], screen(trace)


def test_a_reply_with_only_calls_is_not_labelled_as_thinking():
    trace = plain_trace()
    trace.model_reply(reply_with_a_call(""))
    trace.act("now", {}, "c1")
    before_the_call = screen(trace).split("╭─ act")[0]
    assert before_the_call.strip() and "think" not in before_the_call


def test_reasoning_that_came_apart_from_the_text_is_shown():
    trace = plain_trace()
    trace.model_reply(reply_with_a_call("", reasoning="the user wants the time"))
    trace.act("now", {}, "c1")
    assert "the user wants the time" in screen(trace)


def test_a_failed_write_reports_its_own_error_not_the_clean_up(tmp_path, monkeypatch):
    def full(self, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(type(tmp_path), "write_bytes", full)
    with pytest.raises(OSError) as raised:
        trace_module._write_whole(tmp_path / "t.svg", b"data")
    assert raised.value.errno == 28


def test_blank_text_streamed_before_the_calls_is_not_called_thinking():
    trace = plain_trace()
    trace.stream_delta("\n")
    trace.model_reply(reply_with_a_call("\n"))
    trace.act("now", {}, "c1")
    before_the_call = screen(trace).split("╭─ act")[0]
    assert "think" not in before_the_call
