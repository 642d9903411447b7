"""The `tao` command: a thin front door to the stages, the diffs and the exercises.

    tao list | run NN [-- args] | tour | diff A [B] | doctor
    tao check | hint N | watch | reset N | solution N
"""

from __future__ import annotations

import argparse
import ast
import difflib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from . import exercises
from .stages import stage_dirs
from .trace import make_console

ROOT = Path(__file__).resolve().parent.parent
STAGES = ROOT / "stages"

# What `tao tour` types into each stage (arguments, then lines on stdin).
DEMOS = {
    "01": (["What is an agent loop?"], ""),
    "02": ([], "Hello! I'm learning how agents work.\nWhat did I just tell you?\n"),
    "03": ([], "Who are you?\n"),
    "04": ([], "What time is it?\n"),
    "05": ([], "What time is it?\nHow many words are in 'the quick brown fox'?\n"),
    "06": ([], "How many words are in 'to be or not to be'?\nWhat is 12 * (3 + 4)?\n"),
    "07": ([], "What time is it, and how many words are in "
               "'the quick brown fox jumps over the lazy dog'?\n"),
}


class CLIError(Exception):
    """A mistake in how `tao` was called: one line, exit 2."""


def stages() -> dict[str, Path]:
    """Stage number -> folder, in order."""
    return {p.name[:2]: p for p in stage_dirs(STAGES)}



def find_stage(ref: str) -> Path:
    """A stage folder from `4`, `04` or `04_json_tool_call`."""
    known = stages()
    key = ref.split("_")[0].zfill(2) if ref.split("_")[0].isdigit() else ref
    if key not in known:
        raise CLIError(f"no stage {ref!r}: the stages are {', '.join(known) or 'none yet'}"
                       " (see `tao list`)")
    return known[key]


def stage_summary(folder: Path) -> tuple[str, str]:
    """(title, one line on what it teaches) from the first lines of the stage's docstring."""
    doc = ast.get_docstring(ast.parse((folder / "main.py").read_text(encoding="utf-8"))) or ""
    lines = [line.strip() for line in doc.splitlines()]
    title = lines[0].split(":", 1)[-1].strip().rstrip(".") if lines else folder.name
    body = " ".join(lines[2:]).split(". ")[0].strip() if len(lines) > 2 else ""
    return title, body.rstrip(".") + "." if body else ""


# ---------------------------------------------------------------- verbs


def cmd_list(args, console) -> int:
    table = Table(title="tao stages", title_justify="left")
    table.add_column("#", style="bold")
    table.add_column("stage")
    table.add_column("what it teaches")
    for number, folder in stages().items():
        title, teaches = stage_summary(folder)
        table.add_row(number, Text(title), Text(teaches))
    console.print(table)
    console.print(Text("run one: tao run NN · see what changed: tao diff NN", "dim"))
    console.print(Text(f"{len(exercises.load())} exercises: `tao check` shows your progress",
                       "dim"))
    return 0


def stage_command(folder: Path, extra: list[str]) -> list[str]:
    return [sys.executable, str(folder / "main.py"), *extra]


def cmd_run(args, console) -> int:
    folder = find_stage(args.stage)
    extra = [a for a in args.args if a != "--"]
    # Ctrl-C belongs to the stage (it cancels a reply there): tao itself lets it pass.
    # A Python-level handler, unlike SIG_IGN, is not inherited by the stage's process.
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        return subprocess.call(stage_command(folder, extra), cwd=ROOT)
    finally:
        signal.signal(signal.SIGINT, previous)


def cmd_tour(args, console) -> int:
    provider = args.provider or "offline"
    results = []
    for number, folder in stages().items():
        title, teaches = stage_summary(folder)
        console.rule(Text(f"stage {number}: {title}", "bold"))
        if teaches:
            console.print(Text(teaches, "dim"))
        demo_args, demo_input = DEMOS.get(number, ([], ""))
        done = subprocess.run(stage_command(folder, ["--provider", provider, *demo_args]),
                              input=demo_input, text=True, cwd=ROOT)
        results.append((number, title, done.returncode))
    console.rule()
    failed = [(n, t, rc) for n, t, rc in results if rc]
    for number, title, code in failed:
        console.print(Text(f"stage {number} ({title}) exited with {code}", "bold red"))
    console.print(Text(f"tour done: {len(results) - len(failed)} of {len(results)} stages ran "
                       f"cleanly. Next: open stages/01_single_call/main.py, "
                       "or see what a stage changed with `tao diff 02`.", "bold"))
    return 1 if failed else 0


def cmd_diff(args, console) -> int:
    new = find_stage(args.b or args.a)
    if args.b:
        old = find_stage(args.a)
    else:
        numbers = list(stages())
        index = numbers.index(new.name[:2])
        if index == 0:
            raise CLIError(f"stage {new.name[:2]} is the first: nothing comes before it")
        old = stages()[numbers[index - 1]]
    changed = 0
    for name in sorted(_files(old) | _files(new)):
        a, b = _read(old / name), _read(new / name)
        lines = list(difflib.unified_diff(a, b, f"{old.name}/{name}", f"{new.name}/{name}"))
        for line in lines:
            style = ("bold" if line.startswith(("---", "+++")) else
                     "green" if line.startswith("+") else
                     "red" if line.startswith("-") else
                     "cyan" if line.startswith("@@") else "")
            console.print(Text(line.rstrip("\n"), style), soft_wrap=True)
        changed += bool(lines)
    if not changed:
        console.print(Text(f"{old.name} and {new.name} are identical", "dim"))
    return 0


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


def _read(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []


def cmd_doctor(args, console) -> int:
    from .providers import KEY_VARS, ProviderError, build_provider, choose_provider

    problems = 0

    def line(ok: bool, text: str, fix: str = "") -> None:
        nonlocal problems
        problems += not ok
        mark = Text("ok   ", "green") if ok else Text("fix  ", "bold red")
        console.print(mark + Text(text) + (Text(f" → {fix}", "yellow") if fix else Text()))

    name, why = choose_provider(args.provider)
    line(True, f"provider: {name} ({why})")
    for provider_name, var in KEY_VARS.items():
        present = bool(os.environ.get(var))
        needed = name == provider_name and not (
            provider_name == "openai" and os.environ.get("OPENAI_BASE_URL"))
        line(present or not needed, f"{var}: {'set (value hidden)' if present else 'not set'}",
             "" if present or not needed else f"export {var}=<your key>")
    try:
        quick = {} if name == "offline" else {"max_retries": 0}  # a check, not a conversation
        provider = build_provider(name, args.model or os.environ.get("TAO_MODEL") or None,
                                  **quick)
    except ProviderError as exc:
        line(False, str(exc))
        return 1
    if name == "offline":
        line(True, f"model: {provider.describe()}: built in, needs no server or key")
        return 1 if problems else 0
    where = getattr(provider, "base_url", None) or f"the {name} API"
    try:
        exists = provider.model_available()
    except ProviderError as exc:
        line(False, f"server: {where} did not answer as expected", str(exc))
        return 1
    line(True, f"server: {where} answers")
    fix = (f"ollama pull {provider.model}" if name == "ollama"
           else "set TAO_MODEL (or --model) to a model your account has")
    line(exists, f"model: {provider.model} {'exists' if exists else 'was not found'}",
         "" if exists else fix)
    return 1 if problems else 0


# ---------------------------------------------------------------- exercises

MARKS = {"done": ("✓", "green"), "current": ("▶", "bold yellow"), "pending": ("·", "dim")}


def _exercise(ref: str) -> exercises.Exercise:
    try:
        return exercises.find(ref)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def cmd_check(args, console) -> int:
    todo = exercises.load()
    with console.status(f"running the tests of {len(todo)} exercises…"):
        results = exercises.check(todo)
    current = next((e for e in todo if results[e.name].status != "done"), None)
    if current is not None and results[current.name].status == "not run":
        raise CLIError("the exercise tests stopped before they reached an exercise: run "
                       "`uv run pytest tests/exercises` to see why")
    for e in todo:
        state = ("done" if results[e.name].status == "done" else
                 "current" if e is current else "pending")
        mark, style = MARKS[state]
        console.print(Text(f" {mark} {e.number:2} ", style) + Text(e.title, style))
    done = sum(r.status == "done" for r in results.values())
    console.print(Text(f"{done} of {len(todo)} done", "bold"))
    if current is None:
        console.print(Text("All exercises done. `tao solution N` shows the reference "
                           "answers to compare with yours.", "bold green"))
        return 0
    result = results[current.name]
    where = current.path.relative_to(exercises.ROOT)
    console.print()
    if result.status == "not attempted":
        console.print(Text(f"Next: exercise {current.number}, {current.title}. Open {where}"
                           ", read its docstring, and replace the NotImplementedError."))
    else:
        console.print(Text(f"Exercise {current.number} ({current.title}) is not passing yet. "
                           f"`{result.test}` says:", "bold"))
        console.print(Text(_first_lines(result.message), "red"))
        console.print(Text(f"Edit {where}."))
    console.print(Text(f"Stuck? `tao hint {current.number}`. Re-check with `tao check`, "
                       "or let `tao watch` re-check on every save.", "dim"))
    return 1


def _first_lines(message: str, limit: int = 8) -> str:
    lines = message.splitlines()
    return "\n".join(lines[:limit] + (["…"] if len(lines) > limit else []))


def cmd_hint(args, console) -> int:
    e = _exercise(args.exercise)
    console.print(Text(f"Hint for exercise {e.number}: {e.title} (stage {e.stage})", "bold"))
    console.print(Text(e.hint))
    return 0


def cmd_watch(args, console) -> int:
    def stamp():
        return {p: p.stat().st_mtime_ns for p in exercises.EXERCISES.glob("e*.py")}

    seen, cycles = None, 0
    console.print(Text("watching exercises/ (Ctrl-C to stop)", "dim"))
    while args.cycles is None or cycles < args.cycles:
        now = stamp()
        if now != seen:
            seen = now
            code = cmd_check(args, console)
            if code == 0:
                return 0
            console.print(Text("waiting for you to save a file…", "dim"))
        cycles += 1
        time.sleep(args.interval)
    return 1


def cmd_reset(args, console) -> int:
    e = _exercise(args.exercise)
    stub = _original_stub(e)
    where = e.path.relative_to(exercises.ROOT)
    if e.path.exists() and e.path.read_text(encoding="utf-8") == stub:
        console.print(Text(f"{where} is already the original stub"))
        return 0
    if not args.yes:
        if not sys.stdin.isatty():
            raise CLIError(f"resetting {where} throws your work away: add --yes to confirm")
        answer = console.input(f"Restore {where} to its stub? Your changes will be lost "
                               "[y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            console.print(Text("left as it is"))
            return 1
    e.path.write_text(stub, encoding="utf-8")
    console.print(Text(f"{where} is the stub again"))
    return 0


def _original_stub(e: exercises.Exercise) -> str:
    """The newest committed version of the file that is still a stub."""
    rel = str(e.path.relative_to(exercises.ROOT))

    def git(*argv):
        return subprocess.run(["git", *argv], cwd=exercises.ROOT, capture_output=True,
                              text=True)

    history = git("log", "--format=%H", "--", rel)
    for commit in history.stdout.split():
        text = git("show", f"{commit}:{rel}").stdout
        if "raise NotImplementedError" in text:
            return text
    raise CLIError(f"cannot find the original of {rel} in git history: restore it from "
                   "the repository you cloned")


def cmd_solution(args, console) -> int:
    e = _exercise(args.exercise)
    with console.status(f"checking exercise {e.number} first…"):
        result = exercises.check([e])[e.name]
    if result.status != "done":
        raise CLIError(f"exercise {e.number} does not pass yet: try it first (`tao check`,"
                       f" `tao hint {e.number}`); the solution opens once it passes")
    console.print(Text(f"Reference solution for exercise {e.number}, {e.title} "
                       f"(exercises/solutions/{e.name}.py):", "bold"))
    console.print(Syntax(e.solution.read_text(encoding="utf-8"), "python"))
    return 0


# ---------------------------------------------------------------- entry point


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tao", description="Think · Act · Observe: learn the agent loop stage by stage.",
        epilog="Start with `tao tour`, then open stages/01_single_call/main.py.")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    verbs.add_parser("list", help="the stages and what each teaches",
                     description="List the stages: number, title, what each teaches.")
    run = verbs.add_parser("run", help="run one stage", description=(
        "Run one stage, interactively. Arguments after `--` go to the stage, e.g. "
        "`tao run 01 -- --provider ollama \"hi\"`."))
    run.add_argument("stage", help="stage number, e.g. 05")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the stage")
    tour = verbs.add_parser("tour", help="every stage in order, with a demo input",
                            description="Run every stage in order, non-interactively, each "
                                        "with a demo input. Offline unless you pick a provider.")
    tour.add_argument("--provider", help="which model answers (default: offline)")
    diff = verbs.add_parser("diff", help="what changed between two stages",
                            description="Show a coloured unified diff of two stage folders. "
                                        "`tao diff 05` means 04 -> 05.")
    diff.add_argument("a", help="a stage number (alone: compare with the stage before it)")
    diff.add_argument("b", nargs="?", help="a later stage number")
    doctor = verbs.add_parser("doctor", help="which model would answer, and what to fix",
                              description="Check which provider would be used and why, its "
                                          "key, its server and its model; one line each.")
    doctor.add_argument("--provider", help="check this provider instead of the default")
    doctor.add_argument("--model", help="check this model name")
    verbs.add_parser("check", help="run the exercises in order, show progress",
                     description="Run the exercise tests in order: done, current, pending. "
                                 "For the first unsolved one, show what its test says.")
    hint = verbs.add_parser("hint", help="a hint for one exercise",
                            description="Show the hint for one exercise.")
    hint.add_argument("exercise", help="exercise number, e.g. 3")
    watch = verbs.add_parser("watch", help="re-check whenever an exercise file is saved",
                             description="Run `tao check` now and again after every save "
                                         "in exercises/; stops when all pass or on Ctrl-C.")
    watch.add_argument("--interval", type=float, default=1.0,
                       help="seconds between looks at the files (default 1)")
    watch.add_argument("--cycles", type=int, default=None, help=argparse.SUPPRESS)
    reset = verbs.add_parser("reset", help="restore an exercise's stub",
                             description="Restore exercises/eNN_*.py to its original stub "
                                         "(asks first; your changes are lost).")
    reset.add_argument("exercise", help="exercise number, e.g. 3")
    reset.add_argument("--yes", action="store_true", help="do not ask")
    solution = verbs.add_parser("solution", help="the reference solution, once yours passes",
                                description="Show the reference solution of an exercise. "
                                            "Only once your own passes its tests.")
    solution.add_argument("exercise", help="exercise number, e.g. 3")
    return parser


COMMANDS = {"list": cmd_list, "run": cmd_run, "tour": cmd_tour, "diff": cmd_diff,
            "doctor": cmd_doctor, "check": cmd_check, "hint": cmd_hint, "watch": cmd_watch,
            "reset": cmd_reset, "solution": cmd_solution}


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    console = make_console()
    if not args.verb:
        parser.print_help()
        return 0
    try:
        return COMMANDS[args.verb](args, console)
    except CLIError as exc:
        print(f"tao {args.verb}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
