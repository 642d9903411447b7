"""Each stage's tour demo, replayed on its recorded script, prints its golden transcript
(stages 04-07 in French too: `tao tour --lang fr`'s demo, through the same code path).

A failure shows the difference. If the change is meant (a new trace line, a reworded
message), regenerate and review the transcripts' diff like code:

    uv run python tests/golden/regenerate.py
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

import pytest
from helpers import STAGE_DIRS, run_stage

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from regenerate import GOLDEN, golden_name, normalised, transcript, variants  # noqa: E402


@pytest.mark.parametrize(("folder", "lang"), variants([p.name for p in STAGE_DIRS]),
                         ids=lambda v: v)
def test_the_demo_prints_its_golden_transcript(folder, lang):
    if folder[:2] in ("12", "13", "14"):  # their shells ran in bwrap: another wall differs
        from shared.sandbox.bwrap import bwrap_works

        if bwrap_works():
            pytest.skip(f"stage 12's transcript was recorded inside bubblewrap: {bwrap_works()}")
    name = golden_name(folder, lang)
    golden, script = GOLDEN / f"{name}.txt", GOLDEN / f"{name}.script.json"
    assert golden.exists() and script.exists(), (
        f"{name} has no golden transcript: run `uv run python tests/golden/regenerate.py"
        f" {folder[:2]}` and review what it wrote")
    expected = normalised(golden.read_text(encoding="utf-8"))
    # in this process, for speed; the golden file was written by a real process, so a
    # difference between the two ways of running would show here too
    got = normalised(transcript(folder[:2], script, run=run_stage, lang=lang))
    if got != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), got.splitlines(True),
                                            f"golden/{golden.name}", "this run"))
        pytest.fail(f"stage {name} printed something else:\n{diff}\nIf the change is "
                    "meant: uv run python tests/golden/regenerate.py, then review its diff")


def test_the_french_transcripts_are_answered_in_french():
    # the French demo really is French: each reply of its script is, by the offline
    # model's own reading of the language (a transcript recorded in English would not be)
    from shared.providers.offline.words import language

    told = []
    for folder, lang in variants([p.name for p in STAGE_DIRS]):
        if lang == "fr":
            script = json.loads((GOLDEN / f"{golden_name(folder, lang)}.script.json")
                                .read_text(encoding="utf-8"))
            told += [entry["text"] for entry in script if entry["text"].strip()
                     and not entry["text"].lstrip().startswith("{")]  # JSON lines: no language
    assert len(told) >= 4 and all(language(text) == "fr" for text in told), told


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
