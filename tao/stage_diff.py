"""`tao diff`: what one stage changed, code first.

A stage teaches through its code, so the code files come first and the READMEs, whose
prose would otherwise fill the first screen, only with `--docs`. A header lists every
changed file with its +/- counts (`--stat` stops there); `--side` puts old and new side
by side when the terminal is wide enough for two readable columns.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from shared.printable import visible

from .i18n import text
from .port_contract import CONTRACT
from .repo import CLIError, find_stage, stages

CONTEXT = 3  # unchanged lines shown around each change, as `diff -u`
SIDE_MIN_WIDTH = 120  # below this, two columns of code are too narrow to read
SAMPLE = "sample/"  # what a stage's agent works on: material, not the step's code


@dataclass
class FileDiff:
    """One file's change between two stage folders."""

    name: str
    old: list[str]
    new: list[str]
    text: bool = True  # False: a side is not text (a swap file, .DS_Store): not diffed

    @property
    def is_doc(self) -> bool:
        """Not the lesson's code: prose, the stage's contract for ports (`contract.toml`,
        what `tao port-test` reads), or the sample project a capstone stage's agent works
        on (`sample/`); shown after the code, and only with --docs."""
        return (self.name.endswith(".md") or self.name == CONTRACT
                or self.name.startswith(SAMPLE))

    def counts(self) -> tuple[int, int]:
        """(lines added, lines removed), blank lines not counted: the kit's one measure of
        a step. Their sum over the code files is the N of a stage README's "Larger step
        (N changed lines)", which tests/test_repo_shape.py holds to this."""
        added = removed = 0
        matcher = difflib.SequenceMatcher(None, self.old, self.new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                removed += sum(1 for line in self.old[i1:i2] if line.strip())
                added += sum(1 for line in self.new[j1:j2] if line.strip())
        return added, removed


def stage_pair(a: str, b: str | None) -> tuple[Path, Path]:
    """The (old, new) folders: `a b`, or `a` alone meaning the stage before `a`, then `a`."""
    new = find_stage(b or a)
    if b:
        return find_stage(a), new
    numbers = list(stages())
    index = numbers.index(new.name[:2])
    if index == 0:
        raise CLIError(text("error.first_stage", number=new.name[:2]))
    return stages()[numbers[index - 1]], new


def changed_files(old: Path, new: Path) -> list[FileDiff]:
    """The files that differ, code files first (by name), then the READMEs; a file that
    is not text on either side is listed, not diffed."""
    diffs = []
    for name in _files(old) | _files(new):
        before, after = text_of(old / name), text_of(new / name)
        if before is None or after is None:
            if _bytes(old / name) != _bytes(new / name):
                diffs.append(FileDiff(name, [], [], text=False))
        elif before != after:
            diffs.append(FileDiff(name, before.splitlines(keepends=True),
                                  after.splitlines(keepends=True)))
    return sorted(diffs, key=lambda d: (d.is_doc, d.name))


def text_of(path: Path) -> str | None:
    """The file at `path` as text ("" if it is missing); None if it is not text (a NUL
    byte, or not UTF-8): an editor's swap file, a picture."""
    data = _bytes(path)
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def cmd_diff(args, console: Console) -> int:
    """Print the header, then the code diffs, then (with --docs) the README diffs."""
    old, new = stage_pair(args.a, args.b)
    diffs = changed_files(old, new)
    if not diffs:
        console.print(Text(text("diff.identical", old=old.name, new=new.name), "dim"))
        return 0
    print_header(console, old, new, diffs, docs=args.docs)
    if args.stat:
        return 0
    side = args.side and console.width >= SIDE_MIN_WIDTH
    if args.side and not side:
        console.print(Text(text("diff.too_narrow", need=SIDE_MIN_WIDTH, width=console.width),
                           "dim"))
    for diff in diffs:
        if (diff.is_doc and not args.docs) or not diff.text:
            continue
        console.print()
        if side:
            print_side_by_side(console, old, new, diff)
        else:
            print_unified(console, old, new, diff)
    return 0


def print_header(console: Console, old: Path, new: Path, diffs: list[FileDiff],
                 docs: bool) -> None:
    """One line per changed file with its +/- counts, and the totals."""
    console.print(Text(f"{old.name} -> {new.name}", "bold"))
    width = max(len(d.name) for d in diffs)
    total_added = total_removed = 0
    for diff in diffs:
        added, removed = diff.counts()
        if not diff.is_doc:
            total_added, total_removed = total_added + added, total_removed + removed
        line = Text(f"  {visible(diff.name):<{width}}  ")
        if not diff.text:  # named, with why it is not shown
            console.print(line + Text(text("diff.not_text"), "dim"))
            continue
        line += Text(f"+{added:<4}", "green") + Text(f" -{removed:<4}", "red")
        if diff.is_doc and not docs:
            line += Text("  " + text("diff.prose"), "dim")
        console.print(line)
    console.print(Text("  " + text("diff.code_lines", total=total_added + total_removed,
                                   added=total_added, removed=total_removed), "bold"))


def _style(line: str) -> str:
    if line.startswith(("---", "+++")):
        return "bold"
    return {"+": "green", "-": "red", "@": "cyan"}.get(line[:1], "")


def print_unified(console: Console, old: Path, new: Path, diff: FileDiff) -> None:
    """A coloured unified diff of one file, three lines of context."""
    lines = difflib.unified_diff(diff.old, diff.new, f"{old.name}/{diff.name}",
                                 f"{new.name}/{diff.name}", n=CONTEXT)
    for line in lines:
        console.print(Text(line.rstrip("\n"), _style(line)), soft_wrap=True)


def print_side_by_side(console: Console, old: Path, new: Path, diff: FileDiff) -> None:
    """Old on the left, new on the right, changed rows coloured; long lines are cut."""
    column = (console.width - 3) // 2
    console.print(Text(f"{old.name}/{diff.name}".ljust(column) + " │ "
                       + f"{new.name}/{diff.name}", "bold"))
    matcher = difflib.SequenceMatcher(None, diff.old, diff.new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        console.print(Text(f"@@ {group[0][1] + 1} │ {group[0][3] + 1}", "cyan"))
        for tag, i1, i2, j1, j2 in group:
            left, right = diff.old[i1:i2], diff.new[j1:j2]
            for row in range(max(len(left), len(right))):
                a = left[row].rstrip("\n") if row < len(left) else ""
                b = right[row].rstrip("\n") if row < len(right) else ""
                console.print(_cell(a, row < len(left), column, tag, "-")
                              + Text(" │ ", "dim")
                              + _cell(b, row < len(right), column, tag, "+"),
                              no_wrap=True, crop=True)


def _cell(line: str, present: bool, width: int, tag: str, sign: str) -> Text:
    """One side of a side-by-side row: a +/- mark on changed lines (readable without
    colour), then the line, padded or cut (with …) to `width`."""
    mark = sign if present and tag != "equal" else " "
    shown = mark + " " + line.expandtabs(4)
    if len(shown) > width:
        shown = shown[:width - 1] + "…"
    style = "" if mark == " " else ("red" if sign == "-" else "green")
    return Text(shown.ljust(width), style)


def _files(folder: Path) -> set[str]:
    """The stage's files: its code and its README; not the pages its README links for the
    details (stage 07's SERVERS.md), which no later stage copies."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
            and (p.suffix != ".md" or p.name.startswith("README"))}


def _bytes(path: Path) -> bytes:
    return path.read_bytes() if path.exists() else b""
