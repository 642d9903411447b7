"""`tao check / hint / reset / solution` and what they show (tao/exercise_verbs.py,
exercise_screen.py), in process on a small kit with the test run stood in for: the
questions the surviving mutants of benchmarks/mutation.py asked. Which exit code does a
check give, alone or with --all? Does `tao check N` move the focus? Does a reset ask, and
keep the file on a no? Is the progress bar as wide as it says, full when all are done?"""

from __future__ import annotations

import argparse
import io
import json
import re

import pytest
from rich.console import Console
from test_mutants_exercise_state import kit, solve  # noqa: F401  (the fixture, shared)

from tao import exercise_runner as runner
from tao import exercise_screen as screen
from tao import exercise_state as state
from tao import exercise_verbs as verbs
from tao import exercise_watch as watching
from tao.repo import CLIError


@pytest.fixture
def outcomes(monkeypatch):
    """name -> "passed"/"failed": what the stood-in test run reports; the names it ran."""
    wanted, ran = {}, []

    def fake(argv, env, limit):
        names = [a.rsplit("test_", 1)[1][:-3] for a in argv if a.endswith(".py")]
        ran.append(names)
        with open(env["TAO_RESULTS"], "a", encoding="utf-8") as out:
            for name in names:
                out.write(json.dumps({"exercise": name, "test": "test_it", "message": "no",
                                      "outcome": wanted.get(name, "passed")}) + "\n")
        return False
    monkeypatch.setattr(runner, "_forked_pytest", fake)
    return wanted, ran


def console(terminal=False):
    return Console(file=io.StringIO(), width=80, force_terminal=terminal, highlight=False)


def check(exercise=None, all=False):
    return verbs.cmd_check(argparse.Namespace(exercise=exercise, all=all), console())


# ---------------------------------------------------------------- tao check


def test_check_runs_the_current_exercise_and_exits_by_its_result(kit, outcomes):  # noqa: F811
    wanted, ran = outcomes
    assert check() == 1 and ran == []  # a stub: nothing to run, and it does not pass
    solve(kit[0])
    wanted["e01_first"] = "failed"
    assert check() == 1 and ran == [["e01_first"]]
    wanted["e01_first"] = "passed"
    solve(kit[0], "def solved():\n    return 3\n")
    assert check() == 0 and state.statuses(kit)["e01_first"].status == "done"


def test_check_n_checks_that_one_and_makes_it_the_current_one(kit, outcomes):  # noqa: F811
    _, ran = outcomes
    solve(kit[2])
    assert check("3") == 0 and ran == [["e03_third"]]
    assert state.read_progress()[state.CURRENT] == "e03_third"


def test_check_all_exits_zero_only_when_every_exercise_is_done(kit, outcomes):  # noqa: F811
    wanted, ran = outcomes
    for e in kit:
        solve(e)
    wanted["e02_second"] = "failed"
    assert check(all=True) == 1 and ran == [["e01_first", "e02_second", "e03_third"]]
    wanted["e02_second"] = "passed"
    solve(kit[1], "def solved():\n    return 5\n")
    assert check(all=True) == 0


def test_check_with_a_number_and_all_is_refused(kit):  # noqa: F811
    with pytest.raises(CLIError):
        check("2", all=True)


def test_with_every_exercise_done_a_verb_without_a_number_is_refused(kit, outcomes):  # noqa: F811
    for e in kit:
        solve(e)
    check(all=True)
    with pytest.raises(CLIError):
        verbs.cmd_hint(argparse.Namespace(exercise=None), console())
    with pytest.raises(CLIError):
        verbs.cmd_hint(argparse.Namespace(exercise="9"), console())
    assert verbs.cmd_hint(argparse.Namespace(exercise="2"), console()) == 0


# ---------------------------------------------------------------- tao reset


def reset(exercise="1", yes=False):
    return verbs.cmd_reset(argparse.Namespace(exercise=exercise, yes=yes), console())


class Stdin:
    def __init__(self, tty):
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize("answer", ["y", "Y", " yes "])
def test_reset_asks_and_a_yes_restores_the_stub(kit, monkeypatch, answer):  # noqa: F811
    solve(kit[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(True))
    monkeypatch.setattr("builtins.input", lambda *a: answer)
    assert reset() == 0 and kit[0].path.read_bytes() == kit[0].stub.read_bytes()


@pytest.mark.parametrize("answer", ["", "n", "yess"])
def test_reset_keeps_the_work_on_anything_but_yes(kit, monkeypatch, answer):  # noqa: F811
    solve(kit[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(True))
    monkeypatch.setattr("builtins.input", lambda *a: answer)
    assert reset() == 1 and kit[0].path.read_bytes() != kit[0].stub.read_bytes()


def test_reset_from_a_pipe_needs_yes(kit, monkeypatch):  # noqa: F811
    solve(kit[0])
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(False))
    with pytest.raises(CLIError):
        reset()
    assert kit[0].path.read_bytes() != kit[0].stub.read_bytes()
    assert reset(yes=True) == 0 and kit[0].path.read_bytes() == kit[0].stub.read_bytes()


def test_reset_of_a_stub_or_a_deleted_file_needs_no_question(kit, monkeypatch):  # noqa: F811
    monkeypatch.setattr(verbs.sys, "stdin", Stdin(False))
    assert reset() == 0  # already the stub: nothing to confirm
    kit[0].path.unlink()
    assert reset(yes=True) == 0 and kit[0].path.exists()
    kit[0].stub.unlink()
    with pytest.raises(CLIError):
        reset(yes=True)


# ---------------------------------------------------------------- tao solution


def test_the_solution_opens_only_once_the_exercise_passes(kit, outcomes, capsys):  # noqa: F811
    wanted, _ = outcomes
    first = kit[0]
    first.solution.parent.mkdir(exist_ok=True)
    long_line = "    return 'the reference' + " + " + ".join(["'a long line'"] * 8) + "\n"
    first.solution.write_text("def solved():\n" + long_line)
    solve(first)
    wanted["e01_first"] = "failed"
    with pytest.raises(CLIError):
        verbs.cmd_solution(argparse.Namespace(exercise="1"), console())
    wanted["e01_first"] = "passed"
    solve(first, "def solved():\n    return 2\n")
    assert verbs.cmd_solution(argparse.Namespace(exercise="1"), console()) == 0
    assert capsys.readouterr().out == first.solution.read_text()  # piped: the file exactly
    shown = console(terminal=True)
    assert verbs.cmd_solution(argparse.Namespace(exercise="1"), shown) == 0
    on_screen = re.sub(r"\x1b\[[0-9;]*m", "", shown.file.getvalue())
    assert long_line in on_screen and capsys.readouterr().out == ""  # left whole to fold


# ---------------------------------------------------------------- the screen


def bar_parts(bar):
    inside, counts = re.fullmatch(r"Progress: \[(.*)\] *(\d+)/(\d+)", bar.plain).group(1, 2), \
        bar.plain.rsplit(" ", 1)[1]
    return inside[0], counts


@pytest.mark.parametrize(("width", "cells"), [(20, 10), (32, 10), (33, 11), (50, 28),
                                              (82, 60), (83, 60), (200, 60)])
def test_the_progress_bar_is_sized_to_the_terminal_within_bounds(width, cells):
    for done in (0, 3, 7):
        inside, counts = bar_parts(screen.progress_bar(done, 7, width))
        assert len(inside) == cells and counts == f"{done}/7"


@pytest.mark.parametrize(("done", "total", "hashes"), [(0, 5, 0), (1, 5, 4), (4, 5, 16),
                                                       (5, 5, 20), (2, 3, 13), (0, 0, 20)])
def test_the_bar_fills_in_proportion_with_the_arrow_only_while_unfinished(done, total, hashes):
    inside, _ = bar_parts(screen.progress_bar(done, total, 42))  # 20 cells
    assert inside.count("#") == hashes
    assert inside.count(">") == (0 if hashes == 20 else 1)
    assert inside == "#" * hashes + ">" * (hashes < 20) + "-" * (20 - hashes - 1 * (hashes < 20))


def result(status, message=""):
    return state.Result(status, "test_it" if status != "done" else "", message)


def test_the_focus_is_marked_unless_done_and_each_status_has_its_mark(kit):  # noqa: F811
    known = {"e01_first": result("done"), "e02_second": result("failing"),
             "e03_third": result("not attempted")}
    marks = [row.plain.split()[0] for row in screen.exercise_rows(kit, known, kit[1])]
    assert marks[1] == "▶" and marks[0] == screen.MARKS["done"][0]
    assert marks[2] == screen.MARKS["not attempted"][0]
    on_done = [row.plain.split()[0] for row in screen.exercise_rows(kit, known, kit[0])]
    assert on_done[0] == screen.MARKS["done"][0] and on_done[1] == screen.MARKS["failing"][0]
    known["e03_third"] = result("something new")
    assert screen._mark(kit[2], known["e03_third"], None)[0] == "·"


def test_with_why_each_failing_or_hung_exercise_gets_one_more_row(kit):  # noqa: F811
    known = {"e01_first": result("failing", "assert\n  1 == 2"),
             "e02_second": result("timeout", ""), "e03_third": result("edited")}
    assert len(screen.exercise_rows(kit, known, None)) == 3
    rows = screen.exercise_rows(kit, known, None, why=True)
    assert len(rows) == 5
    assert rows[1].plain.strip() == "assert 1 == 2" and "test_it" in rows[3].plain


def test_the_table_has_a_row_per_exercise_and_highlights_only_the_selected(kit):  # noqa: F811
    known = {e.name: result("not attempted") for e in kit}
    table = screen.exercise_table(kit, known, kit[0], selected=1)
    assert table.row_count == 3
    assert [row.style for row in table.rows] == [None, "reverse", None]


def test_a_hint_s_paragraphs_are_reflowed_and_blank_ones_dropped():
    paragraphs = screen.wrapped("one\n  two\n\n\n\nthree   four\n\n  \n")
    assert [p.plain for p in paragraphs] == ["one two", "three four"]


def test_the_overview_counts_only_the_done(kit):  # noqa: F811
    shown = console()
    known = {"e01_first": result("done"), "e02_second": result("failing"),
             "e03_third": result("done")}
    screen.show_overview(shown, kit, known, None, why=False)
    assert "2/3" in shown.file.getvalue()


def focus_text(e, status, in_watch=False, message=""):
    shown = console()
    screen.show_focus(shown, e, result(status, message), in_watch)
    return shown.file.getvalue()


def test_what_to_do_next_names_the_file_unless_it_is_done(kit):  # noqa: F811
    first = kit[0]
    for status in ("not attempted", "failing", "timeout"):
        assert first.where() in focus_text(first, status)
    assert first.where() not in focus_text(first, "done")


def test_in_watch_the_focus_leaves_out_what_its_keys_say(kit):  # noqa: F811
    first = kit[0]
    for status in ("not attempted", "failing", "edited"):
        alone, watching = focus_text(first, status), focus_text(first, status, in_watch=True)
        assert alone.startswith(watching) and len(alone) > len(watching)
    assert focus_text(first, "done") == focus_text(first, "done", in_watch=True)


def test_a_long_failure_shows_its_first_twelve_lines():
    twelve = "\n".join(f"line {n}" for n in range(12))
    assert screen._first_lines(twelve) == twelve
    thirteen = twelve + "\nline 12"
    shown = screen._first_lines(thirteen).splitlines()
    assert len(shown) == 13 and shown[:12] == twelve.splitlines() and "line 12" not in shown


# ---------------------------------------------------------------- tao watch


class Keys:
    """Stands in for watch's keyboard: the keys given, one per read, then none."""

    def __init__(self, *keys, fd=0):
        self.keys, self.fd = list(keys), fd

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def read(self, timeout):
        return self.keys.pop(0) if self.keys else ""


def watch(monkeypatch, *keys, exercise=None, cycles=None):
    monkeypatch.setattr(watching, "_Keys", lambda stream: Keys(*keys))
    shown = console()
    args = argparse.Namespace(exercise=exercise, interval=0, cycles=cycles or len(keys) + 1)
    return watching.cmd_watch(args, shown), shown.file.getvalue()


def test_watch_ends_on_q_and_otherwise_after_its_cycles(kit, outcomes, monkeypatch):  # noqa: F811
    assert watch(monkeypatch, "x", "q", "n", cycles=10)[0] == 0
    assert state.read_progress().get(state.CURRENT) is None  # the n after q was never read
    assert watch(monkeypatch, cycles=3)[0] == 0


def test_watch_n_moves_to_the_next_exercise_not_done_and_remembers_it(kit, outcomes,  # noqa: F811
                                                                      monkeypatch):
    watch(monkeypatch, "n")
    assert state.read_progress()[state.CURRENT] == "e02_second"
    watch(monkeypatch, "n", "n")
    assert state.read_progress()[state.CURRENT] == "e01_first"  # round past the end


def test_watch_rechecks_the_focus_only_when_its_file_changes(kit, outcomes, monkeypatch):  # noqa: F811
    _, ran = outcomes
    solve(kit[0])
    watch(monkeypatch, "", "", cycles=3)
    assert ran == [["e01_first"]]


def test_watch_n_checks_the_new_focus(kit, outcomes, monkeypatch):  # noqa: F811
    _, ran = outcomes
    for e in kit:
        solve(e)
    watch(monkeypatch, "n")
    assert ran == [["e01_first"], ["e02_second"]]


def test_watch_starts_on_the_exercise_asked_for(kit, outcomes, monkeypatch):  # noqa: F811
    watch(monkeypatch, exercise="3", cycles=1)
    assert state.read_progress()[state.CURRENT] == "e03_third"
    with pytest.raises(CLIError):
        watch(monkeypatch, exercise="7", cycles=1)


def test_the_list_picks_by_moving(kit, outcomes, monkeypatch):  # noqa: F811
    watch(monkeypatch, "l", "down", "down", "down", "up", "enter")
    assert state.read_progress()[state.CURRENT] == "e02_second"


def test_the_list_opens_on_the_focus_and_picks_by_number(kit, outcomes, monkeypatch):  # noqa: F811
    watch(monkeypatch, "l", "3", "enter")
    assert state.read_progress()[state.CURRENT] == "e03_third"
    watch(monkeypatch, "l", "k", "j", "enter")  # opened on 3, the focus now
    assert state.read_progress()[state.CURRENT] == "e03_third"


def test_the_list_closes_on_a_second_l_and_then_takes_no_picks(kit, outcomes, monkeypatch):  # noqa: F811
    watch(monkeypatch, "l", "l", "down", "enter")
    assert state.read_progress().get(state.CURRENT) is None


def test_a_number_out_of_range_picks_nothing_and_says_so(kit):  # noqa: F811
    screen_state = watching._Screen(view="list")
    for key in ("0",):
        watching._in_list(kit, screen_state, key)
    assert watching._in_list(kit, screen_state, "enter") is None and screen_state.notice
    assert screen_state.typed == ""
    for number in ("4", "12"):
        screen_state.notice = ""
        for digit in number:
            watching._in_list(kit, screen_state, digit)
        assert watching._in_list(kit, screen_state, "enter") is None and screen_state.notice
    for digit in "03":
        watching._in_list(kit, screen_state, digit)
    assert watching._in_list(kit, screen_state, "enter") is kit[2]


def test_the_list_selection_stays_within_the_list(kit):  # noqa: F811
    screen_state = watching._Screen(view="list", selected=0)
    watching._in_list(kit, screen_state, "up")
    assert screen_state.selected == 0
    for _ in range(5):
        watching._in_list(kit, screen_state, "down")
    assert screen_state.selected == 2
    assert watching._in_list(kit, screen_state, "x") is None and screen_state.selected == 2


def test_next_wraps_round_and_stays_when_every_other_is_done(kit):  # noqa: F811
    for e in kit:
        solve(e)
    state.save_results({"e01_first": result("done"), "e03_third": result("done")}, kit)
    assert watching._next(kit, kit[1]) is kit[1]  # the only one not done is the focus
    assert watching._next(kit, kit[0]) is kit[1]
    assert watching._next(kit, kit[2]) is kit[1]
    assert watching._next(kit, None) is kit[1]


def test_watch_resets_only_after_a_y(kit, monkeypatch):  # noqa: F811
    first = kit[0]
    assert watching._reset(console(), Keys(), None)  # nothing in focus: nothing to do
    assert watching._reset(console(), Keys(), first)  # already the stub: no question
    solve(first)
    watching._reset(console(), Keys("", "n"), first)
    assert first.path.read_bytes() != first.stub.read_bytes()
    watching._reset(console(), Keys(fd=None), first)  # no keyboard: no answer, no reset
    assert first.path.read_bytes() != first.stub.read_bytes()
    watching._reset(console(), Keys("", "", "y"), first)
    assert first.path.read_bytes() == first.stub.read_bytes()


def test_a_file_s_stamp_changes_with_its_size_or_time_and_is_none_when_gone(kit):  # noqa: F811
    first = kit[0]
    before = watching._stamp(first)
    solve(first)
    assert watching._stamp(first) != before and watching._stamp(None) is None
    first.path.unlink()
    assert watching._stamp(first) is None


def test_keys_from_a_pipe_name_the_arrows_and_enter(tmp_path):
    import os

    read_end, write_end = os.pipe()
    with open(read_end, "rb", buffering=0) as stream:
        keys = watching._Keys(stream)
        os.write(write_end, b"\x1b[A\x1bOB\rQ\nx")
        assert [keys.read(0.5) for _ in range(5)] == ["up", "down", "enter", "q", "enter"]
        assert keys.read(0.5) == "x"
        assert keys.read(0) == ""  # nothing more typed yet
        os.close(write_end)
        assert keys.read(0.5) == "" and keys.fd is None  # closed: no more keys
    assert watching._Keys(object()).fd is None
    assert watching._Keys(object()).read(0) == ""


def test_only_a_check_that_passes_is_announced_as_done(kit, outcomes):  # noqa: F811
    wanted, _ = outcomes
    solve(kit[0])
    wanted["e01_first"] = "failed"
    failing = console()
    assert verbs.cmd_check(argparse.Namespace(exercise="1", all=False), failing) == 1
    assert screen.MARKS["done"][0] not in failing.file.getvalue()
    wanted["e01_first"] = "passed"
    solve(kit[0], "def solved():\n    return 4\n")
    passing = console()
    assert verbs.cmd_check(argparse.Namespace(exercise="1", all=False), passing) == 0
    assert screen.MARKS["done"][0] in passing.file.getvalue().splitlines()[1]


def test_a_hint_s_paragraphs_are_separated_by_one_blank_line(kit):  # noqa: F811
    info = state.EXERCISES / "info.toml"
    info.write_text(info.read_text().replace("  hint 1\n", "  first part\n\n  second part\n"))
    shown = console()
    assert verbs.cmd_hint(argparse.Namespace(exercise="1"), shown) == 0
    assert shown.file.getvalue().splitlines()[1:] == ["first part", "", "second part"]


def test_the_list_counts_only_the_done_and_shows_every_file(kit):  # noqa: F811
    shown = console()
    known = {"e01_first": result("done"), "e02_second": result("edited"),
             "e03_third": result("done")}
    screen.show_list(shown, kit, known, None)
    out = shown.file.getvalue()
    assert "2/3" in out and all(e.path.name in out for e in kit)


def test_the_focus_outside_watch_is_the_default(kit):  # noqa: F811
    shown = console()
    screen.show_focus(shown, kit[0], result("failing", "boom"))
    assert shown.file.getvalue() == focus_text(kit[0], "failing", message="boom")


def test_the_table_keeps_one_line_per_exercise_from_the_edge(kit):  # noqa: F811
    known = {e.name: result("not attempted") for e in kit}
    shown = console()  # 80 columns
    shown.print(screen.exercise_table(kit, known, None))
    lines = shown.file.getvalue().splitlines()
    assert len(lines) == 4 and all(len(line) <= 80 for line in lines)
    mark = screen.MARKS["not attempted"][0]
    assert all(line.startswith(mark) for line in lines[1:])  # no padding before the marks
    assert [line.split()[1] for line in lines[1:]] == ["1", "2", "3"]


def test_watch_reads_one_key_a_cycle_and_none_when_given_no_cycles(kit, outcomes,  # noqa: F811
                                                                   monkeypatch):
    reads = []

    class Counted(Keys):
        def read(self, timeout):
            reads.append(timeout)
            return ""
    monkeypatch.setattr(watching, "_Keys", lambda stream: Counted())
    for cycles, expected in ((3, 3), (1, 1), (0, 0), (-1, 0)):
        reads.clear()
        args = argparse.Namespace(exercise=None, interval=0, cycles=cycles)
        assert watching.cmd_watch(args, console()) == 0 and len(reads) == expected


def test_next_starts_after_the_focus_or_at_the_first_without_one(kit):  # noqa: F811
    assert watching._next(kit, kit[0]) is kit[1] and watching._next(kit, kit[1]) is kit[2]
    assert watching._next(kit, kit[2]) is kit[0] and watching._next(kit, None) is kit[0]


def test_the_first_exercise_can_be_picked_by_its_number(kit):  # noqa: F811
    screen_state = watching._Screen(view="list", selected=2)
    watching._in_list(kit, screen_state, "1")
    assert watching._in_list(kit, screen_state, "enter") is kit[0] and not screen_state.notice


def test_watch_takes_single_keys_on_a_terminal_and_gives_it_back_as_it_was():
    import os
    import pty
    import termios

    leader, follower = pty.openpty()
    try:
        with open(follower, "rb", buffering=0, closefd=False) as stream:
            before = termios.tcgetattr(follower)[3]
            assert before & termios.ICANON  # a terminal starts line by line
            with watching._Keys(stream):
                assert not termios.tcgetattr(follower)[3] & termios.ICANON  # key by key
            assert termios.tcgetattr(follower)[3] == before
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize("width", [60, 72])
def test_on_a_narrow_terminal_only_the_title_is_cut(width):
    """The kit's own twenty exercises at 60 columns: every row keeps its number, its file
    and its stage (what a learner types and opens), and stays one line; the title gives."""
    from tao import exercise_state

    real = exercise_state.load()
    known = {e.name: result("not attempted") for e in real}
    shown = Console(file=io.StringIO(), width=width, highlight=False)
    shown.print(screen.exercise_table(real, known, None))
    rows = shown.file.getvalue().splitlines()[1:]
    assert len(rows) == len(real), "one line per exercise"
    for e, row in zip(real, rows, strict=True):
        cells = row.split()
        assert cells[1:4] == [str(e.number), e.path.name, e.stage], (
            f"at {width} columns the row of exercise {e.number} lost a column: {row!r}")
        assert len(row) <= width


def test_watch_offers_the_next_exercise_only_while_one_is_left(kit, monkeypatch):  # noqa: F811
    from tao.i18n import text

    def drawn(focus, *done):
        monkeypatch.setattr(watching, "statuses", lambda exercises: {
            e.name: result("done" if e in done else "failing") for e in exercises})
        shown = console()
        watching._draw(shown, kit, focus, watching._Screen())
        return text("watch.next") in shown.file.getvalue()

    assert drawn(kit[0], kit[0]), "the one in focus is done, others are not: say n moves on"
    assert not drawn(kit[0], *kit), "every exercise done: there is no next one to offer"
    assert not drawn(kit[1], kit[0]), "the one in focus is not done yet"
    assert not drawn(None, kit[0])


@pytest.mark.parametrize("key", ["n", "z", "Y", "enter"])
def test_watch_resets_only_on_a_y_whatever_other_key_comes(kit, key):  # noqa: F811
    solve(kit[0])
    watching._reset(console(), Keys(key), kit[0])
    assert kit[0].path.read_bytes() != kit[0].stub.read_bytes(), f"{key!r} reset the work"


@pytest.mark.parametrize(("lines", "cut"), [(1, False), (11, False), (12, False), (13, True)])
def test_a_failure_is_shown_whole_up_to_twelve_lines_then_cut_with_an_ellipsis(lines, cut):
    message = "\n".join(f"line {n}" for n in range(1, lines + 1))
    shown = screen._first_lines(message).splitlines()
    assert shown[:12] == message.splitlines()[:12]
    assert (shown[-1] == "…") is cut and len(shown) == min(lines, 12) + cut
