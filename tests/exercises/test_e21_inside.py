# Don't change the tests! They tell you when exercises/e21_inside.py is done.
import os

import pytest
from exercise_support import need


def world(tmp_path):
    """A workspace `ws` (notes.txt, src/, .git/config), a sibling `ws2` and a canary
    beside it, and symlinks in the workspace: `out` to the folder outside, `peek.txt`
    to the canary, `inner` to src/ (inside)."""
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "notes.txt").write_text("mine\n")
    (tmp_path / "ws2").mkdir()
    (tmp_path / "ws2" / "secret.txt").write_text("secret\n")
    (tmp_path / "canary.txt").write_text("canary\n")
    (root / "out").symlink_to(tmp_path)
    (root / "peek.txt").symlink_to(tmp_path / "canary.txt")
    (root / "inner").symlink_to(root / "src")
    return root.resolve()


def listing(folder):
    """Every name under `folder`, symlinks not followed: to see that nothing was made."""
    return sorted(os.path.join(d, n) for d, subs, names in os.walk(folder) for n in subs + names)


def check(ex, root, path, write=False):
    """inside()'s answer: the Path, or "Refused: <message>"."""
    inside = need(ex, "inside", "root", "path", "write")
    try:
        return inside(root, path, write=write)
    except ex.Refused as refused:
        assert str(refused).strip(), f"a refusal of {path!r} must say why, in its message"
        return f"Refused: {refused}"


@pytest.mark.parametrize(("path", "expected"), [
    ("notes.txt", "notes.txt"),
    ("./notes.txt", "notes.txt"),
    ("src/../notes.txt", "notes.txt"),
    ("src", "src"),
    (".", ""),
    ("new/deep/file.txt", "new/deep/file.txt"),  # not there yet: it may be about to be written
    ("inner/x.py", "src/x.py"),  # a symlink that stays inside: followed
    (".gitignore", ".gitignore"),
    (".github/workflow.yml", ".github/workflow.yml"),
])
def test_a_path_inside_gives_the_real_path_it_leads_to(ex, tmp_path, path, expected):
    root = world(tmp_path)
    for write in (False, True):
        got = check(ex, root, path, write)
        assert got == root / expected, (
            f"inside(root, {path!r}, write={write}) should be {root / expected}, got {got}: "
            "a path inside, once resolved, is the answer (a Path)")


def test_an_absolute_path_inside_is_inside(ex, tmp_path):
    root = world(tmp_path)
    assert check(ex, root, str(root / "notes.txt")) == root / "notes.txt"


@pytest.mark.parametrize(("path", "why"), [
    ("../canary.txt", "`..` climbs out of the workspace"),
    ("src/../../canary.txt", "`..` in the middle still climbs out"),
    ("{outside}/canary.txt", "an absolute path outside"),
    ("/etc/passwd", "an absolute path outside"),
    ("../ws2/secret.txt", "ws2 starts like ws, but it is another folder"),
    ("{outside}/ws2/secret.txt", "the sibling, absolute: its text starts like the workspace's"),
    ("{outside}/ws2", "the sibling folder itself"),
    ("out/canary.txt", "a folder of the workspace that is a symlink out"),
    ("peek.txt", "a file of the workspace that is a symlink out"),
    ("out/new.txt", "a file not there yet, under a symlinked folder that leads out"),
    ("out", "the symlink itself: it leads out"),
    ("..", "the folder above"),
])
def test_every_way_out_is_refused(ex, tmp_path, path, why):
    root = world(tmp_path)
    path = path.format(outside=tmp_path)
    for write in (False, True):
        got = check(ex, root, path, write)
        assert isinstance(got, str) and got.startswith("Refused"), (
            f"inside(root, {path!r}, write={write}) gave {got}: {why}, so it must be refused")


@pytest.mark.parametrize("path", [".git/config", ".git", ".git/hooks/pre-commit", ".tao/log",
                                  "src/../.git/config", "src/.git/config", "sub/.tao",
                                  "./.git/../.git/HEAD"])
def test_git_and_tao_are_read_never_written(ex, tmp_path, path):
    root = world(tmp_path)
    got = check(ex, root, path, write=True)
    assert isinstance(got, str) and got.startswith("Refused"), (
        f"{path!r} leads into .git or .tao: a write there must be refused, got {got}")
    read = check(ex, root, path)
    assert read == (root / path).resolve(), (
        f"reading {path!r} is allowed (it is inside the workspace): got {read}")


def test_a_symlinked_git_is_still_git(ex, tmp_path):
    root = world(tmp_path)
    (root / "repo").symlink_to(root / ".git")
    got = check(ex, root, "repo/config", write=True)
    assert isinstance(got, str) and got.startswith("Refused"), (
        "repo/ is a symlink to .git/: where the path leads counts, not how it is spelled")


@pytest.mark.parametrize("path", ["", "   ", None, 42, ["notes.txt"], {"path": "x"}])
def test_what_is_no_path_is_refused(ex, tmp_path, path):
    got = check(ex, world(tmp_path), path)
    assert isinstance(got, str) and got.startswith("Refused"), (
        f"{path!r} is no path: it should be refused (Refused), not {got!r}")


def test_a_symlink_loop_is_refused_not_a_crash(ex, tmp_path):
    root = world(tmp_path)
    (root / "loop").symlink_to(root / "loop")
    got = check(ex, root, "loop/x")
    assert isinstance(got, str) and got.startswith("Refused"), got


def test_nothing_is_made_or_changed(ex, tmp_path):
    root = world(tmp_path)
    before = listing(tmp_path)
    for path in ("new/deep/file.txt", "../evil.txt", "out/new.txt", ".git/x", "notes.txt"):
        for write in (False, True):
            check(ex, root, path, write)
    assert listing(tmp_path) == before, "inside() only checks: it creates nothing"
    assert (root / "notes.txt").read_text() == "mine\n"
