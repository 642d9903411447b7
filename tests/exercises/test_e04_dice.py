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
    assert tool({}).startswith("Error: "), (
        "after the recorded results run out, replay should return an 'Error: ...' string")
    assert kept == ["5", "7"], "replay must not use up the caller's list"
