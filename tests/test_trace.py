"""The trace renderer: plain and coloured, never fooled by markup in model or tool text."""

from __future__ import annotations

import io

from rich.console import Console

from shared.trace import Trace, cut, make_console


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
        yield "Hel"
        seen_before_end.append(shown(trace))
        yield "lo"

    assert trace.stream_answer(deltas()) == "Hello"
    assert "Hel" in seen_before_end[0]


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
    trace.note("reply cancelled")
    trace.stream_delta("It is")
    trace.act("now", {})
    trace.stream_delta("Done.")
    trace.answer("Done.")
    lines = shown(trace).splitlines()
    assert lines[0] == "tao  I'll use now" and lines[1] == "reply cancelled"
    assert lines[2] == "tao  It is" and "act · now" in lines[3]
    assert "tao  Done." in lines and shown(trace).count("Done.") == 1
