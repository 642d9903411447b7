"""What `tao` knows about each exercise without running it (tao/exercise_state.py),
on a small kit of its own (`helpers.small_kit`): the catalogue and its numbers, each
exercise's status from its file and the last check (is an exercise edited after its last
check still "done"?), and the exercise in focus (which comes after the last one?)."""

from __future__ import annotations

import pytest
from helpers import SMALL_KIT, small_kit, solve

from tao import exercise_state as state


@pytest.fixture
def kit(tmp_path, monkeypatch):
    return small_kit(tmp_path, monkeypatch)


def checked(exercises, **outcomes):
    """Remember a check of the named exercises: name -> status."""
    state.save_results({name: state.Result(status, "test_x" if status != "done" else "",
                                           "said so" if status != "done" else "")
                        for name, status in outcomes.items()}, exercises)


# ---------------------------------------------------------------- the catalogue


def test_the_catalogue_is_numbered_from_one_in_order_with_its_paths(kit):
    assert [(e.number, e.name) for e in kit] == list(enumerate(SMALL_KIT, start=1))
    first = kit[0]
    assert (first.title, first.stage, first.hint) == ("Title 1", "04", "hint 1")
    assert first.where() == "exercises/e01_first.py"
    assert first.stub == state.STUBS / "e01_first.py"
    assert first.solution == state.EXERCISES / "solutions" / "e01_first.py"
    assert first.tests == state.EXERCISE_TESTS / "test_e01_first.py"


@pytest.mark.parametrize("ref", ["2", "02", "e02_second"])
def test_an_exercise_is_found_by_number_or_name(kit, ref):
    assert state.find(ref).name == "e02_second"


@pytest.mark.parametrize("ref", ["0", "4", "e02", "second", "2x"])
def test_an_unknown_exercise_names_the_choices(kit, ref):
    with pytest.raises(ValueError, match="1 to 3"):
        state.find(ref)


# ---------------------------------------------------------------- status without a run


def test_a_stub_is_not_attempted_and_a_missing_file_says_how_to_restore_it(kit):
    first, second = kit[0], kit[1]
    second.path.unlink()
    known = state.statuses(kit)
    assert known[first.name].status == "not attempted"
    assert known[second.name].status == "missing"
    assert second.where() in known[second.name].message


def test_an_edit_is_edited_until_it_is_checked(kit):
    first = kit[0]
    solve(first)
    assert state.statuses(kit)[first.name].status == "edited"
    checked(kit, e01_first="done")
    assert state.statuses(kit)[first.name].status == "done"


def test_an_exercise_edited_after_its_last_check_is_no_longer_done(kit):
    first = kit[0]
    solve(first)
    checked(kit, e01_first="done")
    solve(first, "def solved():\n    return 2\n")  # same size: only the digest tells
    assert state.statuses(kit)[first.name].status == "edited"


def test_a_failing_check_is_remembered_with_the_test_and_what_it_said(kit):
    first = kit[0]
    solve(first)
    checked(kit, e01_first="failing")
    known = state.statuses(kit)[first.name]
    assert (known.status, known.test, known.message) == ("failing", "test_x", "said so")


def test_a_file_put_back_to_its_stub_is_not_attempted_whatever_was_checked(kit):
    first = kit[0]
    solve(first)
    checked(kit, e01_first="done")
    state.restore_stub(first)
    assert first.path.read_bytes() == first.stub.read_bytes()
    assert state.statuses(kit)[first.name].status == "not attempted"


def test_without_its_stub_an_unchecked_file_is_edited(kit):
    first = kit[0]
    first.stub.unlink()
    assert state.statuses(kit)[first.name].status == "edited"


def test_saving_one_result_keeps_the_others_and_the_current_exercise(kit):
    first, second, third = kit
    for e in kit:
        solve(e)
    checked(kit, e01_first="done", e02_second="failing")
    state.pick(third)
    third.path.unlink()
    checked(kit, e01_first="failing", e03_third="done")  # e03 is gone: nothing to remember
    known = state.statuses(kit)
    assert known[first.name].status == "failing"
    assert known[second.name].status == "failing"
    assert known[third.name].status == "missing"
    assert state.read_progress()[state.CURRENT] == third.name
    assert third.name not in state.read_progress()


@pytest.mark.parametrize("text", ["", "{not json", "\xff"])
def test_an_unreadable_progress_file_is_no_progress(kit, text):
    state.PROGRESS.write_bytes(text.encode("latin-1"))
    assert state.read_progress() == {}
    assert state.statuses(kit)[kit[0].name].status == "not attempted"


# ---------------------------------------------------------------- the current exercise


def test_the_current_exercise_is_the_first_not_done_when_none_was_picked(kit):
    assert state.current(kit, state.statuses(kit)) == kit[0]
    solve(kit[0])
    checked(kit, e01_first="done")
    assert state.current(kit, state.statuses(kit)) == kit[1]


def test_a_picked_exercise_stays_current_until_done_then_the_next_one_wrapping_round(kit):
    for e in kit:
        solve(e)
    checked(kit, e02_second="done")
    state.pick(kit[2])
    assert state.current(kit, state.statuses(kit)) == kit[2], "picked, not done: it stays"
    checked(kit, e03_third="done")
    assert state.current(kit, state.statuses(kit)) == kit[0], "after the last: the first"
    checked(kit, e01_first="done")
    assert state.current(kit, state.statuses(kit)) is None, "all done"


def test_picking_is_remembered_across_runs_and_the_last_pick_wins(kit):
    state.pick(kit[1])
    assert state.read_progress() == {state.CURRENT: kit[1].name}
    state.pick(kit[0])
    state.pick(kit[0])
    assert state.read_progress() == {state.CURRENT: kit[0].name}
    assert state.current(kit, state.statuses(kit)) == kit[0]


def test_every_edit_after_a_check_is_edited_whatever_its_digest(kit):
    first = kit[0]
    for n in range(8):  # digests fall either side of the last one: order must not matter
        solve(first, f"def solved():\n    return {n}\n")
        checked(kit, e01_first="done")
        assert state.statuses(kit)[first.name].status == "done"
        solve(first, f"def solved():\n    return {n + 10}\n")
        assert state.statuses(kit)[first.name].status == "edited", n


def test_the_number_in_an_exercises_name_finds_it_where_it_differs_from_its_place(kit):
    with (state.EXERCISES / "info.toml").open("a") as info:
        info.write('[[exercises]]\nname = "e07_seventh"\ntitle = "T"\nstage = "09"\n'
                   'hint = "h"\n')
    assert state.find("4").name == state.find("07").name == "e07_seventh"
