"""The `tao` command, one module per verb family.

- `command.py`: the argument parser and `main()`, the console script's entry point;
- `stage_verbs.py`: list, run, tour, doctor;
- `stage_diff.py`: diff, code first;
- `exercise_verbs.py`: check, hint, watch, reset, solution, and the exercise list;
- `repo.py`: the repository's paths and the one stage finder (tests and exercises use it too).
"""

from .command import main

__all__ = ["main"]
