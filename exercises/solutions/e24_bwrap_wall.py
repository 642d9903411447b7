"""Exercise 24 (stage 12): the wall itself, as a bubblewrap command line.

`confine(command, workspace)` returns the command line (a list of strings) that runs
`bash -c command` inside a bubblewrap wall (see bwrap(1)). In the wall, a path exists
only if it is bound, so the list says everything the command may reach:
- its own namespaces: no network (`--unshare-net`), its own PIDs (`--unshare-pid`), or
  both at once with `--unshare-all`; and `--die-with-parent`, so it ends with tao;
- each path of SYSTEM that exists here, bound read-only (`--ro-bind`; one that is a
  symlink, such as /bin -> usr/bin, may instead be made again with `--symlink usr/bin
  /bin`); then a fresh `--proc /proc`, `--dev /dev` and an empty `--tmpfs /tmp`;
- the workspace bound read-write (`--bind`), and then, where they exist, its `.git` and
  `.tao` bound again read-only on top of it (a later bind covers an earlier one);
- `--chdir` to the workspace, and last `bash -c command`.
Nothing else of this machine is bound: not /, not /home, not the folder tao lives in.
No check of the command's text is needed, or wanted: the wall holds whatever it says.

    confine("ls", Path("/tmp/ws"))   # -> ["bwrap", "--unshare-all", ..., "bash", "-c", "ls"]

Try it: `uv run stages/12_confined_shell/main.py --sandbox bwrap`, ask to run 'ls /'.
"""

import os
from pathlib import Path

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc/alternatives",  # Don't
          "/etc/ld.so.cache", "/etc/passwd", "/etc/group")  # change these two lines


def confine(command: str, workspace: Path) -> list[str]:
    """The bwrap command line that runs `bash -c command` walled into `workspace`."""
    wall = ["bwrap", "--unshare-all", "--die-with-parent"]  # no network, PIDs of its own
    for path in SYSTEM:
        if os.path.islink(path):  # a symlink bound read-only would bind where it points
            wall += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            wall += ["--ro-bind", path, path]
    wall += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    wall += ["--bind", str(workspace), str(workspace)]
    for name in (".git", ".tao"):  # after the workspace: the later bind is the one seen
        if (workspace / name).exists():
            wall += ["--ro-bind", str(workspace / name), str(workspace / name)]
    return [*wall, "--chdir", str(workspace), "bash", "-c", command]
