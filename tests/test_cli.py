"""The `tao` command: every verb, and one-line errors for bad arguments.

What a user of `tao` sees, each held by a test below:
- every verb has its help, and a mistake in the call is one line and exit 2;
- Ctrl-C in any verb ends it with exit 130 and one line ("interrupted"), no traceback
  (the verbs that wait on something, `tao replay`, `tao compare --record`, `tao check`,
  `tao debug`, are also sent a real SIGINT in their own test files);
- a reader that stops reading (`| head`) ends a verb quietly, exit 1.
"""

from __future__ import annotations

import ast
import difflib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fake_api import FakeAPI
from helpers import ROOT, STAGE_DIRS, clean_env, run_stage, run_tao
from test_stage_claims import CHECKS

from tao import command, main, repo

WIDE = "250"  # no wrapping, so a whole table cell or answer is on one line


tao = run_tao  # the `tao` command as a learner runs it, in this process (see helpers)


def tao_process(*args, stdin="", **env):
    """The `tao` command in a subprocess: `run` and `tour` start each stage as a child
    process that writes straight to the inherited stdout."""
    return subprocess.run([sys.executable, "-m", "tao", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8",
                          env=clean_env(**env), timeout=120, cwd=ROOT)


def test_no_verb_prints_help():
    done = tao()
    assert done.returncode == 0 and "tour" in done.stdout and "doctor" in done.stdout


@pytest.mark.parametrize("verb", ["list", "run", "tour", "diff", "doctor"])
def test_every_verb_has_help(verb):
    done = tao(verb, "--help")
    assert done.returncode == 0 and "usage: tao " + verb in done.stdout


def docstring_lesson(folder) -> tuple[str, str]:
    """(title, first sentence of the paragraph after it) from a stage's main.py docstring."""
    doc = ast.get_docstring(ast.parse((folder / "main.py").read_text(encoding="utf-8")))
    heading, paragraph = doc.split("\n\n")[:2]
    sentence = " ".join(paragraph.split()).split(". ")[0].rstrip(".") + "."
    return heading.split(":", 1)[1].strip().rstrip("."), sentence


def test_list_shows_every_stage_with_the_whole_of_what_it_teaches():
    done = tao("list", COLUMNS=WIDE)
    assert done.returncode == 0
    rows = {cells[0]: cells[1:] for line in done.stdout.splitlines()
            if len(cells := [c.strip() for c in line.strip("│ ").split("│")]) == 3}
    for folder in STAGE_DIRS:
        number = folder.name[:2]
        assert number in rows, f"stage {number} is not listed"
        title, teaches = rows[number]
        assert (title, teaches) == docstring_lesson(folder), (
            f"stage {number}: `tao list` shows {teaches!r}, not the docstring's first sentence")


@pytest.mark.timeout(120)  # a subprocess for every stage, in a row: 30 s is tight on a busy machine
def test_tour_runs_every_stage_offline_and_each_shows_what_it_teaches():
    done = tao_process("tour", COLUMNS=WIDE)
    assert done.returncode == 0, done.stderr
    assert f"{len(STAGE_DIRS)} of {len(STAGE_DIRS)} stages ran cleanly" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    parts = re.split(r"^─+ stage (\d\d): .*$", done.stdout, flags=re.M)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    assert sorted(sections) == [folder.name[:2] for folder in STAGE_DIRS]
    for number, section in sections.items():
        CHECKS[number](section)  # the same checks as each stage's own demo test


def test_tour_reports_a_failing_stage(monkeypatch, tmp_path, capsys):
    broken = tmp_path / "stages" / "01_broken"
    broken.mkdir(parents=True)
    (broken / "main.py").write_text('"""Stage 01: broken.\n\nIt fails."""\nraise SystemExit(3)\n')
    monkeypatch.setattr(repo, "STAGES", tmp_path / "stages")
    assert main(["tour"]) == 1
    assert "exited with 3" in capsys.readouterr().out


def test_run_passes_arguments_to_the_stage():
    done = tao_process("run", "1", "--", "hello", "from", "run")
    assert done.returncode == 0 and "you> hello from run" in done.stdout


@pytest.mark.parametrize("args", [("run", "99"), ("diff", "42"), ("diff", "01"),
                                  ("run", "abc"), ("diff", "01", "77")])
def test_bad_stage_numbers_are_one_line_errors(args):
    done = tao(*args)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_unknown_verb_is_refused_by_argparse():
    done = tao("frobnicate")
    assert done.returncode == 2 and "invalid choice" in done.stderr


def test_diff_shows_only_what_changed():
    done = tao("diff", "03")
    assert done.returncode == 0
    assert "+from context import build_context" in done.stdout
    assert "+++ 03_system_prompt/context.py" in done.stdout
    assert "-def chat(provider, trace) -> None:" in done.stdout
    assert done.stdout == tao("diff", "02", "03").stdout


def far_from_any_change(old: list[str], new: list[str]) -> list[str]:
    """Lines both files share, unique in each, more than 3 lines from any change."""
    blocks = difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
    return [line for start, _, size in blocks if size > 8
            for line in old[start + 4:start + size - 4]
            if line.strip() and old.count(line) == 1 and new.count(line) == 1]


def test_diff_leaves_out_lines_far_from_any_change():
    old, new = (repo.find_stage(n) / "main.py" for n in ("04", "05"))
    quiet = far_from_any_change(*(p.read_text(encoding="utf-8").splitlines() for p in (old, new)))
    assert quiet, "04 and 05 main.py share no long unchanged stretch to check against"
    out = tao("diff", "05", COLUMNS=WIDE).stdout
    section = out.split(f"--- {old.parent.name}/main.py\n", 1)[1].split("\n--- ", 1)[0]
    assert section.splitlines()[0].startswith("+++ "), "no diff of main.py was shown"
    leaked = [line for line in quiet if " " + line in section.splitlines()]
    assert not leaked, f"unchanged lines far from any change are shown as context: {leaked[:3]}"


def test_doctor_offline_is_all_ok():
    done = tao("doctor", COLUMNS=WIDE)
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert "ok   provider: offline (no API key is set)" in lines
    assert "ok   ANTHROPIC_API_KEY: not set" in lines and "ok   OPENAI_API_KEY: not set" in lines
    assert not [line for line in lines if not line.startswith("ok   ")], done.stdout


@pytest.mark.parametrize(("provider", "var", "other"), [
    ("anthropic", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"),
    ("openai", "OPENAI_API_KEY", "ANTHROPIC_API_KEY")])
def test_doctor_flags_exactly_the_missing_key_with_its_fix(provider, var, other):
    done = tao("doctor", "--provider", provider, COLUMNS=WIDE)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"fix  {var}: not set → export {var}=<your key>" in lines, (
        f"doctor did not flag the missing {var} on its own line: {done.stdout}")
    assert f"ok   {other}: not set" in lines, f"{other} is not needed for {provider}"


@pytest.mark.sdk
def test_doctor_needs_no_openai_key_for_a_local_server():
    done = tao("doctor", "--provider", "openai", OPENAI_BASE_URL="http://127.0.0.1:9/v1",
               COLUMNS=WIDE)
    assert "ok   OPENAI_API_KEY: not set" in done.stdout.splitlines(), done.stdout


@pytest.mark.sdk
def test_doctor_never_prints_a_key():
    done = tao("doctor", "--provider", "openai", OPENAI_API_KEY="sk-very-secret-123456",
               OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert "sk-very-secret" not in done.stdout + done.stderr
    assert "set (value hidden)" in done.stdout
    assert "did not answer" in done.stdout and done.returncode == 1


@pytest.mark.sdk
def test_doctor_checks_the_anthropic_model_through_the_api():
    with FakeAPI("anthropic") as api:
        api.models = ["claude-test-1"]
        found = tao("doctor", "--model", "claude-test-1", ANTHROPIC_API_KEY="sk-ant-test-12345",
                    ANTHROPIC_BASE_URL=api.base_url)
        missing = tao("doctor", "--model", "claude-gone-0", ANTHROPIC_API_KEY="sk-ant-test-12345",
                      ANTHROPIC_BASE_URL=api.base_url)
    assert found.returncode == 0
    assert "provider: anthropic (ANTHROPIC_API_KEY is set)" in found.stdout
    assert "model: claude-test-1 exists" in found.stdout
    assert missing.returncode == 1 and "claude-gone-0 was not found" in missing.stdout
    assert "sk-ant-test" not in found.stdout + missing.stdout


@pytest.mark.sdk
def test_doctor_checks_that_a_local_servers_model_exists():
    with FakeAPI("openai") as api:
        api.models = ["llama3.2:latest"]
        found = tao("doctor", "--provider", "ollama", OLLAMA_BASE_URL=api.base_url)
        missing = tao("doctor", "--provider", "ollama", "--model", "nope",
                      OLLAMA_BASE_URL=api.base_url)
    assert found.returncode == 0 and "model: llama3.2 exists" in found.stdout, found.stdout
    assert missing.returncode == 1 and "ollama pull nope" in missing.stdout


NUMBER_TYPES = {"int", "float", "at_least_one", "seconds"}


def numeric_options(path) -> list[tuple[str, str]]:
    """(the parser's variable, the option) for each add_argument with a numeric type in
    `path`, read with ast: `compare.add_argument("--runs", type=...)` -> ("compare", "--runs")."""
    found, verbs = [], {}  # a verb's parser variable -> the verb (port -> port-test)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "attr", "") == "add_parser"):
            verbs[node.targets[0].id] = node.value.args[0].value
        if (isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument"
                and any(k.arg == "type" and getattr(k.value, "id", "") in NUMBER_TYPES
                        for k in node.keywords)):
            found.append((node.func.value.id, node.args[0].value))
    return [(verbs.get(parser, parser), option) for parser, option in found]


STAGE_NUMBERS = [(folder.name[:2], option) for folder in STAGE_DIRS
                 for _, option in numeric_options(folder / "main.py")]
TAO_NUMBERS = numeric_options(ROOT / "tao" / "command.py")


def test_the_numeric_options_are_found():
    assert ("08", "--budget") in STAGE_NUMBERS and ("09", "--max-iterations") in STAGE_NUMBERS
    assert {("compare", "--runs"), ("watch", "--interval")} <= set(TAO_NUMBERS)


@pytest.mark.parametrize("value", ["-5", "0"])
@pytest.mark.parametrize(("number", "option"), STAGE_NUMBERS)
def test_a_stage_refuses_an_impossible_number_in_one_line(number, option, value):
    from helpers import run_stage

    done = run_stage(number, f"{option}={value}", stdin="what time is it?\n")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr + done.stdout[:300]
    assert option in lines[0] and value in lines[0], lines


@pytest.mark.parametrize("value", ["-5", "0"])
@pytest.mark.parametrize(("verb", "option"), TAO_NUMBERS)
def test_tao_refuses_an_impossible_number_in_one_line(verb, option, value):
    done = tao(verb, f"{option}={value}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert f"tao {verb}: error: argument {option}" in lines[0] and value in lines[0], lines


# ---------------------------------------------------------------- issue 32: doctor on a
# recording


def test_doctor_with_a_recording_as_provider_says_so_in_a_line(tmp_path):
    recording = tmp_path / "run.json"
    assert run_stage("07", "--record", str(recording), stdin="hi\n\n").returncode == 0
    out = run_tao("doctor", TAO_PROVIDER=f"replay:{recording}")
    said = " ".join(out.stdout.split())  # as one line, however the screen wrapped it
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    assert "replay of run.json" in said and "nothing is sent" in said
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    out = run_tao("doctor", TAO_PROVIDER=f"replay:{broken}")
    said = " ".join(out.stdout.split())
    assert out.returncode == 1 and "not valid JSON" in said and "Traceback" not in out.stderr


# ---------------------------------------------------------------- issue 32: no verb writes
# a file it was not asked to write

# each verb as a learner runs it (after `before`, a step that sets the kit up), and the
# files it may write, from the kit's root: what it was asked to write, and the progress it
# keeps (Python's and pytest's own __pycache__ aside: git ignores them, and tao check runs
# the exercise tests as `uv run pytest` would)
WRITES = {
    "list": (["list"], None, set()),
    "run": (["run", "01", "--", "What is an agent loop?"], None, set()),
    "tour": (["tour"], None, set()),
    "diff": (["diff", "05", "--docs"], None, set()),
    "doctor": (["doctor"], None, set()),
    "check": (["check", "--all"], "solve", {".tao-progress.json"}),  # every test runs
    "hint": (["hint", "2"], None, {".tao-progress.json"}),
    "watch": (["watch", "2", "--cycles", "2", "--interval", "0"], None, {".tao-progress.json"}),
    "reset": (["reset", "2", "--yes"], "edit", {"exercises/e02_wordcount.py"}),
    "solution": (["solution", "1"], "solve", {".tao-progress.json"}),
    "compare": (["compare"], None, set()),
    "compare to files": (["compare", "--html", "out/r.html", "--record", "out/r.json"], None,
                         {"out/r.html", "out/r.json"}),
    "replay": (["replay", "rec.json"], "record", set()),
    "book": (["book", "--out", "out/book"], None, {"out/book/"}),
}


MUST = {"reset", "compare to files", "book"}  # these write what they are asked, always
KIT = ("README.md", "README.fr.md", "pyproject.toml", "shared", "tao", "stages", "exercises",
       "tests")
LEFT_OUT = shutil.ignore_patterns("__pycache__", ".hypothesis", ".tao-progress.json",
                                  "screenshots", "book")


def tree(*folders: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folders` but Python's caches: path -> (size, modification time)."""
    return {str(p): (p.lstat().st_size, p.lstat().st_mtime_ns) for folder in folders
            for p in folder.rglob("*") if not p.is_dir() and "__pycache__" not in p.parts}


@pytest.mark.parametrize("verb", WRITES)
def test_no_verb_writes_a_file_it_was_not_asked_to_write(verb, tmp_path):
    """Each verb runs in a copy of the kit, its home and temporary folder its own: the
    files that changed afterwards, anywhere, are the ones it was asked for, or none."""
    args, before, allowed = WRITES[verb]
    kit, home, temp = tmp_path / "kit", tmp_path / "home", tmp_path / "tmp"
    kit.mkdir()
    for name in KIT:  # the kit as a learner has it (no git needed: CI runs this in a copy)
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, kit / name, symlinks=True, ignore=LEFT_OUT)
        elif source.exists():
            shutil.copy2(source, kit / name)
    (kit / "out").mkdir()
    home.mkdir()
    temp.mkdir()
    env = clean_env(HOME=str(home), TMPDIR=str(temp), PYTHONDONTWRITEBYTECODE="1",
                    TAO_LANG="en")
    _set_up(before, kit, env)
    seen = tree(kit, home, temp)
    done = subprocess.run([sys.executable, "-m", "tao", *args], cwd=kit, env=env, text=True,
                          capture_output=True, timeout=300, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    after = tree(kit, home, temp)
    changed = {path for path in seen.keys() | after.keys() if seen.get(path) != after.get(path)}
    asked = {str(kit / name) + ("/" if name.endswith("/") else "") for name in allowed}
    unasked = {path for path in changed  # (a name ending in / asks for what is in it)
               if path not in asked and not any(path.startswith(a) for a in asked
                                                if a.endswith("/"))}
    assert not unasked, f"tao {' '.join(args)} wrote {sorted(unasked)}"
    assert changed or verb not in MUST, f"tao {' '.join(args)} wrote nothing"


def _set_up(step: str | None, kit: Path, env: dict) -> None:
    """What a verb needs first: an exercise edited or solved, a recording to replay."""
    if step == "edit":
        (kit / "exercises" / "e02_wordcount.py").write_text("def wordcount(args): ...\n")
    elif step == "solve":  # every exercise, as the reference solves it
        for solution in (kit / "exercises" / "solutions").glob("e*.py"):
            shutil.copy(solution, kit / "exercises" / solution.name)
    elif step == "record":
        subprocess.run([sys.executable, "stages/07_native_tools/main.py", "--record",
                        "rec.json"], cwd=kit, env=env, input="hi\n\n", text=True,
                       capture_output=True, timeout=120, check=True)


# the arguments each verb needs to get past its parser (the rest take none)
VERB_ARGS = {"run": ["02"], "diff": ["01"], "solution": ["1"], "replay": ["run.json"],
             "audit": ["audit.log"], "debug": ["04"], "port-test": ["07", "--", "true"]}


def test_ctrl_c_in_every_verb_exits_130(monkeypatch):
    listed = re.findall(r"^ {4}(\S+)(?: {2,}\S|$)", run_tao("--help").stdout, re.M)
    assert len(listed) == len(command.COMMANDS) >= 17  # every verb `tao --help` names

    def ctrl_c(args, console):  # Ctrl-C, wherever in the verb's work it lands
        raise KeyboardInterrupt

    for verb in listed:
        monkeypatch.setitem(command.COMMANDS, verb, ctrl_c)
        out = run_tao(verb, *VERB_ARGS.get(verb, []))
        assert (out.returncode, out.stderr, out.stdout) == (130, "\ninterrupted\n", ""), verb
