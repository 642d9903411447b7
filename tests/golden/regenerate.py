"""Record each stage's `tao tour` demo as a golden transcript (tests/golden/NN_name.txt).

    uv run python tests/golden/regenerate.py          # every stage
    uv run python tests/golden/regenerate.py 05 07    # some stages

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

from shared.cli.repo import stages  # noqa: E402
from shared.cli.stage_verbs import DEMOS  # noqa: E402

WIDTH = "80"
NOW = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00")
SECONDS = re.compile(r"\b\d+\.\d\d\b")  # durations and time offsets: 0.02 s, 1.00 →
# padding and bars whose length follows a time: one character stands for the run
RUNS = [(re.compile(r"─{2,}"), "──"), (re.compile(r" {2,}"), "  "), (re.compile(r"█+"), "█")]


def normalised(text: str) -> str:
    """What changes between two runs of the same script, replaced by placeholders:
    UTC timestamps (`<now>`), seconds (`<t>`), and the padding around them."""
    text = SECONDS.sub("<t>", NOW.sub("<now>", text))
    for pattern, one in RUNS:
        text = pattern.sub(one, text)
    return text


def record_script(number: str) -> list[dict]:
    """Run stage `number`'s demo on the offline model; return its replies, in order."""
    import shared.providers as providers

    args, stdin = DEMOS[number]
    replies: list[dict] = []
    real_get = providers.get_provider

    def recording(*a, **kw):
        provider = real_get(*a, **kw)
        turn = provider.turn

        def recorded(*turn_args):
            for item in turn(*turn_args):
                if not isinstance(item, str):
                    replies.append(_as_entry(item))
                yield item

        provider.turn = recorded
        return provider

    providers.get_provider = recording  # the stage imports it when it runs, below
    try:
        run_stage(number, *args, stdin=stdin, TAO_PROVIDER="offline", COLUMNS=WIDTH)
    finally:
        providers.get_provider = real_get
    return replies


def transcript(number: str, script: Path, run=run_stage_process) -> str:
    """What the stage's demo prints on `script` (exit code, stdout, stderr), exactly as
    shown; `run` is a real process by default, as the learner runs it."""
    args, stdin = DEMOS[number]
    done = run(number, *args, stdin=stdin, TAO_PROVIDER="scripted", TAO_SCRIPT=str(script),
               COLUMNS=WIDTH)
    return f"$ exit {done.returncode}\n--- stdout\n{done.stdout}--- stderr\n{done.stderr}"


def regenerate(number: str) -> Path:
    """Write NN_name.script.json and NN_name.txt for one stage; return the transcript.
    A file whose content differs only in times is left as it is, so the diff to review
    holds only real changes."""
    folder = stage_dir(number)
    script = GOLDEN / f"{folder.name}.script.json"
    _write_if_changed(script, json.dumps(record_script(number), indent=1,
                                         ensure_ascii=False) + "\n")
    out = GOLDEN / f"{folder.name}.txt"
    _write_if_changed(out, transcript(number, script))
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
    wanted = sys.argv[1:] or list(stages())
    for number in wanted:
        print(f"stage {number}: {regenerate(number.zfill(2)).relative_to(ROOT)}")
