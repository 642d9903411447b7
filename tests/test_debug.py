"""`tao debug N`: a stage's loop paused before each model request and each tool call.

The pauses are driven on a pseudo-terminal, as a learner types them (line editing on,
Ctrl-C a keystroke), on stages 04, 07 and 10 with the offline model: a pause, an edit of
what the model reads that changes its answer, a reply by hand, a skipped call, Ctrl-C
and the end of input at a pause. The rest (saving, refusing, what the seams see) runs in
this process with piped input, which is quicker and shows the same screen.
"""

from __future__ import annotations

import json
import re
import sys

import pytest
from helpers import readme_section, run_tao, stage_dir

from shared.providers.replay import ReplayProvider
from shared.stage_main import AROUND

TAO = [sys.executable, "-m", "tao", "debug"]

# per stage: what to ask, and how the model's answer changes when the learner changes what
# it reads. Stage 04 never sends a tool's result back (stage 05 does): there the learner
# injects the result a stage 05 would send, and the model answers from it.
STAGES = {
    "04": {"ask": "what time is it?", "call": "now",
           "change": "inject tool now teatime", "before": '{"tool": "now"',
           "after": "It is teatime (UTC), according to the now tool."},
    "07": {"ask": "what is 12 * 7?", "call": "calculator",
           "change": "edit 3 85", "before": "The answer is 84.", "after": "The answer is 85."},
    "10": {"ask": "what is 12 * 7?", "call": "calculator",
           "change": "edit 3 85", "before": "The answer is 84.", "after": "The answer is 85."},
}


class Session:
    """A `tao debug` session on a pseudo-terminal, typed one answer per prompt."""

    def __init__(self, terminal, stage: str, **env):
        self.term = terminal(argv=[*TAO, stage], **env)
        self.seen = 0  # where the screen was read up to

    def at(self, prompt: bytes, then: str = "") -> str:
        """Wait for `prompt` past what was read; type `then` and Enter; what came between."""
        shown = self.term.wait_for(prompt, after=self.seen)
        end = shown.index(prompt, self.seen) + len(prompt)
        between, self.seen = shown[self.seen:end].decode("utf-8", "replace"), end
        if then is not None:
            self.term.type(then + "\r")
        return between


def flat(screen: str) -> str:
    """The screen's text on one line: no colours, boxes or line breaks."""
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\x01\x02\r]", "", screen)
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", screen).split())


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stage", sorted(STAGES))
def test_an_edit_at_a_pause_changes_what_the_offline_model_answers(terminal, stage):
    case, debug = STAGES[stage], Session(terminal, stage)
    debug.at(b"you> ", case["ask"])
    assert "before request 1 to the model" in flat(debug.at(b"debug> ", "show"))
    listed = flat(debug.at(b"debug> ", None))
    assert f"1 user {case['ask']}" in listed  # the messages about to be sent, numbered
    if stage != "04":  # step to the call, over it, to the request that carries its result
        debug.term.type("\r")
        assert f"before the tool call {case['call']}" in flat(debug.at(b"debug> ", ""))
        assert "before request 2" in flat(debug.at(b"debug> ", None))
    debug.term.type(case["change"] + "\r")
    mark = flat(debug.at(b"debug> ", ""))
    assert "yours · " in mark  # the change shows on the trace, as the learner's
    answer = flat(debug.at(b"you> ", ""))
    assert case["after"] in answer and case["before"] not in answer
    assert debug.term.exit_code() == 0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_reply_by_hand_and_a_skipped_call(terminal, stage):
    case, debug = STAGES[stage], Session(terminal, stage)
    debug.at(b"you> ", "hello")
    debug.at(b"debug> ", "reply Written by hand, not by the model.")
    replied = flat(debug.at(b"you> ", case["ask"]))
    assert "yours · reply to request 1, written by you: the model was not asked" in replied
    assert "tao Written by hand, not by the model." in replied
    debug.at(b"debug> ", "")  # the request goes to the model, which calls a tool
    assert f"before the tool call {case['call']}" in flat(debug.at(b"debug> ", "skip"))
    skipped = flat(debug.at(b"you> " if stage == "04" else b"debug> ", ""))
    assert re.search(rf"observe · {case['call']}.* skipped by the user", skipped), skipped
    if stage != "04":  # the model reads "skipped by the user", and answers
        debug.at(b"you> ", "")
    assert debug.term.exit_code() == 0


@pytest.mark.timeout(60)
@pytest.mark.parametrize("stage", sorted(STAGES))
@pytest.mark.parametrize(("key", "code", "said"), [
    ("\x03", 130, "Ctrl-C at a pause: the session ends here; nothing more was sent or run"),
    ("\x04", 0, "end of input at a pause: the session ends here; nothing more was sent or run"),
])
def test_ctrl_c_or_the_end_of_input_at_a_pause_ends_the_session(terminal, stage, key, code,
                                                                 said):
    case, debug = STAGES[stage], Session(terminal, stage)
    debug.at(b"you> ", case["ask"])
    debug.at(b"debug> ", None)
    debug.term.type(key)
    assert debug.term.exit_code() == code
    screen = flat(debug.term.shown[debug.seen:].decode("utf-8", "replace"))
    assert said in screen and "Traceback" not in screen
    assert "iteration 2" not in screen and "act ·" not in screen  # nothing more ran


# ---------------------------------------------------------------- in this process, piped


def debug(stage: str, typed: str, *args, **env):
    """`tao debug STAGE ARGS` with `typed` as its input, in this process; its screen
    (stdout) on one line, as `flat` gives it."""
    done = run_tao("debug", stage, *args, stdin=typed, **env)
    done.stdout = flat(done.stdout)
    return done


def test_a_saved_session_replays_on_the_stage_alone(tmp_path):
    saved = tmp_path / "what-if.json"
    # saved at the next pause: the next turn's first request, not yet answered, is not in it
    done = debug("07", f"what is 12 * 7?\n\n\nedit 3 85\n\nthanks\nsave {saved}\n\n")
    assert done.returncode == 0 and "The answer is 85." in done.stdout, done.stderr
    entries = json.loads(saved.read_text(encoding="utf-8"))
    assert [e["request"].get("yours") for e in entries] == [None, ["message 3 edited"]]
    # the stage's own requests are kept: the model's reply to the edited one replays on them
    assert entries[1]["request"]["messages"][2]["content"] == "84"
    again = run_tao("replay", str(saved))
    assert again.returncode == 0 and "The answer is 85." in again.stdout, again.stderr
    script = ReplayProvider.from_recording(str(saved))  # TAO_SCRIPT reads the same entries
    assert [reply.text for reply in script.replies] == ["I'll use calculator.",
                                                        "The answer is 85."]


@pytest.mark.parametrize("there", [
    "a learner's notes\n",
    '[{"request": {"messages": []}, "text": "a --record recording, not ours"}]',
])
def test_save_never_overwrites_a_file_it_did_not_save(tmp_path, there):
    precious = tmp_path / "notes.json"
    precious.write_text(there, encoding="utf-8")
    done = debug("07", f"hi\n\nyo\nsave {precious}\n\n\n")
    assert "exists and is no script tao debug saved" in done.stdout
    assert precious.read_text(encoding="utf-8") == there and done.returncode == 0
    assert not list(tmp_path.glob(".*part"))  # nothing half-written beside it


def test_save_overwrites_its_own_script_and_says_what_is_wrong_in_one_line(tmp_path):
    mine = tmp_path / "mine.json"
    typed = (f"hi\n\nyo\nsave {tmp_path}\nsave {tmp_path}/no/such.json\nsave\n"
             f"save {mine}\n\nagain\nsave {mine}\n\n\n")
    done = debug("07", typed)
    assert "is a folder: name a file" in done.stdout
    assert "there is no folder" in done.stdout and "save where? save FILE.json" in done.stdout
    assert done.stdout.count("saved the session so far") == 2  # then again, over itself
    assert len(json.loads(mine.read_text(encoding="utf-8"))) == 2


def test_an_editor_edits_the_message_as_json(tmp_path):
    editor = tmp_path / "editor.py"  # what a learner's $EDITOR does: rewrite the file
    editor.write_text("import json, sys\nm = json.load(open(sys.argv[1]))\n"
                      "m['content'] = '85'\njson.dump(m, open(sys.argv[1], 'w'))\n")
    done = debug("07", "what is 12 * 7?\n\n\nedit 3\n\n\n",
                 EDITOR=f"{sys.executable} {editor}")
    assert "yours · message 3 edited" in done.stdout and "The answer is 85." in done.stdout


def test_inline_edits_of_a_message_and_of_a_calls_arguments():
    typed = 'what is 12 * 7?\n\nedit\n{"expression": "2 * 3"}\n\nshow\n\n\n\n\n'
    done = debug("07", typed, EDITOR="")
    assert "calculator now takes your arguments, in the conversation too" in done.stdout
    assert re.search(r"observe · calculator · \S+ 6 ", done.stdout)  # it ran with 2 * 3
    # the next request holds the call as edited, and the model, not asked for 2 * 3, asks again
    assert '2 assistant I\'ll use calculator. → calculator {"expression": "2 * 3"}' in done.stdout
    assert "The answer is 84." in done.stdout
    edited = debug("07", "what is 12 * 7?\n\n\nedit 3\nforty\n\n\n", EDITOR="")
    assert "message 3 edited" in edited.stdout and "The answer is forty." in edited.stdout


@pytest.mark.parametrize(("typed", "said"), [
    ("drop 9", "no message 9: there are 1 (show lists them)"),
    ("edit 1 {\"role\": \"robot\"}", "that is no message"),
    ("edit 1\n{\"role\": \"user\", \"content\": 3}", "a message's content must be text"),
    ("skip", "'skip' is no command at this pause"),
    ("reply", "reply what?"),
    ("inject tool now", "inject what?"),
])
def test_a_wrong_command_at_a_pause_is_one_line_and_the_pause_goes_on(typed, said):
    done = debug("07", f"hi\n{typed}\n\n\n", EDITOR="")
    assert said in done.stdout and done.returncode == 0
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.count("before request 1") == 1  # still the same pause


def test_continue_runs_to_the_next_turn_and_a_new_line_pauses_again():
    done = debug("07", "what is 12 * 7?\ncontinue\nwhat is 2 + 2?\n\n\n\n\n")
    assert "The answer is 84." in done.stdout and "before the tool call" in done.stdout
    assert "before request 2" not in done.stdout  # it ran unpaused, to the turn's end
    assert "before request 3" in done.stdout  # a new line typed: the pauses are back


def test_drop_and_inject_reach_the_model_and_stay_for_the_turn():
    done = debug("05", "what time is it?\ninject tool now teatime\n\n\n")
    assert "It is teatime (UTC), according to the now tool." in done.stdout
    dropped = debug("03", "hi\n\nagain\ndrop 1\ndrop 1\nshow\n\n\n")
    assert dropped.stdout.count("dropped: the model will not see it") == 2
    assert "1 user again" in dropped.stdout


def test_every_stage_with_tools_pauses_at_its_calls_and_a_skip_reaches_the_model():
    for stage in ("05", "06", "08", "09", "11", "12", "13", "14"):
        done = debug(stage, "what time is it?\n\nskip\n\n\n\n")
        assert done.returncode == 0, (stage, done.stderr)
        assert "before the tool call now" in done.stdout, stage
        assert "skipped by the user" in done.stdout, stage


def test_stages_without_tools_pause_before_their_requests_only():
    done = debug("01", "hi\nreply by hand\n")
    assert "before request 1" in done.stdout and "tao by hand" in done.stdout
    assert done.returncode == 0


def test_at_stage_13_the_approver_judges_the_arguments_the_learner_gave(tmp_path):
    # the pause comes before the approval seam: an edit that leads out of the workspace
    # is an escalation the approver is asked about (and, with no one at a terminal, refused)
    typed = ('write hello to notes.txt\n\nedit {"path": "../outside.txt", "content": "hi"}'
             "\n\n\n\n\n\n")
    done = debug("13", typed, "--mode", "auto-edit", "--workspace", str(tmp_path))
    assert "write_file now takes your arguments" in done.stdout
    assert 'escalation in mode auto-edit: write_file {"path": "../outside.txt"' in done.stdout
    assert not (tmp_path.parent / "outside.txt").exists()


def test_the_seam_is_left_as_it_was():
    debug("02", "hi\n\n\n")
    assert AROUND == []


@pytest.mark.parametrize("page", ["04", "07", "10"])
def test_each_readmes_debugging_session_runs_as_shown(page):
    # the French twin holds the same block byte for byte (tests/test_readme_twins.py)
    section = readme_section(stage_dir(page) / "README.md", "### Debug it")
    shown_block = re.search(r"```text\n\$ uv run tao debug (\d+)\n(.*?)```", section, re.S)
    assert shown_block and shown_block.group(1) == page, "the README shows no session"
    lines = shown_block.group(2).splitlines()
    typed = [line.split(">", 1)[1].strip() for line in lines
             if line.startswith(("you>", "debug>"))]
    done = debug(page, "\n".join(typed) + "\n")
    assert done.returncode == 0, done.stderr
    for line in lines:
        if not line.startswith(("you>", "debug>")):
            assert flat(line) in done.stdout, line
    assert len(typed) >= 4 and any(word.startswith("debug>") for word in lines)
