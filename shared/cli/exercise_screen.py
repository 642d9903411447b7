"""What the exercise verbs show: the progress bar, one row per exercise, the hint text,
and what to do next about the exercise in focus. Shared by `check`, `list` and `watch`."""

from __future__ import annotations

from rich.text import Text

from .exercise_state import Exercise, Result

MARKS = {"done": ("✓", "green"), "failing": ("✗", "red"), "timeout": ("✗", "red"),
         "not attempted": ("·", "dim"), "edited": ("?", "yellow"), "missing": ("!", "red")}

def progress_bar(done: int, total: int, width: int) -> Text:
    """`Progress: [#####>------]  5/14` sized to the terminal."""
    cells = max(10, min(60, width - 22))
    filled = cells * done // total if total else cells
    bar = Text("Progress: [")
    bar.append("#" * filled, "green")
    bar.append(">" if filled < cells else "", "green")
    bar.append("-" * max(cells - filled - 1, 0), "red")
    bar.append(f"] {done:>2}/{total}")
    return bar


def exercise_rows(exercises, known, focus) -> list[Text]:
    """One line per exercise: mark, number, title, stage, status."""
    rows = []
    for e in exercises:
        result = known[e.name]
        mark, style = MARKS.get(result.status, ("·", "dim"))
        if e is focus and result.status != "done":
            mark, style = "▶", "bold yellow"
        rows.append(Text(f" {mark} {e.number:2} ", style) + Text(e.title, style)
                    + Text(f"  stage {e.stage} · {result.status}", "dim"))
    return rows


def wrapped(paragraphs: str) -> list[Text]:
    """Hint-style text reflowed: blank lines separate paragraphs, rich wraps the rest."""
    return [Text(" ".join(p.split())) for p in paragraphs.split("\n\n") if p.strip()]


def show_overview(console, exercises, known, focus) -> None:
    """The progress bar, then the list."""
    done = sum(r.status == "done" for r in known.values())
    console.print(progress_bar(done, len(exercises), console.width))
    for row in exercise_rows(exercises, known, focus):
        console.print(row)


def show_focus(console, e: Exercise | None, result: Result | None) -> None:
    """What to do next about the exercise in focus."""
    console.print()
    if e is None:
        console.print(Text("All exercises done! `tao solution N` shows the reference "
                           "answers to compare with yours.", "bold green"))
        return
    head = f"Exercise {e.number} ({e.title}, stage {e.stage})"
    if result.status == "done":
        console.print(Text(f"{head} is done.", "bold green"))
    elif result.status == "not attempted":
        console.print(Text(f"Next: {head}. Open {e.where()}, read its docstring, and "
                           "replace the NotImplementedError.", "bold"))
    elif result.status == "edited":
        console.print(Text(f"{head} changed since its last check: `tao check` runs it."))
    else:
        test = f" `{result.test}` says:" if result.test else ""
        console.print(Text(f"{head} is not passing yet.{test}", "bold"))
        console.print(Text(_first_lines(result.message), "red"))
        console.print(Text(f"Edit {e.where()}."))
    if result.status != "done":
        console.print(Text("Stuck? `tao hint`. Re-check with `tao check`, or let "
                           "`tao watch` re-check on every save.", "dim"))


def _first_lines(message: str, limit: int = 12) -> str:
    lines = message.splitlines()
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))
