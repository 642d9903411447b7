"""Stage 11's file tools, and the path check they share (stages 12-14 keep both as they are,
and the same tests hold each copy).

Every case builds a workspace in a temporary folder, with a canary file beside it: a
file outside that no tool may read or change. The tools are called as the loop calls
them, `tool.run(args)`, after pointing the stage's `workspace.ROOT` at the folder.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from helpers import load_stage, run_stage

from shared.providers import ToolCall

STAGES = {number: load_stage(number, "tools") for number in ("11", "12", "13", "14")}
CANARY = "canary: this line lives outside the workspace"


@pytest.fixture(params=sorted(STAGES), ids=lambda n: f"stage{n}")
def stage(request, tmp_path, monkeypatch):
    """Stage 11's tools (or a later copy's) on a fresh workspace `ws` beside `ws2` and a canary."""
    tools = STAGES[request.param]
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text("[core]\n", encoding="utf-8")
    (root / "notes.txt").write_text("alpha\nbeta\ngamma\n", encoding="utf-8")
    (tmp_path / "ws2").mkdir()
    for folder in (tmp_path, tmp_path / "ws2"):
        (folder / "canary.txt").write_text(CANARY, encoding="utf-8")
    (root / "out").symlink_to(tmp_path)  # a folder inside that leads outside
    (root / "peek.txt").symlink_to(tmp_path / "canary.txt")
    monkeypatch.setattr(tools.workspace, "ROOT", root.resolve())
    tools.root, tools.outside = root, tmp_path
    return tools


def use(tools, name: str, **args) -> str:
    """What the loop would put in the observation: the result, or `Error: ...`."""
    try:
        return tools.find_tool(name).run(args)
    except Exception as exc:  # the loop's run_tool does the same
        return f"Error: {type(exc).__name__}: {exc}"


def outside_untouched(tools):
    """Nothing beside the workspace was changed or added: the canaries alone, as they were."""
    found = {}
    for folder, subfolders, names in os.walk(tools.outside):  # follows no symlink
        subfolders[:] = [d for d in subfolders if Path(folder, d) != tools.root]
        found.update({os.path.relpath(os.path.join(folder, n), tools.outside):
                      Path(folder, n).read_text(encoding="utf-8") for n in names})
    assert found == {"canary.txt": CANARY, "ws2/canary.txt": CANARY}, found


# (path the model sends, why it must be refused)
LEAVING = [
    ("../canary.txt", "`..` climbs out"),
    ("src/../../canary.txt", "`..` in the middle"),
    ("{outside}/canary.txt", "an absolute path outside"),
    ("../ws2/canary.txt", "a sibling whose name starts like the workspace's"),
    ("{outside}/ws2/canary.txt", "the same sibling, absolute"),
    ("out/canary.txt", "through a symlinked folder"),
    ("peek.txt", "a symlink inside that points out"),
    ("out/new.txt", "a file not there yet, under a symlinked folder"),
]


@pytest.mark.parametrize(("path", "why"), LEAVING, ids=[why for _, why in LEAVING])
def test_no_path_leaves_the_workspace_for_any_tool(stage, path, why):
    path = path.format(outside=stage.outside)
    for name, args in [("read_file", {}), ("list_dir", {}), ("grep", {"pattern": "canary"}),
                       ("write_file", {"content": "pwned"}),
                       ("edit_file", {"old": "canary", "new": "pwned"})]:
        result = use(stage, name, path=path, **args)
        assert result.startswith("Error: Refused:") and "outside the workspace" in result, (
            f"{name}({path!r}): {why}, yet: {result}")
        assert "canary:" not in result
    outside_untouched(stage)


@pytest.mark.parametrize("path", [".git/config", ".git/hooks/pre-commit", ".tao/audit.log",
                                  "src/../.git/config", "src/.git/x"])
def test_git_and_tao_are_readable_and_never_writable(stage, path):
    for name, args in [("write_file", {"content": "x"}), ("edit_file", {"old": "[", "new": "x"})]:
        result = use(stage, name, path=path, **args)
        assert result.startswith("Error: Refused:") and "never written" in result, result
    assert (stage.root / ".git" / "config").read_text(encoding="utf-8") == "[core]\n"
    assert not (stage.root / ".git" / "hooks" / "pre-commit").exists()
    assert not (stage.root / ".tao").exists()
    assert use(stage, "read_file", path=".git/config") == "   1  [core]"


def test_paths_that_stay_inside_work_even_when_spelled_oddly(stage):
    absolute = str(stage.root / "notes.txt")
    for path in ("notes.txt", "./notes.txt", "src/../notes.txt", absolute):
        assert use(stage, "read_file", path=path).splitlines()[1] == "   2  beta", path
    assert use(stage, "write_file", path="new/deep/file.txt", content="hi") == (
        "wrote 2 characters to new/deep/file.txt")
    assert (stage.root / "new" / "deep" / "file.txt").read_text(encoding="utf-8") == "hi"
    (stage.root / "inner").symlink_to(stage.root / "src")  # a symlink that stays inside
    assert use(stage, "write_file", path="inner/x.py", content="x") == (
        "wrote 1 characters to inner/x.py")
    assert (stage.root / "src" / "x.py").exists()
    outside_untouched(stage)


@pytest.mark.parametrize("path", ["", "   ", None, 3, ["notes.txt"]])
def test_a_path_that_is_no_path_is_refused_in_words(stage, path):
    result = use(stage, "read_file", path=path)
    assert result.startswith("Error: Refused: name a path"), result


def test_a_symlink_loop_is_refused_not_a_crash(stage):
    (stage.root / "loop").symlink_to(stage.root / "loop")
    assert use(stage, "read_file", path="loop/x").startswith("Error: Refused:")


def test_read_file_numbers_lines_takes_a_range_and_says_where_it_cut(stage):
    assert use(stage, "read_file", path="notes.txt", start=2, end=3) == (
        "   2  beta\n   3  gamma")
    assert use(stage, "read_file", path="notes.txt", start=9) == (
        "(no lines there: the file has 3)")
    long = "".join(f"line {n} " + "x" * 60 + "\n" for n in range(1, 101))
    (stage.root / "long.txt").write_text(long, encoding="utf-8")
    shown = use(stage, "read_file", path="long.txt", start=5)
    body, note = shown.rsplit("\n", 1)
    assert len(body) == stage.MAX_READ and body.startswith("   5  line 5 ")
    cut_at = int(note.removeprefix(f"[cut at {stage.MAX_READ} characters: read on from line "
                                   ).rstrip("]"))
    whole = [f"{n:>4}  line {n} " + "x" * 60 for n in (cut_at - 1, cut_at)]
    assert whole[0] in body and whole[1] not in body, (
        "read on from the line the cut fell in: the one before it is whole, it is not")


def test_grep_finds_lines_with_their_place_and_caps_the_hits(stage):
    (stage.root / "src" / "a.py").write_text("x = 1  # TODO\ny = 2\n# TODO: z\n",
                                             encoding="utf-8")
    (stage.root / ".git" / "TODO").write_text("TODO in git\n", encoding="utf-8")
    assert use(stage, "grep", pattern="TODO") == "src/a.py:1: x = 1  # TODO\nsrc/a.py:3: # TODO: z"
    assert use(stage, "grep", pattern="beta", path="notes.txt") == "notes.txt:2: beta"
    assert use(stage, "grep", pattern="nowhere") == "(no line matches)"
    many = "".join(f"hit {n}\n" for n in range(stage.MAX_HITS + 7))
    (stage.root / "many.txt").write_text(many, encoding="utf-8")
    lines = use(stage, "grep", pattern="hit", path="many.txt").splitlines()
    assert len(lines) == stage.MAX_HITS + 1 and lines[-1] == "[7 more matching lines not shown]"
    assert use(stage, "grep", pattern="(").startswith("Error: ")  # not a pattern: said so
    assert "canary" not in use(stage, "grep", pattern="canary")  # the symlinks are not followed


def test_list_dir_marks_folders_and_follows_no_symlink(stage):
    assert use(stage, "list_dir").splitlines() == [
        ".git/", "notes.txt", "out", "peek.txt", "src/"]
    assert use(stage, "list_dir", path="src") == "(an empty folder)"


@pytest.mark.parametrize(("text", "old", "found"), [
    ("a = 1\nb = 1\n", "= 1", 2),  # two: which one?
    ("a = 1\n", "= 2", 0),  # none: the model misremembers
    ("aaa", "aa", 2),  # overlapping matches are two, not str.count's one
    ("abc", "", 0),  # nothing to look for
])
def test_edit_file_refuses_anything_but_exactly_one_match_and_says_how_many(
        stage, text, old, found):
    (stage.root / "f.py").write_text(text, encoding="utf-8")
    result = use(stage, "edit_file", path="f.py", old=old, new="X")
    assert result.startswith("Error: ValueError:") and f"occurs {found} times" in result, result
    assert (stage.root / "f.py").read_text(encoding="utf-8") == text, "the file must not change"


def test_edit_file_changes_the_one_match_and_keeps_line_endings(stage):
    (stage.root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    assert use(stage, "edit_file", path="win.txt", old="two", new="2") == (
        "edited win.txt: 1 replacement")
    assert (stage.root / "win.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"


def test_reads_run_together_and_writes_one_at_a_time_in_order(monkeypatch, tmp_path):
    # the stage's own tools, slowed down by a wrapper: two reads overlap, writes do not
    loop, tools = load_stage("11", "loop"), load_stage("11", "tools")
    monkeypatch.setattr(tools.workspace, "ROOT", tmp_path.resolve())
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    spans = {}

    def slowed(tool):
        def run(args):
            began = time.perf_counter()
            time.sleep(0.2)
            result = tool.run(args)
            spans.setdefault(tool.name, []).append((began, time.perf_counter()))
            return result
        return run

    wrapped = {t.name: t.__class__(t.name, t.description, t.schema, slowed(t))
               for t in tools.TOOLS}
    monkeypatch.setattr(loop, "find_tool", wrapped.get)
    reads = [ToolCall("1", "read_file", {"path": "a.txt"}), ToolCall("2", "list_dir", {})]
    asyncio.run(loop.run_calls(reads))
    (r1, r2), (l1, l2) = spans["read_file"][0], spans["list_dir"][0]
    assert r1 < l2 and l1 < r2, "read_file and list_dir should overlap in time"
    writes = [ToolCall("3", "write_file", {"path": "b.txt", "content": "1"}),
              ToolCall("4", "edit_file", {"path": "b.txt", "old": "1", "new": "2"}),
              ToolCall("5", "read_file", {"path": "b.txt"})]
    results = asyncio.run(loop.run_calls(writes))
    assert results[2] == "   1  2", f"the edit ran after the write, the read after both: {results}"
    assert spans["write_file"][0][1] <= spans["edit_file"][0][0], (
        "a reply with a write runs its calls one at a time, in order")


def test_a_fresh_workspace_is_a_copy_of_the_sample_and_goes_at_the_end(tmp_path):
    script = [{"tool_calls": [{"id": "c1", "name": "list_dir", "args": {}}]}, "listed"]
    done = run_stage("11", stdin="list\n", script=script, tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    where = next(line for line in done.stdout.splitlines() if line.startswith("workspace: "))
    folder = where.removeprefix("workspace: ").split(" (")[0]
    assert where.endswith("(a fresh copy of sample/)") and "tao-workspace-" in folder
    assert "wordfreq.py" in done.stdout and "test_wordfreq.py" in done.stdout
    assert not os.path.exists(folder), "the copy is removed when the session ends"


def test_workspace_option_names_the_folder_and_a_wrong_one_is_one_line(tmp_path):
    (tmp_path / "mine.txt").write_text("mine\n", encoding="utf-8")
    script = [{"tool_calls": [{"id": "c1", "name": "read_file", "args": {"path": "mine.txt"}}]},
              "ok"]
    done = run_stage("11", "--workspace", str(tmp_path), stdin="read\n", script=script,
                     tmp_path=tmp_path)
    assert f"workspace: {tmp_path.resolve()}" in done.stdout and "1  mine" in done.stdout
    assert (tmp_path / "mine.txt").exists(), "a folder of the user's own is kept"
    bad = run_stage("11", "--workspace", str(tmp_path / "nope"), stdin="")
    assert bad.returncode == 1 and bad.stderr.strip().splitlines()[-1] == (
        f"error: --workspace {str(tmp_path / 'nope')!r} is not a folder")
    assert "Traceback" not in bad.stderr


# what a learner types -> the call the offline model makes, with stage 11's tools and with
# stage 12's (which add `run`): chosen by the tools' names and descriptions, as always
ASKED = [
    ("List the files", ("list_dir", {})),
    ("Read README.md", ("read_file", {"path": "README.md"})),
    ("Read lines 3 to 5 of wordfreq.py", ("read_file",
                                          {"path": "wordfreq.py", "start": 3, "end": 5})),
    ("Find 'TODO'", ("grep", {"pattern": "TODO"})),
    ("Write 'hello there' to notes.txt", ("write_file",
                                          {"path": "notes.txt", "content": "hello there"})),
    ("Replace 'hello' by 'bye' in 'notes.txt'", ("edit_file",
                                                 {"path": "notes.txt", "old": "hello",
                                                  "new": "bye"})),
]


@pytest.mark.parametrize("number", ["11", "12"])
def test_the_offline_model_uses_the_file_tools_for_what_a_learner_types(number):
    from shared.providers import OfflineProvider

    tools = STAGES[number].TOOLS + ([STAGES[number].RUN] if number == "12" else [])
    asked = ASKED + ([("Run 'python3 -m unittest'", ("run", {"command": "python3 -m unittest"}))]
                     if number == "12" else [])
    for request, call in asked:
        reply = OfflineProvider().call([{"role": "user", "content": request}], "", tools)
        assert [(c.name, c.args) for c in reply.tool_calls] == [call], request
