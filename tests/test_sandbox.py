"""The wall around stage 12's `run`: each check runs once per backend this machine has.

A backend that does not work here is skipped, and the skip says why in one line
(`bwrap: bwrap is not installed ...`). `.ci/run` installs bubblewrap, so CI runs both.
Each test works in a temporary folder: a workspace `ws` with a canary file beside it
that no command may read or change, and it leaves no process behind (each command a
test starts carries a marker in its command line, looked for in the process table).
Where a backend lets something through, as its README table says, the test holds the
table to it: the documented gap, not a wish.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid

import pytest
from helpers import ROOT, load_stage, run_stage, running, still_running

from shared.sandbox import find_wall

SHELL = load_stage("12", "shell")
CANARY = "canary: the command must never read this"
KEYS = {"ANTHROPIC_API_KEY": "sk-ant-canary-5d1e", "OPENAI_API_KEY": "sk-canary-77aa",
        "GITHUB_TOKEN": "ghp_canary0000", "MY_SERVICE_PASSWORD": "hunter2-canary"}


def marked(seconds: float = 300) -> tuple[str, str]:
    """A `sleep` whose command line is unique to this test, and that unique text."""
    mark = f"{seconds}{uuid.uuid4().int % 10**6:06d}"
    return f"sleep {mark}", mark




def gone(mark: str, within: float = 5.0) -> bool:
    """Whether every process with `mark` has ended within `within` seconds (a PID
    namespace ends its processes a moment after its first one)."""
    return not still_running(mark, within)


@pytest.fixture(params=["bwrap", "landlock"])
def wall(request, tmp_path, monkeypatch):
    """Stage 12's shell inside the backend `request.param`, on a fresh workspace."""
    built, why = find_wall(request.param)
    if built is None:
        pytest.skip(f"{request.param}: {why}")
    root = tmp_path / "ws"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (tmp_path / "canary.txt").write_text(CANARY, encoding="utf-8")
    monkeypatch.setattr(SHELL, "WALL", built)
    monkeypatch.setattr(SHELL.workspace, "ROOT", root.resolve())
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    yield request.param
    SHELL.stop_all()


def run(command: str, timeout: float | None = None) -> str:
    """What the model would read: `run`'s result."""
    args = {"command": command} | ({"timeout": timeout} if timeout else {})
    return SHELL.run(args)


def test_a_write_inside_is_allowed_and_one_outside_refused(wall, tmp_path):
    # under bwrap these writes land in the wall's own empty /tmp, and vanish with it
    result = run(f"echo inside > made.txt; echo pwned > {tmp_path}/evil.txt; "
                 f"echo pwned >> {tmp_path}/canary.txt; touch ~/../sibling")
    assert (tmp_path / "ws" / "made.txt").read_text(encoding="utf-8") == "inside\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["canary.txt", "ws"], result
    assert (tmp_path / "canary.txt").read_text(encoding="utf-8") == CANARY


def test_git_is_refused_where_the_backend_can_refuse_it(wall, tmp_path):
    result = run("echo pwned >> .git/config; mkdir .git/hooks && echo x > .git/hooks/pre-commit")
    config = (tmp_path / "ws" / ".git" / "config").read_text(encoding="utf-8")
    if wall == "bwrap":
        assert "Read-only file system" in result and config == "[core]\n", result
    else:  # the README's table: a Landlock grant covers the folder and all under it
        assert config == "[core]\npwned\n", "Landlock now refuses it: update stage 12's table"


def test_reads_outside_get_nothing(wall, tmp_path):
    result = run(f"cat {tmp_path}/canary.txt; cat ~/../canary.txt; cat /etc/shadow; "
                 f"cat /proc/{os.getpid()}/environ; ls /root")
    assert "canary:" not in result and "sk-" not in result and "root:" not in result, result
    said = "No such file or directory" if wall == "bwrap" else "Permission denied"
    assert result.count(said) >= 4, result


def test_a_symlink_swapped_in_after_the_check_is_refused(wall, tmp_path):
    tools = load_stage("12", "tools")
    tools.workspace.ROOT = SHELL.workspace.ROOT  # the file tools' check, on the same folder
    note = tools.find_tool("write_file").run({"path": "notes.txt", "content": "mine"})
    assert note == "wrote 4 characters to notes.txt"
    run(f"rm notes.txt; ln -s {tmp_path}/canary.txt notes.txt")  # swapped after the check
    with pytest.raises(tools.workspace.Refused):
        tools.find_tool("read_file").run({"path": "notes.txt"})
    result = run("cat notes.txt; cp notes.txt copy.txt; cat copy.txt")
    assert "canary:" not in result, result
    assert not (tmp_path / "ws" / "copy.txt").exists()


def test_no_connection_reaches_a_listener_on_this_machine(wall):
    listener = socket.create_server(("127.0.0.1", 0))
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    port, udp_port = listener.getsockname()[1], udp.getsockname()[1]
    try:
        result = run(
            f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo tcp-connected; "
            f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}))\";"
            f" python3 -c \"import socket; socket.socket(2, 2).sendto(b'x', "
            f"('127.0.0.1', {udp_port}))\"")
        listener.settimeout(0.3)
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing knocked
        udp.settimeout(0.3)
        with pytest.raises(TimeoutError):
            udp.recvfrom(16)
        assert "tcp-connected" not in result, result
    finally:
        listener.close()
        udp.close()


def test_a_grandchild_that_outlives_the_timeout_is_killed(wall):
    grandchild, mark = marked()
    result = run(f"( {grandchild} & ) ; {grandchild}0 & sleep 30", timeout=1)
    assert result.startswith("Error: still running after 1 s"), result
    assert gone(mark), f"left running: {running(mark)}"


def test_a_command_gets_no_more_time_than_the_cap_whatever_the_model_asks(wall, monkeypatch):
    monkeypatch.setattr(SHELL, "MAX_TIMEOUT", 1)  # the cap, made short enough to wait for
    result = run("sleep 3; echo too late", timeout=3600)  # ends by itself, if let run
    assert result.startswith("Error: still running after 1 s"), result
    assert "too late" not in result


def test_what_a_command_leaves_in_the_background_ends_with_it(wall):
    background, mark = marked()
    assert run(f"{background} > /dev/null 2>&1 & echo started").startswith("exit 0\nstarted")
    assert gone(mark), f"left running: {running(mark)}"


def test_a_process_in_a_session_of_its_own(wall):
    escaper, mark = marked()
    run(f"setsid {escaper} > /dev/null 2>&1 < /dev/null & sleep 0.2")
    if wall == "bwrap":
        assert gone(mark), "the PID namespace should end it with the command"
        return
    try:  # the README's table: under Landlock it survives the group kill
        assert running(mark), "Landlock now ends it: update stage 12's table"
    finally:
        for pid in running(mark):
            os.kill(pid, 9)
        assert gone(mark)


def test_the_environment_holds_no_key_and_nothing_but_the_allowlist(wall, tmp_path):
    result = run("env")
    names = {line.split("=", 1)[0] for line in result.splitlines()[1:] if "=" in line}
    assert names <= {"PATH", "LANG", "HOME", "PWD", "SHLVL", "_"}, names
    assert f"HOME={tmp_path / 'ws'}" in result
    for value in KEYS.values():
        assert value not in result


def test_the_output_is_capped_head_and_tail_saying_how_much_was_elided(wall):
    result = run("seq 1 100000")
    total = len("".join(f"{n}\n" for n in range(1, 100001)))
    head, elided, tail = result.split("\n[... ", 1)[0], result, result.rsplit(" ...]\n", 1)[1]
    assert head.startswith("exit 0\n1\n2\n3\n") and tail.endswith("99999\n100000\n")
    assert f"[... {total - SHELL.MAX_OUTPUT:,} bytes elided ...]" in elided
    assert len(result.encode()) < SHELL.MAX_OUTPUT + 100


def test_stdin_is_closed_and_limits_hold(wall):
    assert run("cat; echo done") == "exit 0\ndone\n"
    memory = run("python3 -c 'bytearray(3 << 30)' 2>&1 | tail -1")
    assert "MemoryError" in memory, memory
    big = run("head -c 100M /dev/zero > big; ls -l big | cut -d' ' -f5")
    assert big.rstrip().endswith(str(SHELL.LIMITS[__import__("resource").RLIMIT_FSIZE])), big


def test_a_command_never_reads_what_the_user_types_next(wall):
    # tao's own input is the user's next lines: give this process an input that holds one
    # and stays open, as a terminal does; a command must read none of it, nor wait for it
    typed, keyboard = os.pipe()
    os.write(keyboard, b"the user's next line\n")
    ours = os.dup(0)
    os.dup2(typed, 0)
    try:
        result = run("cat; echo done", timeout=5)
    finally:
        os.dup2(ours, 0)
        for fd in (ours, typed, keyboard):
            os.close(fd)
    assert result == "exit 0\ndone\n", result


def test_no_wall_no_shell_unless_unconfined(monkeypatch, tmp_path):
    main = load_stage("12", "main")
    monkeypatch.setattr("shared.sandbox.find_wall", lambda choice: (None, "none here"))
    line = main.open_shell("auto", unconfined=False)
    assert line == "shell: not offered, no wall works here (none here); --unconfined offers it"
    assert "run" not in [tool.name for tool in main.TOOLS]
    assert main.open_shell("auto", unconfined=True) == "shell: NOT CONFINED"
    assert "run" in [tool.name for tool in main.TOOLS]
    monkeypatch.setattr(main.shell.workspace, "ROOT", tmp_path)
    result = main.TOOLS[-1].run({"command": "echo hi"})
    assert result.startswith("exit 0 (NOT CONFINED)\n"), result


@pytest.mark.parametrize("choice", ["bwrap", "landlock"])
def test_the_trace_says_once_which_wall_applied(choice, tmp_path):
    wall, why = find_wall(choice)
    script = [{"tool_calls": [{"id": "c1", "name": "run", "args": {"command": "echo hi"}}]},
              {"tool_calls": [{"id": "c2", "name": "run", "args": {"command": "echo again"}}]},
              "done"]
    done = run_stage("12", "--sandbox", choice, "--workspace", str(tmp_path), stdin="go\n",
                     script=script, tmp_path=tmp_path)
    lines = done.stdout.splitlines()
    said = [line for line in lines if line.startswith("shell: ")]
    if wall is None:  # no wall: no `run` for the model, and the scripted calls are refused
        assert said == [f"shell: not offered, no wall works here ({choice}: {why}); "
                        "--unconfined offers it"] and "unknown tool 'run'" in done.stdout
        return
    assert said == [f"shell: {wall.name}"], said
    assert "│ exit 0" in done.stdout and "│ hi" in done.stdout


def test_by_default_the_stage_takes_bubblewrap_where_it_works_else_landlock(tmp_path):
    # the stronger wall first (the README's table): Landlock leaves .git/ writable
    wall = find_wall("bwrap")[0] or find_wall("landlock")[0]
    if wall is None:
        pytest.skip("no wall works here")
    done = run_stage("12", "--workspace", str(tmp_path), stdin="")
    said = [line for line in done.stdout.splitlines() if line.startswith("shell: ")]
    assert said == [f"shell: {wall.name}"], said


@pytest.mark.timeout(60)
def test_ctrl_c_during_a_command_cancels_the_reply_and_ends_the_command(terminal, tmp_path):
    if find_wall()[0] is None:
        pytest.skip("no wall works here: `run` is not offered")
    sleeper, mark = marked()
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"id": "c1", "name": "run", "args": {
        "command": f"touch started; {sleeper}", "timeout": 60}}]}, "done"]), encoding="utf-8")
    term = terminal(argv=[sys.executable, str(ROOT / "stages" / "12_confined_shell" / "main.py"),
                          "--workspace", str(tmp_path)], TAO_PROVIDER="scripted",
                    TAO_SCRIPT=str(script))
    term.wait_for(b"you> ")
    term.type("go\r")
    deadline = time.monotonic() + 20
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        term.read(0.1)
    term.type("\x03")  # the command has its own session: only tao sees the key
    term.wait_for(b"turn ended: cancelled")
    assert gone(mark), f"left running: {running(mark)}"  # not after its 60 s: now


def test_a_limit_is_never_raised_above_the_one_tao_has(tmp_path):
    # in a child interpreter: its own hard limit lowered first, as a user's `ulimit` does
    code = (
        "import pathlib, resource, sys\n"
        f"sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))\n"
        "from helpers import load_stage\n"
        "shell = load_stage('12', 'shell')\n"
        f"shell.workspace.ROOT = pathlib.Path({str(tmp_path)!r})\n"
        "print(shell.run({'command': 'ulimit -f'}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=30, cwd=tmp_path)
    assert done.stdout == "exit 0 (NOT CONFINED)\n1024\n\n", done.stdout + done.stderr
