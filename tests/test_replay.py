"""Record a session (`--record FILE`), replay it offline (`--provider replay:FILE`), and
see where a changed stage first sends something the recording never saw."""

from __future__ import annotations

import io
import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers import load_stage, run_stage, run_tao, stage_dir

from shared.providers import ProviderError, Reply, ScriptedProvider, ToolCall, build_provider
from shared.providers.replay import Divergence, Recorder, ReplayProvider, divergence
from shared.stage_main import connect
from shared.trace import Trace
from tao import replay as tao_replay
from tao.stage_verbs import DEMOS

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
from regenerate import normalised  # noqa: E402  (the golden transcripts' normalising)

QUESTIONS = "what is 17 * 23?\nhow many words are in 'one two three'?\n\n"


def screen(out: str) -> str:
    """A stage's plain trace without its timings (the one thing a replay cannot repeat)."""
    return re.sub(r"\d+\.\d+ s\b", "… s", out)


@pytest.mark.parametrize("stage", sorted(DEMOS))
def test_every_stage_records_its_tour_demo_and_replays_it_to_the_same_screen(stage, tmp_path):
    argv, stdin = DEMOS[stage]
    if stage == "10":  # its demo waits on stand-ins of 1 s: the clock, and no waiting
        stdin = "What time is it, and what is 2 + 2?\n"
    recording = tmp_path / "run.json"
    first = run_stage(stage, *argv, "--record", str(recording), stdin=stdin)
    assert first.returncode == 0, first.stderr
    assert json.loads(recording.read_text()), "a demo makes at least one model call"
    quirk = argv.index("--quirk") if "--quirk" in argv else len(argv)
    replayed = argv[:quirk] + argv[quirk + 2:]  # the recorded replies hold what it did
    again = run_stage(stage, *replayed, "--provider", f"replay:{recording}", stdin=stdin)
    assert again.returncode == 0 and "differs" not in again.stdout, again.stdout
    assert steady(again.stdout) == steady(first.stdout)


def steady(out: str) -> str:
    """The screen without what no replay repeats (the tools run again: a `now` reads the
    clock again), normalised as the golden transcripts are."""
    return normalised(out)


def test_a_different_question_stops_the_replay_at_the_message_that_changed(tmp_path):
    recording = tmp_path / "run.json"
    run_stage("07", "--record", str(recording), stdin=QUESTIONS)
    out = run_stage("07", "--provider", f"replay:{recording}",
                    stdin="what is 17 * 24?\n\n").stderr
    out = " ".join(out.split())  # as one line, however the screen wrapped it
    assert "request 1 differs at message 1" in out
    assert "17 * 23" in out and "17 * 24" in out  # both sides of the difference are shown


@pytest.mark.parametrize("stage", ["06", "09"])
def test_a_divergence_ends_the_session_there_and_reads_no_further(stage, tmp_path):
    """06 (text protocol) and 09 (native, and its loop turns a failed call into an answer):
    the tool result of request 2 is made to differ; the stage stops at once, exit 1, one
    line, and the next question is never read."""
    recording = tmp_path / "run.json"
    assert run_stage(stage, "--record", str(recording), stdin=QUESTIONS).returncode == 0
    entries = json.loads(recording.read_text())
    tool_message = entries[1]["request"]["messages"][-1]
    assert "391" in tool_message["content"], tool_message  # the calculator's 17 * 23
    tool_message["content"] = tool_message["content"].replace("391", "392")
    recording.write_text(json.dumps(entries))
    out = run_stage(stage, "--provider", f"replay:{recording}", stdin=QUESTIONS)
    said = " ".join(out.stderr.split())
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert said.count("differs") == 1 and "request 2 differs at message" in said, said
    assert "391" in said and "392" in said
    assert "how many words" not in out.stdout  # the second line was never read


def test_a_changed_loop_is_caught_on_the_request_it_first_changes(tmp_path):
    """Record stage 06, then replay it through stage 05's loop: the tools and the tool
    result wrapper are the same, the system prompt is not: request 1 says so."""
    loop06, loop05 = load_stage("06", "loop"), load_stage("05", "loop")
    recording = tmp_path / "run.json"
    model = Recorder(build_provider("offline"), recording)
    loop06.agent_step("what is 2 + 3?", [], model, loop06.build_agent_system())
    replay = ReplayProvider.from_recording(str(recording))
    with pytest.raises(Divergence, match=r"request 1 differs in its (system|options)"):
        loop05.agent_step("what is 2 + 3?", [], replay, loop05.build_agent_system())


def test_the_second_request_of_a_turn_is_checked_too(tmp_path):
    """A tool result that changes (here: a tool that now answers differently) is caught
    at the tool message of request 2."""
    loop = load_stage("07", "loop")
    recording = tmp_path / "run.json"
    loop.agent_step("what is 6 * 7?", [], Recorder(build_provider("offline"), recording), "")
    entries = json.loads(recording.read_text())
    entries[1]["request"]["messages"][2]["content"] = "41"  # as if the tool had said 41
    recording.write_text(json.dumps(entries))
    with pytest.raises(Divergence, match="request 2 differs at message 3") as caught:
        loop.agent_step("what is 6 * 7?", [], ReplayProvider.from_recording(str(recording)), "")
    assert '"41"' in str(caught.value) and '"42"' in str(caught.value)


def test_call_options_are_recorded_and_compared(tmp_path):
    model = Recorder(build_provider("offline"), tmp_path / "run.json")
    model.call([{"role": "user", "content": "hi"}], max_tokens=50, tool_choice="none",
               stop=["END"])
    entry = json.loads((tmp_path / "run.json").read_text())[0]
    assert entry["request"]["options"] == {"max_tokens": 50, "tool_choice": "none",
                                           "stop": ["END"]}
    replay = ReplayProvider.from_recording(str(tmp_path / "run.json"))
    with pytest.raises(Divergence, match="request 1 differs in its options"):
        replay.call([{"role": "user", "content": "hi"}], max_tokens=60, tool_choice="none",
                    stop=["END"])


def test_a_fault_and_broken_arguments_replay_as_they_happened(tmp_path):
    broken = Reply("", [ToolCall("c1", "calculator", {}, "the arguments were not valid JSON")],
                   "tool_use")
    fault = ProviderError("the server hung up", partial="Half a")
    model = Recorder(ScriptedProvider([broken, fault]), tmp_path / "run.json")
    messages = [{"role": "user", "content": "x"}]
    model.call(messages)
    with pytest.raises(ProviderError):
        model.call(messages)
    replay = ReplayProvider.from_recording(str(tmp_path / "run.json"))
    assert replay.call(messages).tool_calls[0].error == "the arguments were not valid JSON"
    with pytest.raises(ProviderError, match="hung up") as caught:
        replay.call(messages)
    assert caught.value.partial == "Half a"
    with pytest.raises(Divergence, match="recording ends after request 2"):
        replay.call(messages)


def test_a_missing_or_broken_recording_is_one_line(tmp_path):
    with pytest.raises(ProviderError, match="no such file"):
        build_provider(f"replay:{tmp_path / 'nothing.json'}")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ProviderError, match="not valid JSON"):
        build_provider(f"replay:{tmp_path / 'bad.json'}")
    out = run_stage("07", "--record", str(tmp_path / "no" / "run.json"), stdin="hi\n\n")
    assert out.returncode == 2 and "no folder" in out.stderr  # said before the session


@pytest.mark.sdk
@pytest.mark.parametrize("kind", ["anthropic", "openai"])
def test_no_key_reaches_a_recording_even_one_the_server_echoes(kind, tmp_path):
    from fake_api import FakeAPI, anthropic_stream, openai_stream

    from shared.providers.anthropic_provider import AnthropicProvider
    from shared.providers.openai_provider import OpenAIProvider

    key = "sk-test-echoed-0123456789"
    build = anthropic_stream if kind == "anthropic" else openai_stream
    cls = AnthropicProvider if kind == "anthropic" else OpenAIProvider
    recording = tmp_path / "run.json"
    with FakeAPI(kind) as api:
        api.queue(build(["Your key is sk-te", "st-echo", "ed-0123456789, ", "again " + key]))
        model = connect(cls(api_key=key, base_url=api.base_url), Trace(), record=recording)
        # the learner pastes the key into the conversation too
        model.call([{"role": "user", "content": f"my key is {key}, is it safe?"}])
    saved = recording.read_text()
    assert key not in saved and "0123456789" not in saved
    assert saved.count("[key hidden]") == 3, saved  # two in the reply, one in the request
    assert "authorization" not in saved.lower() and "x-api-key" not in saved.lower()


def test_recording_changes_nothing_on_screen_not_even_the_wire_view(tmp_path):
    plain = run_stage("06", "--show-wire", stdin=QUESTIONS)
    recorded = run_stage("06", "--show-wire", "--record", str(tmp_path / "run.json"),
                         stdin=QUESTIONS)
    assert screen(recorded.stdout) == screen(plain.stdout) and "request · POST" in plain.stdout
    assert len(json.loads((tmp_path / "run.json").read_text())) >= 2


def test_a_clock_reading_is_no_divergence_but_any_other_change_is():
    def request(content):
        return {"messages": [{"role": "tool", "content": content}], "system": "", "tools": [],
                "options": {}}
    was = request("2026-12-01T09:18:41.722036+00:00")
    assert divergence(was, request("2026-12-01T10:00:00.1+00:00")) == ""
    assert "at message 1" in divergence(was, request("2026-12-01 (a date only)"))
    assert "at message 1" in divergence(was, request("2026-12-01T09:18:41.722036+00:00 and"))


# ---------------------------------------------------------------- tao replay FILE


def test_tao_replay_runs_the_recorded_stage_with_its_options_and_typed_lines(tmp_path):
    """Stage 08 with --budget 300 and three questions: `tao replay` finds the stage, passes
    the budget again (a smaller history would differ at request 1 of a later turn) and
    types the questions, with nothing on stdin; the session ends as the learner's did,
    with an empty line."""
    argv, stdin = DEMOS["08"]
    recording = tmp_path / "run.json"
    first = run_stage("08", *argv, "--record", str(recording), stdin=stdin + "\n")
    again = run_tao("replay", str(recording))
    assert again.returncode == 0 and "differs" not in again.stderr, again.stderr
    assert steady(again.stdout) == steady(first.stdout)
    session = json.loads(recording.read_text())[0]["request"]["session"]
    assert session == {"stage": "08", "argv": ["--budget=300"]}  # --record is not kept


def test_tao_replay_of_a_session_with_worked_examples_sends_them_again(tmp_path):
    """--examples changes every request (the examples come first), so a replay must pass
    it again: kept bare, as the flag takes no value; a value after it is refused."""
    recording = tmp_path / "run.json"
    first = run_stage("06", "--examples", "--record", str(recording),
                      stdin="What is 6 * 7?\n\n")
    again = run_tao("replay", str(recording))
    assert again.returncode == 0 and "differs" not in again.stderr, again.stderr
    assert steady(again.stdout) == steady(first.stdout)
    session = json.loads(recording.read_text())[0]["request"]["session"]
    assert session == {"stage": "06", "argv": ["--examples"]}
    with_session(recording, {"stage": "06", "argv": ["--examples=x.json"]})
    refused = run_tao("replay", str(recording))
    assert refused.returncode == 2 and "--examples=x.json" in refused.stderr


def test_tao_replay_passes_a_command_line_question_and_keeps_no_model_choice(tmp_path):
    recording = tmp_path / "run.json"
    first = run_stage("01", "--provider", "offline", "--record", str(recording),
                      "What is an agent loop?")
    assert json.loads(recording.read_text())[0]["request"]["session"]["argv"] == [
        "--", "What is an agent loop?"]
    again = run_tao("replay", str(recording))
    assert again.returncode == 0, again.stderr
    assert steady(again.stdout) == steady(first.stdout)


def test_tao_replay_through_another_stage_stops_where_it_first_differs(tmp_path):
    recording = tmp_path / "run.json"
    run_stage("06", "--record", str(recording), stdin=QUESTIONS)
    out = run_tao("replay", str(recording), "--stage", "05")
    assert out.returncode == 1 and "Traceback" not in out.stderr, out.stderr
    assert "request 1 differs" in out.stderr
    assert "how many words" not in out.stdout  # the second typed line was never fed


def test_tao_replay_of_a_compare_run_gives_the_same_numbers(tmp_path):
    tasks = Path(__file__).parent / "recordings" / "local_smollm2_tasks.toml"
    recording = tmp_path / "run.json"
    first = run_tao("compare", "--quirk", "fenced", "--tasks", str(tasks), "--record",
                    str(recording), "--markdown")
    again = run_tao("replay", str(recording))
    assert first.returncode == 0 and again.returncode == 0, again.stderr
    rows = [line for line in first.stdout.splitlines() if line.startswith("|")]
    assert len(rows) > 4 and all(_same_row(row, again.stdout) for row in rows[2:])


def _same_row(row: str, screen: str) -> bool:
    """True if the Markdown table `row` ("| right tool | 3/4 | 4/4 |") has a line of the
    rich table on `screen` with the same label and cells."""
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    return any(line.split() and all(cell in line for cell in cells)
               for line in screen.splitlines())


def test_an_old_recording_replays_with_a_stage_named_and_the_lines_typed_again(tmp_path):
    recording = tmp_path / "run.json"
    first = run_stage("07", "--record", str(recording), stdin=QUESTIONS)
    entries = json.loads(recording.read_text())
    for entry in entries:  # as recorded before a recording kept its session
        entry["request"].pop("session", None)
        entry["request"].pop("typed", None)
    recording.write_text(json.dumps(entries))
    told = run_tao("replay", str(recording))
    assert told.returncode == 2 and "--stage" in told.stderr and len(told.stderr.splitlines()) == 1
    again = run_tao("replay", str(recording), "--stage", "7", stdin=QUESTIONS)
    assert again.returncode == 0 and "typed" in again.stderr, again.stderr
    assert steady(again.stdout) == steady(first.stdout)


@pytest.mark.parametrize(("content", "says"), [
    (None, "no such file"),
    ("[{", "not valid JSON"),
    ('{"text": "hi"}', "not a recording"),
    ('["just a reply"]', "not a recording"),
    ("[]", "no model call"),
])
def test_tao_replay_says_what_is_wrong_with_a_file_in_one_line(content, says, tmp_path):
    path = tmp_path / "run.json"
    if content is not None:
        path.write_text(content)
    out = run_tao("replay", str(path))
    assert out.returncode == 2 and says in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and not out.stdout


def test_tao_replay_help_names_the_file_the_stage_option_and_how_to_record():
    out = run_tao("replay", "--help")
    assert out.returncode == 0
    assert "--stage" in out.stdout and "--record" in out.stdout and "FILE" in out.stdout


def test_a_stage_session_recorded_on_a_real_server_replays_with_no_typing():
    """Stage 07 through --provider openai (the real SDK) against llama-cpp-python's server
    serving SmolLM2-135M (tests/recordings/regenerate.py): `tao replay` runs it again
    offline, every request the same as then, the model's own words on the screen."""
    from helpers import ROOT

    recording = ROOT / "tests" / "recordings" / "llama_cpp_server_stage07.json"
    entries = json.loads(recording.read_text())
    out = run_tao("replay", str(recording.relative_to(ROOT)))
    assert out.returncode == 0 and "differs" not in out.stderr, out.stderr
    assert "recorded from openai" in out.stderr
    screen_text = " ".join(out.stdout.split())
    typed = [line for e in entries for line in e["request"].get("typed", [])]
    assert len(typed) == 2 and all(f"you> {line}" in screen_text for line in typed)
    for entry in entries:  # what the model said, word for word, however it wrapped
        assert " ".join(entry["text"].split()[:8]) in screen_text
    # the server sent no token counts, and the replay says so as the live run did
    turns = [line for line in out.stdout.splitlines() if line.startswith("turn: ")]
    assert len(turns) == 2 and all("tokens not reported by the server" in t for t in turns)


def test_a_recording_keeps_the_stages_own_options_not_the_model_or_the_files(tmp_path):
    recording, trace = tmp_path / "r.json", tmp_path / "t.svg"
    out = run_stage("08", "--provider=offline", "--budget", "300", "--record", str(recording),
                    "--model", "m", "--quirk", "fenced", f"--save-trace={trace}",
                    "--show-wire", stdin="hi\n\n")
    assert out.returncode == 0, out.stderr
    session = json.loads(recording.read_text())[0]["request"]["session"]
    assert session == {"stage": "08", "argv": ["--budget=300", "--show-wire=anthropic"]}


# ======================================================================================
# `tao replay`'s plan (which stage, which options, what is typed) and the stage it runs
# in this process: what mutation runs of tao/replay.py asked.


def one_turn_recording(tmp_path, stage="08", argv=("--budget", "500"), typed=("hi",)):
    path = tmp_path / "run.json"
    path.write_text(json.dumps([{"request": {"session": {"stage": stage, "argv": list(argv)},
                                             "typed": list(typed), "messages": []},
                                 "text": "ok"}]), encoding="utf-8")
    return str(path)


def test_a_stage_keeps_its_own_options_only_when_it_is_the_stage_recorded(tmp_path):
    path = one_turn_recording(tmp_path)
    folder, argv, stdin = tao_replay.replay_plan(path)
    assert folder == stage_dir("08") and argv[2:] == ["--budget", "500"]
    assert stdin == "hi\n\n", "the lines typed, then an empty line that ends the session"
    same, argv, _ = tao_replay.replay_plan(path, "8")  # the same stage, named another way
    assert same == stage_dir("08") and argv[2:] == ["--budget", "500"]
    other, argv, _ = tao_replay.replay_plan(path, "07")
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
        code = tao_replay.run_stage_here(folder, ["--x"], "typed\n")
    finally:
        sys.stdout = saved_out
        sys.path.remove(str(shadow))
    assert code == 3
    assert out.getvalue().strip() == "the stage ['--x'] typed"
    assert (sys.argv, sys.stdin, sys.path) == before, "argv, stdin and the path come back"
    assert "loop" not in sys.modules


# ---------------------------------------------------------------- issue 32: nothing written
# that nobody asked for, nothing lost. Each test reproduces one defect as a learner meets it.

RECORDED_07 = "what is 17 * 23?\n\n"


def recorded(tmp_path, stage="07", stdin=RECORDED_07, *argv) -> Path:
    """A fresh recording of `stage` answering `stdin`."""
    path = tmp_path / f"rec{stage}.json"
    out = run_stage(stage, *argv, "--record", str(path), stdin=stdin)
    assert out.returncode == 0, out.stderr
    return path


def with_session(path: Path, session: dict) -> Path:
    """The recording at `path`, its session replaced by `session` (a hand-made file)."""
    entries = json.loads(path.read_text())
    entries[0]["request"]["session"] = session
    path.write_text(json.dumps(entries))
    return path


@pytest.mark.parametrize("option", ["--record", "--save-trace", "--rec", "--html",
                                    "--model", "--provider", "--workspace", "--unconfined"])
def test_a_recording_holding_an_option_a_replay_must_not_pass_is_refused(option, tmp_path):
    """The options a session keeps are an allowlist: a recording that holds anything else
    (a file to write, a model, an abbreviation) is refused whole, and nothing is written."""
    victim = tmp_path / ("victim.html" if option in ("--save-trace", "--html") else "v.json")
    victim.write_text("precious")
    recording = recorded(tmp_path)
    kind = {"verb": "compare"} if option == "--html" else {"stage": "07"}
    with_session(recording, {**kind, "argv": [option, str(victim)]})
    out = run_tao("replay", str(recording))
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert option in out.stderr and "Traceback" not in out.stderr
    assert victim.read_text() == "precious"


def test_provider_replay_passes_no_option_so_it_reads_one_made_before_the_allowlist(tmp_path):
    """An older recording kept every option but the model's and the files' (stage 11's
    --workspace too): `tao replay` refuses to pass that again, `--provider replay:` passes
    none and replays it."""
    recording = with_session(recorded(tmp_path), {"stage": "07",
                                                  "argv": ["--workspace", "home/project"]})
    assert run_tao("replay", str(recording)).returncode == 2
    out = run_stage("07", "--provider", f"replay:{recording}", stdin=RECORDED_07)
    assert out.returncode == 0 and "differs" not in out.stderr, out.stderr


def test_a_stage_takes_no_abbreviated_option_so_none_reaches_a_recording(tmp_path):
    recording = tmp_path / "a.json"
    out = run_stage("07", "--prov", "offline", "--rec", str(recording), stdin=RECORDED_07)
    assert out.returncode == 2 and "--prov" in out.stderr and not recording.exists()
    told = run_tao("compare", "--rec", str(recording))
    assert told.returncode == 2 and not recording.exists()


def test_a_replay_never_records_onto_the_recording_it_replays(tmp_path):
    recording = recorded(tmp_path)
    before = recording.read_text()
    out = run_stage("07", "--provider", f"replay:{recording}", "--record", str(recording),
                    stdin=RECORDED_07)
    assert out.returncode == 1 and "replay" in out.stderr and "Traceback" not in out.stderr
    told = run_tao("compare", "--provider", f"replay:{recording}", "--record",
                   str(recording.parent / "." / recording.name))
    assert told.returncode == 2 and len(told.stderr.strip().splitlines()) == 1, told.stderr
    assert recording.read_text() == before


@pytest.mark.parametrize(("name", "content"), [
    ("loop.py", "def agent_step(): ...\n"),  # a typo: --record loop.py
    ("notes.json", '{"mine": true}\n'),  # JSON, but not a recording
    ("script.json", '["hello"]\n'),  # a TAO_SCRIPT: replies, no requests
])
def test_record_refuses_a_file_it_did_not_make(name, content, tmp_path):
    target = tmp_path / name
    target.write_text(content)
    out = run_stage("07", "--record", str(target), stdin=RECORDED_07)
    assert out.returncode == 2 and "--record" in out.stderr and "Traceback" not in out.stderr
    assert target.read_text() == content
    told = run_tao("compare", "--record", str(target))
    assert told.returncode == 2 and target.read_text() == content


def test_record_writes_over_its_own_recording_and_nothing_else(tmp_path):
    recording = recorded(tmp_path)
    again = run_stage("07", "--record", str(recording), stdin="hello\n\n")
    assert again.returncode == 0, again.stderr
    assert "hello" in recording.read_text() and "17 * 23" not in recording.read_text()
    missing = run_stage("07", "--record", str(tmp_path / "run.txt"), stdin=RECORDED_07)
    assert missing.returncode == 2 and ".json" in missing.stderr



def test_a_recording_that_cannot_be_written_ends_the_session_in_one_line_and_stays_valid(
        tmp_path):
    """The disk fills up after the first call: the session stops there with one line (not
    "Exception ignored" and a session that goes on unrecorded), and the file still holds
    the calls written before, as valid JSON."""
    import subprocess

    from helpers import clean_env, file_limit, stage_dir

    recording = tmp_path / "run.json"
    out = subprocess.run([sys.executable, str(stage_dir("07") / "main.py"), "--record",
                          str(recording)], input="what is 17 * 23?\nhow many words are in "
                         "'one two three'?\n\n", capture_output=True, text=True,
                         env=clean_env(), timeout=60, preexec_fn=file_limit(2500))
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr and "Exception ignored" not in out.stderr
    assert "--record" in out.stderr and "File too large" in out.stderr
    assert "how many words" not in out.stdout  # the session stopped at the failed write
    assert len(json.loads(recording.read_text())) == 1


def test_a_recording_cut_off_mid_write_replays_the_calls_written_whole(tmp_path):
    """What a kill during a write leaves: every call before it whole, the last one torn.
    Both readers replay the whole calls and say the file was cut short."""
    recording = recorded(tmp_path, "07", QUESTIONS)
    text = recording.read_text()
    torn = text[:text.rindex('"text"')]  # the last call's reply half written
    recording.write_text(torn)
    whole = len(json.loads(text)) - 1
    out = run_stage("07", "--provider", f"replay:{recording}", stdin=QUESTIONS)
    assert "cut short" in out.stderr and "Traceback" not in out.stderr, out.stderr
    assert f"recording ends after request {whole}" in " ".join(out.stderr.split())
    again = run_tao("replay", str(recording))
    assert "cut short" in again.stderr and "Traceback" not in again.stderr


def test_a_lone_surrogate_in_a_reply_is_recorded_and_replayed_as_it_came(tmp_path):
    recording = tmp_path / "run.json"
    split = "a character split in two \ud83d"  # half of an emoji, as a server may send it
    out = run_stage("07", "--record", str(recording), stdin="hi\n\n", script=[split],
                    tmp_path=tmp_path)
    assert out.returncode == 0 and "Exception ignored" not in out.stderr, out.stderr
    entries = json.loads(recording.read_text(encoding="utf-8"))
    assert entries[0]["text"] == split
    again = run_stage("07", "--provider", f"replay:{recording}", stdin="hi\n\n")
    assert again.returncode == 0 and "\\ud83d" in again.stdout, again.stderr


def test_the_recorder_writes_each_call_once_not_the_whole_file_again(tmp_path):
    """What the recorder writes grows with the session, not with its square: 200 calls
    write about the file's size (Linux counts a process's written bytes)."""
    io_counts = Path("/proc/self/io")
    if not io_counts.exists():
        pytest.skip("needs /proc/self/io (Linux)")

    def written() -> int:
        return int(re.search(r"wchar: (\d+)", io_counts.read_text())[1])

    recording = tmp_path / "run.json"
    model = Recorder(ScriptedProvider(["a reply of some length " * 20] * 200), recording)
    before = written()
    for n in range(200):
        model.call([{"role": "user", "content": f"question {n} " * 20}])
    assert written() - before < 3 * recording.stat().st_size
    assert len(json.loads(recording.read_text())) == 200


def test_ctrl_c_stops_tao_compare_record_at_once(tmp_path):
    import signal
    import subprocess
    import time

    from helpers import ROOT, clean_env

    recording = tmp_path / "run.json"
    process = subprocess.Popen([sys.executable, "-m", "tao", "compare", "--runs", "50",
                                "--record", str(recording)], cwd=ROOT, env=clean_env(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (
                not recording.exists() or recording.stat().st_size < 1_500_000):
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "Exception ignored" not in err and "Traceback" not in err, err
    json.loads(recording.read_text())  # what was recorded stays valid


def test_every_key_the_kit_knows_of_is_hidden_whichever_provider_answers(tmp_path):
    """The offline model answers; the learner types a key glued to a word, and another
    provider's key is in the environment: neither reaches the recording."""
    anthropic = "sk-ant-api03-" + "A1b2C3d4" * 5
    openai = "not-shaped-like-a-key-0123456789"  # a key from a gateway, say
    recording = tmp_path / "run.json"
    out = run_stage("07", "--provider", "offline", "--record", str(recording),
                    stdin=f"token_{anthropic} and {openai}\n\n", OPENAI_API_KEY=openai)
    assert out.returncode == 0, out.stderr
    saved = recording.read_text()
    assert anthropic not in saved and "A1b2C3d4" not in saved and openai not in saved
    assert "[key hidden]" in saved
    assert "risk-averse" == redact_plain("risk-averse")  # a word with sk- in it stays


def redact_plain(text: str) -> str:
    from shared.providers.base import redact

    return redact(text)


DEEP = "[" * 500 + "]" * 500
SHAPES = {  # (what is in the file, a word of the one line that refuses it)
    "a plain TAO_SCRIPT": ('["hello"]', "not a recording"),
    "a request that is a number": ('[{"request": 5}]', "not a recording"),
    "a stage that is a number": (
        '[{"request": {"messages": [], "session": {"stage": 7, "argv": []}}, "text": "x"}]',
        "stage"),
    "options that are a number": (
        '[{"request": {"messages": [], "session": {"stage": "07", "argv": 5}}, "text": "x"}]',
        "options"),
    "a 500-deep array": ('[{"request": {"messages": ' + DEEP + '}, "text": "x"}]', "deep"),
    "a 500-deep array alone": (DEEP, "deep"),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_both_readers_of_a_recording_refuse_any_wrong_shape_in_one_line(shape, tmp_path):
    content, says = SHAPES[shape]
    path = tmp_path / "run.json"
    path.write_text(content)
    stage = run_stage("07", "--provider", f"replay:{path}", stdin="hi\n\n")
    verb = run_tao("replay", str(path), "--stage", "07")
    for out in (stage, verb):
        assert out.returncode in (1, 2) and "Traceback" not in out.stderr, out.stderr
        assert says in out.stderr and len(out.stderr.strip().splitlines()) <= 2, out.stderr


HOSTILE_NAME = "evil\x1b]0;pwned\x07\x1b[2J[/bold]"  # sets a window title, clears the screen


def test_a_recordings_model_field_and_its_file_name_reach_the_screen_visible(
        tmp_path):
    recording = recorded(tmp_path, "07", QUESTIONS)
    entries = json.loads(recording.read_text())
    for entry in entries:
        entry["request"]["model"] = HOSTILE_NAME
        entry["request"].pop("typed", None)  # so tao replay names the file in a notice
    named = tmp_path / "run\x1b[2J.json"
    named.write_text(json.dumps(entries))
    runs = [run_stage("07", "--provider", f"replay:{named}", stdin=QUESTIONS),
            run_tao("replay", str(named), "--stage", "07", stdin=QUESTIONS)]
    for out in runs:
        assert "\x1b" not in out.stdout + out.stderr and "\\x1b" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr


@pytest.mark.sdk
def test_a_tao_model_reaches_the_screen_visible(tmp_path):
    """TAO_MODEL is shown where a provider names its model (an SDK one: no call is made,
    the session ends at once)."""
    out = run_stage("07", stdin="", TAO_MODEL=HOSTILE_NAME, OPENAI_API_KEY="k",
                    OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert "\x1b" not in out.stdout + out.stderr, out.stdout + out.stderr
    assert "\\x1b" in out.stderr and "Traceback" not in out.stderr


def test_ctrl_c_in_tao_replay_ends_it_with_130_not_a_divergence(tmp_path):
    """Stage 10's stand-in tools take their seconds again in a replay: Ctrl-C lands in
    one, where a live session would take it for a cancelled reply and read on."""
    import select
    import signal
    import subprocess
    import time

    from helpers import ROOT, clean_env

    slow = "Fetch 'example.org', taking 3 seconds.\n"
    recording = recorded(tmp_path, "10", slow + "What time is it?\n\n")
    process = subprocess.Popen([sys.executable, "-m", "tao", "replay", str(recording)],
                               cwd=ROOT, env=clean_env(PYTHONUNBUFFERED="1"),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen, deadline = b"", time.monotonic() + 60
        while b"act" not in seen and time.monotonic() < deadline:
            if select.select([process.stdout], [], [], 0.2)[0]:
                seen += os.read(process.stdout.fileno(), 65536)
        assert b"act" in seen, seen
        time.sleep(0.5)  # the tool has started (its event loop too): it waits its seconds
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    err = err.decode()
    assert process.returncode == 130, err
    assert "differs" not in err and "Traceback" not in err, err
