# Don't change the tests! They tell you when exercises/e23_run_command.py is done.
import os
import time
import uuid

import pytest
from exercise_support import need
from helpers import running, still_running

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-e23-canary", "OPENAI_API_KEY": "sk-e23-canary",
        "GITHUB_TOKEN": "ghp_e23canary", "DATABASE_URL": "postgres://u:pw-e23@db/x",
        "LD_PRELOAD": "/tmp/e23-evil.so"}



@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """Each test runs from its temporary folder: a wrong answer that forgets the workspace,
    or runs the command bare, writes there, never into the kit."""
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def marks():
    """Unique `sleep` durations to find in the process table; the test's leftovers are
    killed at the end, so a wrong answer leaves nothing running either."""
    made = []

    def mark() -> str:
        made.append(f"4{uuid.uuid4().int % 10**6:06d}")
        return made[-1]

    yield mark
    for pid in [pid for m in made for pid in running(m)]:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def run(ex, command, workspace, timeout=5):
    return need(ex, "run_command", "command", "workspace", "timeout")(command, workspace,
                                                                       timeout)


def left(mark: str, within: float = 3.0) -> list[int]:
    """What is still running with `mark` after `within` seconds at most."""
    return still_running(mark, within)


def test_exit_code_then_the_output_stdout_and_stderr_together(ex, tmp_path):
    assert run(ex, "echo hi", tmp_path) == "exit 0\nhi\n"
    result = run(ex, "echo out; echo err >&2; exit 3", tmp_path)
    assert result.startswith("exit 3\n") and "out\n" in result and "err\n" in result, result


def test_it_runs_in_the_workspace(ex, tmp_path):
    assert run(ex, "pwd; touch made.txt", tmp_path) == f"exit 0\n{tmp_path}\n"
    assert (tmp_path / "made.txt").exists()


def test_the_environment_is_the_allowlist_and_nothing_else(ex, tmp_path, monkeypatch):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    result = run(ex, "env", tmp_path)
    names = {line.split("=", 1)[0] for line in result.splitlines()[1:] if "=" in line}
    assert names - {"PWD", "SHLVL", "_"} == {"PATH", "LANG", "HOME"}, (
        f"the command's environment should be PATH, LANG and HOME only (bash adds PWD, SHLVL, "
        f"_), not {sorted(names)}")
    assert f"PATH={ex.ALLOWED_PATH}\n" in result and "LANG=fr_FR.UTF-8\n" in result
    assert f"HOME={tmp_path}\n" in result, "HOME is the workspace"
    leaked = [name for name, value in KEYS.items() if value in result]
    assert not leaked, f"these reached the command: {leaked}"


def test_lang_defaults_to_c_utf8(ex, tmp_path, monkeypatch):
    monkeypatch.delenv("LANG", raising=False)
    assert run(ex, 'echo "$LANG"', tmp_path) == "exit 0\nC.UTF-8\n"


def test_stdin_is_closed(ex, tmp_path):
    read, write = os.pipe()
    os.write(write, b"typed by someone else\n")
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)  # what this process would hand a child that inherits its stdin
    try:
        started = time.monotonic()
        result = run(ex, 'read line; echo "got:$line"', tmp_path)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(read)
    assert result == "exit 0\ngot:\n", (
        f"the command's stdin is closed: `read` gets nothing, at once; got {result!r}")
    assert time.monotonic() - started < 3


def test_a_timeout_stops_it_with_what_it_said_so_far(ex, tmp_path, marks):
    mark = marks()
    started = time.monotonic()
    result = run(ex, f"echo early; sleep {mark}", tmp_path, timeout=0.5)
    assert time.monotonic() - started < 3, "the timeout was not kept"
    assert result == "Error: still running after 0.5 s\nearly\n", result
    assert not left(mark), "the timed-out command is still running"


def test_the_timeout_kills_children_and_their_children(ex, tmp_path, marks):
    child, grandchild = marks(), marks()
    result = run(ex, f"sleep {child} & (sleep {grandchild} &); wait", tmp_path, timeout=1)
    assert result.startswith("Error: still running after 1 s"), result
    assert not left(child), "a child of the command outlived the timeout"
    assert not left(grandchild), "a grandchild of the command outlived the timeout"


def test_nothing_it_started_outlives_it(ex, tmp_path, marks):
    mark = marks()
    started = time.monotonic()
    result = run(ex, f"sleep {mark} > /dev/null 2>&1 & echo started", tmp_path, timeout=10)
    assert result == "exit 0\nstarted\n" and time.monotonic() - started < 5, result
    assert not left(mark), "a process the command left in the background is still running"


def test_it_has_a_process_group_of_its_own(ex, tmp_path):
    result = run(ex, "ps -o pgid= -p $$", tmp_path)
    assert int(result.split()[-1]) != os.getpgrp(), (
        "the command must start a process group of its own (start_new_session=True): "
        "killing its group must never kill us")


def test_long_output_keeps_its_head_and_its_tail(ex, tmp_path):
    result = run(ex, "seq 1 100000", tmp_path)
    everything = "".join(f"{n}\n" for n in range(1, 100001))
    half = ex.MAX_OUTPUT // 2
    expected = (f"exit 0\n{everything[:half]}\n[... {len(everything) - 2 * half:,} bytes "
                f"elided ...]\n{everything[-half:]}")
    assert result == expected, (
        "the first and the last MAX_OUTPUT // 2 bytes, and the count of those elided between "
        f"them; got the start {result[:40]!r} and the end {result[-60:]!r}")


def test_output_of_exactly_max_output_is_not_cut(ex, tmp_path):
    size = ex.MAX_OUTPUT
    assert run(ex, f"head -c {size} /dev/zero | tr '\\0' x", tmp_path) == "exit 0\n" + "x" * size
    cut = run(ex, f"head -c {size + 1} /dev/zero | tr '\\0' x", tmp_path)
    assert "[... 1 bytes elided ...]" in cut, cut[-80:]


def test_a_flood_is_cut_without_waiting_for_all_of_it_in_memory(ex, tmp_path):
    result = run(ex, "yes 'a line of output' | head -c 20000000; echo END", tmp_path, 20)
    assert result.startswith("exit 0\na line of output\n") and result.endswith("END\n")
    assert "[... 19,996,004 bytes elided ...]" in result, result[1990:2100]


def test_the_cap_counts_bytes_not_characters(ex, tmp_path):
    result = run(ex, "for i in $(seq 3000); do printf 'é'; done", tmp_path)
    assert result == f"exit 0\n{'é' * 1000}\n[... 2,000 bytes elided ...]\n{'é' * 1000}", (
        "3,000 é are 6,000 bytes in UTF-8: more than MAX_OUTPUT bytes, so the middle goes; "
        f"got the start {result[:30]!r}")


def test_it_is_bash(ex, tmp_path):
    assert run(ex, "[[ -d . ]] && echo bash-ok", tmp_path) == "exit 0\nbash-ok\n", (
        "`bash -c`: /bin/sh may be another shell (dash on Debian), without [[ ]]")


def test_stdout_and_stderr_keep_their_order(ex, tmp_path):
    assert run(ex, "echo 1; echo 2 >&2; echo 3", tmp_path) == "exit 0\n1\n2\n3\n", (
        "stdout and stderr go to one place, so the lines stay in the order they were written")
