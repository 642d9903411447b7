"""Wrong on purpose (e04): replay raises StopIteration once the recording runs out."""

import random
from collections.abc import Callable


def make_roll_d20(rng: random.Random) -> Callable[[dict], str]:
    """A `roll_d20` tool (args ignored) that rolls 1..20 with `rng`, as a string."""

    def roll_d20(args: dict) -> str:
        # all randomness comes from rng: seed it and the "dice" repeat exactly
        return str(rng.randint(1, 20))

    return roll_d20


def replay(recorded: list[str]) -> Callable[[dict], str]:
    """A tool returning `recorded` one per call, then `Error: ...`; `recorded` is kept as is."""
    results = iter(list(recorded))

    def replayed(args: dict) -> str:
        # a re-run must see what the first run saw; a fresh roll would change the story
        return next(results)

    return replayed
