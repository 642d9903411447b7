"""`tao replay FILE [--stage N]`: a recorded session again, offline, with no typing.

    uv run stages/07_native_tools/main.py --provider openai --record run.json
    uv run tao replay run.json              # stage 07 again, on the recording, untyped

A stage's recording (shared/providers/replay.py) says which stage made it, the stage's own
options (`--budget 300`, a question on the command line) and every line typed. This verb
runs that stage's main.py in this process, as `python main.py ARGS` would, on `--provider
replay:FILE`, with those lines as its input. The stage checks each request against the
recorded one, so a changed loop stops at the first request that differs and says where.
`--stage N` runs another stage on it (your edited copy, or an older recording that does
not say). A `tao compare` recording runs `tao compare` again, with its own options.
"""

from __future__ import annotations

import contextlib
import io
import runpy
import signal
import sys
import threading
from pathlib import Path

from shared.printable import visible
from shared.providers.replay import BadRecording, Recording, replayable
from shared.providers.replay import read_recording as read

from .i18n import text
from .repo import LOCAL_NAMES, CLIError, find_stage


def read_recording(path: str) -> Recording:
    """The recording at `path`, read by the one reader (shared/providers/replay.py, as
    `--provider replay:FILE` reads it); any mistake is one CLIError line, in tao's
    language."""
    try:
        return read(path)
    except BadRecording as exc:
        raise CLIError(text(f"error.replay_{exc.problem}", **exc.parts)) from None


def replayed_options(recording: Recording, kind: str, path: str) -> list[str]:
    """The recorded options a replay passes again, through the filter they were written
    with (KEPT's only); a recording holding any other is one CLIError line."""
    try:
        return replayable(kind, recording.session.get("argv", []), path)
    except BadRecording as exc:
        raise CLIError(text(f"error.replay_{exc.problem}", **exc.parts)) from None


def replay_plan(path: str, stage: str | None = None) -> tuple[Path, list[str], str | None]:
    """(the stage folder, its arguments, its input) that replay the recording at `path`;
    the input is None when the recording does not hold what was typed."""
    recording = read_recording(path)
    recorded = recording.session.get("stage")
    if not (stage or recorded):
        raise CLIError(text("error.replay_no_stage", path=repr(path)))
    folder = find_stage(stage or recorded)
    argv = replayed_options(recording, "stage", path)
    if recorded and folder != find_stage(recorded):
        argv = []  # another stage's options (08's --budget) may mean nothing to this one
    typed = recording.typed
    stdin = "".join(f"{line}\n" for line in typed) + "\n" if typed else None
    # the provider first: a stage's words come last, after `--`
    return folder, ["--provider", f"replay:{path}", *argv], stdin


def run_stage_here(folder: Path, argv: list[str], stdin: str | None) -> int:
    """Run `folder`'s main.py in this process with `argv` and `stdin` (None: the terminal's);
    its exit code. Its own modules (`loop`, `tools`...) are loaded fresh, and put away."""
    saved = sys.argv, sys.stdin, list(sys.path)
    sys.argv = [str(folder / "main.py"), *argv]
    if stdin is not None:
        sys.stdin = io.StringIO(stdin)  # a pipe, to the stage: it echoes each line it reads
    sys.path.insert(0, str(folder))
    for name in LOCAL_NAMES:
        sys.modules.pop(name, None)
    try:
        runpy.run_path(str(folder / "main.py"), run_name="__main__")
    except SystemExit as end:  # a stage always leaves through stage_main.run's sys.exit
        return end.code if isinstance(end.code, int) else int(end.code is not None)
    finally:
        sys.argv, sys.stdin = saved[0], saved[1]
        sys.path[:] = saved[2]
        for name in LOCAL_NAMES:
            sys.modules.pop(name, None)
    return 0


def cmd_replay(args, console) -> int:
    """`tao replay`: the recorded stage (or `tao compare`) again, on the recording."""
    recording = read_recording(args.file)
    if recording.session.get("verb") == "compare" and not args.stage:
        from .command import build_parser  # the same options a learner would type
        from .compare import cmd_compare

        argv = replayed_options(recording, "compare", args.file)
        again = build_parser().parse_args(["compare", *argv,
                                           "--provider", f"replay:{args.file}"])
        return cmd_compare(again, console)
    folder, argv, stdin = replay_plan(args.file, args.stage)
    if stdin is None:
        print(visible(text("replay.not_typed", file=args.file)), file=sys.stderr)
    with ctrl_c_ends_it():
        return run_stage_here(folder, argv, stdin)


class Stopped(BaseException):
    """Ctrl-C during a replay. Not a KeyboardInterrupt: a stage takes that for a cancelled
    reply and reads on, and its next request would be reported as a divergence."""


@contextlib.contextmanager
def ctrl_c_ends_it():
    """Within it, Ctrl-C ends the replay: a KeyboardInterrupt comes out (tao's exit 130)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread hears signals
        return

    def stop(signum, frame):
        raise Stopped

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    except Stopped:
        raise KeyboardInterrupt from None
    finally:
        signal.signal(signal.SIGINT, previous)
