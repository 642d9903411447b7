"""`tao diff` on two small stage folders whose differences are known line by line."""

from __future__ import annotations

import pytest

import tao as cli
from tao import repo

FAR = [f"unchanged_{i} = {i}\n" for i in range(20)]  # far from any change: never shown
OLD = {
    "loop.py": ["import json\n", *FAR, "def step():\n", "    return 1\n", "end = True\n"],
    "README.md": ["# Stage 01\n", "Old prose.\n"],
    "tools.py": ["TOOLS = {}\n"],
}
NEW = {
    "loop.py": ["import json\n", *FAR, "def step():\n", "    return 2\n", "    # done\n",
                "end = True\n"],
    "README.md": ["# Stage 02\n", "New prose.\n", "More prose.\n"],
    "tools.py": ["TOOLS = {}\n"],
    "context.py": ["SYSTEM = 'hi'\n"],
}


@pytest.fixture
def two_stages(tmp_path, monkeypatch):
    for folder, files in (("01_old", OLD), ("02_new", NEW)):
        (tmp_path / folder).mkdir()
        for name, lines in files.items():
            (tmp_path / folder / name).write_text("".join(lines), encoding="utf-8")
    monkeypatch.setattr(repo, "STAGES", tmp_path)
    monkeypatch.setenv("COLUMNS", "100")
    return tmp_path


def diff(capsys, *args) -> str:
    assert cli.main(["diff", *args]) == 0
    return capsys.readouterr().out


def test_header_counts_each_changed_file_code_first(two_stages, capsys):
    out = diff(capsys, "02", "--stat")
    header = [line.split() for line in out.splitlines()[1:4]]
    assert header[0][:3] == ["context.py", "+1", "-0"]  # code files by name, new file included
    assert header[1][:3] == ["loop.py", "+2", "-1"]  # `return 1` -> `return 2` plus `# done`
    assert header[2][:3] == ["README.md", "+3", "-2"]  # prose last, marked as hidden
    assert "--docs" in out.splitlines()[3]
    assert "tools.py" not in out  # identical files are not listed
    assert "code: 4 changed lines (+3 -1), blank lines not counted" in out
    assert "@@" not in out and "return 2" not in out  # --stat stops at the header


def test_code_only_by_default_with_short_context(two_stages, capsys):
    out = diff(capsys, "2")
    assert "+    return 2" in out and "-    return 1" in out
    assert out.index("context.py\n") < out.index("loop.py\n")
    assert "unchanged_5" not in out  # whole files are not context: three lines around a change
    assert "unchanged_19" in out
    assert "New prose." not in out  # README prose waits for --docs


def test_docs_adds_readmes_after_the_code(two_stages, capsys):
    out = diff(capsys, "01", "02", "--docs")
    assert "+New prose." in out and "-Old prose." in out
    assert out.index("+    return 2") < out.index("+New prose.")


def test_side_by_side_puts_old_and_new_on_one_row(two_stages, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "140")
    rows = diff(capsys, "02", "--side").splitlines()
    changed = next(row for row in rows if "return 1" in row)
    left, right = changed.split(" │ ")
    assert left.startswith("-") and "return 1" in left
    assert right.startswith("+") and "return 2" in right


def test_side_by_side_falls_back_on_a_narrow_terminal(two_stages, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    out = diff(capsys, "02", "--side")
    assert "needs a terminal at least 120 columns" in out
    assert "+    return 2" in out  # the unified diff instead


def test_identical_stages_say_so(two_stages, capsys):
    out = diff(capsys, "01", "01")
    assert "identical" in out


def test_blank_lines_are_not_counted_in_a_step():
    # the one measure of a step, in `tao diff`, the book and the READMEs' "Larger step"
    from tao.stage_diff import FileDiff

    change = FileDiff("loop.py", ["a\n", "b\n"], ["a\n", "\n", "c\n", "   \n"])
    assert change.counts() == (1, 1), "only `b` -> `c` is a change of code"


# ---------------------------------------------------------------- issue 32: a file that is
# not text (an editor's swap file, .DS_Store) is skipped, and said to be


def test_a_file_that_is_not_text_is_skipped_and_named(two_stages, capsys):
    (two_stages / "02_new" / ".loop.py.swp").write_bytes(b"b0VIM 9.0\x00\x00\xff\xfe" * 50)
    (two_stages / "02_new" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    out = diff(capsys, "02", "--docs")
    for name in (".loop.py.swp", "logo.png"):
        assert f"{name}" in out and "not text" in row_of(out, name)
    assert "+    return 2" in out  # the code diff as ever


def row_of(screen: str, name: str) -> str:
    """The one line of `screen` that names `name`."""
    lines = [line for line in screen.splitlines() if name in line]
    assert len(lines) == 1, screen
    return lines[0]
