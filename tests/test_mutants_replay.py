"""`tao replay`'s plan and its in-process stage run: what mutation runs asked of
tao/replay.py (benchmarks/mutation.py)."""

from __future__ import annotations

import io
import json
import sys

from helpers import stage_dir

from tao import replay


def recording(tmp_path, stage="08", argv=("--budget", "500"), typed=("hi",)):
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"request": {"session": {"stage": stage, "argv": list(argv)},
                                             "typed": list(typed), "messages": []},
                                 "text": "ok"}]), encoding="utf-8")
    return str(path)


def test_a_stage_keeps_its_own_options_only_when_it_is_the_stage_recorded(tmp_path):
    path = recording(tmp_path)
    folder, argv, stdin = replay.replay_plan(path)
    assert folder == stage_dir("08") and argv[2:] == ["--budget", "500"]
    assert stdin == "hi\n\n", "the lines typed, then an empty line that ends the session"
    same, argv, _ = replay.replay_plan(path, "8")  # the same stage, named another way
    assert same == stage_dir("08") and argv[2:] == ["--budget", "500"]
    other, argv, _ = replay.replay_plan(path, "07")
    assert other == stage_dir("07") and argv == ["--provider", f"replay:{path}"], (
        "stage 08's --budget means nothing to stage 07: replayed elsewhere, it is dropped")


def test_the_stage_run_here_finds_its_own_modules_first_and_gives_everything_back(tmp_path):
    folder = tmp_path / "stage"
    folder.mkdir()
    (folder / "loop.py").write_text("WHERE = 'the stage'\n")
    (folder / "main.py").write_text(
        "import sys\nimport loop\nprint(loop.WHERE, sys.argv[1:], sys.stdin.readline().strip())\n"
        "raise SystemExit(3)\n")
    shadow = tmp_path / "elsewhere"  # a `loop` earlier on the path must not win
    shadow.mkdir()
    (shadow / "loop.py").write_text("WHERE = 'somewhere else'\n")
    before = sys.argv, sys.stdin, list(sys.path)
    sys.path.insert(0, str(shadow))
    out, saved_out = io.StringIO(), sys.stdout
    try:
        sys.stdout = out
        code = replay.run_stage_here(folder, ["--x"], "typed\n")
    finally:
        sys.stdout = saved_out
        sys.path.remove(str(shadow))
    assert code == 3
    assert out.getvalue().strip() == "the stage ['--x'] typed"
    assert (sys.argv, sys.stdin, sys.path) == before, "argv, stdin and the path come back"
    assert "loop" not in sys.modules
