"""The `tao` command: a thin front door to the stages, the diffs and the exercises.

    tao list | run NN [-- args] | tour | diff A [B] | doctor
    tao check [N | --all] | hint [N] | watch [N] | reset [N] | solution N
    tao compare [--provider P] [--protocols text,examples,native,constrained] [--tasks FILE]
                [--runs N]
    tao replay FILE [--stage N] | book [--out DIR] [--open]
    tao audit FILE [--verify] | drill [--provider P] [--mode M] [--json] [--record DIR]
    tao debug N [stage options] | port-test N [--seed S] -- COMMAND...

Each verb is a function `cmd_<verb>(args, console) -> exit code` in `stage_verbs`,
`stage_diff`, `exercise_verbs`, `exercise_watch`, `compare`, `replay`, `book`, `audit`,
`drill`, `debug` or `port_test`; this
module only declares the arguments and dispatches.
"""

from __future__ import annotations

import argparse
import os
import sys

from shared.printable import visible
from shared.providers.base import RecordError
from shared.providers.offline import QUIRKS
from shared.stage_main import at_least_one, record_path
from shared.trace import make_console

from .audit import cmd_audit
from .book import cmd_book
from .compare import cmd_compare, report_path
from .debug import cmd_debug
from .drill import MODES, cmd_drill
from .exercise_verbs import cmd_check, cmd_hint, cmd_reset, cmd_solution
from .exercise_watch import cmd_watch
from .i18n import LANGUAGES, text
from .port_test import cmd_port_test
from .replay import cmd_replay
from .repo import CLIError
from .stage_diff import cmd_diff
from .stage_verbs import cmd_doctor, cmd_list, cmd_run, cmd_tour

EXIT_CODES = ("Exit codes: 0 the exercise checked passes (check --all: every one does); "
              "1 it does not; 2 tao was called wrongly (say, no such exercise); "
              "130 interrupted.")


class Parser(argparse.ArgumentParser):
    """argparse, saying a mistake in one line (its verbs' parsers are of this class too),
    and taking no abbreviation: `--rec` is not `--record`."""

    def __init__(self, **kwargs):
        super().__init__(allow_abbrev=False, **kwargs)

    def error(self, message: str):
        """Exit 2 with one line: what is wrong, and where help is."""
        self.exit(2, f"{self.prog}: error: {visible(message)} (see {self.prog} --help)\n")


def seconds(value: str) -> float:
    """A wait: a number of seconds above 0."""
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a number of seconds") from None
    if not 0 < number < float("inf"):
        raise argparse.ArgumentTypeError(f"{value} is impossible here: give seconds above 0")
    return number


def seed(value: str) -> int:
    """A seed: any whole number, 0 included (each run of port-test prints its own)."""
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


def build_parser() -> argparse.ArgumentParser:
    """Every verb and its arguments (argparse declarations: long, and plain)."""
    parser = Parser(
        prog="tao", description="Think · Act · Observe: learn the agent loop stage by stage.",
        epilog="Start with `tao tour`, then open stages/01_single_call/main.py. " + EXIT_CODES
        + " TAO_LANG=fr (or a French locale) makes tao speak French: its messages, the hints, "
          "and `tao tour`'s demos (`tao tour --lang fr|en` chooses for one tour).")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    verbs.add_parser("list", help="the stages, and the exercises with their status",
                     description="List the stages (number, title, what each teaches), then "
                                 "the exercises with their status from the last checks.")
    run = verbs.add_parser("run", help="run one stage", description=(
        "Run one stage, interactively. Arguments after `--` go to the stage, e.g. "
        "`tao run 01 -- --provider ollama \"hi\"`."))
    run.add_argument("stage", help="stage number, e.g. 05")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the stage")
    tour = verbs.add_parser("tour", help="every stage in order, with a demo input",
                            description="Run every stage in order, non-interactively, each "
                                        "with a demo input. Offline unless you pick a provider. "
                                        "--lang fr types the demos in French (the offline "
                                        "model answers in the language it is asked in).")
    tour.add_argument("--provider", help="which model answers (default: offline)")
    tour.add_argument("--lang", choices=LANGUAGES,
                      help="the demos' language (default: TAO_LANG, else the locale, else en)")
    diff = verbs.add_parser("diff", help="what changed between two stages, code first",
                            description="Show what changed between two stage folders: a "
                                        "header of changed files with +/- counts, then the "
                                        "code diffs. `tao diff 05` means 04 -> 05.")
    diff.add_argument("a", help="a stage number (alone: compare with the stage before it)")
    diff.add_argument("b", nargs="?", help="a later stage number")
    diff.add_argument("--stat", action="store_true", help="only the changed files and counts")
    diff.add_argument("--docs", action="store_true",
                      help="also show the README diffs (after the code)")
    diff.add_argument("--side", action="store_true",
                      help="old and new side by side (needs a terminal 120+ columns wide)")
    doctor = verbs.add_parser("doctor", help="which model would answer, and what to fix",
                              description="Check which provider would be used and why, its "
                                          "key, its server and its model; one line each.")
    doctor.add_argument("--provider", help="check this provider instead of the default")
    doctor.add_argument("--model", help="check this model name")
    check = verbs.add_parser("check", help="check the current exercise (or N), show progress",
                             description="Run the tests of the current exercise (the one "
                                         "picked last, else the first one not done), or of "
                                         "exercise N, which then becomes the current one; "
                                         "then show progress, every exercise's status, and "
                                         "what its test says.", epilog=EXIT_CODES)
    check.add_argument("exercise", nargs="?", help="exercise number (default: the current one)")
    check.add_argument("--all", action="store_true",
                       help="check every exercise, and say why each failing one fails")
    hint = verbs.add_parser("hint", help="a hint for the current exercise (or one named)",
                            description="Show the hint for one exercise.")
    hint.add_argument("exercise", nargs="?", help="exercise number (default: the current one)")
    watch = verbs.add_parser("watch", help="re-check the current exercise on every save",
                             description="Check the current exercise (or exercise N) now and "
                                         "after every save. Keys: h hint, l list (then ↑/↓ or "
                                         "j/k and Enter, or a number and Enter, to pick one), "
                                         "n next exercise, r reset to the stub (asks first), "
                                         "q quit. It keeps watching until you press q, and "
                                         "starts where you left off.")
    watch.add_argument("exercise", nargs="?", help="exercise number (default: the current one)")
    watch.add_argument("--interval", type=seconds, default=1.0,
                       help="seconds between looks at the files (default 1)")
    watch.add_argument("--cycles", type=at_least_one, default=None, help=argparse.SUPPRESS)
    reset = verbs.add_parser("reset", help="restore an exercise's stub (current by default)",
                             description="Restore exercises/eNN_*.py to its original stub "
                                         "(asks first; your changes are lost). No git "
                                         "needed: the stubs ship in exercises/.stubs/.")
    reset.add_argument("exercise", nargs="?", help="exercise number (default: the current one)")
    reset.add_argument("--yes", action="store_true", help="do not ask")
    solution = verbs.add_parser("solution", help="the reference solution, once yours passes",
                                description="Show the reference solution of an exercise. "
                                            "Only once your own passes its tests.")
    solution.add_argument("exercise", help="exercise number, e.g. 3")
    compare = verbs.add_parser("compare", help="text protocol against native calls, graded",
                               description="Run the same tasks through stage 06's text "
                                           "protocol and stage 07's native calls, grade "
                                           "each run, and show the numbers side by side.")
    compare.add_argument("--provider", help="which model answers (default: as a stage "
                                            "picks; replay:FILE answers from a recording)")
    compare.add_argument("--model", help="model name (default: TAO_MODEL, else the "
                                          "provider's)")
    compare.add_argument("--protocols", default="text,native",
                         help="comma-separated: text, examples (stage 06 with worked "
                              "examples in front), native, constrained (stage 06 on the local "
                              "model, held to a grammar), constrained+examples (both) "
                              "(default: text,native)")
    compare.add_argument("--tasks", help="a task file (default: tao/compare_tasks.toml)")
    compare.add_argument("--runs", type=at_least_one, default=1,
                         help="times through the task set (1 or more)")
    compare.add_argument("--quirk", choices=(*QUIRKS, "all"),
                         help="make the offline model misbehave; all: once per quirk, as "
                              "a Markdown table (stage 07's README)")
    compare.add_argument("--json", action="store_true", help="every number and run, as JSON")
    compare.add_argument("--markdown", action="store_true",
                         help="the summary as a Markdown table (the README's)")
    compare.add_argument("--html", metavar="FILE.html", type=report_path,
                         help="also write a report with a chart")
    compare.add_argument("--record", metavar="FILE.json", type=record_path,
                         help="record every request and reply, to replay with "
                              "--provider replay:FILE")
    book = verbs.add_parser("book", help="the kit as a web site, English and French",
                            description="Build a static site from the repository: the stage "
                                        "map, a page per stage (README, code, the diff from "
                                        "the stage before side by side, the golden "
                                        "transcript), the exercises with folded hints, and "
                                        "the text-or-native comparison; each page in English "
                                        "and French. It opens from file:// with no network "
                                        "and no server.",
                            epilog="Then open book/index.html (or DIR/index.html).")
    book.add_argument("--out", metavar="DIR",
                      help="where to write it (default: book/ in the repository, which git "
                           "ignores); a folder tao book made before is emptied first")
    book.add_argument("--open", action="store_true", help="open it in your web browser")
    replay = verbs.add_parser(
        "replay", help="a recorded session again, offline, with no typing",
        description="Run the stage a --record FILE came from again, on --provider "
                    "replay:FILE, with the lines typed then as its input: the whole session "
                    "again, offline, nothing sent. Each request the stage sends is checked "
                    "against the recorded one; at the first that differs (a loop you "
                    "changed) it stops, says which request and message, and exits 1. A "
                    "recording of `tao compare` runs tao compare again.",
        epilog="Record first, e.g. `uv run stages/07_native_tools/main.py --record "
               "run.json`, then `uv run tao replay run.json`.")
    replay.add_argument("file", help="a recording made with --record")
    replay.add_argument("--stage", help="run this stage on it instead (say, 05 for a "
                                        "recording of 06); needed for a recording made "
                                        "before recordings said their stage")
    debug = verbs.add_parser(
        "debug", help="a stage with its loop paused at every step, to change what goes by",
        description="Run stage N, interactively, pausing before each request to the model "
                    "and before each tool call runs. At a pause: show the messages (or the "
                    "call), edit one (as JSON in $EDITOR, or typed when none is set), drop "
                    "one, inject a user or tool message, reply by hand instead of the "
                    "model, skip a call, step, continue to the next turn, or save the "
                    "session so far as a script --provider replay:FILE runs again. Every "
                    "change shows on the trace as yours. Ctrl-C or the end of input at a "
                    "pause ends the session (exit 130, or 0).",
        epilog="e.g. `tao debug 07`, or `tao debug 05 --provider openai`: the stage's own "
               "options follow its number.")
    debug.add_argument("stage", help="stage number, e.g. 07")
    debug.add_argument("args", nargs=argparse.REMAINDER,
                       help="the stage's own options (--provider, --budget, ...)")
    port = verbs.add_parser(
        "port-test", help="is a program, in any language, a right port of stage N?",
        description="Run COMMAND once per case of stage N's contract (contract.toml beside "
                    "the stage), against the kit's fake API on 127.0.0.1 (ANTHROPIC_BASE_URL "
                    "and OPENAI_BASE_URL point at it, with fake keys; TAO_MODEL names the "
                    "model), each case's lines on its input and its values drawn at random. "
                    "Each case checks the requests (model, system prompt, tools and their "
                    "schemas, the history, every tool result paired with its call), the "
                    "output, the exit code and, from stage 11, the files; one line each "
                    "says the first difference. Exit 0 only when every case passes.",
        epilog="e.g. `tao port-test 05 -- node ports/javascript/05_react_loop.mjs`; ports/ "
               "holds ports that pass.")
    port.add_argument("stage", help="stage number, e.g. 05")
    port.add_argument("--seed", type=seed, help="draw the same values as that run (each run "
                                                "prints its seed)")
    port.add_argument("--api", choices=("both", "anthropic", "openai"), default="both",
                      help="which API's key and base URL the program gets (default: both)")
    port.add_argument("--timeout", type=seconds, default=60.0,
                      help="seconds a case may take before it is stopped (default 60)")
    port.add_argument("command", nargs="*",
                      help="-- then the program and its arguments")
    audit = verbs.add_parser(
        "audit", help="an audit log of stage 13 or 14, as a table, or its chain checked",
        description="Show an audit log (.tao/audit.jsonl, or a stage's --audit FILE) as a "
                    "table: each tool call, its risk and mode, who decided and what it did. "
                    "With --verify, check its hash chain instead: every line must hold the "
                    "hash of the line before it, so a line removed, edited or added shows.",
        epilog="Exit codes: 0 shown, or the chain holds; 1 a line breaks the chain; 2 the "
               "file cannot be read as a log.")
    audit.add_argument("file", help="the audit log, a JSONL file")
    audit.add_argument("--verify", action="store_true",
                       help="check the chain and name each line that breaks it")
    drill = verbs.add_parser(
        "drill", help="every prompt injection planted in stage 14's sample: what stopped it",
        description="Run stage 14 once per attack planted in its sample project (a README "
                    "line, a code comment, a saved page, a symlink out, a fake user turn...), "
                    "with a canary key in its environment and a canary file beside the "
                    "workspace, every question answered no; then say for each attack what "
                    "stopped it: approval, the path check, the wall, or nothing. Offline, "
                    "the model is the offline one with the gullible quirk.",
        epilog="Exit codes: 0 every attack stopped and no canary seen; 1 otherwise.")
    drill.add_argument("--provider", help="which model answers (default: offline, gullible); "
                                          "replay:DIR answers from a --record DIR")
    drill.add_argument("--mode", choices=MODES, default="ask",
                       help="the stage's approval mode (default ask)")
    drill.add_argument("--json", action="store_true", help="the scorecard as JSON")
    drill.add_argument("--markdown", action="store_true",
                       help="every mode, as one Markdown table (stage 14's README)")
    drill.add_argument("--record", metavar="DIR",
                       help="keep each attack's recording as DIR/NAME.json")
    return parser


COMMANDS = {"list": cmd_list, "run": cmd_run, "tour": cmd_tour, "diff": cmd_diff,
            "doctor": cmd_doctor, "check": cmd_check, "hint": cmd_hint, "watch": cmd_watch,
            "reset": cmd_reset, "solution": cmd_solution,
            "compare": cmd_compare, "replay": cmd_replay, "book": cmd_book,
            "audit": cmd_audit, "drill": cmd_drill, "debug": cmd_debug,
            "port-test": cmd_port_test}


def main(argv: list[str] | None = None) -> int:
    """Run one `tao` verb; a mistake in the call is one line and exit 2, anything else
    that stops it (Ctrl-C, a closed pipe, a disk that is full) one line too."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    command = None
    if "--" in argv and "port-test" in argv[:argv.index("--")]:  # COMMAND stays as typed
        argv, command = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    args = parser.parse_args(argv)
    if command is not None:
        args.command = command
    console = make_console()
    if not args.verb:
        parser.print_help()
        return 0
    try:
        return COMMANDS[args.verb](args, console)
    except CLIError as exc:
        tell(text("error.line", verb=args.verb, error=exc))
        return exc.code
    except KeyboardInterrupt:
        tell(f"\n{text('interrupted')}")
        return 130
    except BrokenPipeError:  # whatever read the output (`| head`) stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no later flush fails
        return 1
    except (OSError, RecordError) as exc:  # a full disk, a folder gone: what, and why
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        why = getattr(exc, "strerror", None) or str(exc)
        tell(text("error.line", verb=args.verb, error=where + why))
        return 1


def tell(line: str) -> None:
    """One line on stderr, shown as it is: a file name or a model's name from outside
    cannot move the cursor or set the window's title."""
    print(visible(line), file=sys.stderr)
