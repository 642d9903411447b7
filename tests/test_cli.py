"""The `tao` command: every verb, and one-line errors for bad arguments."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fake_api import FakeAPI
from helpers import ROOT, STAGE_DIRS, clean_env

from shared import cli
from shared.cli import repo, stage_verbs


def tao(*args, stdin="", **env):
    return subprocess.run([sys.executable, "-m", "shared.cli", *args], input=stdin,
                          capture_output=True, text=True, encoding="utf-8",
                          env=clean_env(**env), timeout=120, cwd=ROOT)


def test_no_verb_prints_help():
    done = tao()
    assert done.returncode == 0 and "tour" in done.stdout and "doctor" in done.stdout


@pytest.mark.parametrize("verb", ["list", "run", "tour", "diff", "doctor"])
def test_every_verb_has_help(verb):
    done = tao(verb, "--help")
    assert done.returncode == 0 and "usage: tao " + verb in done.stdout


def test_list_shows_every_stage_with_what_it_teaches():
    done = tao("list")
    assert done.returncode == 0
    for folder in STAGE_DIRS:
        title, teaches = stage_verbs.stage_summary(folder)
        assert folder.name[:2] in done.stdout and title in done.stdout
        assert teaches and teaches.split()[0] in done.stdout


def test_tour_runs_every_stage_offline_and_exits_zero():
    done = tao("tour")
    assert done.returncode == 0, done.stderr
    assert f"{len(STAGE_DIRS)} of {len(STAGE_DIRS)} stages ran cleanly" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_tour_reports_a_failing_stage(monkeypatch, tmp_path, capsys):
    broken = tmp_path / "stages" / "01_broken"
    broken.mkdir(parents=True)
    (broken / "main.py").write_text('"""Stage 01: broken.\n\nIt fails."""\nraise SystemExit(3)\n')
    monkeypatch.setattr(repo, "STAGES", tmp_path / "stages")
    assert cli.main(["tour"]) == 1
    assert "exited with 3" in capsys.readouterr().out


def test_run_passes_arguments_to_the_stage():
    done = tao("run", "1", "--", "hello", "from", "run")
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


def test_doctor_offline_is_all_ok():
    done = tao("doctor")
    assert done.returncode == 0
    assert "provider: offline (no API key is set)" in done.stdout
    assert "ANTHROPIC_API_KEY: not set" in done.stdout


def test_doctor_names_the_missing_key_with_the_fix():
    done = tao("doctor", "--provider", "anthropic")
    assert done.returncode == 1
    assert "fix" in done.stdout and "export ANTHROPIC_API_KEY=" in done.stdout


def test_doctor_never_prints_a_key():
    done = tao("doctor", "--provider", "openai", OPENAI_API_KEY="sk-very-secret-123456",
               OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert "sk-very-secret" not in done.stdout + done.stderr
    assert "set (value hidden)" in done.stdout
    assert "did not answer" in done.stdout and done.returncode == 1


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


def test_doctor_checks_that_a_local_servers_model_exists():
    with FakeAPI("openai") as api:
        api.models = ["llama3.2:latest"]
        found = tao("doctor", "--provider", "ollama", OLLAMA_BASE_URL=api.base_url)
        missing = tao("doctor", "--provider", "ollama", "--model", "nope",
                      OLLAMA_BASE_URL=api.base_url)
    assert found.returncode == 0 and "model: llama3.2 exists" in found.stdout, found.stdout
    assert missing.returncode == 1 and "ollama pull nope" in missing.stdout
