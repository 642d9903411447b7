"""Every configuration mistake a learner can make is one line: no traceback, a clear exit.

One row per mistake: (what is wrong, command-line arguments, environment, exit code, a
phrase the one line must contain). Each runs a stage (or `tao`) as a learner does.
"""

from __future__ import annotations

import pytest
from fake_api import FakeAPI, HTTPError
from helpers import run_stage, run_tao

CLOSED_PORT = "http://127.0.0.1:9/v1"  # nothing listens there: no request leaves the machine

def row(what, args, env, code, phrase, marks=()):
    """One mistake of the table, named by `what`."""
    return pytest.param(what, args, env, code, phrase, marks=marks)


ROWS = [
    # (id, stage arguments, environment ({tmp} is a scratch folder), exit code, phrase)
    row("TAO_SCRIPT unset", [], {"TAO_PROVIDER": "scripted"}, 1, "set TAO_SCRIPT"),
    row("TAO_SCRIPT a folder", [], {"TAO_PROVIDER": "scripted", "TAO_SCRIPT": "{tmp}"}, 1,
     "is a folder"),
    row("TAO_SCRIPT missing", [], {"TAO_PROVIDER": "scripted", "TAO_SCRIPT": "{tmp}/no.json"}, 1,
     "no such file"),
    row("TAO_SCRIPT not JSON", [], {"TAO_PROVIDER": "scripted", "TAO_SCRIPT": "{tmp}/bad.json"},
     1, "is not valid JSON"),
    row("TAO_SCRIPT wrong shape", [],
     {"TAO_PROVIDER": "scripted", "TAO_SCRIPT": "{tmp}/shape.json"}, 1, "entry 1 (42)"),
    row("TAO_SCRIPT not a list", [],
     {"TAO_PROVIDER": "scripted", "TAO_SCRIPT": "{tmp}/object.json"}, 1, "must hold a JSON list"),
    row("TAO_PROVIDER unknown", [], {"TAO_PROVIDER": "bogus"}, 1, "unknown provider 'bogus'"),
    row("--provider unknown", ["--provider", "bogus"], {}, 2, "invalid choice: 'bogus'"),
    row("--quirk unknown", ["--quirk", "bogus"], {}, 2, "invalid choice: 'bogus'"),
    row("--save-trace in a missing folder", ["--save-trace", "{tmp}/no/such/t.svg"], {}, 2,
     "there is no folder"),
    row("--save-trace a folder", ["--save-trace", "{tmp}/dir.svg"], {}, 2, "is a folder"),
    row("--save-trace not svg or html", ["--save-trace", "{tmp}/t.txt"], {}, 2,
     "name a .svg or .html file"),
    row("key missing", ["--provider", "anthropic"], {}, 1, "ANTHROPIC_API_KEY"),
    row("TAO_OFFLINE_DELAY not a number", [], {"TAO_OFFLINE_DELAY": "abc"}, 1,
                 "TAO_OFFLINE_DELAY"),
    row("TAO_OFFLINE_DELAY negative", [], {"TAO_OFFLINE_DELAY": "-1"}, 1,
                 "TAO_OFFLINE_DELAY"),
    row("TAO_OFFLINE_QUIRK unknown", [], {"TAO_OFFLINE_QUIRK": "bogus"}, 1, "unknown quirk"),
    row("TAO_TIMEOUT not a number", ["--provider", "openai"],
                 {"TAO_TIMEOUT": "abc", "OPENAI_API_KEY": "sk-test-0123456789",
                  "OPENAI_BASE_URL": CLOSED_PORT}, 1, "TAO_TIMEOUT", marks=pytest.mark.sdk),
]


def one_line(stderr: str) -> str:
    """The error line: stderr minus the 'model: ...' announcement a stage makes first."""
    lines = [line for line in stderr.splitlines()
             if not line.startswith(("model: ", "       for a real model"))]
    assert len(lines) == 1, "expected one line, got:\n" + stderr
    return lines[0]


@pytest.fixture
def scratch(tmp_path):
    """A folder with the broken files the rows name."""
    (tmp_path / "bad.json").write_text("[1, 2", encoding="utf-8")
    (tmp_path / "shape.json").write_text("[42, null]", encoding="utf-8")
    (tmp_path / "object.json").write_text('{"text": "hi"}', encoding="utf-8")
    (tmp_path / "dir.svg").mkdir()
    return tmp_path


@pytest.mark.parametrize(("what", "args", "env", "code", "phrase"), ROWS,
                         ids=[row.values[0] for row in ROWS])
def test_a_configuration_mistake_is_one_line(scratch, what, args, env, code, phrase):
    args = [a.replace("{tmp}", str(scratch)) for a in args]
    env = {k: v.replace("{tmp}", str(scratch)) for k, v in env.items()}
    done = run_stage("01", *args, "hi", **env)
    assert "Traceback" not in done.stderr + done.stdout, done.stderr
    assert done.returncode == code, f"{what}: exit {done.returncode}\n{done.stderr}"
    line = one_line(done.stderr)
    assert phrase in line, f"{what}: {line!r} does not say {phrase!r}"
    assert "you>" not in done.stdout, f"{what}: the session started before the check"


@pytest.mark.sdk
def test_an_unknown_model_is_one_line():
    with FakeAPI("openai") as api:
        api.queue(HTTPError(404, {"error": {
            "message": "The model `gpt-nope` does not exist", "type": "invalid_request_error",
            "param": None, "code": "model_not_found"}}))
        done = run_stage("01", "--provider", "openai", "--model", "gpt-nope", "hi",
                         OPENAI_API_KEY="sk-test-0123456789", OPENAI_BASE_URL=api.base_url)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    line = one_line(done.stderr)
    assert "404" in line and "model" in line and "gpt-nope" in line, line


@pytest.mark.parametrize(("provider", "phrase"), [("bogus", "unknown provider 'bogus'"),
                                                  ("anthropic", "ANTHROPIC_API_KEY is not set")])
def test_tour_with_a_provider_that_cannot_work_says_so_once(provider, phrase):
    done = run_tao("tour", "--provider", provider)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count(phrase) == 1 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "stage 01" not in done.stdout, "the tour started anyway"
