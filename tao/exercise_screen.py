"""What the exercise verbs show: the progress bar, one row per exercise (or a table with
the file names, for `tao list` and watch's list), the hint text, and what to do next
about the exercise in focus. Shared by `check`, `list` and `watch`. Their words come from
tao/i18n.py, in the language tao speaks; a status is kept in English (in
.tao-progress.json) and only shown translated."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from shared.printable import visible

from .exercise_state import Exercise, Result
from .i18n import MESSAGES, text

MARKS = {"done": ("✓", "green"), "failing": ("✗", "red"), "timeout": ("✗", "red"),
         "not attempted": ("·", "dim"), "edited": ("?", "yellow"), "missing": ("!", "red")}
FAILED = ("failing", "timeout")


def progress_bar(done: int, total: int, width: int) -> Text:
    """`Progress: [#####>------]  5/14` sized to the terminal."""
    cells = max(10, min(60, width - 22))
    filled = cells * done // total if total else cells
    bar = Text(text("progress"))
    bar.append("#" * filled, "green")
    bar.append(">" if filled < cells else "", "green")
    bar.append("-" * max(cells - filled - 1, 0), "red")
    bar.append(f"] {done:>2}/{total}")
    return bar


def _mark(e: Exercise, result: Result, focus) -> tuple[str, str]:
    """The mark and style of one exercise: ▶ for the one in focus, else its status's."""
    if e is focus and result.status != "done":
        return "▶", "bold yellow"
    return MARKS.get(result.status, ("·", "dim"))


def exercise_rows(exercises, known, focus, why: bool = False) -> list[Text]:
    """One line per exercise: mark, number, title, stage, status; with `why`, each
    failing one's first line of failure under it."""
    rows = []
    for e in exercises:
        result = known[e.name]
        mark, style = _mark(e, result, focus)
        rows.append(Text(f" {mark} {e.number:2} ", style) + Text(e.title, style)
                    + Text(text("row.stage", stage=e.stage, status=shown(result.status)),
                           "dim"))
        if why and result.status in FAILED:  # one screen line, cut with … at the edge
            rows.append(Text(f"      {first_failure(result)}", "red", no_wrap=True,
                             overflow="ellipsis"))
    return rows


def shown(status: str) -> str:
    """A status as the learner reads it, in the language tao speaks."""
    return text(f"status.{status}") if f"status.{status}" in MESSAGES else status


def first_failure(result: Result) -> str:
    """What the failing test said, its lines joined into one (shown as it is: it comes from
    the learner's code, or a progress file)."""
    return visible(" ".join(result.message.split()) or f"{result.test} failed")


def exercise_table(exercises, known, focus, selected: int | None = None) -> Table:
    """The exercises with their files, for `tao list` and watch's list; row `selected`
    (an index) is highlighted."""
    table = Table(box=None, pad_edge=False, header_style="bold")
    longest = max((len(e.path.name) for e in exercises), default=4)
    file, stage, status, build = text("table.columns").split("|")
    table.add_column("  #", no_wrap=True, min_width=4)
    table.add_column(file, no_wrap=True, min_width=longest)
    table.add_column(stage, no_wrap=True, min_width=5)
    table.add_column(status, no_wrap=True, min_width=max(len(shown(s)) for s in MARKS))
    # the one column rich may narrow: with every column no_wrap, a narrow terminal made it
    # narrow them all evenly, and the number and stage columns vanished first; each title
    # stays one line, cut with an ellipsis
    table.add_column(Text(build, no_wrap=True, overflow="ellipsis"), ratio=1)
    for i, e in enumerate(exercises):
        result = known[e.name]
        mark, style = _mark(e, result, focus)
        table.add_row(Text(f"{mark} {e.number:2}", style), e.path.name, e.stage,
                      Text(shown(result.status), MARKS.get(result.status, ("", ""))[1]),
                      Text(e.title, no_wrap=True, overflow="ellipsis"),
                      style="reverse" if i == selected else None)
    return table


def wrapped(paragraphs: str) -> list[Text]:
    """Hint-style text reflowed: blank lines separate paragraphs, rich wraps the rest."""
    return [Text(" ".join(p.split())) for p in paragraphs.split("\n\n") if p.strip()]


def show_overview(console, exercises, known, focus, why: bool) -> None:
    """The progress bar, then the list (with `why`, each failure's first line too)."""
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    for row in exercise_rows(exercises, known, focus, why):
        console.print(row, no_wrap=row.no_wrap, overflow=row.overflow)


def show_list(console, exercises, known, focus) -> None:
    """The progress bar, then the exercises with their files."""
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    console.print(exercise_table(exercises, known, focus))


def show_focus(console, e: Exercise | None, result: Result | None,
               in_watch: bool = False) -> None:
    """What to do next about the exercise in focus (in watch, its keys say the rest)."""
    console.print()
    if e is None:
        console.print(Text(text("focus.all_done"), "bold green"))
        return
    head = text("focus.head", number=e.number, title=e.title, stage=e.stage)
    if result.status == "done":
        console.print(Text(text("focus.done", head=head), "bold green"))
    elif result.status == "not attempted":
        console.print(Text(text("focus.next", head=head, file=e.where()), "bold"))
        if e.task:  # in French: what the English docstring asks
            console.print(Text(text("focus.task", task=" ".join(e.task.split()))))
    elif result.status == "edited":
        console.print(Text(text("focus.edited", head=head)))
    else:
        test = text("focus.says", test=visible(result.test)) if result.test else ""
        console.print(Text(text("focus.failing", head=head, test=test), "bold"))
        console.print(Text(_first_lines(result.message), "red"))
        console.print(Text(text("focus.edit", file=e.where())))
    if result.status != "done" and not in_watch:
        console.print(Text(text("focus.stuck"), "dim"))


def _first_lines(message: str, limit: int = 12) -> str:
    lines = visible(message).splitlines()
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))
