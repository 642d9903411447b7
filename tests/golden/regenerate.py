"""Record each stage's `tao tour` demo as a golden transcript (tests/golden/NN_name.txt).

    uv run python tests/golden/regenerate.py          # every stage
    uv run python tests/golden/regenerate.py 05 07    # some stages

Stages 04-07 also have a French variant, NN_name.fr.txt on NN_name.fr.script.json: the
demo of `tao tour --lang fr`, through the same two steps.

Two steps per stage:
1. the demo runs once in-process on the offline model, and every reply the model gives
   is recorded as a script (NN_name.script.json, the TAO_SCRIPT format);
2. the stage then runs as a learner runs it (a subprocess) on that script, and what it
   prints becomes the transcript, exactly as shown.

tests/test_golden.py replays each script and compares the two after `normalised()` has
replaced what changes from run to run: UTC timestamps, seconds, and the padding and
bars whose length follows them.

The transcripts are what a stage README points to as "what you should see": review
their diff like code.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
sys.path.insert(0, str(GOLDEN.parent))  # tests/: helpers

from helpers import ROOT, run_stage, run_stage_process, stage_dir  # noqa: E402

from tao.repo import stages  # noqa: E402
from tao.stage_verbs import demo  # noqa: E402

WIDTH = "80"
FRENCH = ("04", "05", "06", "07")  # the stages with a French golden transcript too
# a fresh workspace (stages 11 on) is a new temporary folder each run
WORKSPACE = re.compile(r"\S*tao-workspace-[\w]{8}")
NOW = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00")
SECONDS = re.compile(r"\b\d+\.\d\d\b")  # durations and time offsets: 0.02 s, 1.00 →
# padding and bars whose length follows a time: one character stands for the run
# (stage 10's timeline bars: where a bar starts follows a time too, so a bar is just a bar)
RUNS = [(re.compile(r"\|[ █]+\|"), "|█|"), (re.compile(r"─{2,}"), "──"),
        (re.compile(r" {2,}"), "  "), (re.compile(r"█+"), "█")]


def normalised(text: str) -> str:
    """What changes between two runs of the same script, replaced by placeholders:
    UTC timestamps (`<now>`), seconds (`<t>`), a fresh workspace's folder (`<workspace>`),
    and the padding around them."""
    text = SECONDS.sub("<t>", NOW.sub("<now>", WORKSPACE.sub("<workspace>", text)))
    for pattern, one in RUNS:
        text = pattern.sub(one, text)
    return text


def golden_name(folder: str, lang: str = "en") -> str:
    """The file name both files of a transcript begin with: NN_name, or NN_name.fr."""
    return folder if lang == "en" else f"{folder}.{lang}"


def variants(folders) -> list[tuple[str, str]]:
    """(folder name, language) of every golden transcript: each stage in English, and
    the FRENCH ones in French."""
    return [(folder, lang) for folder in folders
            for lang in ("en", "fr") if lang == "en" or folder[:2] in FRENCH]


def record_script(number: str, lang: str = "en") -> list[dict]:
    """Run stage `number`'s demo in `lang` on the offline model; return its replies, in
    order."""
    import shared.stage_main as stage_main

    args, stdin = demo(number, lang)
    replies: list[dict] = []
    real_build = stage_main.build_provider

    def recording(*a, **kw):
        provider = real_build(*a, **kw)
        turn = provider.turn

        def recorded(*turn_args):
            for item in turn(*turn_args):
                if not isinstance(item, str):
                    replies.append(_as_entry(item))
                yield item

        provider.turn = recorded
        return provider

    stage_main.build_provider = recording  # what open_session builds the model with
    try:
        run_stage(number, *args, stdin=stdin, TAO_PROVIDER="offline", COLUMNS=WIDTH)
    finally:
        stage_main.build_provider = real_build
    return replies


def transcript(number: str, script: Path, run=run_stage_process, lang: str = "en") -> str:
    """What the stage's demo in `lang` prints on `script` (exit code, stdout, stderr),
    exactly as shown; `run` is a real process by default, as the learner runs it."""
    args, stdin = demo(number, lang)
    done = run(number, *args, stdin=stdin, TAO_PROVIDER="scripted", TAO_SCRIPT=str(script),
               COLUMNS=WIDTH)
    return f"$ exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def regenerate(number: str, lang: str = "en") -> Path:
    """Write NN_name.script.json and NN_name.txt (NN_name.fr.* in French) for one stage;
    return the transcript. A file whose content differs only in times is left as it is,
    so the diff to review holds only real changes."""
    name = golden_name(stage_dir(number).name, lang)
    script = GOLDEN / f"{name}.script.json"
    _write_if_changed(script, json.dumps(record_script(number, lang), indent=1,
                                         ensure_ascii=False) + "\n")
    out = GOLDEN / f"{name}.txt"
    _write_if_changed(out, transcript(number, script, lang=lang))
    return out


def _write_if_changed(path: Path, text: str) -> None:
    """Write `text` unless `path` already holds the same up to times and timestamps."""
    if path.exists() and normalised(path.read_text(encoding="utf-8")) == normalised(text):
        return
    path.write_text(text, encoding="utf-8")


def _as_entry(reply) -> dict:
    """A Reply in the TAO_SCRIPT format (timestamps in text kept: the test normalises)."""
    entry: dict = {"text": reply.text, "stop_reason": reply.stop_reason}
    if reply.tool_calls:
        entry["tool_calls"] = [{"id": c.id, "name": c.name, "args": c.args}
                               for c in reply.tool_calls]
    if reply.usage:
        entry["usage"] = dict(reply.usage)
    return entry


if __name__ == "__main__":
    wanted = [number.zfill(2) for number in sys.argv[1:]] or list(stages())
    for folder, lang in variants([stage_dir(number).name for number in wanted]):
        print(f"stage {folder[:2]}: {regenerate(folder[:2], lang).relative_to(ROOT)}")
