# Don't change the tests! They tell you when exercises/e04_dice.py is done.
import json
import random

from exercise_support import need

from shared.providers import ScriptedProvider
from tao.repo import load_stage

ROLL = json.dumps({"tool": "roll_d20", "args": {}})


def three_rolls_and_a_sum(tool):
    """One turn of stage 06's loop: three rolls, then the model answers; the observations."""
    loop = load_stage("06", "loop")
    loop.TOOLS["roll_d20"] = tool
    model = ScriptedProvider([ROLL, ROLL, ROLL, "That's the total."])
    assert loop.agent_step("roll three d20 and add them", [], model, "") == "That's the total."
    seen = model.calls[-1]["messages"]
    return [m["content"].split("\n")[1] for m in seen if m["content"].startswith("<tool_result")]


def test_rolls_are_between_1_and_20_and_come_from_the_rng(ex):
    make = need(ex, "make_roll_d20", "rng")
    rolls = [make(random.Random(seed))({}) for seed in range(200)]
    assert all(isinstance(r, str) for r in rolls), "a tool returns strings"
    values = {int(r) for r in rolls}
    assert values <= set(range(1, 21)), f"rolls out of 1..20: {sorted(values - set(range(1, 21)))}"
    assert len(values) > 10, "200 seeds should give many different rolls: use the rng you are given"
    roll = make(random.Random(0))
    many = {int(roll({})) for _ in range(2000)}
    assert many == set(range(1, 21)), (
        f"2000 rolls should show every face from 1 to 20; missing "
        f"{sorted(set(range(1, 21)) - many)} (randint includes both ends, randrange leaves "
        "out the top)")


def test_the_docstrings_example_rolls_the_same_twice(ex):
    make = need(ex, "make_roll_d20", "rng")
    first = make(random.Random(7))({})
    again = make(random.Random(7))({"sides": 6})  # args are ignored
    assert isinstance(first, str) and first.isdigit() and 1 <= int(first) <= 20, (
        f"roll({{}}) should be a number from 1 to 20 as a string, got {first!r}")
    assert again == first, (
        f"make_roll_d20(random.Random(7)) rolled {first!r}, then a second tool on a new "
        f"random.Random(7) rolled {again!r}: the same seed must give the same roll")


def test_each_tool_rolls_with_its_own_rng(ex):
    make = need(ex, "make_roll_d20", "rng")
    alone = {}
    for seed in (1, 2):
        roll = make(random.Random(seed))
        alone[seed] = [roll({}) for _ in range(5)]
    a, b = make(random.Random(1)), make(random.Random(2))
    both = [(a({}), b({})) for _ in range(5)]  # taking turns
    assert [x for x, _ in both] == alone[1] and [y for _, y in both] == alone[2], (
        "two tools built on random.Random(1) and random.Random(2), rolling in turns, should "
        f"each roll what its own rng gives alone ({alone[1]} and {alone[2]}); they rolled "
        f"{[x for x, _ in both]} and {[y for _, y in both]}: keep each rng in its own tool "
        "(a closure), not in one module-level name")


def test_each_replay_has_its_own_recording(ex):
    replay = need(ex, "replay", "recorded")
    first, second = replay(["5", "7"]), replay(["19", "2"])
    got = [first({}), second({}), first({}), second({})]
    assert got == ["5", "19", "7", "2"], (
        "two replays, called in turns, should each hand back their own recording in order "
        f"(5, 19, 7, 2); they gave {got}")


def test_a_seeded_turn_repeats_exactly(ex):
    make = need(ex, "make_roll_d20", "rng")
    first = three_rolls_and_a_sum(make(random.Random(42)))
    again = three_rolls_and_a_sum(make(random.Random(42)))
    assert len(first) == 3 and first == again, (
        f"the same seed must give the same three rolls, got {first} then {again}")
    assert 3 <= sum(map(int, first)) <= 60


def test_replay_gives_a_rerun_the_recorded_observations(ex):
    make, replay = need(ex, "make_roll_d20", "rng"), need(ex, "replay", "recorded")
    recorded = three_rolls_and_a_sum(make(random.Random(1)))
    rerun = three_rolls_and_a_sum(replay(recorded))
    assert rerun == recorded, "a re-run must see the recorded results, not new rolls"
    kept = ["5", "7"]
    tool = replay(kept)
    assert [tool({}), tool({})] == ["5", "7"], "replay hands back the results in order"
    assert tool({}).startswith("Error: ") and tool({}).startswith("Error: "), (
        "after the recorded results run out, replay should return an 'Error: ...' string, "
        "every time it is called")
    empty = replay([])({})
    assert isinstance(empty, str) and empty.startswith("Error: "), (
        f"replay([]) has nothing to hand back: its first call should be 'Error: ...', "
        f"got {empty!r}")
    assert kept == ["5", "7"], "replay must not use up the caller's list"
