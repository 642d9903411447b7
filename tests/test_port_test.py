"""`tao port-test N -- COMMAND`: a program in any language held to stage N's contract.

End to end, a case is a real process talking to the fake API over 127.0.0.1: the
JavaScript port under ports/ with its kept wrong variants (when node is here), and small
programs written to fail one way each. The kit's own stages 01-08 and 11 are held to their
contracts by .ci/run (each stage's process starts an SDK: seconds a case, too slow here).
The checks themselves are also held on request bodies built by hand, in both APIs'
shapes, which costs no process.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
import tomllib
from datetime import UTC, datetime, timedelta

import pytest
from helpers import ROOT, clean_env, run_tao, stage_dir

from tao.port_check import history_difference, neutral, schema_problem
from tao.port_contract import Pattern, draw, expected_requests, load_contract

PORT = ROOT / "ports" / "javascript"
PORTED = {"04": "04_json_tool_call.mjs", "05": "05_react_loop.mjs", "07": "07_native_tools.mjs"}
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed: the JavaScript "
                                                     "port is checked where it is (.ci/run)")
NOW = datetime.now(UTC)
WINDOW = (NOW, NOW)


def port_test(stage: str, *command: str, seed: int = 7, **env):
    """`tao port-test STAGE --seed SEED -- COMMAND`, in this process."""
    return run_tao("port-test", stage, "--seed", str(seed), "--", *command, **env)


def program(tmp_path, source: str) -> list[str]:
    """A Python program (its source given) as a command port-test can run."""
    path = tmp_path / "program.py"
    path.write_text(source, encoding="utf-8")
    return [sys.executable, str(path)]


# ---------------------------------------------------------------- the kit's own stages


def test_every_contract_reads_and_scripts_a_reply_for_every_line():
    for path in sorted(ROOT.glob("stages/*/contract.toml")):
        contract, number = load_contract(path.parent), path.parent.name
        for case in contract.cases:
            for kind in ("anthropic", "openai"):
                requests = expected_requests(contract, case, draw(random.Random(1)), kind)
                assert len(requests) == len(case["reply"]), (number, case["name"])


# ---------------------------------------------------------------- the JavaScript port


@needs_node
@pytest.mark.parametrize("stage", sorted(PORTED))
def test_the_javascript_port_passes_every_case(stage):
    done = port_test(stage, NODE, str(PORT / PORTED[stage]))
    assert done.returncode == 0, done.stdout
    cases = len(load_contract(stage_dir(stage)).cases)
    assert done.stdout.count("  ✓ ") == cases


WRONG = tomllib.loads((PORT / "wrong.toml").read_text(encoding="utf-8"))["variant"]


@needs_node
@pytest.mark.parametrize("variant", WRONG, ids=[v["what"] for v in WRONG])
def test_each_kept_wrong_variant_fails_with_a_line_that_names_the_difference(tmp_path, variant):
    copy = tmp_path / "javascript"
    shutil.copytree(PORT, copy)
    source = copy / variant["file"]
    text = source.read_text(encoding="utf-8")
    assert text.count(variant["old"]) == 1, "the variant no longer applies to the port"
    source.write_text(text.replace(variant["old"], variant["new"]), encoding="utf-8")
    done = port_test(variant["stage"], NODE, str(source), seed=5)
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("  ✗ 1 ")]
    assert failed and variant["fails_with"] in failed[0], done.stdout
    # ports/README.md shows this very line, for the same seed
    shown = (PORT.parent / "README.md").read_text(encoding="utf-8").splitlines()
    run = next(i for i, line in enumerate(shown)
               if line.startswith(f"$ uv run tao port-test {variant['stage']} --seed 5 "))
    assert shown[run + 1] == failed[0]


@needs_node
def test_a_port_that_prints_no_answer_fails_on_its_output():
    done = port_test("05", "sh", "-c", f"'{NODE}' '{PORT / PORTED['05']}' > /dev/null")
    assert done.returncode == 1
    assert "its output does not show 'It is time, " in done.stdout


# the JavaScript port of stage 07, run wrong from outside (a shell around it): each way
# fails, and its line names what differs, not a symptom further on
AROUND = [
    ("TAO_MODEL=a-model-of-its-own {port}",
     "the model should be 'port-test-"),  # it ignores TAO_MODEL
    ("head -1 | {port}",
     "requests sent: 3 of the 4 the case expects"),  # it never reads the second line
    ("{port}; exit 1",
     "exit code 1, expected 0"),  # a good answer, then a failure's exit code
]


@needs_node
@pytest.mark.parametrize(("shell", "said"), AROUND, ids=["model", "too few", "exit"])
def test_a_port_wrong_from_outside_fails_on_what_differs(shell, said):
    port = f"'{NODE}' '{PORT / PORTED['07']}'"
    done = port_test("07", "sh", "-c", shell.format(port=port))
    assert done.returncode == 1
    failed = [line for line in done.stdout.splitlines() if line.startswith("  ✗ ")]
    assert failed and said in failed[0], done.stdout


# ---------------------------------------------------------------- one way wrong at a time


def test_a_program_that_sends_nothing_fails_with_what_it_said_last(tmp_path):
    done = port_test("01", *program(tmp_path, "import sys\nsys.exit('no key, giving up')"))
    assert done.returncode == 1
    assert "it sent no request (exit 1; its last words: 'no key, giving up')" in done.stdout


def test_a_program_that_hangs_is_stopped_with_everything_it_started(tmp_path):
    pid_file = tmp_path / "child.pid"
    source = (f"import subprocess, sys, time\nchild = subprocess.Popen([sys.executable, '-c', "
              f"'import time; time.sleep(300)'])\nopen({str(pid_file)!r}, 'w')"
              f".write(str(child.pid))\ntime.sleep(300)\n")
    done = run_tao("port-test", "01", "--timeout", "2", "--", *program(tmp_path, source))
    assert done.returncode == 1 and "it sent no request (exit None" in done.stdout
    child = int(pid_file.read_text())
    try:
        assert gone(child), "the program's own child outlived the run"
    finally:  # even when this test fails, it leaves no process behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


def gone(pid: int, wait: float = 10) -> bool:
    """Whether process `pid` has ended (a zombie waiting for its reaper counts as ended)."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split(") ", 1)[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def test_the_fake_api_is_shut_down_after_the_run(tmp_path):
    seen = tmp_path / "base_url"
    source = f"import os\nopen({str(seen)!r}, 'w').write(os.environ['ANTHROPIC_BASE_URL'])\n"
    port_test("01", *program(tmp_path, source))
    host, port = seen.read_text().removeprefix("http://").split(":")
    with pytest.raises(OSError), socket.create_connection((host, int(port)), timeout=2):
        pass


def test_the_seed_repeats_the_values_and_another_seed_draws_others(tmp_path):
    seen = tmp_path / "seen"
    command = program(tmp_path, f"import sys\nopen({str(seen)!r}, 'a').write(sys.stdin.read())\n")
    typed = []
    for seed in (11, 11, 12):
        port_test("02", *command, seed=seed)
        typed.append(seen.read_text())
        seen.unlink()
    assert typed[0] == typed[1] != typed[2]
    assert "My name is " in typed[0]


def test_the_program_gets_fake_keys_and_never_the_callers(tmp_path):
    seen = tmp_path / "env.json"
    source = f"import json, os\njson.dump(dict(os.environ), open({str(seen)!r}, 'w'))\n"
    port_test("01", *program(tmp_path, source), ANTHROPIC_API_KEY="sk-the-callers-real-key",
              TAO_PROVIDER="offline")
    env = json.loads(seen.read_text())
    assert env["ANTHROPIC_API_KEY"] == env["OPENAI_API_KEY"] == "port-test-fake-key"
    assert "TAO_PROVIDER" not in env and env["TAO_MODEL"].startswith("port-test-")
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["OPENAI_BASE_URL"].startswith("http://127.0.0.1:") and "/v1" in env[
        "OPENAI_BASE_URL"]


@pytest.mark.parametrize(("argv", "said"), [
    (["port-test", "05"], "name the program to test after --"),
    (["port-test", "05", "--", "/no/such/program"], "cannot run '/no/such/program'"),
    (["port-test", "09", "--", "true"], "09_stop_reasons has no contract.toml"),
    (["port-test", "99", "--", "true"], "no stage"),
])
def test_a_wrong_call_is_one_line_and_exit_2(argv, said):
    done = run_tao(*argv)
    assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.timeout(60)
def test_ctrl_c_stops_the_program_and_tao_exits_130(tmp_path):
    pid_file = tmp_path / "pid"
    source = (f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
              "time.sleep(300)\n")
    tao = subprocess.Popen([sys.executable, "-m", "tao", "port-test", "01", "--",
                            *program(tmp_path, source)], cwd=ROOT, env=clean_env(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 30
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline and tao.poll() is None, tao.communicate()
            time.sleep(0.05)
        os.kill(tao.pid, signal.SIGINT)
        _, err = tao.communicate(timeout=30)
        assert tao.returncode == 130 and b"Traceback" not in err, err
        assert gone(int(pid_file.read_text()))
    finally:  # even when this test fails, it leaves no process behind
        tao.kill()
        tao.wait()
        with contextlib.suppress(OSError, ValueError):  # no pid file, or no such process
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


# ---------------------------------------------------------------- the checks, by hand


def anthropic_body(*messages, system="S", tools=()):
    return {"model": "m", "max_tokens": 9, "stream": True, "system": system,
            "messages": list(messages), "tools": list(tools)}


def openai_body(*messages, tools=()):
    return {"model": "m", "stream": True, "tools": list(tools),
            "messages": [{"role": "system", "content": "S"}, *messages]}


def test_both_apis_read_back_to_the_same_messages():
    anthropic = anthropic_body(
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "On it."}, {
            "type": "tool_use", "id": "c1", "name": "now", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1",
                                      "content": [{"type": "text", "text": "noon"}]}]})
    openai = openai_body(
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "On it.", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "now", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "noon"})
    assert neutral(anthropic, "anthropic")[:2] == neutral(openai, "openai")[:2] == ("S", [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "On it.", "tool_calls": [("c1", "now", {})]},
        {"role": "tool", "tool_call_id": "c1", "content": "noon"}])


def expected_for(stage: str, case: int = 0) -> tuple[list, dict]:
    """The requests case `case` of stage `stage` expects, with its values (seed 3)."""
    values = draw(random.Random(3))
    contract = load_contract(stage_dir(stage))
    return expected_requests(contract, contract.cases[case], values, "anthropic"), values


def test_a_result_never_fed_back_is_named_with_the_message_that_is_missing():
    requests, values = expected_for("05")
    sent = [{"role": "user", "content": f"What time is it for {values['word1']}?"},
            {"role": "assistant", "content": '{"tool": "now", "args": {}}'}]
    problem = history_difference(requests[1], sent, (NOW, NOW))
    assert problem.startswith("message 3 is missing: expected the result of now fed back")
    assert problem.endswith("but the request ends after message 2")


def test_an_unpaired_id_and_a_result_out_of_its_time_are_each_named():
    requests, values = expected_for("07", 1)  # calculator, then now
    first, second = requests[1], requests[2]
    call_id = first[1]["tool_calls"][0][0]
    sent = [dict(m, content=str(m["content"].text)) for m in first]
    sent[2] = {"role": "tool", "tool_call_id": "calculator", "content": values["a_plus_b"]}
    assert f"answers id 'calculator', but the call to calculator has id '{call_id}'" in (
        history_difference(first, sent, WINDOW))
    sent[2]["tool_call_id"] = call_id
    assert history_difference(first, sent, WINDOW) is None
    stale = (NOW - timedelta(days=2)).isoformat()
    call = second[3]["tool_calls"][0]
    later = sent + [{"role": "assistant", "content": "", "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": call[0], "content": stale}]
    assert "message 5: expected the result of now" in history_difference(second, later, WINDOW)
    later[-1]["content"] = NOW.isoformat()
    assert history_difference(second, later, WINDOW) is None


@pytest.mark.parametrize(("tool", "said"), [
    ({"name": "t", "description": "", "schema": {"type": "object"}}, "no description"),
    ({"name": "t", "description": "d", "schema": {"type": "string"}}, '{"type": "object"}'),
    ({"name": "t", "description": "d", "schema": {"type": "object", "properties": {
        "x": {"description": "no type"}}}}, "each property needs a type"),
    ({"name": "t", "description": "d", "schema": {"type": "object", "properties": {},
                                                  "required": ["x"]}}, "required ['x']"),
])
def test_a_tool_schema_that_no_model_could_use_is_named(tool, said):
    assert said in schema_problem(tool)
    assert schema_problem(dict(tool, description="d", schema={
        "type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]})) is None


def test_a_pattern_matches_its_marks_and_a_wrapped_screen():
    assert Pattern("at {time}, {any}.").matches(f"at {NOW.isoformat()}, whatever.", WINDOW)
    assert not Pattern("at {time}.").matches("at 1999-01-01T00:00:00Z.", WINDOW)
    assert not Pattern("exactly 3").matches("exactly 33", WINDOW)
    assert Pattern("tao  It is amber o'clock.", loose=True).found_in(
        "│ tao  It is\namber o'clock. │", WINDOW)
