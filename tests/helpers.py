"""Helpers shared by the stage and CLI tests: run a stage, or `tao`, as a learner does.

`run_stage` and `run_tao` run the program in this process, dressed as a fresh one
(`in_process`): its own argv, stdin, stdout, stderr, environment and working folder,
the exit code from SystemExit, an escaped exception as a traceback on stderr. That
costs milliseconds where a new interpreter costs a quarter of a second (seconds, once
an SDK is imported). What only a real process shows (exit by signal, a pty, the locale,
a closed pipe, the network guard in a child, what a fresh interpreter imports) is
tested with `run_stage_process` / `subprocess` directly.
"""

from __future__ import annotations

import io
import json
import os
import re
import runpy
import select
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from tao.repo import LOCAL_NAMES, ROOT, STAGES, find_stage, load_stage, stages

__all__ = ["ROOT", "STAGES", "STAGE_DIRS", "Terminal", "clean_env", "file_limit", "in_process",
           "load_stage", "readme_section", "run_stage", "run_stage_process", "run_tao",
           "small_kit", "solve", "stage_dir", "twin", "with_twins"]

STAGE_DIRS = list(stages().values())
# settings from the developer's shell that would change what a test sees
REMOVED = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
           "OLLAMA_BASE_URL", "TAO_PROVIDER", "TAO_MODEL", "TAO_OFFLINE_QUIRK",
           "TAO_OFFLINE_DELAY", "TAO_SCRIPT", "TAO_TIMEOUT", "TAO_SHOW_WIRE", "FORCE_COLOR",
           "EDITOR")


def stage_dir(number: str) -> Path:
    """The folder of stage `number` (the kit's one stage finder)."""
    return find_stage(number)


def twin(page: Path) -> Path:
    """The French twin of an English page: README.md -> README.fr.md, SERVERS.md ->
    SERVERS.fr.md, beside it."""
    return page.with_name(f"{page.name.removesuffix('.md')}.fr.md")


def english(page: Path) -> Path:
    """The English page of a twin (SERVERS.fr.md -> SERVERS.md); an English page itself."""
    return page.with_name(page.name.removesuffix(".fr.md") + ".md") \
        if page.name.endswith(".fr.md") else page


def with_twins(readmes) -> list[Path]:
    """Each README, followed by its French twin where it has one: a claim a test holds
    to the code is held in both languages."""
    return [p for readme in readmes for p in (readme, twin(readme))
            if p is readme or p.is_file()]


def _headings(lines: list[str]) -> list[tuple[int, int]]:
    """(line index, level) of each Markdown heading, those inside code fences left out."""
    found, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#+) ", line)):
            found.append((i, len(match.group(1))))
    return found


def readme_section(readme: Path, heading: str) -> str:
    """The body of `heading` (`## Run it`, `### Pitfalls`) in `readme`, up to the next
    heading of its level or above; in a twin, of the heading at the same place (a twin
    keeps its README.md's headings one for one, in its own words). '' if there is none."""
    lines_en = english(readme).read_text(encoding="utf-8").splitlines()
    heads = _headings(lines_en)
    at = [n for n, (i, _) in enumerate(heads) if lines_en[i] == heading]
    if not at:
        return ""
    lines = readme.read_text(encoding="utf-8").splitlines()
    mine = _headings(lines)
    assert [lv for _, lv in mine] == [lv for _, lv in heads], (
        f"{readme} does not keep the headings of {english(readme).name} one for one")
    start, level = mine[at[0]]
    end = next((i for i, lv in mine[at[0] + 1:] if lv <= level), len(lines))
    return "\n".join(lines[start + 1:end]) + "\n"


def clean_env(**extra) -> dict:
    """The environment for a subprocess: no keys, plain output, and the network guard
    (tests/network_guard/sitecustomize.py) first on PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in REMOVED}
    guard = str(Path(__file__).resolve().parent / "network_guard")
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p != guard]
    env.update({"NO_COLOR": "1", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8",
                "PYTHONPATH": os.pathsep.join([guard, *rest])}, **extra)
    return env


def _with_script(env: dict, script, tmp_path) -> dict:
    """`env`, plus the scripted model replaying `script` (saved in `tmp_path`) if given."""
    if script is not None:
        path = Path(tmp_path) / "script.json"
        path.write_text(json.dumps(script), encoding="utf-8")
        env.update(TAO_PROVIDER="scripted", TAO_SCRIPT=str(path))
    return env


def run_stage(number: str, *args, stdin: str = "", script=None, tmp_path=None,
              **env) -> subprocess.CompletedProcess:
    """Run stages/NN_*/main.py as `python main.py ARGS` would, with `stdin`, in this
    process; offline unless `script` (a list of replies for the scripted model) is given."""
    main = stage_dir(number) / "main.py"
    with _stage_modules(main.parent):
        return in_process([str(main), *args],
                          lambda: runpy.run_path(str(main), run_name="__main__"),
                          stdin=stdin, env=clean_env(**_with_script(env, script, tmp_path)))


def run_stage_process(number: str, *args, stdin: str = "", script=None, tmp_path=None,
                      timeout: float = 60, **env) -> subprocess.CompletedProcess:
    """`run_stage` in a new interpreter: for what only a real process shows (a real model
    on a busy CPU may need a longer `timeout`)."""
    return subprocess.run([sys.executable, str(stage_dir(number) / "main.py"), *args],
                          input=stdin, capture_output=True, text=True, encoding="utf-8",
                          env=clean_env(**_with_script(env, script, tmp_path)),
                          timeout=timeout, cwd=ROOT)


def run_tao(*args, stdin: str = "", **env) -> subprocess.CompletedProcess:
    """`tao ARGS` (`python -m tao`) in this process. Not for `run` and `tour`: their
    stages are child processes writing straight to the inherited stdout."""
    from tao import main

    return in_process([str(ROOT / "tao" / "__main__.py"), *args],
                      lambda: sys.exit(main(list(args))), stdin=stdin, env=clean_env(**env))


@contextmanager
def _stage_modules(folder: Path) -> Iterator[None]:
    """The stage's folder first on sys.path, its own modules (`loop`, `tools`...) fresh,
    and whatever those names meant before put back afterwards."""
    before = {name: sys.modules.pop(name) for name in LOCAL_NAMES if name in sys.modules}
    sys.path.insert(0, str(folder))
    try:
        yield
    finally:
        sys.path.remove(str(folder))
        for name in LOCAL_NAMES:
            sys.modules.pop(name, None)
        sys.modules.update(before)


def in_process(argv: list[str], program: Callable[[], object], *, stdin: str,
               env: dict) -> subprocess.CompletedProcess:
    """Run `program` as a fresh process would run it; what it printed, and its exit code."""
    saved = _ProcessState.save()
    sys.argv = list(argv)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(ROOT)
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")  # as PYTHONIOENCODING=utf-8 sets
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace",
                           line_buffering=True)
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin.encode("utf-8")), encoding="utf-8")
    sys.stdout, sys.stderr = out, err
    try:
        code = _exit_code(program)
    finally:
        saved.restore()
    return subprocess.CompletedProcess(argv, code, _as_text(out), _as_text(err))


def _exit_code(program: Callable[[], object]) -> int:
    """The exit status a process running `program` would end with."""
    try:
        program()
    except SystemExit as leaving:
        if leaving.code is None or isinstance(leaving.code, int):
            return leaving.code or 0
        print(leaving.code, file=sys.stderr)  # sys.exit("message"), as Python does
        return 1
    except Exception:
        traceback.print_exc()  # what Python prints for an exception nobody caught
        return 1
    return 0


def _as_text(stream: io.TextIOWrapper) -> str:
    """What was written to `stream`, read back as `subprocess.run(text=True)` reads a pipe."""
    stream.flush()
    text = stream.buffer.getvalue().decode("utf-8")
    return text.replace("\r\n", "\n").replace("\r", "\n")


class _ProcessState:
    """What `in_process` changes, saved before and put back after."""

    SIGNALS = tuple(s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s)

    @classmethod
    def save(cls) -> _ProcessState:
        """Remember argv, streams, environment, folder and signal handlers."""
        state = cls()
        state.argv, state.streams = sys.argv, (sys.stdin, sys.stdout, sys.stderr)
        state.environ, state.cwd = dict(os.environ), os.getcwd()
        state.handlers = {s: signal.getsignal(s) for s in cls.SIGNALS}
        return state

    def restore(self) -> None:
        """Put everything `save` remembered back."""
        sys.argv, (sys.stdin, sys.stdout, sys.stderr) = self.argv, self.streams
        os.environ.clear()
        os.environ.update(self.environ)
        os.chdir(self.cwd)
        for number, handler in self.handlers.items():
            signal.signal(number, handler)


# ---------------------------------------------------------------- a pseudo-terminal


def interruptible() -> None:
    """In a child about to exec: Ctrl-C interrupts, as in a shell's foreground. A suite
    started in the background (`cmd &` from a script) inherits SIGINT ignored, and an
    ignored signal stays ignored across exec, so Ctrl-C would reach nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """A process on a pseudo-terminal: type into it, read what it shows. `argv` is the
    program (default: `python -c code`), run from the repository with `clean_env(**env)`
    (TERM=xterm, 80 columns). The `terminal` fixture (conftest.py) opens them and stops
    every one when the test ends."""

    def __init__(self, code: str = "", argv: list[str] | None = None, **env):
        import pty  # Unix only: a test that opens one is skipped elsewhere

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: become the program
            interruptible()
            os.chdir(ROOT)
            environment = clean_env(**{"TERM": "xterm", "COLUMNS": "80", **env})
            os.execve(sys.executable, argv or [sys.executable, "-c", code], environment)
        self.shown = b""
        self.status: int | None = None

    def type(self, text: str, chunk: int = 512) -> None:
        """Send keystrokes, reading the echo meanwhile so neither side blocks."""
        data = text.encode()
        while data:
            _, ready, _ = select.select([self.fd], [self.fd], [], 5)
            if self.fd in ready:
                written = os.write(self.fd, data[:chunk])
                data = data[written:]
            self.read(0)

    def read(self, wait: float) -> bytes:
        """What the program showed within `wait` seconds (all of it, gathered)."""
        deadline = time.monotonic() + wait
        while True:
            ready, _, _ = select.select([self.fd], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                return self.shown
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # the program ended
                return self.shown
            if not data:
                return self.shown
            self.shown += data

    def wait_for(self, text: bytes, timeout: float = 20, after: int = 0) -> bytes:
        """Read until `text` appears (past byte `after` of the screen); fail with what was
        shown if it does not."""
        deadline = time.monotonic() + timeout
        while text not in self.shown[after:] and time.monotonic() < deadline:
            self.read(0.1)
        assert text in self.shown[after:], (
            f"never showed {text!r}; showed:\n{self.shown[-2000:]!r}")
        return self.shown

    def exit_code(self, timeout: float = 20) -> int:
        """The program's exit code once it ends (reading what it shows meanwhile); fails if
        it is still running after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            self.read(0.05)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
        assert self.status is not None, f"still running; showed:\n{self.shown[-2000:]!r}"
        return self.status

    def close(self) -> None:
        """Stop the program (it is ours) and reap it."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(self.pid, 0)
        os.close(self.fd)


# ---------------------------------------------------------------- a kit of three exercises

SMALL_KIT = ("e01_first", "e02_second", "e03_third")


def small_kit(tmp_path: Path, monkeypatch) -> list:
    """Three exercises in `tmp_path`, each at its shipped stub, with no progress
    remembered; tao's exercise modules pointed at them (their folders are public names),
    so the learner's own exercises are never read or touched."""
    from tao import exercise_state as state

    exercises = tmp_path / "exercises"
    (exercises / ".stubs").mkdir(parents=True)
    (exercises / "info.toml").write_text("".join(
        f'[[exercises]]\nname = "{name}"\ntitle = "Title {n}"\nstage = "0{n + 3}"\n'
        f'hint = """\n  hint {n}\n"""\n\n' for n, name in enumerate(SMALL_KIT, start=1)))
    for name in SMALL_KIT:
        for path in (exercises / f"{name}.py", exercises / ".stubs" / f"{name}.py"):
            path.write_text(f"def {name}():\n    raise NotImplementedError\n")
    monkeypatch.setattr(state, "ROOT", tmp_path)
    monkeypatch.setattr(state, "EXERCISES", exercises)
    monkeypatch.setattr(state, "STUBS", exercises / ".stubs")
    monkeypatch.setattr(state, "EXERCISE_TESTS", tmp_path / "tests" / "exercises")
    monkeypatch.setattr(state, "PROGRESS", tmp_path / ".tao-progress.json")
    return state.load()


def solve(exercise, text: str = "def solved():\n    return 1\n") -> None:
    """Save `text` over an exercise, as a learner's editor does."""
    exercise.path.write_text(text)


def file_limit(size: int) -> Callable[[], None]:
    """A `preexec_fn` for a child process: no file it writes may grow past `size` bytes, as
    on a full disk (the kernel answers a write past it with EFBIG, "File too large"; Python
    ignores the signal that would otherwise kill the process)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


def running(mark: str) -> list[int]:
    """The processes whose command line holds `mark` (as this machine's /proc shows them)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                if mark.encode() in cmdline.read():
                    found.append(int(pid))
        except OSError:
            continue  # it ended while we looked
    return found


def still_running(mark: str, within: float) -> list[int]:
    """What is still running with `mark` after `within` seconds at most."""
    deadline = time.monotonic() + within
    while running(mark) and time.monotonic() < deadline:
        time.sleep(0.05)
    return running(mark)
