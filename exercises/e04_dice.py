"""Exercise 04 (stage 06): a tool that is not deterministic.

`roll_d20` returns a different number each time, which makes an agent hard to test and
a transcript hard to re-run. Make the randomness injectable: `make_roll_d20(rng)` builds
the tool around any `random.Random`, so a seeded one gives the same rolls every run.
Then `replay(recorded)` builds a tool that hands back recorded results in order, which is
what re-running a recorded turn needs: the same observations, not fresh rolls.

    roll = make_roll_d20(random.Random(7)); roll({}) -> "11" (with randint; some number
    1..20, as a string), and make_roll_d20(random.Random(7)) rolls the same again

Each tool built has its own source: two built from two rngs, or two replays of two
recordings, never take from each other.
"""

import random
from collections.abc import Callable


def make_roll_d20(rng: random.Random) -> Callable[[dict], str]:
    """A `roll_d20` tool (args ignored) that rolls 1..20 with `rng`, as a string."""
    # TODO: define roll_d20(args) inside, using rng.randint, and return it
    raise NotImplementedError("exercise 04: make_roll_d20")


def replay(recorded: list[str]) -> Callable[[dict], str]:
    """A tool returning `recorded` one per call, then `Error: ...`; `recorded` is kept as is."""
    # TODO: keep an iterator over the recorded results inside the returned tool
    raise NotImplementedError("exercise 04: replay")
