"""Each stage's tour demo, replayed on its recorded script, prints its golden transcript.

A failure shows the difference. If the change is meant (a new trace line, a reworded
message), regenerate and review the transcripts' diff like code:

    uv run python tests/golden/regenerate.py
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path

import pytest
from helpers import STAGE_DIRS, run_stage

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from regenerate import GOLDEN, normalised, transcript  # noqa: E402


@pytest.mark.parametrize("folder", STAGE_DIRS, ids=lambda p: p.name)
def test_the_demo_prints_its_golden_transcript(folder):
    golden, script = GOLDEN / f"{folder.name}.txt", GOLDEN / f"{folder.name}.script.json"
    assert golden.exists() and script.exists(), (
        f"{folder.name} has no golden transcript: run `uv run python tests/golden/regenerate.py"
        f" {folder.name[:2]}` and review what it wrote")
    expected = normalised(golden.read_text(encoding="utf-8"))
    # in this process, for speed; the golden file was written by a real process, so a
    # difference between the two ways of running would show here too
    got = normalised(transcript(folder.name[:2], script, run=run_stage))
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                            f"golden/{golden.name}", "this run"))
        pytest.fail(f"stage {folder.name} printed something else:\n{diff}\nIf the change is "
                    "meant: uv run python tests/golden/regenerate.py, then review its diff")


def test_normalising_keeps_what_matters():
    shown = "│ 2026-11-30T13:39:56.096630+00:00     │\n╰──── 0.02 s ─╯\ntao  It has 9 words."
    same = "│ 2026-01-01T00:00:00.5+00:00        │\n╰───── 10.25 s ─╯\ntao  It has 9 words."
    assert normalised(shown) == normalised(same)
    assert normalised(shown) != normalised(shown.replace("9 words", "8 words"))


def test_normalising_takes_a_timeline_bar_as_a_bar_wherever_it_starts():
    early = "       now  0.00 →  0.00 s |█                             |"
    late = "       now  0.01 →  0.02 s |  █                           |"
    assert normalised(early) == normalised(late)
    assert normalised(early) != normalised(early.replace("now", "fetch"))
