"""The stages' wiring (shared/stage_main.py), called as a stage's main.py calls it: which
trace paths are refused before a session starts, which provider a --quirk or --constrain
may go with, when the "how to get a real model" hint shows, and the exit code and the
line on stderr a session ends with. (test_config_errors.py runs the stages themselves
with the settings a learner gets wrong; test_wire.py, --show-wire.)"""

from __future__ import annotations

import argparse
import sys

import pytest

from shared import stage_main
from shared.providers import OfflineProvider, ProviderError


@pytest.mark.parametrize("name", ["t.svg", "t.SVG", "t.html", "t.htm"])
def test_a_trace_file_in_a_writable_folder_is_taken(tmp_path, name):
    assert stage_main.trace_path(str(tmp_path / name)) == str(tmp_path / name)


def test_a_trace_path_is_refused_for_its_kind_a_folder_or_a_missing_folder(tmp_path):
    (tmp_path / "dir.svg").mkdir()
    for bad in (tmp_path / "t.txt", tmp_path / "dir.svg", tmp_path / "nowhere" / "t.svg"):
        with pytest.raises(argparse.ArgumentTypeError):
            stage_main.trace_path(str(bad))


def session_args(provider, quirk=None):
    return argparse.Namespace(provider=provider, model=None, save_trace=None, show_wire=None,
                              quirk=quirk)


@pytest.mark.parametrize("provider", ["anthropic", "openai", "ollama"])
def test_a_quirk_with_a_real_provider_is_refused_before_it_is_built(provider):
    with pytest.raises(ProviderError, match="--quirk"):
        stage_main.open_session(session_args(provider, "fenced"), env={})


def test_a_quirk_goes_to_the_offline_model(capsys):
    with stage_main.open_session(session_args("offline", "fenced"), env={}) as (provider, _):
        assert provider.quirk == "fenced"


def test_the_hint_for_a_real_model_shows_only_when_no_key_chose_offline(capsys):
    stage_main.announce(OfflineProvider(), "no API key is set")
    hinted = capsys.readouterr().err
    stage_main.announce(OfflineProvider(), "chosen with --provider")
    plain = capsys.readouterr().err
    assert len(hinted.splitlines()) == 2 and "ANTHROPIC_API_KEY" in hinted
    assert len(plain.splitlines()) == 1 and "ANTHROPIC_API_KEY" not in plain


def test_show_wire_is_off_unless_asked_for():
    assert stage_main.wire_flavour(None) is None and stage_main.wire_flavour("") is None
    assert stage_main.wire_flavour("openai") == "openai"


def test_the_parser_reads_the_command_line_only_when_given_nothing(monkeypatch):
    parser = stage_main.stage_parser("A stage.")
    monkeypatch.setattr(sys, "argv", ["main.py", "--provider", "offline"])
    assert parser.parse_args().provider == "offline"
    assert parser.parse_args(["--provider", "ollama"]).provider == "ollama"


def ended(main) -> int:
    """The exit code `stage_main.run(main)` leaves with, as a stage's last line does."""
    with pytest.raises(SystemExit) as exit_:
        stage_main.run(main)
    return exit_.value.code


@pytest.fixture
def terminal_left_alone(monkeypatch):
    """run() without prepare_terminal: this process's streams and signals stay as they are."""
    monkeypatch.setattr(stage_main, "prepare_terminal", lambda: None)


def test_only_ctrl_c_leaves_a_blank_line_on_the_way_out(capsys, terminal_left_alone):
    def cancelled():
        raise KeyboardInterrupt

    def failed():
        raise ProviderError("anthropic: overloaded")

    assert ended(cancelled) == 130 and capsys.readouterr().err == "\ncancelled (Ctrl-C)\n"
    assert ended(failed) == 1 and capsys.readouterr().err == "error: anthropic: overloaded\n"


def test_a_quirk_with_offline_named_on_the_command_line_is_taken(capsys):
    typed = "".join(["off", "line"])  # a name from argv is a new string, not the literal
    with stage_main.open_session(session_args(typed, "fenced"), env={}) as (provider, _):
        assert provider.quirk == "fenced"


def test_tao_model_and_tao_show_wire_work_without_their_flags(capsys):
    from shared.wire import WireTap

    env = {"TAO_MODEL": "offline-test-model", "TAO_SHOW_WIRE": "openai"}
    with stage_main.open_session(session_args("offline"), env=env) as (provider, _):
        assert isinstance(provider, WireTap) and provider.flavour == "openai"
        assert provider.model == "offline-test-model"
    with stage_main.open_session(session_args("offline"), env={}) as (provider, _):
        assert not isinstance(provider, WireTap)
        assert provider.model != "offline-test-model"


@pytest.mark.parametrize(("writable", "refused"), [
    ({"folder", "file"}, False), ({"folder"}, True), ({"file"}, True), (set(), True)])
def test_a_trace_path_needs_its_folder_and_an_existing_file_writable(tmp_path, monkeypatch,
                                                                      writable, refused):
    target = tmp_path / "t.svg"
    target.write_text("an older trace")
    names = {tmp_path: "folder", target: "file"}
    monkeypatch.setattr(stage_main.os, "access",
                        lambda path, mode: names.get(type(tmp_path)(path)) in writable)
    if refused:
        with pytest.raises(argparse.ArgumentTypeError):
            stage_main.trace_path(str(target))
    else:
        assert stage_main.trace_path(str(target)) == str(target)


def test_main_s_own_exit_code_is_kept_and_no_code_is_success(capsys, terminal_left_alone):
    assert ended(lambda: 3) == 3
    assert ended(lambda: None) == 0
    assert ended(lambda: "done") == 0
    assert capsys.readouterr().err == "", "a session that ends as it should says nothing"


def test_a_session_ended_quietly_or_by_ctrl_d_exits_zero():
    assert stage_main.last_words(None) == (0, "")
    assert stage_main.last_words(EOFError()) == (0, "")


def test_a_reader_that_stops_reading_ends_the_stage_with_exit_code_one(monkeypatch,
                                                                       terminal_left_alone):
    # `python main.py | head -1`: the print after head left raises BrokenPipeError; the
    # stage stops printing (stdout to nothing) and exits 1, not 0 and not a traceback
    gone = []
    # private: the real one would silence this process's stdout (test_terminal closes a pipe)
    monkeypatch.setattr(stage_main, "_stdout_gone", lambda: gone.append(True))

    def printing():
        raise BrokenPipeError

    assert ended(printing) == 1 and gone == [True]
    assert ended(lambda: 0) == 0 and gone == [True]


def typed(text):
    return "".join(list(text))  # as read from a command line: a new string, not the literal


@pytest.mark.parametrize("value", ["offline", "replay:run.json", "replay:x"])
def test_a_provider_or_a_recording_to_replay_is_taken(value):
    assert stage_main.provider_name(typed(value)) == value


@pytest.mark.parametrize("value", ["replay:", "bogus", "replay", "Replay:run.json"])
def test_a_replay_needs_its_file_and_other_names_are_refused(value):
    with pytest.raises(argparse.ArgumentTypeError):
        stage_main.provider_name(typed(value))


def test_only_a_stage_with_a_registry_takes_constrain(capsys):
    registry = {"calculator": lambda expression: expression}
    with_registry = stage_main.stage_parser("A stage.", registry)
    args = with_registry.parse_args(["--constrain"])
    assert args.constrain is True and args.registry is registry
    assert with_registry.parse_args([]).constrain is False
    with pytest.raises(SystemExit):
        stage_main.stage_parser("A stage.").parse_args(["--constrain"])


@pytest.mark.parametrize("provider", ["offline", "anthropic", "ollama", "openai", "replay:x"])
def test_a_grammar_is_refused_for_any_model_but_the_local_one(provider):
    with pytest.raises(ProviderError, match="--constrain"):
        stage_main.constraint({"calculator": len}, typed(provider))


def test_the_local_model_gets_a_grammar_naming_the_registry_s_tools():
    grammar = stage_main.constraint({"calculator": len, "clock": len}, typed("local"))
    assert "calculator" in grammar and "clock" in grammar
